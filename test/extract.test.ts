// extractArticle on fixture pages (test/fixtures/*.html) parsed with linkedom.
import { readFileSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { extractArticle } from '../lib/text/extract';
import { type Article, DEFAULT_MAX_DEPTH, DEFAULT_MAX_TEXT_CHARS, type Extraction, blockText, capText, deeperThan, mainElement, readabilityWork } from '../lib/text/reading';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const parse = (html: string): Document => parseHTML(html).document as unknown as Document;
const serialize = (doc: Document): string => String(doc);

/** Extracts, checking that the document is left exactly as it was. */
function extractUnchanged(doc: Document, options?: Parameters<typeof extractArticle>[1]): Extraction {
  const before = serialize(doc);
  const result = extractArticle(doc, options);
  expect(serialize(doc)).toBe(before);
  return result;
}

function expectArticle(result: Extraction): Article {
  if (!result.ok) throw new Error(`expected an article, got ${result.reason}: ${result.message}`);
  return result;
}

/** A message a person understands: a full sentence, no code or placeholders. */
function expectReadableMessage(message: string): void {
  expect(message).toMatch(/^[A-Z].*\.$/s);
  expect(message).not.toMatch(/undefined|null|NaN|\[object|TypeError|Error:|at \w+ \(/);
}

describe('English news page with navigation, sidebar, comments and footer', () => {
  const doc = parse(fixture('news-en.html'));
  const result = expectArticle(extractUnchanged(doc));

  it('finds the article, its title, language and site name', () => {
    expect(result.title).toBe('Harbour town votes to restore its old ferry line');
    expect(result.lang).toBe('en');
    expect(result.siteName).toBe('The Coastal Gazette');
    expect(result.truncated).toBe(false);
  });

  it('keeps the article paragraphs, first to last, separated by a blank line', () => {
    expect(result.text.startsWith('Residents of Port Amberley voted on Tuesday')).toBe(true);
    expect(result.text.endsWith('"A boat changes what we can keep on the shelves."')).toBe(true);
    expect(result.text).toContain(
      'sold for scrap.\n\nThe council\'s proposal won the support of 68 percent',
    );
    expect(result.text.split('\n\n')).toHaveLength(6);
    expect(result.text).not.toMatch(/\n{3,}|[ \t]\n|\n[ \t]/);
  });

  it.each([
    ['navigation', 'Subscribe today and save'],
    ['navigation', 'Politics'],
    ['sidebar', 'Ten best bakeries along the coast'],
    ['advertisement', 'lawn mowers'],
    ['comments', 'fix the potholes first'],
    ['footer', 'All rights reserved'],
  ])('leaves out the %s ("%s")', (_where, phrase) => {
    expect(result.text).not.toContain(phrase);
  });
});

describe.each<[string, string, string | RegExp, string, string]>([
  // [fixture, lang, title, first words, last words]
  ['article-es.html', 'es', 'La biblioteca del barrio cumple cien años', 'La biblioteca municipal de San Andrés', 'llevaban años haciendo.'],
  ['article-zh.html', 'zh-CN', /^山村小学迎来第一座图书馆/, '山村小学迎来第一座图书馆', '定期借到新书。'],
  ['article-ar.html', 'ar', 'افتتاح حديقة عامة جديدة في وسط المدينة', 'افتتاح حديقة عامة جديدة', 'في نهاية كل أسبوع.'],
])('%s', (name, lang, title, first, last) => {
  const result = expectArticle(extractUnchanged(parse(fixture(name))));

  it('is an article with its title and language', () => {
    if (typeof title === 'string') expect(result.title).toBe(title);
    else expect(result.title).toMatch(title);
    expect(result.lang).toBe(lang);
    expect(result.truncated).toBe(false);
  });

  it('has the article text, paragraphs separated by blank lines, and no navigation or footer', () => {
    expect(result.text.startsWith(first)).toBe(true);
    expect(result.text.endsWith(last)).toBe(true);
    expect(result.text.split('\n\n').length).toBeGreaterThanOrEqual(5);
    expect(result.text).not.toMatch(/Portada|Deportes|derechos reservados|首页|版权所有|الرئيسية|الحقوق محفوظة/);
  });
});

describe('pages that are not articles', () => {
  it('a login form is too short to compare, with a message a person understands', () => {
    const result = extractUnchanged(parse(fixture('login.html')));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(['no-article', 'too-short']).toContain(result.reason);
    expect(result.title).toBe('Sign in - Example Mail');
    expectReadableMessage(result.message);
    expect(result.message).toMatch(/too short|no article/i);
  });

  it('an empty document (html, head and body, nothing in them) has no article', () => {
    const result = extractUnchanged(parse('<!DOCTYPE html><html><head><title></title></head><body></body></html>'));
    expect(result).toEqual({ ok: false, reason: 'no-article', title: '', message: 'No article was found on this page.' });
  });

  // Regression test (was a bug): linkedom parses '' (or text without any tag) into a document without a
  // documentElement, on which `doc.title` throws; extractArticle reads it outside its try, so it
  // throws a TypeError instead of returning { ok: false }.
  it('an empty string parsed by linkedom gives { ok: false }, not an exception', () => {
    const result = extractArticle(parse(''));
    expect(result.ok).toBe(false);
  });

  // linkedom's getElementsByTagName('*') matches nothing, and Readability counts elements with
  // it, so this runs with a browser-faithful '*' for the duration of the call.
  it('a page with more elements than maxElemsToParse is too large (DOM with getElementsByTagName("*"))', () => {
    const doc = parse(fixture('news-en.html'));
    let owner: object | null = doc;
    while (owner && !Object.prototype.hasOwnProperty.call(owner, 'getElementsByTagName')) owner = Object.getPrototypeOf(owner);
    const target = owner as { getElementsByTagName(name: string): unknown };
    const original = target.getElementsByTagName;
    target.getElementsByTagName = function (this: Document, name: string) {
      return name === '*' ? this.querySelectorAll('*') : original.call(this, name);
    };
    let result: Extraction;
    try {
      expect(doc.getElementsByTagName('*').length).toBeGreaterThan(20);
      result = extractUnchanged(doc, { maxElemsToParse: 20 });
    } finally {
      target.getElementsByTagName = original;
    }
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe('too-large');
    expect(result.message).toBe('The page has more than 20 elements, too many to read.');
    expect(result.title).toBe('Harbour town votes to restore its old ferry line | The Coastal Gazette');
    expectReadableMessage(result.message);
  });

  // Regression test (was a bug): with linkedom as it is (bin/scan.ts, lib/scan/scan.ts in Node), maxElemsToParse
  // never applies: Readability counts getElementsByTagName('*'), which linkedom answers with
  // no elements.
  it('a page with more elements than maxElemsToParse is too large (linkedom as it is)', () => {
    const result = extractArticle(parse(fixture('news-en.html')), { maxElemsToParse: 20 });
    expect(result.ok).toBe(false);
    expect(result.ok ? null : result.reason).toBe('too-large');
  });

  it('the same page within maxElemsToParse is read', () => {
    expect(extractArticle(parse(fixture('news-en.html')), { maxElemsToParse: 10_000 }).ok).toBe(true);
  });
});

// Regression test (was a bug): Readability's time grows with the square of the nesting depth, and
// a page that built a tree 5,000 elements deep with a script froze its tab for over a minute
// (test/e2e/hostile.e2e.ts). Pages deeper than maxDepth are not read.
describe('a deeply nested page', () => {
  const nested = (levels: number): string =>
    `<!DOCTYPE html><html><head><title>Deep</title></head><body>${'<div>'.repeat(levels)}${fixture('news-en.html')}${'</div>'.repeat(levels)}</body></html>`;

  it('deeper than maxDepth is too large, at once, with a message a person understands', () => {
    const doc = parse(nested(5000));
    expect(deeperThan(doc.documentElement, 5000)).toBe(true);
    const result = extractUnchanged(doc, { maxDepth: 512 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe('too-large');
    expect(result.message).toBe('The page is nested more than 512 elements deep, too deep to read.');
    expect(result.title).toBe('Deep');
    expectReadableMessage(result.message);
  });

  it('the limit applies by default (DEFAULT_MAX_DEPTH = 512), so scan is protected too', () => {
    expect(DEFAULT_MAX_DEPTH).toBe(512);
    expect(extractArticle(parse(nested(600)))).toMatchObject({ ok: false, reason: 'too-large' });
    expect(extractArticle(parse(nested(400))).ok).toBe(true);
  });

  it('within maxDepth it is read', () => {
    const doc = parse(nested(40));
    expect(deeperThan(doc.documentElement, 40)).toBe(true);
    expect(deeperThan(doc.documentElement, 80)).toBe(false);
    expect(expectArticle(extractUnchanged(doc, { maxDepth: 80 })).title).toBe('Harbour town votes to restore its old ferry line');
  });

  it('deeperThan counts <html> as level 1', () => {
    const doc = parse('<html><head></head><body><p>x</p></body></html>');
    expect(deeperThan(doc.documentElement, 3)).toBe(false);
    expect(deeperThan(doc.documentElement, 2)).toBe(true);
  });
});

describe('hostile title', () => {
  const doc = parse(fixture('hostile-title.html'));
  const result = expectArticle(extractUnchanged(doc));

  it('returns the title as plain text, exactly as the page has it', () => {
    expect(result.title).toBe('<img src=x onerror=alert(1)>');
    expect(doc.querySelectorAll('img')).toHaveLength(0);
  });

  it('puts no markup into the text', () => {
    expect(result.text).not.toMatch(/[<>]/);
    expect(result.text.startsWith('This page has a title that looks like markup.')).toBe(true);
  });
});

describe('a huge article is cut at maxTextChars', () => {
  // ~3 MB: 3,000 paragraphs of ~1,000 characters, each ending with its number.
  const paragraphs = Array.from({ length: 3000 }, (_, i) => {
    const sentence = `Paragraph ${i} tells of the harbour, the ferry, the island and the weather on day ${i}. `;
    return sentence.repeat(Math.ceil(1000 / sentence.length)).trim() + ` End of paragraph ${i}.`;
  });
  const html =
    '<!DOCTYPE html><html lang="en"><head><title>A very long report</title></head><body><article>' +
    paragraphs.map((p) => `<p>${p}</p>`).join('\n') +
    '</article></body></html>';
  const full = paragraphs.join('\n\n');
  const max = 100_000;

  it('is about 3 MB', () => {
    expect(full.length).toBeGreaterThan(3_000_000);
  });

  it('gives truncated: true and text of at most maxTextChars, cut at a paragraph break', () => {
    const result = expectArticle(extractUnchanged(parse(html), { maxTextChars: max }));
    expect(result.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(max);
    expect(result.text.length).toBeGreaterThan(max * 0.9);
    expect(full.startsWith(result.text + '\n\n')).toBe(true); // a prefix, ending at a break
    const last = result.text.match(/End of paragraph (\d+)\.$/);
    expect(last).not.toBeNull();
    // The next paragraph would not have fitted.
    const nextEnd = `End of paragraph ${Number(last![1]) + 1}.`;
    expect(full.indexOf(nextEnd) + nextEnd.length).toBeGreaterThan(max);
  });

  it('with a cap above its length the whole text comes back, not truncated', () => {
    const result = expectArticle(extractArticle(parse(html), { maxTextChars: 10_000_000 }));
    expect(result.truncated).toBe(false);
    expect(result.text).toBe(full);
  });

  it('the default cap is DEFAULT_MAX_TEXT_CHARS', () => {
    const result = expectArticle(extractArticle(parse(html)));
    expect(DEFAULT_MAX_TEXT_CHARS).toBeLessThan(full.length);
    expect(result.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(DEFAULT_MAX_TEXT_CHARS);
    expect(result.text.length).toBeGreaterThan(DEFAULT_MAX_TEXT_CHARS * 0.9);
    expect(result.text.endsWith('.')).toBe(true);
    expect(full.startsWith(result.text + '\n\n')).toBe(true);
  });
});

describe('blockText', () => {
  it.each([
    ['paragraphs without whitespace between them', '<div><p>One.</p><p>Two.</p></div>', 'One.\n\nTwo.'],
    ['headings, list items and line breaks', '<div><h2>Title</h2><ul><li>a</li><li>b</li></ul>x<br>y</div>', 'Title\n\na\n\nb\n\nx\n\ny'],
    ['inline elements do not break words', '<p>new<b>s</b>paper <i>and</i> <a href="#">links</a></p>', 'newspaper and links'],
    ['script, style, noscript and template are left out', '<div><p>Kept</p><script>var x = 1;</script><style>p{}</style><noscript>n</noscript><template>t</template></div>', 'Kept'],
    ['runs of spaces collapse, blank lines collapse to one', '<div><p>  a   b  </p>\n\n\n<p>\n c </p></div>', 'a b\n\nc'],
    ['empty', '<div></div>', ''],
  ])('%s', (_name, html, expected) => {
    const doc = parse(`<!DOCTYPE html><html><body>${html}</body></html>`);
    expect(blockText(doc.body.firstChild!)).toBe(expected);
  });
});

describe('capText', () => {
  const text = 'aaaa aaaa\n\nbbbb bbbb\n\ncccc cccc';
  it.each([
    ['shorter than the cap: unchanged', 100, text, false],
    ['exactly the cap: unchanged', text.length, text, false],
    ['at a paragraph break when one is within 10%', 21, 'aaaa aaaa\n\nbbbb bbbb', true],
    ['else at a space', 27, 'aaaa aaaa\n\nbbbb bbbb\n\ncccc', true],
    ['else hard at the cap', 3, 'aaa', true],
  ])('%s', (_name, max, expected, truncated) => {
    expect(capText(text, max)).toEqual({ text: expected, truncated });
  });
});

describe('blockText with a limit stops collecting past it', () => {
  it.each([
    [Infinity, 'One.\n\nTwo.\n\nThree.'],
    [4, 'One.\n\nTwo.'], // collects until past the limit, then stops
    [0, 'One.'],
  ])('limit %s', (limit, expected) => {
    const doc = parse('<!DOCTYPE html><html><body><div><p>One.</p><p>Two.</p><p>Three.</p></div></body></html>');
    expect(blockText(doc.body.firstChild!, limit)).toBe(expected);
  });
});

describe('readabilityWork', () => {
  it.each([
    [0, 0, 0],
    [20_000, 0, 20_000],
    [0, 500_000, 20_000],
    [9_888, 496_165, 29_734.6], // wikipedia-2 of the Readability corpus
  ])('%s elements and %s characters: %s', (elements, chars, expected) => {
    expect(readabilityWork(elements, chars)).toBeCloseTo(expected, 6);
  });
});

describe('mainElement: what the simple reading reads', () => {
  it.each([
    ['a <main>', '<nav>n</nav><main id="m">x</main><article>a</article>', 'm'],
    ['role="main"', '<div id="m" role="main"><article>a</article></div>', 'm'],
    ['the only <article>', '<nav>n</nav><article id="m">a</article>', 'm'],
    ['two articles: the body', '<article>a</article><article>b</article>', 'body'],
    ['none: the body', '<div>x</div>', 'body'],
  ])('%s', (_name, body, expected) => {
    const doc = parse(`<!DOCTYPE html><html><body id="body">${body}</body></html>`);
    expect(mainElement(doc)?.id).toBe(expected);
  });
});

describe('past the caps, with simpleReadingPastCaps (the content script)', () => {
  const page = (extra: string): Document =>
    parse(`<!DOCTYPE html><html lang="en"><head><title>Big page</title></head><body><nav>Home</nav><main>${fixture('news-en.html')}</main>${extra}</body></html>`);
  const full = expectArticle(extractArticle(parse(fixture('news-en.html'))));

  it.each([
    ['too many elements', { maxElemsToParse: 50 }],
    ['too much work for Readability', { maxReadabilityWork: 100 }],
    ['too deep', { maxDepth: 5 }],
  ] as const)('%s: the simple reading, the main element\'s text, the page untouched', (_name, caps) => {
    const doc = page('<footer>Footer words</footer>');
    const result = expectArticle(extractUnchanged(doc, { ...caps, simpleReadingPastCaps: true }));
    expect(result.reading).toBe('simple');
    expect(result.title).toBe('Big page');
    expect(result.lang).toBe('en');
    for (const paragraph of full.text.split('\n\n').slice(1, 4)) expect(result.text).toContain(paragraph.slice(0, 60));
    expect(result.text).not.toContain('Footer words'); // outside <main>
    // without the option, the same page is refused as too large
    expect(extractArticle(page(''), caps)).toMatchObject({ ok: false, reason: 'too-large' });
  });

  it('cuts the simple reading at maxTextChars too', () => {
    const result = expectArticle(extractArticle(page(''), { maxReadabilityWork: 100, maxTextChars: 500, simpleReadingPastCaps: true }));
    expect([result.reading, result.truncated, result.text.length <= 500]).toEqual(['simple', true, true]);
  });

  it('a short page past the caps is still too short, with its word count', () => {
    const doc = parse(`<!DOCTYPE html><html><body><main>Only four words here</main>${'<i></i>'.repeat(60)}</body></html>`);
    expect(extractArticle(doc, { maxElemsToParse: 50, simpleReadingPastCaps: true })).toMatchObject({
      ok: false,
      reason: 'too-short',
      message: 'The article is too short to compare: 4 words (at least 30 needed).',
    });
  });

  it('a page under every cap is read by Readability', () => {
    expect(extractArticle(page(''), { maxElemsToParse: 10_000, maxReadabilityWork: 1_000_000, maxDepth: 100, simpleReadingPastCaps: true })).toMatchObject({ ok: true, reading: 'readability' });
  });
});
