// What a page says of where it comes from (lib/text/provenance.ts), on documents parsed with
// linkedom. Every expected time is written with Date.UTC (months from 0), every expected address
// as a literal.
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import {
  type Provenance,
  addressElsewhere,
  believableProvenance,
  canonicalElsewhere,
  creditLinkOf,
  metadataProvenance,
  publishedTimeOf,
  readProvenance,
  siteKey,
  withCreditLine,
} from '../lib/text/provenance';

/** The reading time of every test: 1 June 2025, noon UTC. */
const NOW = Date.UTC(2025, 5, 1, 12, 0);
/** The page being read, on www.copy.example. */
const PAGE = 'https://www.copy.example/news/story';
/** Its source, on another site. */
const ORIGINAL = 'https://original.example/2024/story';

const parse = (html: string): Document => parseHTML(html).document as unknown as Document;
const page = (head: string, body = ''): Document => parse(`<!DOCTYPE html><html><head><title>A story</title>${head}</head><body>${body}</body></html>`);
const publishedOf = (head: string, body = ''): number | undefined => publishedTimeOf(page(head, body), NOW);
const ldJson = (value: unknown): string => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

// One source of the publication time for each rung of the order, each with its own day of March 2024.
const ARTICLE_META = '<meta property="article:published_time" content="2024-03-01T10:00:00Z">';
const JSON_LD = ldJson({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'A story', datePublished: '2024-03-02T10:00:00Z' });
const MICRODATA = '<div itemscope itemtype="https://schema.org/NewsArticle"><meta itemprop="datePublished" content="2024-03-03T10:00:00Z"></div>';
const META_NAME = '<meta name="date" content="2024-03-04T10:00:00Z">';
const BYLINE_TIME = '<article><header><h1>A story</h1><p class="byline">By Ana <time datetime="2024-03-05T10:00:00Z">5 March</time></p></header><p>Text.</p></article>';
const D1 = Date.UTC(2024, 2, 1, 10, 0);
const D2 = Date.UTC(2024, 2, 2, 10, 0);
const D3 = Date.UTC(2024, 2, 3, 10, 0);
const D4 = Date.UTC(2024, 2, 4, 10, 0);
const D5 = Date.UTC(2024, 2, 5, 10, 0);

/** The rungs, highest first: where each goes and what it states. */
const RUNGS = [
  { name: 'article:published_time', head: ARTICLE_META, body: '', time: D1 },
  { name: 'JSON-LD', head: JSON_LD, body: '', time: D2 },
  { name: 'microdata', head: '', body: MICRODATA, time: D3 },
  { name: '<meta name="date">', head: META_NAME, body: '', time: D4 },
  { name: '<time> in the byline', head: '', body: BYLINE_TIME, time: D5 },
] as const;

/** A page with the given rungs, written lowest first so that the order found is not the document's. */
function pageWith(rungs: readonly (typeof RUNGS)[number][]): Document {
  const low = [...rungs].reverse();
  return page(low.map((r) => r.head).join(''), low.map((r) => r.body).join(''));
}

describe('publishedTimeOf: the order of its sources', () => {
  it.each(RUNGS.map((r) => [r.name, r]))('%s alone is read', (_name, rung) => {
    expect(publishedTimeOf(pageWith([rung]), NOW)).toBe(rung.time);
  });

  // every pair: the higher rung wins, written after the lower one
  const pairs = RUNGS.flatMap((high, i) => RUNGS.slice(i + 1).map((low) => [high.name, low.name, high, low] as const));
  it.each(pairs)('%s beats %s', (_h, _l, high, low) => {
    expect(publishedTimeOf(pageWith([high, low]), NOW)).toBe(high.time);
  });

  it.each([0, 1, 2, 3, 4].map((k) => [RUNGS[k]!.name, k]))('%s beats everything below it at once', (_name, k) => {
    expect(publishedTimeOf(pageWith(RUNGS.slice(k)), NOW)).toBe(RUNGS[k]!.time);
  });

  it('a page that states no date has none', () => {
    expect(publishedOf('<meta name="description" content="2024-03-05">', '<article><p>Published 2024-03-05.</p></article>')).toBeUndefined();
  });
});

describe('the <meta name> forms', () => {
  it.each([
    ['date', '2024-03-04T10:00:00Z', D4],
    ['pubdate', '2024-03-04T10:00:00Z', D4],
    ['publishdate', '2024-03-04T10:00:00+00:00', D4],
    ['DC.date.issued', '2024-03-04', Date.UTC(2024, 2, 4)],
    ['dcterms.issued', '2024-03-04', Date.UTC(2024, 2, 4)],
    ['parsely-pub-date', '2024-03-04T10:00:00Z', D4],
    ['sailthru.date', '2024-03-04 10:00:00', D4],
    ['sailthru.date', 'Mon, 04 Mar 2024 05:00:00 -0500', D4],
    ['citation_publication_date', '2024/03/04', Date.UTC(2024, 2, 4)],
    ['PubDate', '20240304T100000Z', D4],
  ])('<meta name="%s" content="%s">', (name, content, expected) => {
    const meta = `<meta name="${name}" content="${content}">`;
    expect(publishedOf(meta)).toBe(expected);
    // below microdata, above a <time>
    expect(publishedOf(meta, MICRODATA)).toBe(D3);
    expect(publishedOf(meta, BYLINE_TIME)).toBe(expected);
  });

  it('og:published_time as a property is a name form; article:published_time as a name is the first rung', () => {
    expect(publishedOf('<meta property="og:published_time" content="2024-03-04T10:00:00Z">', MICRODATA)).toBe(D3);
    expect(publishedOf('<meta name="article:published_time" content="2024-03-01T10:00:00Z">' + JSON_LD)).toBe(D1);
  });
});

describe('microdata', () => {
  it('an <abbr> says its date in its title (Blogger); the page\'s own item keeps its byline in an aside', () => {
    expect(publishedOf('', '<article itemscope itemtype="https://schema.org/BlogPosting"><p>Text.</p><a href="/p"><abbr itemprop="datePublished" title="2016-05-08T00:55:00-07:00">12:55 AM</abbr></a></article>')).toBe(Date.UTC(2016, 4, 8, 7, 55));
    expect(publishedOf('', '<article itemscope itemtype="https://schema.org/BlogPosting"><section><p>Text.</p></section><aside><time datetime="2013-09-29" itemprop="datePublished">2013-09-29</time></aside></article>')).toBe(Date.UTC(2013, 8, 29));
  });

  it('microformats: hAtom\'s abbr.published and h-entry\'s dt-published, never a comment\'s', () => {
    expect(publishedOf('', '<div class="hentry"><p class="entry-posted">on <abbr class="published" title="2015-03-10T08:05:41-07:00">March 10, 2015</abbr></p></div>')).toBe(Date.UTC(2015, 2, 10, 15, 5, 41));
    expect(publishedOf('', '<div class="h-entry"><time class="dt-published" datetime="2019-11-21">21 Nov</time></div>')).toBe(Date.UTC(2019, 10, 21));
    expect(publishedOf('', '<ol class="commentlist"><li><abbr class="published" title="2015-03-11">March 11th</abbr></li></ol>')).toBeUndefined();
  });

  it('a datePublished in an aside or a related list is another article\'s', () => {
    const other = '<div itemscope itemtype="https://schema.org/NewsArticle"><time itemprop="datePublished" datetime="2023-02-02">x</time></div>';
    expect(publishedOf('', `<aside class="more">${other}</aside>`)).toBeUndefined();
    expect(publishedOf('', `<div class="related">${other}</div>`)).toBeUndefined();
    expect(publishedOf('', `<aside class="more">${other}</aside>${BYLINE_TIME}`)).toBe(D5);
  });

  it.each([
    ['a <meta content>', '<div itemscope><meta itemprop="datePublished" content="2024-03-03T10:00:00Z"></div>', D3],
    ['a <time datetime> (its datetime, not its text)', '<div itemscope><time itemprop="datePublished" datetime="2024-03-03T10:00:00Z">yesterday</time></div>', D3],
    ['an element\'s text', '<div itemscope><span itemprop="datePublished">March 3, 2024</span></div>', Date.UTC(2024, 2, 3)],
    ['one of several itemprop names', '<div itemscope><span itemprop="dateCreated datePublished" content="2024-03-03T10:00:00Z"></span></div>', D3],
  ])('is read from %s', (_what, body, expected) => {
    expect(publishedOf('', body)).toBe(expected);
  });

  it.each([
    ['an itemtype Comment', '<div itemscope itemtype="https://schema.org/Comment"><meta itemprop="datePublished" content="2024-04-01T10:00:00Z"></div>'],
    ['an element of id "comments"', '<div id="comments"><time itemprop="datePublished" datetime="2024-04-01T10:00:00Z">x</time></div>'],
    ['an element of id "comment-123"', '<li id="comment-123"><time itemprop="datePublished" datetime="2024-04-01T10:00:00Z">x</time></li>'],
  ])('is not read inside %s', (_what, body) => {
    expect(publishedOf('', body)).toBeUndefined();
    expect(publishedOf(META_NAME, body)).toBe(D4);
  });
});

describe('never dateModified', () => {
  it.each([
    ['JSON-LD dateModified alone', ldJson({ '@type': 'NewsArticle', dateModified: '2024-03-02T10:00:00Z' }), ''],
    ['article:modified_time alone', '<meta property="article:modified_time" content="2024-03-01T10:00:00Z">', ''],
    ['og:updated_time alone', '<meta property="og:updated_time" content="2024-03-01T10:00:00Z">', ''],
    ['microdata dateModified', '', '<div itemscope><meta itemprop="dateModified" content="2024-03-03T10:00:00Z"></div>'],
    ['a <time class="updated"> in the article', '', '<article><header><time class="updated" datetime="2024-03-05T10:00:00Z">x</time></header></article>'],
    ['a <time itemprop="dateModified"> in the article', '', '<article><header><time itemprop="dateModified" datetime="2024-03-05T10:00:00Z">x</time></header></article>'],
    ['a <time class="last-modified"> in the article', '', '<article><header><time class="last-modified" datetime="2024-03-05T10:00:00Z">x</time></header></article>'],
  ])('%s → undefined', (_what, head, body) => {
    expect(publishedOf(head, body)).toBeUndefined();
  });

  it('JSON-LD with both reads datePublished, whichever comes first', () => {
    expect(publishedOf(ldJson({ '@type': 'NewsArticle', dateModified: '2024-05-01T10:00:00Z', datePublished: '2024-03-02T10:00:00Z' }))).toBe(D2);
  });

  it('a modified time before the published one in the byline is passed over', () => {
    const body = '<article><header><time class="updated" datetime="2024-05-01T10:00:00Z">May</time> <time class="entry-date published" datetime="2024-03-05T10:00:00Z">March</time></header></article>';
    expect(publishedOf('', body)).toBe(D5);
  });

  it('WordPress\'s one time of an unmodified post, class "entry-date published updated", is its publication', () => {
    const body = '<article><header class="entry-header"><div class="entry-meta"><span class="posted-on"><a href="/p" rel="bookmark"><time class="entry-date published updated" datetime="2024-03-05T10:00:00+00:00">March 5, 2024</time></a></span></div></header></article>';
    expect(publishedOf('', body)).toBe(D5);
  });
});

describe('JSON-LD', () => {
  const article = { '@type': 'NewsArticle', datePublished: '2024-03-02T10:00:00Z' };
  it.each([
    ['a plain object', ldJson(article)],
    ['inside @graph', ldJson({ '@context': 'https://schema.org', '@graph': [{ '@type': 'WebSite', name: 'Copy' }, article] })],
    ['inside an array', ldJson([{ '@type': 'BreadcrumbList', itemListElement: [] }, article])],
    ['wrapped in <![CDATA[ ]]>', `<script type="application/ld+json"><![CDATA[ ${JSON.stringify(article)} ]]></script>`],
    ['wrapped in <!-- -->', `<script type="application/ld+json">\n<!--\n${JSON.stringify(article)}\n-->\n</script>`],
    ['with @type a schema.org address', ldJson({ '@type': 'https://schema.org/NewsArticle', datePublished: '2024-03-02T10:00:00Z' })],
    ['with @type a list', ldJson({ '@type': ['NewsArticle', 'Thing'], datePublished: '2024-03-02T10:00:00Z' })],
    ['with datePublished a list', ldJson({ '@type': 'BlogPosting', datePublished: ['2024-03-02T10:00:00Z', '2024-05-01T10:00:00Z'] })],
    ['nested as a WebPage\'s mainEntity', ldJson({ '@type': 'WebPage', mainEntity: article })],
    ['in a second script after one without a date', ldJson({ '@type': 'Organization', name: 'Copy' }) + ldJson(article)],
  ])('is read %s', (_how, head) => {
    expect(publishedOf(head)).toBe(D2);
  });

  it.each([
    ['in the same @graph, the WebPage first', ldJson({ '@graph': [{ '@type': 'WebPage', datePublished: '2024-01-01T00:00:00Z' }, article] })],
    ['the WebPage holding the article', ldJson({ '@type': 'WebPage', datePublished: '2024-01-01T00:00:00Z', mainEntity: article })],
    ['in two scripts, the WebPage\'s first', ldJson({ '@type': 'WebPage', datePublished: '2024-01-01T00:00:00Z' }) + ldJson(article)],
  ])('an article\'s datePublished beats a WebPage\'s: %s', (_how, head) => {
    expect(publishedOf(head)).toBe(D2);
  });

  it('a WebPage\'s datePublished is read when no article states one', () => {
    expect(publishedOf(ldJson({ '@graph': [{ '@type': 'WebPage', datePublished: '2024-01-01T00:00:00Z' }, { '@type': 'NewsArticle', headline: 'x' }] }))).toBe(Date.UTC(2024, 0, 1));
  });

  it.each([
    ['a Comment alone', { '@type': 'Comment', datePublished: '2024-04-01T10:00:00Z' }],
    ['a Comment listed as its @type', { '@type': ['Comment'], datePublished: '2024-04-01T10:00:00Z' }],
    ['an Answer by its address', { '@type': 'https://schema.org/Answer', datePublished: '2024-04-01T10:00:00Z' }],
    ['an article\'s comment', { '@type': 'NewsArticle', comment: [{ '@type': 'Comment', datePublished: '2024-04-01T10:00:00Z' }] }],
    ['an article\'s comment without a @type', { '@type': 'NewsArticle', comment: { datePublished: '2024-04-01T10:00:00Z' } }],
    ['a comment in @graph', { '@graph': [{ '@type': 'Comment', datePublished: '2024-04-01T10:00:00Z' }] }],
  ])('a comment\'s datePublished is never used: %s', (_what, value) => {
    expect(publishedOf(ldJson(value))).toBeUndefined();
    expect(publishedOf(ldJson(value) + META_NAME)).toBe(D4);
  });

  it('a comment first in @graph does not hide the WebPage after it', () => {
    expect(publishedOf(ldJson({ '@graph': [{ '@type': 'Comment', datePublished: '2024-04-01T10:00:00Z' }, { '@type': 'WebPage', datePublished: '2024-03-02T10:00:00Z' }] }))).toBe(D2);
  });

  it.each([
    ['a trailing comma', '{"@type":"NewsArticle","datePublished":"2024-03-07T10:00:00Z",}'],
    ['a cut-off object', '{"@type":"NewsArticle","datePublished":"2024-03-07T10:00:00Z"'],
    ['no JSON at all', 'window.dataLayer = [];'],
    ['an empty script', ''],
  ])('JSON-LD that does not parse (%s) falls through to the next source', (_what, text) => {
    const head = `<script type="application/ld+json">${text}</script>`;
    expect(() => publishedOf(head)).not.toThrow();
    expect(publishedOf(head + META_NAME)).toBe(D4);
    // and a later script that parses is still read
    expect(publishedOf(head + JSON_LD + META_NAME)).toBe(D2);
  });

  it('a 5 MB JSON-LD script is not parsed: its date is not read', () => {
    const huge = JSON.stringify({ '@type': 'NewsArticle', datePublished: '2024-03-07T10:00:00Z', articleBody: 'x'.repeat(5_000_000) });
    expect(huge.length).toBeGreaterThan(5_000_000);
    const head = `<script type="application/ld+json">${huge}</script>`;
    expect(publishedOf(head)).toBeUndefined();
    expect(publishedOf(head + META_NAME)).toBe(D4);
  });

  it('a script of 200,000 characters is read; one of 200,001 is not', () => {
    const script = (length: number): string => {
      const start = '{"@type":"NewsArticle","datePublished":"2024-03-02T10:00:00Z","x":"';
      return `<script type="application/ld+json">${start}${'x'.repeat(length - start.length - 2)}"}</script>`;
    };
    expect(publishedOf(script(200_000) + META_NAME)).toBe(D2);
    expect(publishedOf(script(200_001) + META_NAME)).toBe(D4);
  });

  it.each([
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"2024-03-02T10:00:00Z"'],
    ['an empty list', '[]'],
    ['a numeric @type and date', '{"@type":42,"datePublished":1709373600}'],
    ['a date as an object', '{"@type":"NewsArticle","datePublished":{"@value":"2024-03-02T10:00:00Z"}}'],
    ['an empty date', '{"@type":"NewsArticle","datePublished":""}'],
    ['a __proto__ key', '{"__proto__":{"polluted":true},"@type":"NewsArticle"}'],
    ['a date deeper than eight levels', `${'{"a":'.repeat(10)}{"@type":"NewsArticle","datePublished":"2024-03-02T10:00:00Z"}${'}'.repeat(10)}`],
    ['10,000 nested lists', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
  ])('JSON-LD that is %s states no date and breaks nothing', (_what, text) => {
    const head = `<script type="application/ld+json">${text}</script>`;
    expect(publishedOf(head)).toBeUndefined();
    expect(publishedOf(head + META_NAME)).toBe(D4);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('dates that are no date', () => {
  const future = '2025-06-03T10:00:00Z'; // 46 hours after NOW
  it.each([
    ['a future article:published_time', `<meta property="article:published_time" content="${future}">`, ''],
    ['a future JSON-LD date', ldJson({ '@type': 'NewsArticle', datePublished: future }), ''],
    ['a future <time>', '', `<article><header><time datetime="${future}">x</time></header></article>`],
    ['a CMS\'s zero date', '<meta property="article:published_time" content="1970-01-01T00:00:00Z">', ''],
    ['a date before 1995', ldJson({ '@type': 'NewsArticle', datePublished: '1994-12-31T23:59:59Z' }), ''],
    ['MySQL\'s zero date', '<meta name="pubdate" content="0000-00-00 00:00:00">', ''],
    ['an ambiguous date', '<meta property="article:published_time" content="03/05/2024">', ''],
    ['a template placeholder', '<meta property="article:published_time" content="{{date}}">', ''],
    ['a 10,000-character content', `<meta property="article:published_time" content="${'2'.repeat(10_000)}">`, ''],
  ])('%s is passed over for the next candidate', (_what, head, body) => {
    expect(publishedOf(head, body)).toBeUndefined();
    // the next candidate down, a <time> in the byline
    expect(publishedOf(head, body + BYLINE_TIME)).toBe(D5);
  });

  it('a date 14 hours ahead is still now, and the reading time decides', () => {
    const meta = '<meta property="article:published_time" content="2025-06-02T02:00:00Z">';
    expect(publishedOf(meta)).toBe(Date.UTC(2025, 5, 2, 2, 0));
    expect(publishedTimeOf(page('<meta property="article:published_time" content="2025-06-03T10:00:00Z">'), NOW)).toBeUndefined();
    expect(publishedTimeOf(page('<meta property="article:published_time" content="2025-06-03T10:00:00Z">'), Date.UTC(2025, 5, 4))).toBe(Date.UTC(2025, 5, 3, 10, 0));
  });
});

describe('<time datetime>: the article\'s, not the page\'s', () => {
  const today = '<time datetime="2025-06-01">Sunday, 1 June 2025</time>';
  it.each([
    ['a site header\'s "today"', `<header class="site-header"><a href="/">Copy</a> ${today}</header>`],
    // a masthead's dateline looks like an article's: the site header keeps it out
    ['a site header\'s dateline', `<header class="site-header"><p class="masthead-dateline">${today}</p></header>`],
    ['a banner\'s byline-like date', `<div role="banner"><span class="date-byline">${today}</span></div>`],
    ['an article teaser inside the site header', `<header class="site-header"><article><p>Teaser, ${today}</p></article></header>`],
    ['a nav', `<nav><ul><li>${today}</li></ul></nav>`],
    ['an element of role navigation', `<div role="navigation">${today}</div>`],
    ['a page footer', `<footer>© Copy ${today}</footer>`],
    ['an aside', `<aside><h2>Latest</h2><ul><li><a href="/b">B</a> ${today}</li></ul></aside>`],
    ['an aside inside the article', `<article><aside>Related: ${today}</aside></article>`],
    ['a footer inside the article', `<article><footer>Printed ${today}</footer></article>`],
    ['no article or byline at all', `<div class="widget"><p>${today}</p></div>`],
    ['a list of related stories inside <main>', `<main><article><p>${'Words of the article body. '.repeat(10)}</p></article><section class="related"><ul><li><a href="/p/1">Older story</a> ${today}</li></ul></section></main>`],
    ['related posts inside the article', `<article><p>${'Words of the article body. '.repeat(10)}</p><div class="related-posts"><a href="/p/1">Older</a> ${today}</div></article>`],
    ['the body of the article, past its first paragraph', `<article><p>${'Words of the article body. '.repeat(10)}</p><p>The council voted on ${today} to close the mill.</p></article>`],
    ['the first paragraph of the article\'s body', `<article><h1>A</h1><p>${'Words of the article body. '.repeat(6)} The council voted on ${today} to close the mill.</p></article>`],
  ])('a <time> in %s is not read', (_where, html) => {
    expect(publishedOf('', html)).toBeUndefined();
    // written before the article's own, it does not hide it
    expect(publishedOf('', html + BYLINE_TIME)).toBe(D5);
  });

  it.each([
    ['the article\'s own header', '<article><header><h1>A</h1><time datetime="2024-03-05T10:00:00Z">x</time></header></article>'],
    ['the article\'s text', '<article><p>Posted <time datetime="2024-03-05T10:00:00Z">x</time></p></article>'],
    ['<main>', '<main><p><time datetime="2024-03-05T10:00:00Z">x</time></p></main>'],
    ['role main', '<div role="main"><p><time datetime="2024-03-05T10:00:00Z">x</time></p></div>'],
    ['a byline outside any article', '<div class="story-byline">By Ana, <time datetime="2024-03-05T10:00:00Z">x</time></div>'],
    ['a dateline', '<p class="dateline"><time datetime="2024-03-05T10:00:00Z">x</time></p>'],
    ['post meta', '<div class="entry-meta"><time datetime="2024-03-05T10:00:00Z">x</time></div>'],
    ['an element of id byline', '<div id="byline"><time datetime="2024-03-05T10:00:00Z">x</time></div>'],
  ])('a <time> in %s is read', (_where, body) => {
    expect(publishedOf('', body)).toBe(D5);
  });

  /** A comment: an <article> with its own <time> in its header, and nothing that says "comment". */
  const comment = (n: number): string =>
    `<article><header><b>Reader ${n}</b> <time datetime="2024-04-${String((n % 28) + 1).padStart(2, '0')}T08:00:00Z">April</time></header><p>Comment ${n}</p></article>`;
  /** Forty comments inside `open` … `close`: only that wrapper says they are comments. */
  const comments = (open: string, close: string): string =>
    `${open}<h2>40 comments</h2><ol>${Array.from({ length: 40 }, (_, n) => `<li>${comment(n)}</li>`).join('')}</ol>${close}`;

  it('without a comment marker, those <time>s would be read (the tests below can fail)', () => {
    expect(publishedOf('', `<main>${comments('<div>', '</div>')}${BYLINE_TIME}</main>`)).toBe(Date.UTC(2024, 3, 1, 8, 0));
  });

  it.each([
    ['<section id="comments">', '</section>'],
    ['<ol class="comment-list">', '</ol>'],
    ['<ol class="commentlist">', '</ol>'],
    ['<div class="comments">', '</div>'],
    ['<div id="disqus_thread">', '</div>'],
    ['<div itemscope itemtype="https://schema.org/UserComments">', '</div>'],
  ])('forty <time>s in %s, written before the article, are passed over for the byline\'s', (open, close) => {
    // the comments hold <article>s, and stand before the story in <main>: only the comment markers keep them out
    const body = `<main>${comments(open, close)}<div class="byline">By Ana <time datetime="2024-03-05T10:00:00Z">5 March</time></div></main>`;
    expect(publishedOf('', body)).toBe(D5);
  });

  it('each comment marked by its own id is passed over', () => {
    const body = `<main><ol>${Array.from({ length: 40 }, (_, n) => `<li id="comment-${n + 100}">${comment(n)}</li>`).join('')}</ol>${BYLINE_TIME}</main>`;
    expect(publishedOf('', body)).toBe(D5);
  });

  it('a WordPress page: body class "comments-open", the post\'s time, then forty comments', () => {
    const html = `<!DOCTYPE html><html><head></head><body class="post-template-default single single-post postid-12 single-format-standard comments-open">
      <header id="masthead" class="site-header"><p class="site-title">Copy</p></header>
      <main id="main" class="site-main">
        <article id="post-12" class="post-12 post type-post status-publish">
          <header class="entry-header"><h1 class="entry-title">A story</h1>
            <div class="entry-meta"><span class="posted-on">Posted on <a href="/p" rel="bookmark"><time class="entry-date published updated" datetime="2024-03-05T10:00:00+00:00">March 5, 2024</time></a></span></div>
          </header>
          <div class="entry-content"><p>Text.</p></div>
        </article>
        <div id="comments" class="comments-area">${comments('<ol class="comment-list">', '</ol>')}</div>
      </main></body></html>`;
    expect(publishedTimeOf(parse(html), NOW)).toBe(D5);
  });

  it('a body of class "comments-open" alone does not make the article a comment', () => {
    const html = `<!DOCTYPE html><html><head></head><body class="single comments-open"><article><header><time datetime="2024-03-05T10:00:00Z">x</time></header></article></body></html>`;
    expect(publishedTimeOf(parse(html), NOW)).toBe(D5);
  });
});

describe('canonicalElsewhere and the canonical source', () => {
  const canonical = (href: string): string => `<link rel="canonical" href="${href}">`;
  it.each([
    ['another site', canonical(ORIGINAL), ORIGINAL],
    ['another site, its fragment dropped', canonical(`${ORIGINAL}#comments`), ORIGINAL],
    ['another site, its query kept', canonical(`${ORIGINAL}?id=7`), `${ORIGINAL}?id=7`],
    ['another site, its port kept', canonical('https://original.example:8443/a'), 'https://original.example:8443/a'],
    ['another site, its host lowercased', canonical('HTTPS://ORIGINAL.EXAMPLE/Story'), 'https://original.example/Story'],
    ['a protocol-relative address', canonical('//original.example/2024/story'), ORIGINAL],
    // siteKey drops only www., m. and amp.: another sub-domain is another site
    ['a sub-domain of the page\'s site', canonical('https://news.copy.example/a'), 'https://news.copy.example/a'],
    ['a rel written in capitals among others', `<link rel="Alternate CANONICAL" href="${ORIGINAL}">`, ORIGINAL],
    ['og:url when there is no canonical link', `<meta property="og:url" content="${ORIGINAL}">`, ORIGINAL],
    ['og:url as a name', `<meta name="og:url" content="${ORIGINAL}">`, ORIGINAL],
    ['the first of two canonical links', canonical(ORIGINAL) + canonical('https://third.example/x'), ORIGINAL],
    ['a canonical link without href does not count', '<link rel="canonical">' + canonical(ORIGINAL), ORIGINAL],
  ])('%s → that address', (_what, head, expected) => {
    expect(canonicalElsewhere(page(head), PAGE)).toBe(expected);
    expect(readProvenance(page(head), PAGE, NOW)).toEqual({ source: expected, sourceBy: 'canonical' });
  });

  it.each([
    ['javascript:', canonical('javascript:alert(1)')],
    ['data:', canonical('data:text/html,hi')],
    ['mailto:', canonical('mailto:a@original.example')],
    ['ftp:', canonical('ftp://original.example/a')],
    ['a relative path (on the page\'s own site)', canonical('/story')],
    ['a relative file name', canonical('story.html')],
    ['the page itself', canonical(PAGE)],
    ['the page without www.', canonical('https://copy.example/news/story')],
    ['the page on m.', canonical('https://m.copy.example/news/story')],
    ['the page on amp.', canonical('https://amp.copy.example/news/story')],
    ['the page over http', canonical('http://www.copy.example/news/story')],
    ['the page in capitals', canonical('https://WWW.COPY.EXAMPLE/other')],
    ['an empty href', canonical('')],
    ['an address that does not parse', canonical('https://exa mple.com:99999/')],
    ['an address of 3,000 characters', canonical(`https://original.example/${'a'.repeat(3_000)}`)],
    ['og:url on the page\'s own site', `<meta property="og:url" content="https://copy.example/news/story">`],
    // the first canonical link is the page's, even when it is its own: og:url and later links are not read
    ['its own canonical link first, og:url elsewhere', canonical(PAGE) + `<meta property="og:url" content="${ORIGINAL}">`],
    ['its own canonical link first, another elsewhere', canonical(PAGE) + canonical(ORIGINAL)],
    ['a javascript: canonical link, og:url elsewhere', canonical('javascript:alert(1)') + `<meta property="og:url" content="${ORIGINAL}">`],
    ['a link that is not canonical', `<link rel="alternate" href="${ORIGINAL}">`],
    ['an og:url without content', '<meta property="og:url">'],
  ])('%s → none', (_what, head) => {
    expect(canonicalElsewhere(page(head), PAGE)).toBeUndefined();
    expect(readProvenance(page(head), PAGE, NOW)).toEqual({});
  });

  it('a canonical link in the body counts too', () => {
    expect(canonicalElsewhere(page('', `<link rel="canonical" href="${ORIGINAL}">`), PAGE)).toBe(ORIGINAL);
  });
});

describe('siteKey and addressElsewhere', () => {
  it.each([
    ['example.com', 'example.com'],
    ['www.example.com', 'example.com'],
    ['WWW.Example.COM', 'example.com'],
    ['www2.example.com', 'example.com'],
    ['m.example.com', 'example.com'],
    ['amp.example.com', 'example.com'],
    ['news.example.com', 'news.example.com'],
    ['mobile.example.com', 'mobile.example.com'],
    // one prefix only
    ['www.m.example.com', 'm.example.com'],
    ['example.com:8080', 'example.com:8080'],
    ['www.example.com:8080', 'example.com:8080'],
    ['www', 'www'],
  ])('siteKey(%j) = %j', (host, expected) => {
    expect(siteKey(host)).toBe(expected);
  });

  it.each([
    [ORIGINAL, ORIGINAL],
    [`${ORIGINAL}#top`, ORIGINAL],
    ['http://original.example/a', 'http://original.example/a'],
    ['//original.example/a', 'https://original.example/a'],
    ['https://copy.example:8080/a', 'https://copy.example:8080/a'],
    ['https://www.copy.example/other', undefined],
    ['https://m.copy.example/other', undefined],
    ['/other', undefined],
    ['?page=2', undefined],
    ['#top', undefined],
    ['', undefined],
    ['javascript:alert(1)', undefined],
    ['file:///etc/passwd', undefined],
    ['http://[::1', undefined],
    [`https://original.example/${'a'.repeat(2_100)}`, undefined],
  ])('addressElsewhere(%j) = %j', (href, expected) => {
    expect(addressElsewhere(href, PAGE)).toBe(expected);
  });

  it('an address is on no site when the page\'s own address does not parse', () => {
    expect(addressElsewhere(ORIGINAL, 'not a url')).toBeUndefined();
  });
});

describe('credit lines', () => {
  const article = (html: string): Document => page('', `<article><h1>A story</h1><p>Some text of the story.</p>${html}</article>`);
  const link = `<a href="${ORIGINAL}">the original</a>`;

  it.each([
    ['English: originally published on', `<p><em>This article was originally published on <a href="${ORIGINAL}">The Original</a>.</em></p>`],
    ['English: first appeared in', `<p>This story first appeared in <a href="${ORIGINAL}">Original Weekly</a>.</p>`],
    ['English: republished with permission from', `<p>Republished with permission from <a href="${ORIGINAL}">Original News</a>.</p>`],
    ['English: Source:', `<p>Source: ${link}</p>`],
    ['English: the link\'s own text', `<p><a href="${ORIGINAL}">Read the original article</a>.</p>`],
    ['English: a version of this story appeared in', `<p>A version of this story appeared in ${link}.</p>`],
    ['English: read the full story at', `<p>Read the full story at ${link}.</p>`],
    ['English: the phrase in the paragraph, the link in an <em> of it', `<p>This article was originally published on <em>${link}</em>.</p>`],
    ['Spanish: se publicó originalmente en', `<p>Este artículo se publicó originalmente en ${link}.</p>`],
    ['English: in a list item', `<ul><li>Originally posted at ${link}</li></ul>`],
    ['Spanish: publicado originalmente en', `<p>Publicado originalmente en <a href="${ORIGINAL}">El Original</a>.</p>`],
    ['Spanish: Fuente:', `<p>Fuente: ${link}</p>`],
    ['Chinese: 原文：', `<p>原文：<a href="${ORIGINAL}">原始新闻</a></p>`],
    ['German: erschien zuerst bei', `<p>Dieser Artikel erschien zuerst auf Englisch bei ${link}. Übersetzung: Redaktion.</p>`],
    ['German: Quelle:', `<p>Quelle: ${link}</p>`],
    ['French: publié initialement par', `<p>Cet article a été publié initialement par ${link}.</p>`],
    ['French: Source :', `<p>Source : ${link}</p>`],
    ['Chinese: 来源：', `<p>来源：<a href="${ORIGINAL}">原始新闻</a></p>`],
    ['Chinese: 转载自', `<p>本文转载自<a href="${ORIGINAL}">原始新闻</a>。</p>`],
    ['a fragment on the link', `<p>Source: <a href="${ORIGINAL}#top">the original</a></p>`],
    ['a protocol-relative link', `<p>Source: <a href="//original.example/2024/story">the original</a></p>`],
  ])('%s → the link, by credit', (_what, html) => {
    const doc = article(html);
    expect(creditLinkOf(doc, PAGE)).toBe(ORIGINAL);
    expect(readProvenance(doc, PAGE, NOW)).toEqual({ source: ORIGINAL, sourceBy: 'credit' });
  });

  it.each([
    ['a link next to no credit phrase', `<p>Read more about ferries at ${link}.</p>`],
    ['"source" that is not a label', `<p>An open source project by ${link}.</p>`],
    ['"fuente" that is not a label', `<p>La fuente de la noticia es ${link}.</p>`],
    ['a credit link to the same site', '<p>Originally published on <a href="https://copy.example/2019/older">our old blog</a>.</p>'],
    ['a credit link on www. of the same site', '<p>Source: <a href="https://www.copy.example/b">us</a></p>'],
    ['a relative credit link', '<p>Source: <a href="/older">our archive</a></p>'],
    ['a javascript: credit link', '<p>Source: <a href="javascript:void(0)">the original</a></p>'],
    ['a mailto: credit link', '<p>Source: <a href="mailto:desk@original.example">the desk</a></p>'],
    ['a credit phrase in the paragraph before', `<p>This article was originally published on</p><p>${link}</p>`],
    ['a credit phrase far before the link', `<p>This article was originally published on a partner site. ${'The ferry line ran for forty years and the town kept its timetable on the wall. '.repeat(3)}See ${link}.</p>`],
    ['a phrase after the link', `<p>${link} (first published in March)</p>`],
    ['a phrase about something else, further before the link in its sentence', `<p>The findings, first published in the journal Science in 2019, were ${link}.</p>`],
    ['"original" before a post office', `<p>The original post office on Main Street, now ${link}, opens on Sundays.</p>`],
    ['a phrase that ends a sentence before the link', `<p>It was first published. Then see ${link}.</p>`],
    ['来源 inside an ordinary word (source of income)', `<p>旅游业是当地居民的主要收入来源，<a href="${ORIGINAL}">晨报</a>的记者说。</p>`],
    ['a photo credit in a caption', `<figure><img src="x.jpg"><figcaption>Photo courtesy of ${link}</figcaption></figure>`],
    ['a data source under a figure', `<figure><img src="chart.png"><figcaption>Source: ${link}</figcaption></figure>`],
  ])('%s → none', (_what, html) => {
    const doc = article(html);
    expect(creditLinkOf(doc, PAGE)).toBeUndefined();
    expect(readProvenance(doc, PAGE, NOW)).toEqual({});
  });

  it('a phrase ending 30 characters before the link is read; 31 is too far', () => {
    const at = (gap: number): Document => article(`<p>Originally published${'x'.repeat(gap)}${link}</p>`);
    expect(creditLinkOf(at(30), PAGE)).toBe(ORIGINAL);
    expect(creditLinkOf(at(31), PAGE)).toBeUndefined();
  });

  it('a strong phrase outranks an earlier weak label: a data source before the credit line', () => {
    const html = `<p>Source: <a href="https://www.bls.gov/cps/">Bureau of Labor Statistics</a></p><p><em>This article was originally published on ${link}.</em></p>`;
    expect(creditLinkOf(article(html), PAGE)).toBe(ORIGINAL);
  });

  it('a photo credit in a caption does not hide the credit line after it', () => {
    const html = `<figure><img src="p.jpg"><figcaption>Photo courtesy of <a href="https://archive.example/photo/1">the County Archive</a></figcaption></figure><p>Text.</p><p><em>This article was originally published on ${link}.</em></p>`;
    expect(creditLinkOf(article(html), PAGE)).toBe(ORIGINAL);
  });

  it('a syndication note outside the article, which Readability may leave out, is read before it reads the page', () => {
    const doc = page('', `<article><p>Text.</p></article><div class="syndication-note"><p>This article was originally published on ${link}.</p></div>`);
    expect(metadataProvenance(doc, PAGE, NOW)).toEqual({ source: ORIGINAL, sourceBy: 'credit' });
  });

  it('the first credit link is the source; a link next to no phrase before it is passed over', () => {
    const html = `<p>See also <a href="https://elsewhere.example/a">another story</a>.</p><p>Source: ${link}</p><p>Source: <a href="https://third.example/b">a third</a></p>`;
    expect(creditLinkOf(article(html), PAGE)).toBe(ORIGINAL);
  });

  it('a canonical link elsewhere takes precedence over a credit link', () => {
    const doc = page('<link rel="canonical" href="https://canonical.example/a">', `<article><p>Source: ${link}</p></article>`);
    expect(readProvenance(doc, PAGE, NOW)).toEqual({ source: 'https://canonical.example/a', sourceBy: 'canonical' });
  });

  it('a canonical link to the page itself leaves the credit link the source', () => {
    const doc = page(`<link rel="canonical" href="${PAGE}">`, `<article><p>Source: ${link}</p></article>`);
    expect(readProvenance(doc, PAGE, NOW)).toEqual({ source: ORIGINAL, sourceBy: 'credit' });
  });

  it('only the article given is read for a credit line', () => {
    const doc = page('', `<aside><p>Source: ${link}</p></aside><article id="story"><p>No credit here.</p></article>`);
    const story = doc.querySelector('#story')!;
    expect(readProvenance(doc, PAGE, NOW, story)).toEqual({});
    expect(readProvenance(doc, PAGE, NOW)).toEqual({ source: ORIGINAL, sourceBy: 'credit' });
  });

  it('reads both the time and the credit line of one page', () => {
    const doc = page(META_NAME, `<article><p>Text.</p><p>Republished from ${link}.</p></article>`);
    expect(readProvenance(doc, PAGE, NOW)).toEqual({ published: D4, source: ORIGINAL, sourceBy: 'credit' });
  });
});

describe('metadataProvenance and withCreditLine', () => {
  it('metadataProvenance reads the time and the canonical link, never a credit line', () => {
    const doc = page(ARTICLE_META + `<link rel="canonical" href="${ORIGINAL}">`, '<article><p>Source: <a href="https://credit.example/a">x</a></p></article>');
    expect(metadataProvenance(doc, PAGE, NOW)).toEqual({ published: D1, source: ORIGINAL, sourceBy: 'canonical' });
    expect(metadataProvenance(page('', '<article><p>Source: <a href="https://credit.example/a">x</a></p></article>'), PAGE, NOW)).toEqual({});
  });

  it('withCreditLine leaves a provenance that names a source as it is', () => {
    const named: Provenance = { published: D1, source: ORIGINAL, sourceBy: 'canonical' };
    const doc = page('', '<article><p>Source: <a href="https://credit.example/a">x</a></p></article>');
    expect(withCreditLine(named, doc, PAGE)).toBe(named);
  });

  it('withCreditLine adds the credit link to a new provenance, the one given unchanged', () => {
    const given: Provenance = { published: D1 };
    const doc = page('', '<article><p>Source: <a href="https://credit.example/a">x</a></p></article>');
    expect(withCreditLine(given, doc, PAGE)).toEqual({ published: D1, source: 'https://credit.example/a', sourceBy: 'credit' });
    expect(given).toEqual({ published: D1 });
  });
});

describe('believableProvenance', () => {
  it.each([
    ['a time on the minute', { published: Date.UTC(2024, 2, 5, 10, 0) }, { published: Date.UTC(2024, 2, 5, 10, 0) }],
    ['rounded down', { published: Date.UTC(2024, 2, 5, 10, 0, 29, 999) }, { published: Date.UTC(2024, 2, 5, 10, 0) }],
    ['rounded up', { published: Date.UTC(2024, 2, 5, 10, 0, 30) }, { published: Date.UTC(2024, 2, 5, 10, 1) }],
    ['1 January 1995', { published: Date.UTC(1995, 0, 1) }, { published: Date.UTC(1995, 0, 1) }],
    ['NOW + 14 h', { published: Date.UTC(2025, 5, 2, 2, 0) }, { published: Date.UTC(2025, 5, 2, 2, 0) }],
    ['NOW + 14 h + 1 ms', { published: Date.UTC(2025, 5, 2, 2, 0, 0, 1) }, {}],
    ['a year ahead', { published: Date.UTC(2026, 5, 1) }, {}],
    ['before 1995', { published: Date.UTC(1994, 11, 31, 23, 59) }, {}],
    ['zero', { published: 0 }, {}],
    ['negative', { published: -1 }, {}],
    ['NaN', { published: Number.NaN }, {}],
    ['Infinity', { published: Number.POSITIVE_INFINITY }, {}],
    ['a string', { published: '2024-03-05T10:00:00Z' as unknown as number }, {}],
    ['null', { published: null as unknown as number }, {}],
    ['a source by canonical', { source: ORIGINAL, sourceBy: 'canonical' }, { source: ORIGINAL, sourceBy: 'canonical' }],
    ['a source by credit', { source: ORIGINAL, sourceBy: 'credit' }, { source: ORIGINAL, sourceBy: 'credit' }],
    ['a fragment stripped', { source: `${ORIGINAL}#comments`, sourceBy: 'credit' }, { source: ORIGINAL, sourceBy: 'credit' }],
    ['a source on the page\'s own site', { source: 'https://copy.example/older', sourceBy: 'canonical' }, {}],
    ['a source on the page\'s own site over http', { source: 'http://www.copy.example/older', sourceBy: 'canonical' }, {}],
    ['a relative source', { source: '/older', sourceBy: 'canonical' }, {}],
    ['an ftp source', { source: 'ftp://original.example/a', sourceBy: 'canonical' }, {}],
    ['a javascript: source', { source: 'javascript:alert(1)', sourceBy: 'credit' }, {}],
    ['a source of 3,000 characters', { source: `https://original.example/${'a'.repeat(3_000)}`, sourceBy: 'credit' }, {}],
    ['a source without sourceBy', { source: ORIGINAL }, {}],
    ['a source by something else', { source: ORIGINAL, sourceBy: 'guess' as unknown as 'credit' }, {}],
    ['a sourceBy in capitals', { source: ORIGINAL, sourceBy: 'Canonical' as unknown as 'canonical' }, {}],
    ['a sourceBy without source', { sourceBy: 'canonical' }, {}],
    ['a source that is not a string', { source: { href: ORIGINAL } as unknown as string, sourceBy: 'canonical' }, {}],
    [
      'all three',
      { published: Date.UTC(2024, 2, 5, 10, 0, 12), source: `${ORIGINAL}#x`, sourceBy: 'canonical' },
      { published: Date.UTC(2024, 2, 5, 10, 0), source: ORIGINAL, sourceBy: 'canonical' },
    ],
    ['nothing', {}, {}],
  ] as [string, Provenance, Provenance][])('%s', (_what, claims, expected) => {
    expect(believableProvenance(claims, PAGE, NOW)).toEqual(expected);
  });

  it('keeps nothing else a claim carries', () => {
    const claims = { published: Date.UTC(2024, 2, 5, 10, 0), title: 'x', text: 'the page\'s words' } as unknown as Provenance;
    expect(believableProvenance(claims, PAGE, NOW)).toEqual({ published: Date.UTC(2024, 2, 5, 10, 0) });
  });

  it('keeps the time but no source when the page\'s own address does not parse', () => {
    expect(believableProvenance({ published: D1, source: ORIGINAL, sourceBy: 'canonical' }, 'not a url', NOW)).toEqual({ published: D1 });
  });
});

describe('hostile input never throws', () => {
  it('a document with no head', () => {
    const doc = parse(`<p>Source: <a href="${ORIGINAL}">x</a> <time datetime="2024-03-05T10:00:00Z">x</time></p>`);
    expect(readProvenance(doc, PAGE, NOW)).toEqual({ source: ORIGINAL, sourceBy: 'credit' });
  });

  it('an empty document', () => {
    const doc = parse('');
    expect(readProvenance(doc, PAGE, NOW)).toEqual({});
    expect(publishedTimeOf(doc, NOW)).toBeUndefined();
    expect(canonicalElsewhere(doc, PAGE)).toBeUndefined();
  });

  it('a <meta content> of 10,000 characters in every form', () => {
    const long = `2024-03-05T10:00:00Z${' '.repeat(10_000)}x`;
    const head = ['<meta property="article:published_time"', '<meta name="date"', '<meta property="og:url"', '<meta itemprop="datePublished"']
      .map((open) => `${open} content="${long}">`)
      .join('');
    expect(readProvenance(page(head), PAGE, NOW)).toEqual({});
  });

  it('a page address that does not parse', () => {
    const doc = page(ARTICLE_META + `<link rel="canonical" href="${ORIGINAL}">`, '<article><p>Source: <a href="/x">x</a></p></article>');
    expect(readProvenance(doc, 'not a url', NOW)).toEqual({ published: D1 });
  });

  it('a document whose queries throw says nothing', () => {
    const broken = { querySelectorAll: () => { throw new Error('boom'); }, querySelector: () => { throw new Error('boom'); } } as unknown as Document;
    expect(metadataProvenance(broken, PAGE, NOW)).toEqual({});
    expect(readProvenance(broken, PAGE, NOW)).toEqual({});
    expect(withCreditLine({ published: D1 }, broken, PAGE)).toEqual({ published: D1 });
  });

  it('attributes and elements of odd kinds', () => {
    const head = [
      '<meta property="article:published_time">', // no content
      '<meta content="2024-03-01T10:00:00Z">', // no name
      '<meta name="" content="2024-03-01T10:00:00Z">',
      '<link rel="canonical">', // no href, so not the canonical link
      '<script type="application/ld+json"><script></script>',
    ].join('');
    const body = '<time datetime="">x</time><article><time>no datetime</time><a>no href</a><a href="">empty</a><p>Source: <a href="http://[::1">bad</a></p></article>';
    expect(readProvenance(page(head, body), PAGE, NOW)).toEqual({});
  });

  it('more than 500 links before the credit link: it is not looked for', () => {
    const many = Array.from({ length: 500 }, (_, n) => `<a href="https://elsewhere.example/${n}">${n}</a>`).join(' ');
    expect(readProvenance(page('', `<article><p>${many}</p><p>Source: <a href="${ORIGINAL}">x</a></p></article>`), PAGE, NOW)).toEqual({});
    const fewer = Array.from({ length: 499 }, (_, n) => `<a href="https://elsewhere.example/${n}">${n}</a>`).join(' ');
    expect(readProvenance(page('', `<article><p>${fewer}</p><p>Source: <a href="${ORIGINAL}">x</a></p></article>`), PAGE, NOW)).toEqual({ source: ORIGINAL, sourceBy: 'credit' });
  });
});
