// Passages two texts share: their matching fingerprints chained, in order in both texts, into
// spans. With both texts' word hashes at hand (scan), each passage is then extended word by word
// to the whole shared run. From fingerprints alone (a page read earlier, whose text is not kept),
// it is extended while both pages' word bits agree (one bit of each word's hash): to the run's
// ends and, by chance, a word past them on average; a run of 20 words stays about 20 words, below
// MIN_PASSAGE_WORDS. Fingerprints without word bits (imported from an older file) span their
// matched k-grams.
import { MIN_PASSAGE_WORDS, PASSAGE_PARAMS, type PassageFingerprints, type PassageParams, bitAt } from '../fingerprint/passages';

/** Half-open range of word indices. */
export interface WordRange {
  start: number;
  end: number;
}

export interface Passage {
  a: WordRange;
  b: WordRange;
  /** Matched fingerprints chained into it. */
  matches: number;
}

export interface MatchOptions {
  params?: PassageParams;
  minWords?: number;
  /** Hashes left out of matching (boilerplate). */
  ignore?: (hash: number) => boolean;
  /** Word hashes of both texts: passages are extended to the whole shared run. */
  wordHashes?: { a: Uint32Array; b: Uint32Array };
}

/** A hash repeated more often than this in one text (a refrain, a table) is not matched. */
export const MAX_REPEATS = 8;

export function passageLength(p: Passage): number {
  return Math.min(p.a.end - p.a.start, p.b.end - p.b.start);
}

interface Chain {
  firstA: number;
  firstB: number;
  lastA: number;
  lastB: number;
  matches: number;
}

/**
 * Each hash of a text's fingerprints with its positions in order, worked out once per
 * fingerprints object rather than once per comparison: `scan` compares each page with dozens of
 * candidates.
 */
const positionCache = new WeakMap<PassageFingerprints, Map<number, number[]>>();

function positionsOf(f: PassageFingerprints): Map<number, number[]> {
  let map = positionCache.get(f);
  if (map === undefined) {
    map = new Map();
    for (let j = 0; j < f.hashes.length; j++) {
      const h = f.hashes[j]!;
      const list = map.get(h);
      if (list) list.push(f.positions[j]!);
      else map.set(h, [f.positions[j]!]);
    }
    positionCache.set(f, map);
  }
  return map;
}

/**
 * Matches (i in a, j in b) of equal hashes, chained greedily in a's order: a match extends the
 * open chain it follows in both texts within `gap` words whose diagonal (j − i) moved least, at
 * most `drift` words (a dropped or inserted word or two).
 */
export function sharedPassages(a: PassageFingerprints, b: PassageFingerprints, options: MatchOptions = {}): Passage[] {
  const { params = PASSAGE_PARAMS, minWords = MIN_PASSAGE_WORDS, ignore, wordHashes } = options;
  const gap = 2 * params.w + params.k;
  const drift = 4;
  const inB = positionsOf(b);
  const countInA = positionsOf(a);

  const open: Chain[] = [];
  const done: Chain[] = [];
  for (let i = 0; i < a.hashes.length; i++) {
    const h = a.hashes[i]!;
    const js = inB.get(h);
    if (!js || js.length > MAX_REPEATS || countInA.get(h)!.length > MAX_REPEATS || ignore?.(h)) continue;
    const pa = a.positions[i]!;
    for (let c = open.length - 1; c >= 0; c--) {
      if (open[c]!.lastA < pa - gap) done.push(...open.splice(c, 1));
    }
    for (const pb of js) {
      let best: Chain | undefined;
      let bestDrift = Infinity;
      for (const chain of open) {
        if (pa <= chain.lastA || pb <= chain.lastB || pb - chain.lastB > gap) continue;
        const moved = Math.abs(pb - pa - (chain.lastB - chain.lastA));
        if (moved <= drift && moved < bestDrift) {
          best = chain;
          bestDrift = moved;
        }
      }
      if (best) {
        best.lastA = pa;
        best.lastB = pb;
        best.matches++;
      } else open.push({ firstA: pa, firstB: pb, lastA: pa, lastB: pb, matches: 1 });
    }
  }
  done.push(...open);

  const passages = done.map(
    (c): Passage => ({ a: { start: c.firstA, end: c.lastA + params.k }, b: { start: c.firstB, end: c.lastB + params.k }, matches: c.matches }),
  );
  if (wordHashes) {
    const { a: wa, b: wb } = wordHashes;
    for (const p of passages) extend(p, wa.length, wb.length, (i, j) => wa[i] === wb[j]);
  } else if (a.wordBits !== undefined && b.wordBits !== undefined) {
    const { wordBits: ba } = a;
    const { wordBits: bb } = b;
    for (const p of passages) extend(p, a.words, b.words, (i, j) => bitAt(ba, i) === bitAt(bb, j));
  }
  let merged = mergeOverlapping(passages);
  if (ignore) {
    const zonesA = cachedZones(a, ignore, params);
    const zonesB = cachedZones(b, ignore, params);
    merged = merged.flatMap((p) => cut(p, zonesA, 'a')).flatMap((p) => cut(p, zonesB, 'b'));
  }
  return merged.filter((p) => passageLength(p) >= minWords);
}

/**
 * Each text's boilerplate zones for one `ignore` function, worked out once: a lookup compares its
 * page with every candidate, and `scan` compares each page with dozens. A source whose judgement
 * changes (a page added) gives a new function, which starts a new cache.
 */
const zoneCache = new WeakMap<(hash: number) => boolean, WeakMap<PassageFingerprints, { params: PassageParams; zones: WordRange[] }>>();

function cachedZones(f: PassageFingerprints, ignore: (hash: number) => boolean, params: PassageParams): WordRange[] {
  let byText = zoneCache.get(ignore);
  if (byText === undefined) zoneCache.set(ignore, (byText = new WeakMap()));
  const cached = byText.get(f);
  if (cached !== undefined && cached.params === params) return cached.zones;
  const zones = boilerplateZones(f, ignore, params);
  byText.set(f, { params, zones });
  return zones;
}

/**
 * The words a boilerplate block may cover: each ignored fingerprint's k-gram and w − 1 words
 * either side. A block of at least w + k − 1 words has an ignored fingerprint in every window
 * inside it; only the windows across its edges can select other k-grams of it, and those lie
 * within w − 1 of one that is ignored. So the zones cover the whole block.
 */
export function boilerplateZones(f: PassageFingerprints, ignore: (hash: number) => boolean, { k, w }: PassageParams): WordRange[] {
  const zones: WordRange[] = [];
  for (let i = 0; i < f.hashes.length; i++) {
    if (!ignore(f.hashes[i]!)) continue;
    const start = Math.max(0, f.positions[i]! - (w - 1));
    const end = Math.min(f.words, f.positions[i]! + k + w - 1);
    const last = zones.at(-1);
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else zones.push({ start, end });
  }
  return zones;
}

/** The pieces of a passage outside the zones of one side, the other side shifted alike. */
function cut(p: Passage, zones: readonly WordRange[], side: 'a' | 'b'): Passage[] {
  const other = side === 'a' ? 'b' : 'a';
  const pieces: Passage[] = [];
  let from = p[side].start;
  const keep = (start: number, end: number): void => {
    if (end <= start) return;
    const shift = p[other].start - p[side].start;
    const here = { start, end };
    const there = { start: start + shift, end: Math.min(p[other].end, end + shift) };
    pieces.push(side === 'a' ? { a: here, b: there, matches: p.matches } : { a: there, b: here, matches: p.matches });
  };
  for (const z of zones) {
    if (z.end <= from || z.start >= p[side].end) continue;
    keep(from, Math.min(z.start, p[side].end));
    from = Math.max(from, z.end);
  }
  keep(from, p[side].end);
  return pieces;
}

/** Grows a passage left and right while `same` says the words on both sides agree (their hashes, or their word bits). */
function extend(p: Passage, wordsA: number, wordsB: number, same: (i: number, j: number) => boolean): void {
  while (p.a.start > 0 && p.b.start > 0 && same(p.a.start - 1, p.b.start - 1)) {
    p.a.start--;
    p.b.start--;
  }
  while (p.a.end < wordsA && p.b.end < wordsB && same(p.a.end, p.b.end)) {
    p.a.end++;
    p.b.end++;
  }
}

/** Passages that overlap in both texts become one, in a's order. */
function mergeOverlapping(passages: Passage[]): Passage[] {
  passages.sort((x, y) => x.a.start - y.a.start || x.b.start - y.b.start);
  const out: Passage[] = [];
  for (const p of passages) {
    const last = out.find((q) => p.a.start < q.a.end && q.a.start < p.a.end && p.b.start < q.b.end && q.b.start < p.b.end);
    if (last) {
      last.a = { start: Math.min(last.a.start, p.a.start), end: Math.max(last.a.end, p.a.end) };
      last.b = { start: Math.min(last.b.start, p.b.start), end: Math.max(last.b.end, p.b.end) };
      last.matches += p.matches;
    } else out.push({ a: { ...p.a }, b: { ...p.b }, matches: p.matches });
  }
  return out;
}

/** Fraction of `words` words covered by the union of the ranges. */
export function coveredShare(ranges: readonly WordRange[], words: number): number {
  if (words === 0) return 0;
  const sorted = [...ranges].sort((x, y) => x.start - y.start);
  let covered = 0;
  let reach = 0;
  for (const { start, end } of sorted) {
    const from = Math.max(start, reach);
    if (end > from) covered += end - from;
    reach = Math.max(reach, end);
  }
  return covered / words;
}
