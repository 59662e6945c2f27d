// What a page is read as without Readability: the caps that keep Readability off pages too large
// for it, the simple reading a page past them gets, and the tidying of text. Kept apart from
// lib/text/extract.ts so that the content script, which no longer runs Readability (it sends the page's
// HTML to an extension document: lib/background/html-reader.ts), does not carry it in its bundle.
import type { Provenance } from './provenance';
export interface ExtractOptions {
  /** Readability stops on pages with more elements than this (0: no limit). */
  maxElemsToParse?: number;
  /**
   * Pages nested more than this many elements deep (<html> is level 1) are not read (0: no limit).
   * Readability's time grows with the square of the depth, so the default is the depth at which
   * browsers' HTML parsers stop nesting (512, DEFAULT_MAX_DEPTH): `scan` is protected too.
   */
  maxDepth?: number;
  /**
   * Pages whose readabilityWork (elements + characters of text / 25) is past this are not given to
   * Readability (0: no limit). Its scoring reads the text of candidates again and again, so its
   * time grows with both; see readabilityWork.
   */
  maxReadabilityWork?: number;
  /** Text past this many characters is cut (at a paragraph or word boundary where possible). */
  maxTextChars?: number;
  /**
   * What a page past maxElemsToParse, maxDepth or maxReadabilityWork gets. False (the default, for
   * `scan`): it is not read ("too-large"). True (the content script, which must never hold the
   * page's main thread for long): the simple reading, the rendered text of the page's main element
   * (mainElement: <main> or [role=main], or its only <article>, or else <body>), taken natively
   * without Readability.
   */
  simpleReadingPastCaps?: boolean;
  /** Fewer words than this is "too short to compare". */
  minWords?: number;
  /**
   * Whether Readability gets a clone of the document (the default: it changes what it parses, and a
   * live page must never change) or the document itself (a document parsed from HTML for this).
   */
  cloneFirst?: boolean;
}

export const DEFAULT_MAX_TEXT_CHARS = 2_000_000;
export const DEFAULT_MIN_WORDS = 30;
export const DEFAULT_MAX_DEPTH = 512;

export interface Article {
  ok: true;
  /** 'readability', or 'simple' for a page past the caps (see simpleReadingPastCaps). */
  reading: 'readability' | 'simple';
  title: string;
  /** Readable text, paragraphs separated by a blank line. */
  text: string;
  lang: string | null;
  siteName: string | null;
  /** True when the text was cut at maxTextChars. */
  truncated: boolean;
  /** What the page says of where it comes from (lib/text/provenance.ts), when the reader asked. */
  provenance?: Provenance;
}

export type NotArticleReason = 'no-article' | 'too-short' | 'too-large';

export interface NotArticle {
  ok: false;
  reason: NotArticleReason;
  /** A sentence a person understands (English: logs and tests; the popup words `reason` in the UI's language). */
  message: string;
  title: string;
  /** too-short: the words counted and the words needed. */
  words?: number;
  minWords?: number;
}

export type Extraction = Article | NotArticle;

/**
 * Elements whose edges break words. The live page's text for marking passages
 * (lib/content/highlight.ts) breaks at the same tags, so that it cuts the same words.
 */
export const BLOCK_TAGS: ReadonlySet<string> = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DIV', 'DL', 'DT', 'FIGCAPTION', 'FIGURE',
  'FOOTER', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE',
  'SECTION', 'TABLE', 'TD', 'TH', 'TR', 'UL',
]);

/**
 * Text of a node with paragraph breaks at block elements, so that words of adjacent paragraphs
 * never run together, whatever whitespace the HTML had between the tags.
 */
export function blockText(root: Node, maxChars = Infinity): string {
  const parts: string[] = [];
  let length = 0;
  const walk = (node: Node): void => {
    for (let child = node.firstChild; child && length <= maxChars; child = child.nextSibling) {
      if (child.nodeType === 3) {
        parts.push((child as Text).data);
        length += (child as Text).data.length;
      }
      else if (child.nodeType === 1) {
        const tag = (child as Element).tagName.toUpperCase();
        if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'NOSCRIPT' || tag === 'TEMPLATE') continue;
        const block = BLOCK_TAGS.has(tag);
        if (block) parts.push('\n');
        walk(child);
        if (block) parts.push('\n');
      }
    }
  };
  walk(root);
  // Past maxChars nothing more is collected (the caller cuts at maxChars after tidying; spaces
  // collapsed by tidying are why a little more is read than kept).
  return tidyText(parts.join(''));
}

/** Collapses runs of spaces, and of line breaks into one blank line; trims. */
export function tidyText(text: string): string {
  return text
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n[\s]*/g, (m) => (m.includes('\n') ? '\n\n' : m))
    .replace(/\n\n+/g, '\n\n')
    .trim();
}

/** Words of text, counted up to `enough` (the caller only needs to know whether there are that many). */
function countWordsRoughly(text: string, enough: number): number {
  // Spaced scripts: words; CJK and other unspaced scripts: characters / 2.
  const word = /[\p{L}\p{N}]+/gu;
  let count = 0;
  for (let m = word.exec(text); m !== null && count < enough; m = word.exec(text)) {
    count += /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u.test(m[0]) ? Math.ceil(m[0].length / 2) : 1;
  }
  return count;
}

/** Cuts text to at most max characters, at a paragraph break or else a space where one is near. */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let cut = text.lastIndexOf('\n\n', max);
  if (cut < max * 0.9) cut = text.lastIndexOf(' ', max);
  if (cut < max * 0.9) cut = max;
  return { text: text.slice(0, cut).trimEnd(), truncated: true };
}

/**
 * Whether some element is more than `max` levels below `root` (`root` is level 1). Iterative, so
 * that a tree too deep for recursion is measured all the same; stops at the first one too deep.
 */
export function deeperThan(root: Element, max: number): boolean {
  const stack: Element[] = [root];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const element = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    const { children } = element;
    for (let i = 0; i < children.length; i++) {
      stack.push(children[i]!);
      depths.push(depth + 1);
    }
  }
  return false;
}

/**
 * A measure of the time Readability takes on a page, in elements: each element, plus one per 25
 * characters of the page's text. Calibrated in Chromium 156 on this project's 2-core machine
 * (Readability alone, first run in a fresh page): 10,000 empty elements 77 ms, 20,000 102 ms,
 * 40,000 173 ms; 2,000,000 characters in 1,000 paragraphs 55 ms; and the slowest page of the
 * Readability test corpus, wikipedia-2 (9,888 elements, 496,165 characters: 29,700), 114 to 190 ms,
 * 263 ms under tracing. Text spread over many elements costs more than either alone, which the
 * weight of the characters stands for.
 */
export function readabilityWork(elements: number, textChars: number): number {
  return elements + textChars / 25;
}

/** The element whose rendered text the simple reading takes: <main> or [role=main], the only <article>, or <body>. */
export function mainElement(doc: Document): Element | null {
  const main = doc.querySelector('main, [role="main"]');
  if (main) return main;
  const articles = doc.querySelectorAll('article');
  if (articles.length === 1) return articles[0]!;
  return doc.body ?? doc.documentElement;
}

/**
 * The simple reading: the rendered text of the main element (innerText: what the page shows, with
 * line breaks between blocks), or its textContent where it holds more than `innerTextUpTo`
 * characters (innerText lays the text out: 20 MB took 200 ms in Chromium, textContent 65 ms), or
 * where there is no layout (Node: linkedom). Linear in the page's size and done by the browser.
 */
export function simpleText(doc: Document, maxChars: number, innerTextUpTo = 4_000_000, bodyText?: string): string {
  const root = mainElement(doc);
  if (!root) return '';
  const raw = (root === doc.body ? bodyText : undefined) ?? root.textContent ?? '';
  const rendered = raw.length <= innerTextUpTo && typeof (root as HTMLElement).innerText === 'string' ? (root as HTMLElement).innerText : raw;
  // A little more than maxChars, for the spaces tidying collapses; capText cuts the rest.
  return tidyText(rendered.length > maxChars * 2 ? rendered.slice(0, maxChars * 2) : rendered);
}

/** A selector matching the elements more than `max` levels deep (those with `max` element ancestors). */
export function deeperThanSelector(max: number): string {
  return '* > '.repeat(max) + '*';
}

/**
 * Whether some element of doc is more than `max` levels deep (<html> is level 1): one native
 * selector query (an element with `max` element ancestors), with the script walk as the fallback
 * where the selector is not supported.
 */
function pageDeeperThan(doc: Document, max: number): boolean {
  try {
    return doc.querySelector(deeperThanSelector(max)) !== null;
  } catch {
    return deeperThan(doc.documentElement, max);
  }
}

/** The options of extractArticle with their defaults filled in. */
export function withDefaults(options: ExtractOptions): Required<ExtractOptions> {
  const {
    maxElemsToParse = 0,
    maxDepth = DEFAULT_MAX_DEPTH,
    maxReadabilityWork = 0,
    maxTextChars = DEFAULT_MAX_TEXT_CHARS,
    minWords = DEFAULT_MIN_WORDS,
    simpleReadingPastCaps = false,
    cloneFirst = true,
  } = options;
  return { maxElemsToParse, maxDepth, maxReadabilityWork, maxTextChars, minWords, simpleReadingPastCaps, cloneFirst };
}

/** A text read from a page, cut to maxTextChars; "too short" under minWords words. */
export function finishReading(
  title: string,
  fullText: string,
  reading: Article['reading'],
  lang: string | null,
  siteName: string | null,
  { maxTextChars, minWords }: Pick<Required<ExtractOptions>, 'maxTextChars' | 'minWords'>,
): Extraction {
  const { text, truncated } = capText(fullText, maxTextChars);
  const words = countWordsRoughly(text, minWords);
  if (words < minWords) {
    return { ok: false, reason: 'too-short', title, message: `The article is too short to compare: ${words} words (at least ${minWords} needed).`, words, minWords };
  }
  return { ok: true, reading, title, text, lang, siteName, truncated };
}

/** What a document without even a root element gets (an empty response, an image, a text/plain error). */
export function emptyPage(): Extraction {
  return { ok: false, reason: 'no-article', title: '', message: 'The page is empty.' };
}

/** The title of a document as the browser shows it, trimmed. */
export function pageTitleOf(doc: Document): string {
  return (doc.title ?? '').trim();
}

/**
 * What a page past one of the caps (maxElemsToParse, maxReadabilityWork, maxDepth) gets: the
 * simple reading, or "too-large" unless simpleReadingPastCaps. Null for a page within them, which
 * Readability may read. `doc` must have a documentElement.
 */
export function pastCapsReading(doc: Document, options: ExtractOptions = {}): Extraction | null {
  const settled = withDefaults(options);
  const { maxElemsToParse, maxDepth, maxReadabilityWork } = settled;
  // Counted here rather than left to Readability, which counts getElementsByTagName('*'): linkedom
  // answers that with no elements (0.18.15), so the limit never applied outside a browser.
  // Counted once, only if a cap needs it.
  const elements = maxElemsToParse > 0 || maxReadabilityWork > 0 ? doc.querySelectorAll('*').length : 0;
  if (maxElemsToParse > 0 && elements > maxElemsToParse) {
    return pastCap(doc, settled, `The page has more than ${maxElemsToParse} elements, too many to read.`);
  }
  if (maxReadabilityWork > 0) {
    const bodyText = doc.body?.textContent ?? '';
    if (readabilityWork(elements, bodyText.length) > maxReadabilityWork) {
      return pastCap(doc, settled, `The page is too large to read in full: ${elements} elements and ${bodyText.length} characters of text.`, bodyText);
    }
  }
  // Readability's time grows faster than the square of the depth (in Chromium: 200 levels 67 ms,
  // 300 levels 216 ms, 500 levels 421 ms, all on the thread it runs on), so a tree built deeper by
  // a script is not given to it.
  if (maxDepth > 0 && pageDeeperThan(doc, maxDepth)) {
    return pastCap(doc, settled, `The page is nested more than ${maxDepth} elements deep, too deep to read.`);
  }
  return null;
}

/** A page past a cap: the simple reading, or "too-large" (see ExtractOptions.simpleReadingPastCaps). */
export function pastCap(doc: Document, options: Required<ExtractOptions>, message: string, bodyText?: string): Extraction {
  const title = pageTitleOf(doc);
  if (!options.simpleReadingPastCaps) return { ok: false, reason: 'too-large', title, message };
  const lang = doc.documentElement.getAttribute('lang')?.trim() || null;
  return finishReading(title, simpleText(doc, options.maxTextChars, undefined, bodyText), 'simple', lang, null, options);
}
