// Page → readable text, with Mozilla Readability. Runs wherever there is a DOM: the content
// script (the live page's document), and Node (linkedom) for `scan` and the tests.
import { Readability } from '@mozilla/readability';

export interface ExtractOptions {
  /** Readability stops on pages with more elements than this (0: no limit). */
  maxElemsToParse?: number;
  /**
   * Pages nested more than this many elements deep (<html> is level 1) are not read (0: no limit).
   * Readability's time grows with the square of the depth, so the default is the depth at which
   * browsers' HTML parsers stop nesting (512, DEFAULT_MAX_DEPTH): `scan` is protected too.
   */
  maxDepth?: number;
  /** Text past this many characters is cut (at a paragraph or word boundary where possible). */
  maxTextChars?: number;
  /** Fewer words than this is "too short to compare". */
  minWords?: number;
}

export const DEFAULT_MAX_TEXT_CHARS = 2_000_000;
export const DEFAULT_MIN_WORDS = 30;
export const DEFAULT_MAX_DEPTH = 512;

export interface Article {
  ok: true;
  title: string;
  /** Readable text, paragraphs separated by a blank line. */
  text: string;
  lang: string | null;
  siteName: string | null;
  /** True when the text was cut at maxTextChars. */
  truncated: boolean;
}

export type NotArticleReason = 'no-article' | 'too-short' | 'too-large';

export interface NotArticle {
  ok: false;
  reason: NotArticleReason;
  /** A sentence a person understands. */
  message: string;
  title: string;
}

export type Extraction = Article | NotArticle;

const BLOCK_TAGS = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DIV', 'DL', 'DT', 'FIGCAPTION', 'FIGURE',
  'FOOTER', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE',
  'SECTION', 'TABLE', 'TD', 'TH', 'TR', 'UL',
]);

/**
 * Text of a node with paragraph breaks at block elements, so that words of adjacent paragraphs
 * never run together, whatever whitespace the HTML had between the tags.
 */
export function blockText(root: Node): string {
  const parts: string[] = [];
  const walk = (node: Node): void => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) parts.push((child as Text).data);
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

function countWordsRoughly(text: string): number {
  // Spaced scripts: words; CJK and other unspaced scripts: characters / 2.
  const spaced = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  let count = 0;
  for (const w of spaced) count += /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u.test(w) ? Math.ceil(w.length / 2) : 1;
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
 * Extracts the article of a document. The document is cloned first: Readability mutates what
 * it parses, and the live page must never change.
 */
export function extractArticle(doc: Document, options: ExtractOptions = {}): Extraction {
  const { maxElemsToParse = 0, maxDepth = DEFAULT_MAX_DEPTH, maxTextChars = DEFAULT_MAX_TEXT_CHARS, minWords = DEFAULT_MIN_WORDS } = options;
  if (!doc.documentElement) return { ok: false, reason: 'no-article', title: '', message: 'The page is empty.' };
  const pageTitle = (doc.title ?? '').trim();
  // Counted here rather than left to Readability, which counts getElementsByTagName('*'): linkedom
  // answers that with no elements (0.18.15), so the limit never applied outside a browser.
  if (maxElemsToParse > 0 && doc.querySelectorAll('*').length > maxElemsToParse) {
    return { ok: false, reason: 'too-large', title: pageTitle, message: `The page has more than ${maxElemsToParse} elements, too many to read.` };
  }
  // Readability's time grows with the square of the depth (in Chromium: 500 levels 0.5 s, 2,000
  // levels 11 s, all on the page's main thread), so a tree built deeper by a script is not read.
  if (maxDepth > 0 && deeperThan(doc.documentElement, maxDepth)) {
    return { ok: false, reason: 'too-large', title: pageTitle, message: `The page is nested more than ${maxDepth} elements deep, too deep to read.` };
  }
  const clone = doc.cloneNode(true) as Document;
  let parsed: ReturnType<Readability<Node>['parse']>;
  try {
    parsed = new Readability<Node>(clone, { maxElemsToParse, serializer: (node) => node }).parse();
  } catch (error) {
    const tooLarge = error instanceof Error && /Aborting parsing document/.test(error.message);
    return tooLarge
      ? { ok: false, reason: 'too-large', title: pageTitle, message: `The page has more than ${maxElemsToParse} elements, too many to read.` }
      : { ok: false, reason: 'no-article', title: pageTitle, message: `The page could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!parsed || !parsed.content) {
    return { ok: false, reason: 'no-article', title: pageTitle, message: 'No article was found on this page.' };
  }
  const title = (parsed.title ?? '').trim() || pageTitle;
  const { text, truncated } = capText(blockText(parsed.content), maxTextChars);
  const words = countWordsRoughly(text);
  if (words < minWords) {
    return { ok: false, reason: 'too-short', title, message: `The article is too short to compare: ${words} words (at least ${minWords} needed).` };
  }
  return { ok: true, title, text, lang: parsed.lang ?? null, siteName: parsed.siteName ?? null, truncated };
}
