import { readFileSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, LIMITS, parseMessage } from '../lib/messages';
import { MAX_DEPTH, readPage, shouldRead } from '../lib/page-reader';

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
  // a minute while Readability read it (test/e2e/hostile.e2e.ts).
  it('a page nested deeper than MAX_DEPTH is not read: too large, and the message is valid', () => {
    const levels = 5000;
    const { document } = parseHTML(`<html><body>${'<div>'.repeat(levels)}${fixture('news-en.html')}${'</div>'.repeat(levels)}</body></html>`);
    const payload = readPage(document, 'https://a.example/deep');
    expect(payload.outcome).toEqual({ kind: 'not-article', reason: 'too-large', message: `The page is nested more than ${MAX_DEPTH} elements deep, too deep to read.` });
    expect(() => parseMessage({ type: 'page/extracted', payload })).not.toThrow();
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
