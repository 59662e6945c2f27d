import { readFileSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, LIMITS, parseMessage } from '../lib/messages';
import { extractArticle } from '../lib/extract';
import { MAX_DEPTH, MAX_ELEMS_TO_PARSE, READER_OPTIONS, readPage, shouldRead } from '../lib/page-reader';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe('readPage', () => {
  it('reads an article into a message the background accepts', () => {
    const payload = readPage(parseHTML(fixture('news-en.html')).document, 'https://gazette.example/ferry');
    expect(payload.outcome.kind).toBe('article');
    expect(parseMessage({ type: 'page/extracted', payload }).payload).toEqual(payload);
  });

  it('a login form is not an article, with a reason', () => {
    const payload = readPage(parseHTML(fixture('login.html')).document, 'https://a.example/login');
    expect(payload.outcome).toMatchObject({ kind: 'not-article' });
    expect(parseMessage({ type: 'page/extracted', payload }).type).toBe('page/extracted');
  });

  it('clips a huge hostile title to the protocol limit, so the message is still valid', () => {
    const title = '<img src=x onerror=alert(1)>'.repeat(2000);
    const { document } = parseHTML(`<html><head><title>${title.replace(/</g, '&lt;')}</title></head><body>${fixture('news-en.html')}</body></html>`);
    const payload = readPage(document, 'https://a.example/x');
    expect(payload.title.length).toBeLessThanOrEqual(LIMITS.titleChars);
    expect(() => parseMessage({ type: 'page/extracted', payload })).not.toThrow();
  });

  // Regression test (was a bug): a page whose script nested 5,000 elements froze its tab for over
  // a minute while Readability read it (test/e2e/hostile.e2e.ts). Past MAX_DEPTH Readability is
  // not used: the page gets the simple reading, its text without Readability.
  it('a page nested deeper than MAX_DEPTH gets the simple reading, and the message is valid', () => {
    const levels = 5000;
    const { document } = parseHTML(`<html><body>${'<div>'.repeat(levels)}${fixture('news-en.html')}${'</div>'.repeat(levels)}</body></html>`);
    expect(MAX_DEPTH).toBeLessThan(levels);
    const payload = readPage(document, 'https://a.example/deep');
    const readability = readPage(parseHTML(fixture('news-en.html')).document, 'https://a.example/shallow');
    if (payload.outcome.kind !== 'article' || readability.outcome.kind !== 'article') throw new Error(`not read: ${JSON.stringify(payload.outcome)}`);
    // the simple reading has every paragraph Readability found, and the page's other text too
    for (const paragraph of readability.outcome.text.split('\n\n').slice(1, 4)) expect(payload.outcome.text).toContain(paragraph.slice(0, 60));
    expect(() => parseMessage({ type: 'page/extracted', payload })).not.toThrow();
  });

  it('a page past the element cap gets the simple reading; one under every cap is read by Readability', () => {
    const spans = '<div>' + '<span></span>'.repeat(100) + '</div>';
    const many = parseHTML(`<html><body><main>${fixture('news-en.html')}</main>${spans.repeat(Math.ceil(MAX_ELEMS_TO_PARSE / 101) + 1)}</body></html>`).document;
    expect(extractArticle(many, READER_OPTIONS)).toMatchObject({ ok: true, reading: 'simple' });
    expect(extractArticle(parseHTML(fixture('news-en.html')).document, READER_OPTIONS)).toMatchObject({ ok: true, reading: 'readability' });
  });

  it('never throws, even on a document without a root', () => {
    const payload = readPage(parseHTML('').document, 'https://a.example/empty');
    expect(payload.outcome).toEqual({ kind: 'not-article', reason: 'no-article', message: 'The page is empty.' });
  });
});

describe('shouldRead', () => {
  it.each([
    ['https://a.example/x', DEFAULT_SETTINGS, true],
    ['https://a.example/x', { ...DEFAULT_SETTINGS, paused: true }, false],
    ['https://a.example/x', { ...DEFAULT_SETTINGS, excludedSites: ['a.example'] }, false],
    ['https://b.a.example/x', { ...DEFAULT_SETTINGS, excludedSites: ['a.example'] }, true],
    ['about:blank', DEFAULT_SETTINGS, false],
    ['file:///tmp/x.html', DEFAULT_SETTINGS, false],
  ])('%s %j → %s', (url, settings, expected) => expect(shouldRead(url, settings)).toBe(expected));

  it('reads a page in a private window only if recording there is allowed', () => {
    expect(shouldRead('https://a.example/x', DEFAULT_SETTINGS, true)).toBe(false);
    expect(shouldRead('https://a.example/x', { ...DEFAULT_SETTINGS, recordIncognito: true }, true)).toBe(true);
    expect(shouldRead('https://a.example/x', { ...DEFAULT_SETTINGS, recordIncognito: true, paused: true }, true)).toBe(false);
    expect(shouldRead('https://a.example/x', DEFAULT_SETTINGS, false)).toBe(true);
  });
});
