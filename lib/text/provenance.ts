// What a page says of where it comes from: when it was published, and whom it names as its source
// (its canonical link or og:url on another site, or a credit line's link in its article). The rule
// that decides which of two pages is the original reads these (lib/report/original.ts). Only a
// time and an address are kept: never the page's words.
//
// The publication time, first found in this order (never dateModified):
//   1. <meta property="article:published_time">;
//   2. JSON-LD datePublished (also inside @graph and arrays), an article's before any other type's,
//      never a comment's;
//   3. microdata itemprop="datePublished" outside a comment and outside another item in an aside;
//   4. the <meta name> forms: date, pubdate, publishdate, DC.date.issued, parsely-pub-date, sailthru.date…,
//      then microformats (hAtom's abbr.published, h-entry's dt-published);
//   5. a <time datetime> in the article's header or byline: inside <article> or an element whose
//      class or id says byline, dateline or post meta, never in a site's own header, a nav, an
//      aside, a footer or comments.
// A date in the future (lib/text/dates.ts FUTURE_SLACK_MS) or before 1995 is no date.
import { EARLIEST_DATE, FUTURE_SLACK_MS, parsePageDate } from './dates';

export type SourceKind = 'canonical' | 'credit';

/** What a page says of where it comes from. Each field is absent when the page says nothing usable. */
export interface Provenance {
  /** When the page says it was published: milliseconds since the epoch. */
  published?: number;
  /** The address the page names as its source, on another site (an absolute http(s) URL). */
  source?: string;
  /** How it names it: its canonical link or og:url, or a credit line's link in the article. */
  sourceBy?: SourceKind;
}

/** JSON-LD scripts longer than this are not parsed (a 5 MB blob of data is not a page's metadata). */
export const MAX_JSON_LD_CHARS = 200_000;
/** At most this many JSON-LD scripts, <time> elements and links are looked at. */
const MAX_SCRIPTS = 20;
const MAX_TIMES = 100;
const MAX_LINKS = 500;
/** An address longer than this is not kept. */
export const MAX_SOURCE_CHARS = 2048;

const ARTICLE_TYPES = /^(?:Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|TechArticle|AnalysisNewsArticle|OpinionNewsArticle|ReportageNewsArticle|ReviewNewsArticle|BackgroundNewsArticle|LiveBlogPosting|SocialMediaPosting|Blog|MedicalScholarlyArticle|APIReference|Recipe|HowTo)$/;
const COMMENT_TYPES = /^(?:Comment|Answer|Question|Review|UserComments)$/;

/** The <meta name> forms of a publication date, lowercased. */
export const META_DATE_NAMES: ReadonlySet<string> = new Set([
  'date', 'pubdate', 'publishdate', 'publish-date', 'publish_date', 'published', 'published_time', 'publication_date',
  'dc.date.issued', 'dc.date', 'dcterms.issued', 'dcterms.date', 'dc.date.created', 'parsely-pub-date', 'sailthru.date',
  'article.published', 'article:published_time', 'og:published_time', 'cxenseparse:recs:publishtime', 'citation_publication_date',
  'citation_date', 'originalpublicationdate', 'datepublished', 'date.available', 'displaydate',
]);

const attr = (el: Element, name: string): string => el.getAttribute(name)?.trim() ?? '';

/** The type names of a JSON-LD node (@type may be a string or a list). */
function typesOf(node: Record<string, unknown>): string[] {
  const type = node['@type'];
  return (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^.*[/#]/, ''));
}

/** Adds the datePublished values of a JSON-LD value to `articles` (an article's) or `others` (other types'), never comments'. */
function jsonLdDates(value: unknown, articles: string[], others: string[]): void {
  let visited = 0;
  const walk = (node: unknown, depth: number): void => {
    if (depth > 8 || ++visited > 2000 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    const o = node as Record<string, unknown>;
    const types = typesOf(o);
    if (types.some((t) => COMMENT_TYPES.test(t))) return;
    const date = o['datePublished'];
    const text = typeof date === 'string' ? date : Array.isArray(date) && typeof date[0] === 'string' ? date[0] : null;
    if (text !== null) (types.some((t) => ARTICLE_TYPES.test(t)) ? articles : others).push(text);
    for (const [key, child] of Object.entries(o)) {
      // a comment's or a review's date is not the page's
      if (key === 'comment' || key === 'review' || key === 'dateModified') continue;
      if (child !== null && typeof child === 'object') walk(child, depth + 1);
    }
  };
  walk(value, 0);
}

/** Class names and ids of the elements that hold comments (a body's "comments-open" is not one). */
const COMMENT_NAME = /^(?:comments?|comment-(?:list|body|content|meta|metadata|item|thread|text)|commentlist|disqus_thread|replies)$/i;

function isInComment(el: Element): boolean {
  for (let node: Element | null = el; node !== null; node = node.parentElement) {
    if (/Comment|Review/.test(attr(node, 'itemtype'))) return true;
    if (COMMENT_NAME.test(node.id) || /^comment-\d+$/.test(node.id)) return true;
    if (attr(node, 'class').split(/\s+/).some((name) => COMMENT_NAME.test(name))) return true;
  }
  return false;
}

/** Containers whose dates and links are not the article's own: navigation, asides, footers, related stories. */
const NOT_THE_ARTICLE = ['nav', 'aside', 'footer', '[role="navigation"]', '[role="contentinfo"]', '[role="complementary"]', '[class*="related"]', '[id*="related"]', '[class*="recommend"]', '[class*="more-stories"]'].join(', ');
/** Elements that say they hold an article's byline or dateline. */
const BYLINE = '[class*="byline"], [class*="dateline"], [class*="post-meta"], [class*="entry-meta"], [class*="article-meta"], [class*="article-info"], [class*="posted-on"], [class*="pubdate"], [class*="publish"], [id*="byline"]';

/** The first paragraph of an article's body: a <p> of at least 25 words, which a byline is not. */
function firstBodyParagraph(article: Element): Element | null {
  for (const p of article.querySelectorAll('p')) if ((p.textContent ?? '').trim().split(/\s+/).length >= 25) return p;
  return null;
}

/**
 * Whether a <time> stands in the article's header or byline: in a byline or dateline, in a header
 * inside the article, or in the article before the first paragraph of its body. Never in a site's
 * own header, a nav, an aside, a footer, a list of related stories or comments, nor in the body's
 * text ("the council voted on <time>…</time>").
 */
function isArticleTime(el: Element): boolean {
  if (isInComment(el) || el.closest(NOT_THE_ARTICLE) !== null) return false;
  const header = el.closest('header, [role="banner"]');
  const article = el.closest('article, [itemprop="articleBody"], main, [role="main"]');
  if (header !== null && (article === null || !article.contains(header))) return false; // the site's own header
  if (el.hasAttribute('pubdate') || el.closest(BYLINE) !== null || header !== null) return true;
  if (article === null) return false;
  const body = firstBodyParagraph(article);
  // before the body's first paragraph (DOCUMENT_POSITION_FOLLOWING: the paragraph comes after the time), and not in it
  return body === null || (!body.contains(el) && (el.compareDocumentPosition(body) & 4) !== 0);
}

/** The date texts a document states its publication in, in the order of the list at the top of the file. */
function dateCandidates(doc: Document): string[] {
  const out: string[] = [];
  const metas = [...doc.querySelectorAll('meta[content]')];
  for (const meta of metas) {
    const key = (attr(meta, 'property') || attr(meta, 'name') || attr(meta, 'itemprop')).toLowerCase();
    if (key === 'article:published_time') out.push(attr(meta, 'content'));
  }
  const scripts = [...doc.querySelectorAll('script[type="application/ld+json"]')].slice(0, MAX_SCRIPTS);
  // an article's date in any script before another type's in any script (a page may write its WebPage and its article in two)
  const articles: string[] = [];
  const others: string[] = [];
  for (const script of scripts) {
    const text = script.textContent ?? '';
    if (text.length > MAX_JSON_LD_CHARS) continue;
    try {
      jsonLdDates(JSON.parse(text.replace(/^\s*(?:<!--|<!\[CDATA\[)|(?:-->|\]\]>)\s*$/g, '')), articles, others);
    } catch {
      // JSON-LD that does not parse says nothing
    }
  }
  out.push(...articles, ...others);
  for (const el of doc.querySelectorAll('[itemprop~="datePublished"]')) {
    // another article's item: a teaser in an aside or a related list (an aside inside the page's own item is its byline)
    const item = el.closest('[itemscope]') ?? el;
    if (isInComment(el) || item.closest(NOT_THE_ARTICLE) !== null) continue;
    out.push(attr(el, 'content') || attr(el, 'datetime') || attr(el, 'title') || (el.textContent ?? '').trim().slice(0, 64));
  }
  for (const meta of metas) {
    const key = (attr(meta, 'name') || attr(meta, 'property')).toLowerCase();
    if (META_DATE_NAMES.has(key) && key !== 'article:published_time') out.push(attr(meta, 'content'));
  }
  // microformats (hAtom, h-entry): an entry's published date in a title or datetime attribute
  for (const el of doc.querySelectorAll('abbr.published[title], .dt-published[datetime], time.published[datetime]')) {
    if (isInComment(el) || el.closest(NOT_THE_ARTICLE) !== null) continue;
    out.push(attr(el, 'datetime') || attr(el, 'title'));
  }
  let times = 0;
  for (const el of doc.querySelectorAll('time[datetime]')) {
    if (++times > MAX_TIMES) break;
    // a modified time is not the publication's; WordPress themes write an unmodified post's one time as class="entry-date published updated"
    const names = `${attr(el, 'class')} ${attr(el, 'itemprop')}`;
    if (isArticleTime(el) && (!/modif|updat/i.test(names) || /publish/i.test(names))) out.push(attr(el, 'datetime'));
  }
  return out;
}

/** When the document says it was published (see the top of the file), or undefined. */
export function publishedTimeOf(doc: Document, now: number): number | undefined {
  for (const text of dateCandidates(doc)) {
    const time = parsePageDate(text, now);
    if (time !== null) return time;
  }
  return undefined;
}

/** A host without "www.", "m." or "amp.": two hosts that differ only so are one site. */
export function siteKey(host: string): string {
  return host.toLowerCase().replace(/^(?:www\d*|m|amp)\./, '');
}

/** `href` resolved against the page, if it is an http(s) address on another site than `pageUrl`'s; else undefined. */
export function addressElsewhere(href: string, pageUrl: string): string | undefined {
  if (href === '' || href.length > MAX_SOURCE_CHARS) return undefined;
  let url: URL;
  let page: URL;
  try {
    page = new URL(pageUrl);
    url = new URL(href, page);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (siteKey(url.host) === siteKey(page.host)) return undefined;
  url.hash = '';
  return url.href.length > MAX_SOURCE_CHARS ? undefined : url.href;
}

/**
 * Phrases of a credit line, in English, Spanish, Chinese, German and French: a link that follows one closely (or
 * whose own text is one) names the page's source. Strong phrases say the text was published
 * elsewhere first; weak ones ("Source:", "via:") are labels that also credit data and photos, and
 * count only where no strong one names a link. Chinese labels count only as labels (来源：), so
 * that 收入来源 ("source of income") is no credit line.
 */
/** One pattern of several: each alternative a regular expression of its own, so that none is a sentence in a string. */
const anyOf = (patterns: readonly RegExp[]): RegExp => new RegExp(patterns.map((p) => p.source).join('|'), 'i');
export const STRONG_CREDIT = anyOf([
  /originally (?:published|appeared|posted|ran)/, /(?:was |were )?first (?:published|appeared|posted|ran)/, /(?:version of this|this) (?:story|article|piece|post) (?:originally |first )?(?:appeared|ran|was published)/,
  /republished (?:with permission|from|here|under)/, /reprinted (?:with permission|from)/, /reproduced (?:with permission|from)/,
  /(?:re)?published with (?:the )?permission/, /read (?:the )?(?:full|original|rest of the) (?:story|article)/,
  /publicad[oa] originalmente/, /se public[óo] originalmente/, /publicad[oa] (?:por primera vez|inicialmente)/, /apareci[óo] (?:originalmente|por primera vez|primero)/,
  /(?:re)?publicad[oa] con (?:el )?permiso/, /reproducid[oa] con (?:el )?permiso/,
  /转载自/, /轉載自/, /原载于?/, /原載於?/, /首发于/, /首發於/, /本文首发/, /本文首發/, /原文(?:链接|鏈接|地址|出处|出處)?\s*[:：]/,
  /erschien (?:zuerst|ursprünglich|erstmals)/, /(?:zuerst|ursprünglich|erstmals) (?:erschienen|veröffentlicht)/,
  /(?:publié|paru)e? (?:initialement|à l'origine|originellement|pour la première fois|d'abord)/, /(?:initialement|d'abord) (?:publié|paru)e?/,
  /(?:re)?publiée? avec (?:l'aimable )?autorisation/, /reproduite? avec (?:l'aimable )?autorisation/,
]);
export const WEAK_CREDIT = anyOf([/\bsource\s*:/, /\bvia\s*:/, /courtesy of/, /\bfuente\s*:/, /\bquelle\s*:/, /(?:来源|來源|出处|出處)\s*[:：]/]);
/** A link whose own text is one of these is a credit line by itself ("Read the original article", "原文"). */
const CREDIT_LINK_TEXT = /^\s*(?:(?:read )?(?:the )?original (?:article|story)|art[íi]culo original|原文|阅读原文|閱讀原文|原文链接|原文鏈接)\s*$/i;

/** Elements a credit line stands in: the link's nearest one is its context. */
const LINE_TAGS = new Set(['P', 'LI', 'DIV', 'FOOTER', 'SECTION', 'BLOCKQUOTE', 'ASIDE', 'TD', 'DD', 'ARTICLE', 'BODY', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6']);
/** A credit phrase ends at most this many characters before its link (with no sentence ending between): "originally published on <a>". */
const PHRASE_GAP_CHARS = 30;
/** How much of the line before a link is read. */
const BEFORE_CHARS = 200;
/** Photo and data credits: a caption's "Source:" names where a picture or figure comes from, not the text. */
const CAPTIONS = ['figure', 'figcaption', 'caption', 'table', '[class*="caption"]', '[class*="photo-credit"]', '[class*="image-credit"]'].join(', ');

/** The text of `line` before `link` (at most BEFORE_CHARS characters). */
function textBefore(line: Element, link: Element): string {
  let before = '';
  let found = false;
  const walk = (node: Node): void => {
    for (let child = node.firstChild; child !== null && !found; child = child.nextSibling) {
      if (child === link) found = true;
      else if (child.nodeType === 3) before += (child as Text).data;
      else if (child.nodeType === 1) walk(child);
    }
  };
  walk(line);
  return before.slice(-BEFORE_CHARS).replace(/\s+/g, ' ');
}

/** Whether `phrase` ends close before the end of `before`, in the same sentence. */
function endsJustBefore(before: string, phrase: RegExp): boolean {
  const global = new RegExp(phrase.source, 'gi');
  let last = -1;
  for (let m = global.exec(before); m !== null; m = global.exec(before)) {
    last = m.index + m[0].length;
    if (m[0].length === 0) global.lastIndex++;
  }
  if (last < 0) return false;
  const gap = before.slice(last);
  return gap.length <= PHRASE_GAP_CHARS && !/[.!?。！？]\s/.test(gap);
}

/** The first link in `article` to another site's page that a credit line names: one after a strong phrase, else one after a weak label; undefined if none. */
export function creditLinkOf(article: ParentNode, pageUrl: string): string | undefined {
  let links = 0;
  let weak: string | undefined;
  for (const link of article.querySelectorAll('a[href]')) {
    if (++links > MAX_LINKS) break;
    if (link.closest(CAPTIONS) !== null) continue;
    const address = addressElsewhere(attr(link, 'href'), pageUrl);
    if (address === undefined) continue;
    if (CREDIT_LINK_TEXT.test(link.textContent ?? '')) return address;
    let line: Element | null = link.parentElement;
    while (line !== null && !LINE_TAGS.has(line.tagName.toUpperCase())) line = line.parentElement;
    if (line === null) continue;
    const before = textBefore(line, link);
    if (endsJustBefore(before, STRONG_CREDIT)) return address;
    if (weak === undefined && endsJustBefore(before, WEAK_CREDIT)) weak = address;
  }
  return weak;
}

/** The address a page declares for itself: its first canonical link, or else its og:url, as an absolute http(s) address without its fragment; undefined if none. */
export function declaredAddress(doc: Document, pageUrl: string): string | undefined {
  const link = [...doc.querySelectorAll('link[rel][href]')].find((el) => attr(el, 'rel').toLowerCase().split(/\s+/).includes('canonical'));
  const og = doc.querySelector('meta[property="og:url"][content], meta[name="og:url"][content]');
  for (const href of [link === undefined ? '' : attr(link, 'href'), og === null ? '' : attr(og, 'content')]) {
    if (href === '' || href.length > MAX_SOURCE_CHARS) continue;
    try {
      const url = new URL(href, pageUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      url.hash = '';
      return url.href;
    } catch {
      // not an address: try the next
    }
  }
  return undefined;
}

/** The page's canonical link, or else its og:url, when it is on another site; undefined otherwise. */
export function canonicalElsewhere(doc: Document, pageUrl: string): string | undefined {
  for (const el of doc.querySelectorAll('link[rel][href]')) {
    if (!attr(el, 'rel').toLowerCase().split(/\s+/).includes('canonical')) continue;
    return addressElsewhere(attr(el, 'href'), pageUrl); // the first canonical link is the page's, even when it is its own
  }
  const og = doc.querySelector('meta[property="og:url"][content], meta[name="og:url"][content]');
  return og === null ? undefined : addressElsewhere(attr(og, 'content'), pageUrl);
}

/**
 * Where sites put a credit line beside an article rather than in its text, which Readability may
 * leave out of the article: syndication notes, the article's own footer, its byline or post meta.
 */
const CREDIT_PLACES = ['[class*="syndicat"]', '[id*="syndicat"]', '[class*="republish"]', '[class*="attribution"]', '[class*="original-source"]', '[class*="originally-published"]', 'article footer', BYLINE].join(', ');

/**
 * What a document says of where it comes from before Readability reads it: its publication time,
 * its canonical link or og:url elsewhere, or else a credit line beside its article. Read
 * before Readability changes the document (it drops the scripts that hold JSON-LD, and may drop
 * the note). Never throws.
 */
export function metadataProvenance(doc: Document, pageUrl: string, now: number): Provenance {
  const out: Provenance = {};
  try {
    const published = publishedTimeOf(doc, now);
    if (published !== undefined) out.published = published;
    const canonical = canonicalElsewhere(doc, pageUrl);
    if (canonical !== undefined) {
      out.source = canonical;
      out.sourceBy = 'canonical';
    } else {
      for (const note of [...doc.querySelectorAll(CREDIT_PLACES)].slice(0, MAX_SCRIPTS)) {
        const credit = creditLinkOf(note, pageUrl);
        if (credit === undefined) continue;
        out.source = credit;
        out.sourceBy = 'credit';
        break;
      }
    }
  } catch {
    // a page that breaks the reading says nothing of where it comes from
  }
  return out;
}

/** `provenance` with the credit line's link of `article` (Readability's article) as its source, when it names none yet. Never throws. */
export function withCreditLine(provenance: Provenance, article: ParentNode, pageUrl: string): Provenance {
  if (provenance.source !== undefined) return provenance;
  try {
    const credit = creditLinkOf(article, pageUrl);
    return credit === undefined ? provenance : { ...provenance, source: credit, sourceBy: 'credit' };
  } catch {
    return provenance;
  }
}

/** What a document says of where it comes from, its article being `doc` itself or `article` (metadataProvenance, then withCreditLine). */
export function readProvenance(doc: Document, pageUrl: string, now: number, article: ParentNode = doc): Provenance {
  return withCreditLine(metadataProvenance(doc, pageUrl, now), article, pageUrl);
}

/**
 * What of `claims` (received from another context, or read from a file) Doppel keeps for the page
 * at `pageUrl`: a publication time rounded to the minute (a finite time from 1995 to `now` with
 * the slack of FUTURE_SLACK_MS), and a source on another site, as an absolute http(s) address
 * without its fragment, with how the page names it. Anything else is dropped.
 */
export function believableProvenance(claims: Provenance, pageUrl: string, now: number): Provenance {
  const out: Provenance = {};
  const { published, source, sourceBy } = claims;
  if (typeof published === 'number' && Number.isFinite(published) && published >= EARLIEST_DATE && published <= now + FUTURE_SLACK_MS) {
    out.published = Math.round(published / 60_000) * 60_000;
  }
  const address = typeof source === 'string' ? addressElsewhere(source, pageUrl) : undefined;
  if (address !== undefined && (sourceBy === 'canonical' || sourceBy === 'credit')) {
    out.source = address;
    out.sourceBy = sourceBy;
  }
  return out;
}
