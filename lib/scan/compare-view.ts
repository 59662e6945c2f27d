// `scan --compare A B`'s view: the passages two texts share, side by side, each passage's words
// marked (ANSI colour on a terminal, [[ ]] otherwise) with a few words of context around it.
import { MIN_PASSAGE_WORDS, passageFingerprints } from '../fingerprint/passages';
import type { WordRange } from '../index/passage-match';
import { comparePassages } from '../index/passage-index';
import type { WordSpans } from '../text/words';

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

/** The whole view: a header with each side's share, then each passage side by side. */
export function compareView(a: CompareSide, b: CompareSide, options: CompareViewOptions = {}): string {
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
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      const l = left[i] ?? { line: '', width: 0 };
      const r = right[i]?.line ?? '';
      out.push(`${l.line}${' '.repeat(Math.max(0, half - l.width))} │ ${r}`.trimEnd());
    }
  });
  return out.join('\n') + '\n';
}
