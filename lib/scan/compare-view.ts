// `scan --compare A B`'s view: the passages two texts share, side by side, each passage's words
// marked (ANSI colour on a terminal, [[ ]] otherwise) with a few words of context around it; then
// their rare words (the rewrite detector's anchors: names, places, numbers), in order, side by side,
// those the other text also has marked, and how much of each one's pairs the other holds.
import { MIN_PASSAGE_WORDS, passageFingerprints } from '../fingerprint/passages';
import type { WordRange } from '../index/passage-match';
import { comparePassages } from '../index/passage-index';
import type { WordSpans } from '../text/words';
import { rewriteAnchors } from '../fingerprint/rewrite-anchors';
import { translated } from '../fingerprint/rewrites';
import { judgeRewrite, scanRewriteCode } from './detectors/rewrites';

export interface CompareSide {
  name: string;
  text: string;
}

export interface CompareViewOptions {
  /** Total width of a line. */
  columns?: number;
  /** ANSI colour (a terminal) or plain markers. */
  colour?: boolean;
  /** Words of context either side of a passage. */
  context?: number;
}

const MARK = { colour: ['\x1b[1;33m', '\x1b[0m'], plain: ['[[', ']]'] } as const;

/** The words of `range` with `context` words either side, the range marked, as tokens with their visible width. */
function excerpt(text: string, spans: WordSpans, range: WordRange, context: number, marks: readonly [string, string], colour: boolean): { token: string; width: number }[] {
  const from = Math.max(0, range.start - context);
  const to = Math.min(spans.count, range.end + context);
  const out: { token: string; width: number }[] = [];
  if (from > 0) out.push({ token: '…', width: 1 });
  for (let i = from; i < to; i++) {
    // The word as written, with the punctuation up to the next word.
    const end = i + 1 < spans.count ? spans.start[i + 1]! : text.length;
    let token = text.slice(spans.start[i]!, end).replace(/\s+/g, ' ').trim();
    let width = [...token].length;
    if (i === range.start) token = marks[0] + token;
    if (i === range.end - 1) token += marks[1];
    if (!colour) width += (i === range.start ? marks[0].length : 0) + (i === range.end - 1 ? marks[1].length : 0);
    out.push({ token, width });
  }
  if (to < spans.count) out.push({ token: '…', width: 1 });
  return out;
}

/** Tokens wrapped into lines of at most `width` visible characters; colour is reopened on each line. */
function wrap(tokens: { token: string; width: number }[], width: number, colour: boolean): { line: string; width: number }[] {
  const lines: { line: string; width: number }[] = [];
  let line = '';
  let used = 0;
  let open = false;
  for (const { token, width: w } of tokens) {
    if (used > 0 && used + 1 + w > width) {
      lines.push({ line: colour && open ? line + MARK.colour[1] : line, width: used });
      line = colour && open ? MARK.colour[0] : '';
      used = 0;
    }
    line += (used > 0 ? ' ' : '') + token;
    used += (used > 0 ? 1 : 0) + w;
    if (colour) {
      if (token.includes(MARK.colour[0])) open = true;
      if (token.includes(MARK.colour[1])) open = false;
    }
  }
  if (used > 0 || line) lines.push({ line, width: used });
  return lines;
}

/** Two columns of lines side by side, `half` characters wide each. */
function sideBySide(left: readonly { line: string; width: number }[], right: readonly { line: string }[], half: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const l = left[i] ?? { line: '', width: 0 };
    out.push(`${l.line}${' '.repeat(Math.max(0, half - l.width))} │ ${right[i]?.line ?? ''}`.trimEnd());
  }
  return out;
}

/**
 * The rare words of both texts, in order, side by side: each as written, marked when the other
 * text has it too; and the rewrite detector's verdict, with the shares it rests on.
 */
export function rareWordsView(a: CompareSide, b: CompareSide, options: CompareViewOptions = {}): string {
  const { columns = 100, colour = false } = options;
  const marks = colour ? MARK.colour : MARK.plain;
  const half = Math.max(20, Math.floor((columns - 3) / 2));
  // judged as scan judges a pair: on the wide samples of long pages
  const [fa, fb] = [scanRewriteCode(a.text), scanRewriteCode(b.text)];
  const { linked, comparison: c } = judgeRewrite(fa, fb);
  const [anchorsA, anchorsB] = [rewriteAnchors(a.text), rewriteAnchors(b.text)];
  const side = (text: string, anchors: typeof anchorsA, other: ReadonlySet<string>): { token: string; width: number }[] =>
    anchors.map((x) => {
      const word = text.slice(x.start, x.end).replace(/\s+/g, ' ');
      const shared = other.has(x.token);
      return { token: shared ? `${marks[0]}${word}${marks[1]}` : word, width: [...word].length + (shared && !colour ? marks[0].length + marks[1].length : 0) };
    });
  const pct = (x: number): string => `${(100 * x).toFixed(0)}%`;
  const verdict = linked ? (translated(fa, fb) ? `a translation (${fa.lang} / ${fb.lang})` : 'a rewrite') : 'not a rewrite';
  const lines = (text: string): string[] => wrap(text.split(' ').map((token) => ({ token, width: [...token].length })), columns, false).map((l) => l.line);
  const out = [
    '',
    ...lines(`Rare words (names, places, numbers): A ${anchorsA.length}, B ${anchorsB.length}; ${c.shared} pairs of them in order shared.`),
    ...lines(`A holds ${pct(c.bInA)} of B's pairs and B ${pct(c.aInB)} of A's: ${verdict}.`),
  ];
  for (const note of [fa.note && `A: ${fa.note}`, fb.note && `B: ${fb.note}`]) if (note) out.push(...lines(note));
  if (anchorsA.length + anchorsB.length > 0) {
    out.push('', "In order, marked where the other text has them:");
    const left = wrap(side(a.text, anchorsA, new Set(anchorsB.map((x) => x.token))), half, colour);
    const right = wrap(side(b.text, anchorsB, new Set(anchorsA.map((x) => x.token))), half, colour);
    out.push(...sideBySide(left, right, half));
  }
  return out.join('\n') + '\n';
}

/** The whole view: a header with each side's share, then each passage side by side, then the rare words. */
export function compareView(a: CompareSide, b: CompareSide, options: CompareViewOptions = {}): string {
  return passagesView(a, b, options) + rareWordsView(a, b, options);
}

/** The shared passages: a header with each side's share, then each passage side by side. */
function passagesView(a: CompareSide, b: CompareSide, options: CompareViewOptions = {}): string {
  const { columns = 100, colour = false, context = 8 } = options;
  const fa = passageFingerprints(a.text);
  const fb = passageFingerprints(b.text);
  const found = comparePassages(fa, fb);
  const marks = colour ? MARK.colour : MARK.plain;
  const half = Math.max(20, Math.floor((columns - 3) / 2));
  const pct = (x: number): string => `${(100 * x).toFixed(0)}%`;
  const out: string[] = [];
  out.push(`A: ${a.name} (${fa.words} words, ${pct(found.share)} in shared passages)`);
  out.push(`B: ${b.name} (${fb.words} words, ${pct(found.otherShare)} in shared passages)`);
  if (found.passages.length === 0) {
    out.push('', `No shared passage of ${MIN_PASSAGE_WORDS} words or more.`);
    return out.join('\n') + '\n';
  }
  out.push('', `${found.passages.length} shared passage${found.passages.length === 1 ? '' : 's'} of ${MIN_PASSAGE_WORDS} words or more, in A's order:`);
  found.passages.forEach((p, n) => {
    const left = wrap(excerpt(a.text, fa.spans, p.a, context, marks, colour), half, colour);
    const right = wrap(excerpt(b.text, fb.spans, p.b, context, marks, colour), half, colour);
    out.push('', `${n + 1}. A words ${p.a.start + 1}–${p.a.end} (${p.a.end - p.a.start}) · B words ${p.b.start + 1}–${p.b.end} (${p.b.end - p.b.start})`);
    out.push(...sideBySide(left, right, half));
  });
  return out.join('\n') + '\n';
}
