// Text → weighted features → 64-bit fingerprint: the default pipeline shared by the extension
// and the `scan` command.
import { type Fingerprint } from './fingerprint';
import { type Hash64, combine64, hashKey, hashRange } from './hash';
import { Simhash64 } from './simhash';
import { forEachToken, normalizeText } from './text';

export type Weighting = 'tf' | 'sqrt' | 'log' | 'binary';

export interface FeatureOptions {
  /** Word n-gram length: 1 for single words, 2 for word pairs, … */
  shingle: number;
  /** Also add single words when shingle > 1. */
  withUnigrams: boolean;
  weighting: Weighting;
}

export const DEFAULT_FEATURES: FeatureOptions = { shingle: 1, withUnigrams: false, weighting: 'tf' };

export interface FeatureCount {
  hi: number;
  lo: number;
  count: number;
}

export interface Features {
  features: Map<number, FeatureCount>;
  /** Number of tokens (words; bigrams in Chinese and Japanese). */
  tokens: number;
}

/** Counts the features of an already normalised text. */
export function countFeatures(normalized: string, options: FeatureOptions = DEFAULT_FEATURES): Features {
  const { shingle, withUnigrams } = options;
  if (!Number.isInteger(shingle) || shingle < 1 || shingle > 8) {
    throw new RangeError(`shingle must be an integer from 1 to 8: got ${shingle}`);
  }
  const features = new Map<number, FeatureCount>();
  const window: Hash64[] = Array.from({ length: shingle }, () => ({ hi: 0, lo: 0 }));
  const scratch: Hash64 = { hi: 0, lo: 0 };
  const combined: Hash64 = { hi: 0, lo: 0 };
  let tokens = 0;

  const count = (h: Hash64): void => {
    const key = hashKey(h);
    const existing = features.get(key);
    if (existing) existing.count++;
    else features.set(key, { hi: h.hi, lo: h.lo, count: 1 });
  };

  forEachToken(normalized, (start, end) => {
    hashRange(normalized, start, end, scratch);
    if (shingle === 1) {
      count(scratch);
      tokens++;
      return;
    }
    if (withUnigrams) count(scratch);
    const slot = window[tokens % shingle]!;
    slot.hi = scratch.hi;
    slot.lo = scratch.lo;
    tokens++;
    if (tokens >= shingle) {
      combined.hi = window[tokens % shingle]!.hi;
      combined.lo = window[tokens % shingle]!.lo;
      for (let j = 1; j < shingle; j++) combine64(combined, window[(tokens + j) % shingle]!, combined);
      count(combined);
    }
  });
  // A text shorter than one shingle still gets its words as features.
  if (shingle > 1 && tokens > 0 && tokens < shingle && !withUnigrams) {
    for (let j = 0; j < tokens; j++) count(window[j]!);
  }
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

export interface TextFingerprint {
  fingerprint: Fingerprint;
  tokens: number;
}

/** The 64-bit simhash of a text with the default (or given) features. */
export function fingerprintText(text: string, options: FeatureOptions = DEFAULT_FEATURES): TextFingerprint {
  const counted = countFeatures(normalizeText(text), options);
  return { fingerprint: simhashFeatures(counted, options.weighting), tokens: counted.tokens };
}
