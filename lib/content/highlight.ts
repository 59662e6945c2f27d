// Finding on the live page the passages it shares with a page read before, to mark them with the
// CSS Custom Highlight API. Three steps, each a function: the page's text with a map back to its
// text nodes (collectPageText), the character ranges of the shared passages in that text
// (locatePassages), and DOM ranges over them (toDomRanges). Nothing here changes the page.
//
// What arrives is, per earlier page, a set of hashes: this page's passage fingerprints (winnowed
// k-gram hashes) that lie inside the passages the worker found shared, from the fingerprints of the
// page's Readability text, and for each passage how many words it runs before its first
// fingerprint and after its last (the worker extends a match by both pages' word bits). The live
// page's text is not that text: it has navigation, ads and a footer around the article.
// Winnowing still selects the same fingerprints inside the article, because a window's choice (the
// rightmost minimum of its w k-gram hashes) depends only on the w + k − 1 words the window covers.
// Every window of the article's own text lies wholly inside the article, and the live text holds
// the same words in the same order there (the same block tags break words in both:
// lib/text/reading.ts BLOCK_TAGS), so each of those windows is a window of the live text too and
// selects the same k-gram: every fingerprint the worker kept is kept here, at another
// position but with the same hash. Only windows across an edge differ: at the article's outer edges
// the live text has windows that reach into the navigation or the footer, which may select k-grams
// the article's text did not (their hashes are not in the set unless a phrase repeats), and where
// Readability dropped something inside the article that the page shows (a share button, an
// inserted ad), the k-grams across that spot exist in one text only, so a fingerprint there can be
// missing and a mark can stop short or break in two.
import { BLOCK_TAGS } from '../text/reading';
import { PASSAGE_PARAMS, type PassageParams, passageFingerprints } from '../fingerprint/passages';
import { MAX_REPEATS, type WordRange } from '../index/passage-match';
import type { PassageEnd } from '../index/passage-index';

/**
 * Elements whose text is not read: code and styles, inert markup (template, noscript), form
 * controls whose text is not the page's prose (textarea, select, button: Readability drops them
 * from the article too) and SVG (labels and glyphs drawn, not prose).
 */
const SKIPPED_TAGS: ReadonlySet<string> = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TEXTAREA', 'SELECT', 'BUTTON', 'SVG']);

/**
 * The page's text is read up to this many characters (four times the 500,000 the worker reads of
 * an article, lib/content/page-reader.ts MAX_TEXT_CHARS, so that the article is inside it on any page whose
 * article was read whole). It bounds the work on the page's thread: fingerprints and word offsets
 * of 2,000,000 characters take about a second on a slow machine.
 */
export const MAX_PAGE_TEXT_CHARS = 2_000_000;

/** The text of a page's text nodes, with where each node's data starts in it. */
export interface PageText {
  /** The nodes' data in document order, with '\n' at the edges of block elements. */
  text: string;
  /** The text nodes read, in document order. */
  nodes: Text[];
  /** Offset in `text` of each node's first character (the '\n's belong to no node). */
  starts: number[];
  /** Reading stopped at maxChars. */
  truncated: boolean;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;

/**
 * Whether Readability would take an element for hidden (its `_isProbablyVisible`, and dialogs it
 * drops): the hidden attribute, an inline display: none or visibility: hidden, aria-hidden="true"
 * (except MathML's fallback images), an open modal dialog. Taking the worker's rule, not the
 * computed style, keeps the words the worker read (Readability reads an unrendered copy of the
 * HTML, which knows only inline styles) and asks the page for no style or layout. Text hidden by
 * a stylesheet is read, and its marks are as invisible as it is.
 */
export function probablyHidden(el: Element): boolean {
  const style = (el as Partial<ElementCSSInlineStyle>).style;
  if (style && (style.display === 'none' || style.visibility === 'hidden')) return true;
  if (el.hasAttribute('hidden')) return true;
  if (el.getAttribute('aria-hidden') === 'true' && !(el.getAttribute('class') ?? '').includes('fallback-image')) return true;
  return el.getAttribute('aria-modal') === 'true' && el.getAttribute('role') === 'dialog';
}

/**
 * The text of `root`'s text nodes in document order, skipping SKIPPED_TAGS and the elements
 * `isHidden` names (with all they hold), with a line break at each edge of a block element so that
 * the words of adjacent blocks never join, whatever whitespace the HTML has between them. The text
 * is the nodes' data as it is (no whitespace collapsed), so an offset inside a node's part of it is
 * an offset in the node. Walks without recursion: a script can nest elements deeper than the stack.
 */
export function collectPageText(root: Node, isHidden: (el: Element) => boolean = () => false, maxChars = MAX_PAGE_TEXT_CHARS): PageText {
  const parts: string[] = [];
  const nodes: Text[] = [];
  const starts: number[] = [];
  let length = 0;
  let truncated = false;
  const isBlock = (node: Node): boolean => BLOCK_TAGS.has((node as Element).tagName.toUpperCase());
  const breakLine = (): void => {
    parts.push('\n');
    length++;
  };

  let node: Node | null = root.firstChild;
  walk: while (node) {
    if (node.nodeType === TEXT_NODE) {
      const data = (node as Text).data;
      if (data.length > 0) {
        const room = maxChars - length;
        if (room <= 0) {
          truncated = true;
          break;
        }
        nodes.push(node as Text);
        starts.push(length);
        if (data.length > room) {
          parts.push(data.slice(0, room)); // offsets in it are still offsets in the node
          truncated = true;
          break;
        }
        parts.push(data);
        length += data.length;
      }
    } else if (node.nodeType === ELEMENT_NODE && !SKIPPED_TAGS.has((node as Element).tagName.toUpperCase()) && !isHidden(node as Element)) {
      if (isBlock(node)) breakLine();
      if (node.firstChild) {
        node = node.firstChild;
        continue;
      }
      if (isBlock(node)) breakLine();
    }
    // On to the next node: the next sibling, or the next sibling of the nearest ancestor that has
    // one, closing each block left on the way up (each ancestor was entered, so it was read).
    while (!node.nextSibling) {
      const parent: Node | null = node.parentNode;
      if (!parent || parent === root) break walk;
      node = parent;
      if (isBlock(node)) breakLine();
    }
    node = node.nextSibling;
  }
  return { text: parts.join('').slice(0, maxChars), nodes, starts, truncated };
}

/** A set of hashes shared with one earlier page (lib/protocol/tab-protocol.ts SharedPassageSet without its colour). */
export interface SharedSet {
  id: string;
  hashes: Uint32Array | readonly number[];
  /** Where the passages' ends lie from their first and last fingerprints (the worker's, from the word bits); none: the marks span the fingerprints. */
  ends?: readonly PassageEnd[];
}

/** A passage found in the text: its characters [start, end) and its words. */
export interface TextPassage {
  start: number;
  end: number;
  words: WordRange;
}

export interface LocatedSet {
  id: string;
  passages: TextPassage[];
}

/**
 * Per set, the passages of `text` it marks: the text's own passage fingerprints whose hash is in
 * the set, chained while each follows the one before within 2w + k words (the gap sharedPassages
 * chains over: a word or two edited in a passage breaks the k-grams around it, and the fingerprints
 * on either side still make one passage), each chain from the first word of its first k-gram to the
 * last word of its last (position + k − 1), then extended by the set's ends: the words the worker
 * found the passage to run before its first fingerprint (when the chain starts with it) and after
 * its last (when the chain ends with it), from both pages' word bits. Without them a mark spans
 * the matched k-grams only. A hash more than MAX_REPEATS times in the text (a refrain, a table)
 * is not marked, as it is not matched.
 */
export function locatePassages(text: string, sets: readonly SharedSet[], params: PassageParams = PASSAGE_PARAMS): LocatedSet[] {
  if (sets.every((s) => s.hashes.length === 0)) return sets.map(({ id }) => ({ id, passages: [] }));
  const f = passageFingerprints(text, params);
  const counts = new Map<number, number>();
  for (const h of f.hashes) counts.set(h, (counts.get(h) ?? 0) + 1);
  const gap = 2 * params.w + params.k;
  return sets.map(({ id, hashes, ends = [] }) => {
    const wanted = new Set<number>(hashes);
    const leadOf = new Map(ends.map((e) => [e.first, e.lead]));
    const trailOf = new Map(ends.map((e) => [e.last, e.trail]));
    const chains: WordRange[] = [];
    let first = -1;
    let last = -1;
    let firstHash = 0;
    let lastHash = 0;
    const close = (): void => {
      const start = Math.max(chains.at(-1)?.end ?? 0, first - (leadOf.get(firstHash) ?? 0));
      chains.push({ start: Math.min(start, first), end: Math.min(f.words, last + params.k + (trailOf.get(lastHash) ?? 0)) });
    };
    for (let i = 0; i < f.hashes.length; i++) {
      const h = f.hashes[i]!;
      if (!wanted.has(h) || counts.get(h)! > MAX_REPEATS) continue;
      const at = f.positions[i]!;
      if (first >= 0 && at - last <= gap) {
        last = at;
        lastHash = h;
        continue;
      }
      if (first >= 0) close();
      first = last = at;
      firstHash = lastHash = h;
    }
    if (first >= 0) close();
    // The word offsets cost more than the fingerprints: worked out only when something matched.
    const spans = chains.length > 0 ? f.spans : null;
    return { id, passages: chains.map((words) => ({ start: spans!.start[words.start]!, end: spans!.end[words.end - 1]!, words })) };
  });
}

/** Where a range of the page's text starts and ends in its text nodes (StaticRangeInit's fields). */
export interface RangeBounds {
  startContainer: Text;
  startOffset: number;
  endContainer: Text;
  endOffset: number;
}

/** The index of the last node whose data starts at or before `offset` (−1 if none). */
function nodeAt(page: PageText, offset: number): number {
  let lo = 0;
  let hi = page.starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (page.starts[mid]! <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * The text nodes and offsets of the characters [start, end) of page.text, across as many nodes
 * as they cover; null for a range with no character in any node. An end that falls on a '\n'
 * between blocks ends at the end of the node before it, a start there begins at the next node.
 */
export function rangeBounds(page: PageText, start: number, end: number): RangeBounds | null {
  if (end <= start) return null;
  const length = (i: number): number => Math.min(page.nodes[i]!.data.length, page.text.length - page.starts[i]!);
  let s = nodeAt(page, start);
  if (s < 0 || start >= page.starts[s]! + length(s)) s++; // on a '\n': the next node
  const e = nodeAt(page, end - 1);
  if (s >= page.nodes.length || e < s) return null;
  return {
    startContainer: page.nodes[s]!,
    startOffset: Math.max(0, start - page.starts[s]!),
    endContainer: page.nodes[e]!,
    endOffset: Math.min(length(e), end - page.starts[e]!),
  };
}

/**
 * DOM ranges over the character ranges of page.text, made by `make` (a live Range in the page:
 * `liveRange(document)`; a test can keep the bounds as they are).
 */
export function toDomRanges<R>(page: PageText, ranges: readonly { start: number; end: number }[], make: (bounds: RangeBounds) => R): R[] {
  const out: R[] = [];
  for (const { start, end } of ranges) {
    const bounds = rangeBounds(page, start, end);
    if (bounds) out.push(make(bounds));
  }
  return out;
}

/**
 * A live Range over the bounds. Live rather than static: a live range follows the page's own
 * edits (text inserted before it, a node removed collapses it), where a StaticRange would go on
 * marking whatever characters now sit at its offsets, or other text after a re-render.
 */
export function liveRange(doc: Document): (bounds: RangeBounds) => Range {
  return (b) => {
    const range = doc.createRange();
    range.setStart(b.startContainer, b.startOffset);
    range.setEnd(b.endContainer, b.endOffset);
    return range;
  };
}
