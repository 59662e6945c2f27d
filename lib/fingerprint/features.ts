// Text → weighted features → fingerprints: the pipeline shared by the extension and `scan`.
//
// Two 64-bit simhashes of the same words:
// - `simhash`, words weighted by term frequency: frequent words dominate, so a credit line, a
//   promo paragraph or a few changed words move few bits. It is the key of the permuted-block
//   tables; candidates are pages within k bits of it.
// - `check`, the simhash of the *set* of words (every distinct word weight 1): rare words count as
//   much as common ones, so two different articles that share a language's common words, and
//   happen to land within k bits on `simhash`, are far apart on `check`. It confirms candidates.
// Single-character words of spaced scripts ("a", "s" of "it's", lone digits) are dropped: they are
// mostly punctuation debris and formula symbols, and they vary between a page and its copies.
// `npm run bench:quality` measured each choice (docs/methods.md, *What was tried for the simhash's weights*).
import { type Fingerprint, hammingDistance } from './bits';
import { type Hash64, combine64, hashRange } from './hash';
import { Simhash64 } from './simhash';
import { MIN_COMPARED_WORD_LENGTH, WORD, forEachToken, normalizeText } from '../text/words';

export type Weighting = 'tf' | 'sqrt' | 'log' | 'binary';

export interface FeatureOptions {
  weighting: Weighting;
  /** Words of spaced scripts shorter than this (UTF-16 code units) are dropped. */
  minWordLength: number;
}

export const DEFAULT_FEATURES: FeatureOptions = { weighting: 'tf', minWordLength: MIN_COMPARED_WORD_LENGTH };
/** The plain term-frequency simhash the benchmarks compare against. */
export const PLAIN_TF_FEATURES: FeatureOptions = { weighting: 'tf', minWordLength: 1 };

/**
 * A candidate within k bits on `simhash` is a near-duplicate when the `check` fingerprints differ
 * in at most this many bits. Unrelated texts differ in about 32; in the quality benchmark, true
 * copies differed by at most 10 and false candidates by at least 25.
 */
export const CHECK_MAX_DISTANCE = 16;

/**
 * Distinct features and their counts: an open-addressing hash table over typed arrays, keyed by
 * the full 64-bit hash. A Map keyed by a 53-bit number made counting the slowest step (its keys
 * are heap numbers); this keeps it allocation-free per token.
 */
export class FeatureCounts {
  private hi: Int32Array;
  private lo: Int32Array;
  private counts: Int32Array; // 0 marks an empty slot
  private mask: number;
  size = 0;

  constructor(expected = 256) {
    let capacity = 64;
    while (capacity < expected * 2) capacity *= 2;
    this.hi = new Int32Array(capacity);
    this.lo = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  private slotOf(hi: number, lo: number): number {
    let slot = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask;
    while (this.counts[slot] !== 0 && (this.hi[slot] !== (hi | 0) || this.lo[slot] !== (lo | 0))) {
      slot = (slot + 1) & this.mask;
    }
    return slot;
  }

  add(hi: number, lo: number): void {
    const slot = this.slotOf(hi, lo);
    if (this.counts[slot] === 0) {
      this.hi[slot] = hi;
      this.lo[slot] = lo;
      this.counts[slot] = 1;
      if (++this.size * 2 > this.mask + 1) this.grow();
    } else {
      this.counts[slot]!++;
    }
  }

  countOf(h: Hash64): number {
    return this.counts[this.slotOf(h.hi, h.lo)]!;
  }

  /** Visits each distinct feature: visit(hi, lo, count), hi and lo unsigned 32-bit. */
  visit(visitor: { feature(hi: number, lo: number, count: number): void }): void {
    const { hi, lo, counts } = this;
    for (let slot = 0; slot < counts.length; slot++) {
      const count = counts[slot]!;
      if (count !== 0) visitor.feature(hi[slot]! >>> 0, lo[slot]! >>> 0, count);
    }
  }

  private grow(): void {
    const { hi, lo, counts } = this;
    const capacity = counts.length * 2;
    this.hi = new Int32Array(capacity);
    this.lo = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let slot = 0; slot < counts.length; slot++) {
      if (counts[slot] === 0) continue;
      const to = this.slotOf(hi[slot]!, lo[slot]!);
      this.hi[to] = hi[slot]!;
      this.lo[to] = lo[slot]!;
      this.counts[to] = counts[slot]!;
    }
  }
}

export interface Features {
  features: FeatureCounts;
  /** Number of words kept (bigrams in Chinese and Japanese). */
  tokens: number;
}

/** Counts the words of an already normalised text. */
export function countFeatures(normalized: string, { minWordLength }: FeatureOptions = DEFAULT_FEATURES): Features {
  // About one distinct word per 20 characters of prose; the table grows if there are more.
  const features = new FeatureCounts(Math.min(1 << 20, normalized.length >>> 4));
  const h: Hash64 = { hi: 0, lo: 0 };
  let tokens = 0;
  forEachToken(normalized, (start, end, kind) => {
    if (kind === WORD && end - start < minWordLength) return;
    hashRange(normalized, start, end, h);
    tokens++;
    features.add(h.hi, h.lo);
  });
  return { features, tokens };
}

export function weightOf(count: number, weighting: Weighting): number {
  switch (weighting) {
    case 'tf':
      return count;
    case 'sqrt':
      return Math.sqrt(count);
    case 'log':
      return 1 + Math.log(count);
    case 'binary':
      return 1;
  }
}

// The check fingerprint hashes each word again with this salt, so that its bits are independent
// of the simhash's even for a text whose words all occur once.
const CHECK_SALT: Hash64 = { hi: 0x5bd1e995, lo: 0x1b873593 };

export interface TextFingerprints {
  simhash: Fingerprint;
  check: Fingerprint;
  /** Words kept (a text with none has no meaningful fingerprint). */
  tokens: number;
}

/** Both fingerprints in one pass over the features (the hot path of fingerprintText). */
class BothFingerprints {
  readonly simhash = new Simhash64();
  readonly check = new Simhash64();
  private readonly salted: Hash64 = { hi: 0, lo: 0 };
  constructor(private readonly weighting: Weighting) {}

  feature(hi: number, lo: number, count: number): void {
    this.simhash.add(hi, lo, weightOf(count, this.weighting));
    const h = this.salted;
    h.hi = hi;
    h.lo = lo;
    combine64(h, CHECK_SALT, h);
    this.check.add(h.hi, h.lo, 1);
  }
}

/** The fingerprints of a text, with the default (or given) features. */
export function fingerprintText(text: string, options: FeatureOptions = DEFAULT_FEATURES): TextFingerprints {
  const counted = countFeatures(normalizeText(text), options);
  const both = new BothFingerprints(options.weighting);
  counted.features.visit(both);
  return { simhash: both.simhash.fingerprint(), check: both.check.fingerprint(), tokens: counted.tokens };
}

/** Whether a candidate found within k bits on `simhash` is confirmed by `check`. */
export function confirmsNearDuplicate(a: Fingerprint, b: Fingerprint): boolean {
  return hammingDistance(a, b) <= CHECK_MAX_DISTANCE;
}
