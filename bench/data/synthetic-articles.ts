// The articles behind the synthetic history's passage fingerprints (bench/data/synthetic-history.ts):
// their words' hashes (there is no text), and a page's `passages` field made from them.
//
// Articles: 300 + 1,200·u² words (u uniform: 300 to 1,500, mean 700, median 600). Each word is
// drawn from a vocabulary of 131,072 words by Zipf's law (rank r with probability about
// 1 / (r · ln 131,072): the commonest word is 6% of the words), its hash a seeded bijection of its
// rank. The words come from one stream of random draws, each page from a part of its own, so
// unrelated pages share no run of words by construction (chance shared fingerprints are only
// repeated k-grams of common words, and equal 32-bit minima); a page's words are made again
// from where its part starts when a later copy needs them, so no text is kept in memory.
import { kgramHashes, winnowHashes } from '../../lib/fingerprint/winnow';
import { fmix32 } from '../../lib/fingerprint/hash';
import { encodePassageBytes } from '../../lib/fingerprint/passage-codec';
import { PASSAGE_PARAMS, packWordBits } from '../../lib/fingerprint/passages';
import { varintSize, writeVarint } from '../../lib/fingerprint/varint';

const VOCABULARY = 131_072;
const LN_VOCABULARY = Math.log(VOCABULARY + 1);
/** exp(LN_VOCABULARY · i / 4096): a word's rank is exp(LN_VOCABULARY · u) − 1 for u uniform, from the draw's high 12 bits and its low 20. */
const EXP_HIGH = Float64Array.from({ length: 4097 }, (_, i) => Math.exp((LN_VOCABULARY * i) / 4096));
const LOW_SCALE = LN_VOCABULARY / 2 ** 32;
const QUOTE_WORDS = 60;
export const OWN = 0;
export const NEAR = 1;
export const EXCERPT = 2;
export const QUOTE = 3;
export type ArticleKind = typeof OWN | typeof NEAR | typeof EXCERPT | typeof QUOTE;

export interface Article {
  /** Each word's 32-bit hash. */
  words: Uint32Array;
  /** How many of them are, in one run, the source page's. */
  copied: number;
}

/**
 * Every page's words, from one stream of draws: draw n is fmix32(n · 0x9e3779b9 + salt), a hashed
 * counter, and page i takes draws start[i], start[i] + 1, … up to the next page's start, so each
 * page has a part of the stream of its own (two pages share words only where one copies the
 * other). A copy's source is made again from its part when the copy needs it: 9 bytes a page kept.
 */
export class Articles {
  private readonly start: Uint32Array;
  private readonly kind: Uint8Array;
  private readonly source: Int32Array;
  private readonly salt: number;
  private readonly wordSalt: number;
  /** The next page's first draw. */
  private cursor = 0;
  /** The draw `next` gives. */
  private at = 0;

  constructor(pages: number, seed: number) {
    this.start = new Uint32Array(pages);
    this.kind = new Uint8Array(pages);
    this.source = new Int32Array(pages);
    this.salt = fmix32(seed ^ 0x51ed270b);
    this.wordSalt = fmix32(seed ^ 0x2545f491);
  }

  /** Page i's article, from the next part of the stream (pages are added in order; `source` an earlier page, or -1). */
  add(i: number, kind: ArticleKind, source: number): Article {
    this.start[i] = this.cursor;
    this.kind[i] = kind;
    this.source[i] = source;
    this.at = this.cursor;
    const article = this.make(kind, source);
    // past 2^32 draws the counter would come round to the first pages' words again
    if (this.at >= 2 ** 32) throw new RangeError('the synthetic articles would take more than 2^32 draws: ask for fewer pages');
    this.cursor = this.at;
    return article;
  }

  /** Page i's words again, as `add` made them. */
  words(i: number): Uint32Array {
    const at = this.at;
    this.at = this.start[i]!;
    const { words } = this.make(this.kind[i] as ArticleKind, this.source[i]!);
    this.at = at;
    return words;
  }

  /** The next draw: 32 random bits. */
  private next(): number {
    return fmix32((Math.imul(this.at++, 0x9e3779b9) + this.salt) | 0);
  }

  /** The next draw as a fraction in [0, 1). */
  private fraction(): number {
    return this.next() / 4294967296;
  }

  private make(kind: ArticleKind, source: number): Article {
    if (kind === OWN) return { words: this.own(), copied: 0 };
    const base = this.words(source);
    if (kind === NEAR) {
      const rate = 0.02 * this.fraction();
      for (let j = 0; j < base.length; j++) if (this.fraction() < rate) base[j] = this.word(this.next());
      return { words: base, copied: 0 };
    }
    if (kind === EXCERPT) {
      const copied = Math.round(base.length * (0.3 + 0.3 * this.fraction()));
      const words = new Uint32Array(copied + 20 + Math.floor(41 * this.fraction()));
      words.set(base.subarray(0, copied));
      for (let j = copied; j < words.length; j++) words[j] = this.word(this.next());
      return { words, copied };
    }
    const host = this.own();
    const from = Math.floor(this.fraction() * (base.length - QUOTE_WORDS + 1));
    const at = Math.floor(this.fraction() * (host.length + 1));
    const words = new Uint32Array(host.length + QUOTE_WORDS);
    words.set(host.subarray(0, at));
    words.set(base.subarray(from, from + QUOTE_WORDS), at);
    words.set(host.subarray(at), at + QUOTE_WORDS);
    return { words, copied: QUOTE_WORDS };
  }

  /** An article of its own: 300 + 1,200·u² words (300 to 1,500, mean 700). */
  private own(): Uint32Array {
    const u = this.fraction();
    const words = new Uint32Array(300 + Math.floor(1200 * u * u));
    for (let j = 0; j < words.length; j++) words[j] = this.word(this.next());
    return words;
  }

  /**
   * The hash of a word drawn by Zipf's law (s = 1: its rank log-uniform in 1 … VOCABULARY), from 32
   * random bits: exp(x) = EXP_HIGH[high 12 bits] · exp(low part), the latter below 1.003, to its
   * second order (half the time of Math.exp).
   */
  private word(bits: number): number {
    const low = (bits & 0xfffff) * LOW_SCALE;
    const rank = Math.min(VOCABULARY, Math.floor(EXP_HIGH[bits >>> 20]! * (1 + low + (low * low) / 2))) - 1;
    return fmix32(rank ^ this.wordSalt);
  }
}

/**
 * The export's `passages` field of a page: its fingerprints as lib/fingerprint/passage-codec.ts's
 * bytes, in base64; with `version1`, as the first release wrote and reads them (varint words ·
 * varint n · n × (varint gap · hash as 4 bytes, big-endian), no word bits): passageBytesFromVersion1
 * reads them back.
 */
export function passageField(words: Uint32Array, version1 = false): { base64: string; fingerprints: number } {
  const { hashes, positions } = winnowHashes(kgramHashes(words, PASSAGE_PARAMS.k), PASSAGE_PARAMS.w);
  const bytes = version1 ? passageBytesVersion1(words.length, hashes, positions) : encodePassageBytes({ words: words.length, hashes, positions, wordBits: packWordBits(words) });
  // Buffer's base64 is codec.ts's bytesToBase64, several times faster in Node (the test compares them)
  return { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'), fingerprints: hashes.length };
}

function passageBytesVersion1(words: number, hashes: ArrayLike<number>, positions: ArrayLike<number>): Uint8Array {
  let size = varintSize(words) + varintSize(hashes.length);
  for (let i = 0; i < hashes.length; i++) size += varintSize(positions[i]! - (i === 0 ? 0 : positions[i - 1]!)) + 4;
  const out = new Uint8Array(size);
  let at = writeVarint(out, writeVarint(out, 0, words), hashes.length);
  for (let i = 0; i < hashes.length; i++) {
    at = writeVarint(out, at, positions[i]! - (i === 0 ? 0 : positions[i - 1]!));
    const h = hashes[i]!;
    out[at++] = h >>> 24;
    out[at++] = (h >>> 16) & 0xff;
    out[at++] = (h >>> 8) & 0xff;
    out[at++] = h & 0xff;
  }
  return out;
}
