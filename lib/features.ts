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
// `npm run bench:quality` measured each choice (see the README).
import { type Fingerprint, hammingDistance } from './fingerprint';
import { type Hash64, combine64, hashKey, hashRange } from './hash';
import { Simhash64 } from './simhash';
import { WORD, forEachToken, normalizeText } from './text';

export type Weighting = 'tf' | 'sqrt' | 'log' | 'binary';

export interface FeatureOptions {
  weighting: Weighting;
  /** Words of spaced scripts shorter than this (UTF-16 code units) are dropped. */
  minWordLength: number;
}

export const DEFAULT_FEATURES: FeatureOptions = { weighting: 'tf', minWordLength: 2 };
/** The plain term-frequency simhash the benchmarks compare against. */
export const PLAIN_TF_FEATURES: FeatureOptions = { weighting: 'tf', minWordLength: 1 };

/**
 * A candidate within k bits on `simhash` is a near-duplicate when the `check` fingerprints differ
 * in at most this many bits. Unrelated texts differ in about 32; in the quality benchmark, true
 * copies differed by at most 10 and false candidates by at least 25.
 */
export const CHECK_MAX_DISTANCE = 16;

export interface FeatureCount {
  hi: number;
  lo: number;
  count: number;
}

export interface Features {
  features: Map<number, FeatureCount>;
  /** Number of words kept (bigrams in Chinese and Japanese). */
  tokens: number;
}

/** Counts the words of an already normalised text. */
export function countFeatures(normalized: string, { minWordLength }: FeatureOptions = DEFAULT_FEATURES): Features {
  const features = new Map<number, FeatureCount>();
  const h: Hash64 = { hi: 0, lo: 0 };
  let tokens = 0;
  forEachToken(normalized, (start, end, kind) => {
    if (kind === WORD && end - start < minWordLength) return;
    hashRange(normalized, start, end, h);
    tokens++;
    const key = hashKey(h);
    const existing = features.get(key);
    if (existing) existing.count++;
    else features.set(key, { hi: h.hi, lo: h.lo, count: 1 });
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

export function simhashFeatures({ features }: Features, weighting: Weighting): Fingerprint {
  const acc = new Simhash64();
  for (const f of features.values()) acc.add(f.hi, f.lo, weightOf(f.count, weighting));
  return acc.fingerprint();
}

// The check fingerprint hashes each word again with this salt, so that its bits are independent
// of the simhash's even for a text whose words all occur once.
const CHECK_SALT: Hash64 = { hi: 0x5bd1e995, lo: 0x1b873593 };

export function checkFingerprint({ features }: Features): Fingerprint {
  const acc = new Simhash64();
  const h: Hash64 = { hi: 0, lo: 0 };
  for (const f of features.values()) {
    h.hi = f.hi;
    h.lo = f.lo;
    combine64(h, CHECK_SALT, h);
    acc.add(h.hi, h.lo, 1);
  }
  return acc.fingerprint();
}

export interface TextFingerprints {
  simhash: Fingerprint;
  check: Fingerprint;
  /** Words kept (a text with none has no meaningful fingerprint). */
  tokens: number;
}

/** The fingerprints of a text, with the default (or given) features. */
export function fingerprintText(text: string, options: FeatureOptions = DEFAULT_FEATURES): TextFingerprints {
  const counted = countFeatures(normalizeText(text), options);
  return { simhash: simhashFeatures(counted, options.weighting), check: checkFingerprint(counted), tokens: counted.tokens };
}

/** Whether a candidate found within k bits on `simhash` is confirmed by `check`. */
export function confirmsNearDuplicate(a: Fingerprint, b: Fingerprint): boolean {
  return hammingDistance(a, b) <= CHECK_MAX_DISTANCE;
}
