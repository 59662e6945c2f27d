// Rewrite fingerprints: find a page that rewords another sentence by sentence, or translates it.
//
// A rewrite changes every word but keeps the article's rare words (names, places, organisations,
// numbers, dates) in nearly the same order; a translation keeps its numbers and the names written
// in Latin script. So a page's *anchors* are those rare words, and its fingerprints are hashes of
// ordered pairs of anchors one or two apart, with an anchor's mentions soon after the last left
// out: an independent article on the same subject shares names, but seldom brings them up in the
// same order, and the subject itself, named on every line, pairs with everything (SpotSigs,
// Theobald et al. 2008, chains the words after stopwords for the same reason). Numbers, dates and
// acronyms are also paired among themselves: they are what a Chinese translation keeps.
// A page keeps its pair hashes cut to 20 bits (membership is what is tested, not identity), a
// long page only the smallest, below a limit, so that two pages estimate how much of one page's
// pairs the other holds (its containment, Broder 1997) from what is stored.
//
//   text ──scan──▶ candidates ──rarity──▶ anchors ──▶ pairs ──▶ hashes ──▶ sample ──▶ containment
//   "On December 15, 2016, Yahoo sold Tumblr to Verizon for $4.8 billion."
//     anchors  #2016 @12-15 yahoo tumblr verizon #4800000000
//     pairs    #2016→@12-15 #2016→yahoo @12-15→yahoo @12-15→tumblr yahoo→tumblr …
//              and among the kept ones: #2016→@12-15 #2016→#4800000000 @12-15→#4800000000
//
// Numbers and dates are written one way in every language ("19 billion", "19.000 millones" and
// "190亿" are #19000000000; "December 15", "15 de diciembre" and "12月15日" are @12-15), and names
// compare folded (lower case, no accents), so that a translation keeps the anchors it can keep.
// bench/quality/rewrite-params.ts has the measurements behind every default here.
import { fmix32 } from './hash';
import { type AnchorParams, ANCHOR_PARAMS, type PageAnchors, type RewriteLanguage, inText, pageAnchors } from './rewrite-anchors';
import { type IsCommon, isShippedCommon } from './rewrite-words';

// ---------- Fingerprints ----------

export interface PairParams {
  /** Each anchor is paired with the next `window` anchors. */
  window: number;
  /** Pairs keep their order (a before b), or not. */
  ordered: boolean;
  /** 2: pairs; 3: triples of anchors within the window. */
  arity: 2 | 3;
  /** Two words of one name ("Barack Obama") make no pair: every page that names him would share it. */
  skipWithinName: boolean;
  /**
   * An anchor is left out where it was already among the previous `repeatGap` anchors (Infinity:
   * only first mentions, the order in which the page introduces its names; 0: every mention).
   */
  repeatGap: number;
  /**
   * Also pair the anchors that every translation keeps (numbers, dates, acronyms, codes) among
   * themselves: a Chinese translation writes most names in Han, and its numbers stand far apart
   * in the original's anchors.
   */
  keptChannel: boolean;
  /**
   * The window in German text: German capitalises its nouns, and those no rule tells from names
   * stand between the names a translation shares with its original.
   */
  germanWindow: number;
}

export interface SampleParams {
  /** Hashes below share · 2^32 are kept: a multiple of 1/65536. */
  share: number;
  /** At most this many a page (then the limit drops to the smallest hashes'). */
  cap: number;
  /** Bits of each hash kept (16 to 32): a page needs its pairs' membership tested, not their identity. */
  bits: number;
}

export interface RewriteParams {
  anchors: AnchorParams;
  pairs: PairParams;
  sample: SampleParams;
}

/**
 * The version of how anchors are found and paired (the rules above and REWRITE_PARAMS' anchors and
 * pairs): an export names it, and fingerprints of another scheme are not compared.
 */
export const REWRITE_SCHEME = 1;

export const REWRITE_PARAMS: RewriteParams = {
  anchors: ANCHOR_PARAMS,
  pairs: { window: 2, ordered: true, arity: 2, skipWithinName: true, repeatGap: 8, keptChannel: true, germanWindow: 4 },
  sample: { share: 1, cap: 64, bits: 20 },
};

/** What the detector keeps of a page. */
export interface RewriteFingerprints {
  /** Sorted, distinct: every pair hash of the page below `limit`. */
  hashes: Uint32Array;
  /** Every hash below it is kept (a multiple of 2^16, at most 2^32). */
  limit: number;
  /** How many anchors the page has. */
  anchors: number;
  lang: RewriteLanguage;
  /** Why the page has no or few fingerprints, or why its anchors miss names: a bad input, a script without capitals. */
  note?: string;
}

/** A capped page's limit is a multiple of this, so that it takes two bytes. */
export const LIMIT_STEP = 2 ** 16;

/** The distinct hashes of the anchor pairs (or triples) of a page's anchors, sorted. */
export function pairHashes(page: Pick<PageAnchors, 'hashes' | 'phrases' | 'kept'>, params: PairParams): Uint32Array {
  const out: number[] = [];
  forEachPair(page, params, (hash) => out.push(hash));
  const sorted = Uint32Array.from(out).sort();
  let w = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[w++] = sorted[i]!;
  return sorted.slice(0, w);
}

/**
 * Calls `emit` with each pair's (or triple's) hash and the indices of its anchors in `page`: the
 * pairs pairHashes keeps, and what marks a page's shared rare words (sharedAnchorRanges).
 */
function forEachPair(page: Pick<PageAnchors, 'hashes' | 'phrases' | 'kept'>, params: PairParams, emit: (hash: number, anchors: number[]) => void): void {
  const { window, repeatGap } = params;
  if (!Number.isInteger(window) || window < 1) throw new RangeError(`the window must be a positive integer: got ${window}`);
  if (!(repeatGap >= 0)) throw new RangeError(`the repeat gap must be 0 or more: got ${repeatGap}`);
  // Repeats in a row ("Obama … Obama") pair with nothing new; a name mentioned again within the
  // gap goes too (the subject of an article, on every line, pairs with everything).
  const seq: number[] = [];
  const phraseOf: number[] = [];
  const keptOf: number[] = [];
  const anchorOf: number[] = [];
  const last = new Map<number, number>();
  for (let i = 0; i < page.hashes.length; i++) {
    const h = page.hashes[i]!;
    const before = last.get(h);
    last.set(h, i);
    if (seq.length > 0 && seq[seq.length - 1] === h) continue;
    if (before !== undefined && i - before <= repeatGap) continue;
    seq.push(h);
    phraseOf.push(page.phrases[i]!);
    keptOf.push(page.kept[i]!);
    anchorOf.push(i);
  }
  pairsOf(seq, phraseOf, params, (hash, at) => emit(hash, at.map((k) => anchorOf[k]!)));
  if (params.keptChannel) {
    const keptSeq: number[] = [];
    const keptPhrases: number[] = [];
    const keptAnchors: number[] = [];
    for (let i = 0; i < seq.length; i++) {
      if (keptOf[i]) {
        keptSeq.push(seq[i]!);
        keptPhrases.push(phraseOf[i]!);
        keptAnchors.push(anchorOf[i]!);
      }
    }
    pairsOf(keptSeq, keptPhrases, params, (hash, at) => emit(hash, at.map((k) => keptAnchors[k]!)));
  }
}

function pairsOf(seq: readonly number[], phraseOf: readonly number[], { window, ordered, arity, skipWithinName }: PairParams, emit: (hash: number, at: number[]) => void): void {
  const n = seq.length;
  const apart = (i: number, j: number): boolean => seq[i] !== seq[j] && !(skipWithinName && phraseOf[i] === phraseOf[j]);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j <= i + window && j < n; j++) {
      if (!apart(i, j)) continue;
      if (arity === 2) emit(pairHash(seq[i]!, seq[j]!, ordered), [i, j]);
      else for (let k = j + 1; k <= i + window && k < n; k++) if (apart(j, k) && apart(i, k)) emit(tripleHash(seq[i]!, seq[j]!, seq[k]!, ordered), [i, j, k]);
    }
  }
}

/**
 * Where a text's rare words are that make the pairs whose hashes (cut to the kept bits) are in
 * `shared`: character ranges of `text`, in order, each once. What "Show on the page" marks for a
 * rewrite (the content script, over the live page's text).
 */
export function sharedAnchorRanges(text: string, shared: ArrayLike<number>, params: RewriteParams = REWRITE_PARAMS): { start: number; end: number }[] {
  const wanted = new Set(Array.from(shared));
  if (wanted.size === 0) return [];
  // one scan: the anchors' offsets mapped back to the text as given
  const page = pageAnchors(text, params.anchors, isShippedCommon, { tokens: false });
  const anchors = inText(text, page.anchors);
  const unit = 2 ** (32 - params.sample.bits);
  const marked = new Set<number>();
  forEachPair(page, params.pairs, (hash, at) => {
    if (wanted.has(Math.floor(hash / unit) * unit)) for (const k of at) marked.add(k);
  });
  return [...marked].sort((a, b) => a - b).map((k) => ({ start: anchors[k]!.start, end: anchors[k]!.end }));
}

function pairHash(a: number, b: number, ordered: boolean): number {
  if (!ordered && a > b) [a, b] = [b, a];
  return fmix32((Math.imul(a ^ 0x5bd1e995, 0x9e3779b1) + fmix32(b ^ 0x27d4eb2f)) >>> 0);
}

function tripleHash(a: number, b: number, c: number, ordered: boolean): number {
  if (!ordered) [a, b, c] = [a, b, c].sort((x, y) => x - y) as [number, number, number];
  return pairHash(pairHash(a, b, true), c, true);
}

/** Sorted hashes with only their top `bits` bits (the others zero), each once. */
export function truncateHashes(sorted: Uint32Array, bits: number): Uint32Array {
  if (!Number.isInteger(bits) || bits < 16 || bits > 32) throw new RangeError(`bits must be a whole number from 16 to 32: got ${bits}`);
  if (bits === 32) return sorted;
  const unit = 2 ** (32 - bits);
  const out = new Uint32Array(sorted.length);
  let w = 0;
  for (let i = 0; i < sorted.length; i++) {
    const h = Math.floor(sorted[i]! / unit) * unit;
    if (w === 0 || out[w - 1] !== h) out[w++] = h;
  }
  return out.slice(0, w);
}

/** The consistent sample: every hash below share · 2^32, or the `cap` smallest with the limit lowered to a step. */
export function sampleHashes(sorted: Uint32Array, { share, cap }: SampleParams): { hashes: Uint32Array; limit: number } {
  const fullLimit = Math.round(share * 2 ** 32);
  if (fullLimit % LIMIT_STEP !== 0 || fullLimit <= 0 || fullLimit > 2 ** 32) throw new RangeError(`the share must be a multiple of 1/65536 in (0, 1]: got ${share}`);
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`the cap must be a positive integer: got ${cap}`);
  let below = 0;
  while (below < sorted.length && sorted[below]! < fullLimit) below++;
  if (below <= cap) return { hashes: sorted.slice(0, below), limit: fullLimit };
  // Too many: the limit falls to a step at or below the (cap + 1)-th smallest hash.
  const limit = Math.floor(sorted[cap]! / LIMIT_STEP) * LIMIT_STEP;
  let kept = 0;
  while (kept < below && sorted[kept]! < limit) kept++;
  return { hashes: sorted.slice(0, kept), limit };
}

/** Below this many anchors a page gets a note: it is compared, but has too little to show a rewrite. */
export const MIN_ANCHORS = 4;

/** The fingerprints of a text. */
export function rewriteFingerprints(text: string, params: RewriteParams = REWRITE_PARAMS, isCommon: IsCommon = isShippedCommon): RewriteFingerprints {
  return fingerprintsOfAnchors(pageAnchors(text, params.anchors, isCommon, { tokens: false }), params);
}

/** A wider sample of a page's pairs, where the text is at hand: what a verdict is checked on (scan). */
export interface WideSample {
  hashes: Uint32Array;
  limit: number;
}

/** How many hashes a wide sample keeps at most: a long page's 64 are a few percent of its pairs. */
export const WIDE_CAP = 256;

/**
 * The fingerprints of a text and, when the page has more pairs than the sample keeps, a wider
 * sample of the same pairs (at most `wideCap`), found in one pass.
 */
export function rewriteFingerprintsWithWide(text: string, wideCap = WIDE_CAP, params: RewriteParams = REWRITE_PARAMS): RewriteFingerprints & { wide?: WideSample } {
  const page = pageAnchors(text, params.anchors, isShippedCommon, { tokens: false });
  const pairs = pagePairs(page, params);
  const fingerprints = fingerprintsOfPairs(page, pairs, params);
  if (fingerprints.hashes.length < pairs.length) return { ...fingerprints, wide: sampleHashes(pairs, { ...params.sample, cap: wideCap }) };
  return fingerprints;
}

/** The fingerprints of anchors already found (the bench finds them once for several settings). */
export function fingerprintsOfAnchors(page: PageAnchors, params: RewriteParams = REWRITE_PARAMS): RewriteFingerprints {
  return fingerprintsOfPairs(page, pagePairs(page, params), params);
}

/** A page's pair hashes, cut to the kept bits, sorted: none for a page of numbers (a table, a list rewrites no article: it would only match other numbers). */
function pagePairs(page: PageAnchors, params: RewriteParams): Uint32Array {
  if (isNumbersOnly(page)) return new Uint32Array(0);
  const pairParams = page.lang === 'de' ? { ...params.pairs, window: params.pairs.germanWindow } : params.pairs;
  return truncateHashes(pairHashes(page, pairParams), params.sample.bits);
}

const isNumbersOnly = (page: PageAnchors): boolean => page.numbers > page.words - page.numbers;

function fingerprintsOfPairs(page: PageAnchors, pairs: Uint32Array, params: RewriteParams): RewriteFingerprints {
  const { hashes, limit } = sampleHashes(pairs, params.sample);
  const fingerprints: RewriteFingerprints = { hashes, limit, anchors: page.anchors.length, lang: page.lang };
  const note = noteFor(page, pairs.length, isNumbersOnly(page));
  if (note) fingerprints.note = note;
  return fingerprints;
}

function noteFor(page: PageAnchors, pairs: number, numbersOnly: boolean): string | undefined {
  const { anchors, words, uncasedScript } = page;
  if (words === 0) return 'no words';
  if (uncasedScript) return `the text is in ${uncasedScript} script, which has no capitals: only its numbers and Latin-script names are anchors (${anchors.length})`;
  if (numbersOnly) return `numbers only (${page.numbers} numbers, ${words - page.numbers} words): not compared`;
  if (anchors.length === 0) return 'no names, rare words or numbers: nothing to compare';
  if (anchors.length < MIN_ANCHORS) return `only ${anchors.length} anchors: too few to show a rewrite`;
  if (pairs < anchors.length / 4) return `repetitive: ${anchors.length} anchors but ${pairs} distinct pairs`;
  return undefined;
}

// ---------- Comparing ----------

export interface RewriteComparison {
  /** Share of a's sampled hashes found in b's, over the hashes below both limits. */
  aInB: number;
  bInA: number;
  shared: number;
}

/**
 * How much of each page's sample the other holds, both samples cut to the smaller limit (so that
 * each hash below it is in a sample exactly when its page has it). `skip` leaves hashes the two
 * share out of every count (the index's hashes on too many pages: frequentSkip); a hash only one
 * of them has always counts, so that the comparison is the same from either page.
 */
export function compareRewrites(a: RewriteFingerprints, b: RewriteFingerprints, skip?: (hash: number) => boolean): RewriteComparison {
  const limit = Math.min(a.limit, b.limit);
  let i = 0;
  let j = 0;
  let na = 0;
  let nb = 0;
  let shared = 0;
  const A = a.hashes;
  const B = b.hashes;
  while (i < A.length || j < B.length) {
    const x = i < A.length && A[i]! < limit ? A[i]! : Infinity;
    const y = j < B.length && B[j]! < limit ? B[j]! : Infinity;
    if (x === Infinity && y === Infinity) break;
    if (x === y) {
      if (!skip?.(x)) {
        shared++;
        na++;
        nb++;
      }
      i++;
      j++;
    } else if (x < y) {
      na++;
      i++;
    } else {
      nb++;
      j++;
    }
  }
  return { aInB: na === 0 ? 0 : shared / na, bInA: nb === 0 ? 0 : shared / nb, shared };
}

/** A pair is a rewrite when this share of one page's pairs is in the other's… */
export const REWRITE_THRESHOLD = 0.3;
/** …and they share at least this many sampled pairs. */
export const MIN_SHARED = 3;

export interface RewriteRule {
  threshold: number;
  minShared: number;
  /**
   * The index holds a page's hashes below this share of its limit (its *index hashes*: a
   * consistent sample of its sample), and two pages are compared only when they share
   * `minIndexShared` of them. At a share of 1/2, half the postings to store and half the buckets
   * a lookup reads (bench:rewrite-params measures what it loses: translations sharing few pairs).
   */
  indexShare: number;
  minIndexShared: number;
}

export const REWRITE_RULE: RewriteRule = { threshold: REWRITE_THRESHOLD, minShared: MIN_SHARED, indexShare: 0.5, minIndexShared: 2 };

/** Every hash below this is one of the page's index hashes (REWRITE_RULE.indexShare). */
export function indexLimit(page: { limit: number }, indexShare: number): number {
  if (!(indexShare > 0 && indexShare <= 1)) throw new RangeError(`the index share must be in (0, 1]: got ${indexShare}`);
  return page.limit * indexShare;
}

/** The page's index hashes: those the postings hold and a lookup reads. */
export function indexHashes(page: Pick<RewriteFingerprints, 'hashes' | 'limit'>, indexShare: number): Uint32Array {
  const limit = indexLimit(page, indexShare);
  let n = 0;
  while (n < page.hashes.length && page.hashes[n]! < limit) n++;
  return page.hashes.subarray(0, n);
}

/**
 * The shared hashes compareRewrites leaves out for pages a and b: those `frequent` says are on too
 * many pages, below both pages' index limits. Either page's lookup read exactly those postings
 * (each is an index hash of both), so the pair is judged the same whichever page is looked up.
 */
export function frequentSkip(a: { limit: number }, b: { limit: number }, indexShare: number, frequent: (hash: number) => boolean): (hash: number) => boolean {
  const below = Math.min(indexLimit(a, indexShare), indexLimit(b, indexShare));
  return (hash) => hash < below && frequent(hash);
}

export function isRewritePair(c: RewriteComparison, rule: RewriteRule = REWRITE_RULE): boolean {
  return c.shared >= rule.minShared && Math.max(c.aInB, c.bInA) >= rule.threshold;
}

/** Are the two pages in different languages (a guess: scripts and function words)? */
export function translated(a: { lang: RewriteLanguage }, b: { lang: RewriteLanguage }): boolean {
  return a.lang !== 'und' && b.lang !== 'und' && a.lang !== b.lang;
}
