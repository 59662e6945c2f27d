import { readFileSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, LIMITS, parseMessage } from '../lib/protocol/messages';
import { extractArticle } from '../lib/text/extract';
import { KEPT_STYLE_ATTRIBUTE, readHtml, readPage, restoreInlineStyles, withoutInlineStyles } from '../lib/background/html-reader';
import { MAX_DEPTH, MAX_ELEMS_TO_PARSE, MAX_HTML_CHARS, READER_OPTIONS, capturePage, shouldRead } from '../lib/content/page-reader';

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

const linkedom = (html: string) => parseHTML(html).document as unknown as Document;

describe('capturePage (the content script) and readHtml (the reader document)', () => {
  it('sends an ordinary page as its HTML, which the reader reads as the page itself would be read', () => {
    const doc = parseHTML(fixture('news-en.html')).document;
    const message = capturePage(doc, 'https://gazette.example/ferry');
    if (message.type !== 'page/html') throw new Error(`sent ${message.type}`);
    expect(message.payload).toEqual({ url: 'https://gazette.example/ferry', html: doc.documentElement.outerHTML });
    expect(parseMessage(message).payload).toEqual(message.payload);
    const read = readHtml(message.payload.html, message.payload.url, linkedom);
    expect(read.outcome.kind).toBe('article');
    expect(read).toEqual(readPage(parseHTML(fixture('news-en.html')).document, 'https://gazette.example/ferry'));
    expect(parseMessage({ type: 'page/extracted', payload: read }).payload).toEqual(read);
  });

  it('never changes the page: reading it took nothing from the page\'s document', () => {
    const doc = parseHTML(fixture('news-en.html')).document;
    const before = doc.documentElement.outerHTML;
    capturePage(doc, 'https://gazette.example/ferry');
    expect(doc.documentElement.outerHTML).toBe(before);
  });

  it('reads a page past a cap on the page itself (the simple reading), and sends no HTML', () => {
    const levels = 5000;
    const deep = parseHTML(`<html><body>${'<div>'.repeat(levels)}${fixture('news-en.html')}${'</div>'.repeat(levels)}</body></html>`).document;
    const message = capturePage(deep, 'https://a.example/deep');
    expect(message).toMatchObject({ type: 'page/extracted', payload: { outcome: { kind: 'article' } } });
    expect(JSON.stringify(message)).not.toContain('<div>');
  });

  it('a page whose HTML is past MAX_HTML_CHARS (within the other caps) gets the simple reading', () => {
    const inline = `<script>/*${'x'.repeat(MAX_HTML_CHARS)}*/</script>`;
    const doc = parseHTML(`<html><head>${inline}</head><body>${fixture('news-en.html')}</body></html>`).document;
    const message = capturePage(doc, 'https://a.example/heavy');
    expect(message).toMatchObject({ type: 'page/extracted', payload: { outcome: { kind: 'article' } } });
    const small = parseHTML(`<html><head><script>/*${'x'.repeat(1000)}*/</script></head><body>${fixture('news-en.html')}</body></html>`).document;
    expect(capturePage(small, 'https://a.example/light').type).toBe('page/html');
  });

  it('a document without a root is "empty", and HTML that cannot be parsed is not read, with the reason', () => {
    expect(capturePage(parseHTML('').document, 'https://a.example/empty')).toEqual({
      type: 'page/extracted',
      payload: { url: 'https://a.example/empty', title: '', lang: null, siteName: null, outcome: { kind: 'not-article', reason: 'no-article', message: 'The page is empty.' } },
    });
    const failing = readHtml('<p>x</p>', 'https://a.example/x', () => {
      throw new Error('parser gone');
    });
    expect(failing.outcome).toEqual({ kind: 'not-article', reason: 'no-article', message: 'The page could not be read: parser gone' });
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

describe('withoutInlineStyles / restoreInlineStyles (the reader document parses under the extension\'s CSP)', () => {
  it.each([
    ['<div style="display: none">x</div>', '<div data-doppel-style="display: none">x</div>'],
    ['<P class="a" STYLE="color: red" id="b">x</P>', '<P class="a" data-doppel-style="color: red" id="b">x</P>'],
    ['<head><style>p { color: red }</style><style media="print">a{}</style ></head><p>x</p>', '<head></head><p>x</p>'],
    ['<svg><style>.a{}</style><rect style="fill: red"></rect></svg>', '<svg><rect data-doppel-style="fill: red"></rect></svg>'],
    // a ">" inside a quoted value does not end the tag; a "style=" inside a value is left alone
    ['<a title="1 > 0" style="display: none">x</a>', '<a title="1 > 0" data-doppel-style="display: none">x</a>'],
    ['<img alt="mystyle=wide">', '<img alt="mystyle=wide">'],
    // text that mentions style (escaped, as outerHTML writes it) is not touched
    ['<p>Use &lt;div style="x"&gt; and style = "y".</p>', '<p>Use &lt;div style="x"&gt; and style = "y".</p>'],
  ])('%s', (html, expected) => expect(withoutInlineStyles(html)).toBe(expected));

  it('hidden text stays hidden: the reading of the HTML equals the reading of the page', () => {
    const hidden = '<p style="display: none">Subscribe now to read every story in the archive without limits, for one low monthly price today only.</p>';
    const page = `<html><head><title>Ferry</title><style>p { margin: 0 }</style></head><body><article>${hidden}${fixture('news-en.html')}</article></body></html>`;
    const direct = readPage(parseHTML(page).document, 'https://a.example/ferry');
    const viaHtml = readHtml(page, 'https://a.example/ferry', linkedom);
    if (direct.outcome.kind !== 'article') throw new Error('not read');
    expect(direct.outcome.text).not.toContain('Subscribe now');
    expect(viaHtml).toEqual(direct);
    const doc = linkedom(withoutInlineStyles(page));
    restoreInlineStyles(doc);
    expect((doc.querySelector(`[${KEPT_STYLE_ATTRIBUTE}]`) as HTMLElement).style.display).toBe('none');
  });
});
