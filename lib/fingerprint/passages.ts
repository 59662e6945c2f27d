// Passage fingerprints of a text: winnowed hashes of word k-grams, each with the position of its
// first word, so that a match can be shown. k + w − 1 = 30: any run of 30 words that two texts
// share gives them a shared fingerprint (docs/passages.md has the measurements behind k and w).
import { type Hash64, hashRange } from './hash';
import { kgramHashes, winnowHashes } from './winnow';
import { type WordSpans, normalizeText, normalizedWordRanges, wordSpans } from '../text/words';

export interface PassageParams {
  /** Words per k-gram. */
  k: number;
  /** k-gram hashes per window. */
  w: number;
}

export const PASSAGE_PARAMS: PassageParams = { k: 5, w: 26 };

/** A shared passage counts when it spans at least this many words in both pages: the shorter of its two spans (lib/index/passage-match.ts). */
export const MIN_PASSAGE_WORDS = 30;

/** What a passage index keeps of a page: hashes and positions, no text. */
export interface PassageFingerprints {
  /** Words in the text (Chinese and Japanese: characters). */
  words: number;
  /** Selected k-gram hashes, in position order (a hash may repeat). */
  hashes: Uint32Array;
  /** Word index of each selected k-gram's first word. */
  positions: Int32Array;
  /**
   * One bit of each word's hash (wordBit), 8 a byte, the first word in the lowest bit: where two
   * pages' fingerprints match, these extend the match word by word to about the ends of the run
   * they share (a word past the end agrees by chance half the time), with no text kept. Absent in
   * fingerprints imported from a file written before they existed.
   */
  wordBits?: Uint8Array;
}

/** The bit of a word's hash that wordBits keeps (its highest: the k-gram hashes mix all 32). */
export const wordBit = (wordHash: number): number => wordHash >>> 31;

/** The word bits of a text's word hashes (PassageFingerprints.wordBits). */
export function packWordBits(wordHashes: ArrayLike<number>): Uint8Array {
  const bits = new Uint8Array(Math.ceil(wordHashes.length / 8));
  for (let i = 0; i < wordHashes.length; i++) bits[i >> 3]! |= wordBit(wordHashes[i]!) << (i & 7);
  return bits;
}

/** Word i's bit in packed word bits. */
export const bitAt = (bits: Uint8Array, i: number): number => (bits[i >> 3]! >> (i & 7)) & 1;

/** The fingerprints with each word's hash, what is needed to extend a match to a whole shared run. */
export interface WordPassageFingerprints extends PassageFingerprints {
  /** A 32-bit hash of each word. */
  wordHashes: Uint32Array;
}

/** The fingerprints with what is needed to extend and show a match in this text. */
export interface TextPassageFingerprints extends WordPassageFingerprints {
  /** Each word's offsets in the text as given (worked out on first use). */
  readonly spans: WordSpans;
}

export function checkPassageParams({ k, w }: PassageParams): void {
  if (!Number.isInteger(k) || k < 1 || !Number.isInteger(w) || w < 1) {
    throw new RangeError(`k and w must be positive integers: got k = ${k}, w = ${w}`);
  }
}

/**
 * Hashes every word of normalizeText(text) (the words of wordSpans, whose offsets back into the
 * text are only worked out when `spans` is first read: they cost more than the fingerprints).
 */
export function passageFingerprints(text: string, params: PassageParams = PASSAGE_PARAMS): TextPassageFingerprints {
  checkPassageParams(params);
  const normalized = normalizeText(text);
  const words = normalizedWordRanges(normalized);
  const wordHashes = new Uint32Array(words.count);
  const h: Hash64 = { hi: 0, lo: 0 };
  for (let i = 0; i < words.count; i++) wordHashes[i] = hashRange(normalized, words.start[i]!, words.end[i]!, h).lo;
  const { hashes, positions } = winnowHashes(kgramHashes(wordHashes, params.k), params.w);
  let spans: WordSpans | undefined;
  return {
    words: words.count,
    hashes,
    positions,
    wordBits: packWordBits(wordHashes),
    wordHashes,
    get spans(): WordSpans {
      return (spans ??= wordSpans(text));
    },
  };
}

/**
 * passageFingerprints without the spans, as plain typed arrays: what a worker thread sends (a
 * structured clone would read the lazy `spans` getter, which costs more than the fingerprints).
 */
export function wordPassageFingerprints(text: string, params: PassageParams = PASSAGE_PARAMS): WordPassageFingerprints {
  const { words, hashes, positions, wordHashes } = passageFingerprints(text, params);
  return { words, hashes, positions, wordHashes };
}
