// The words of the rewrite detector (lib/fingerprint/rewrites.ts) as it compares them: folded (lower
// case, no accents, so that names match across languages) and hashed to 32 bits, looked up in a
// typed-array table, and told common or not by the shipped list (lib/fingerprint/common-words.ts).
import { COMMON_WORDS } from './common-words';
import { fmix32 } from './hash';

/** A word as anchors compare it: lower case, without accents or other marks. */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  for (let i = 0; i < lower.length; i++) if (lower.charCodeAt(i) >= 128) return lower.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');
  return lower;
}

// foldWord of each Latin letter with an accent (U+0080 to U+024F), worked out once, on the first
// such letter: a Spanish text folds a word in four with one, and the normalisations cost a
// twentieth of the time. Not at load: the content script loads this module on every page.
let latinFolds: string[] | undefined;
const latinFold = (c: number): string => (latinFolds ??= Array.from({ length: 0x250 - 0x80 }, (_, i) => foldWord(String.fromCharCode(0x80 + i))))[c - 0x80]!;

/** A 32-bit hash of a string (FNV-1a over UTF-16 code units, then murmur3's finaliser). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix32(h);
}

/** hashString(foldWord(s.slice(start, end))), without the substring when the word is Latin. */
export function hashFolded(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) h = Math.imul(h ^ (c >= 65 && c <= 90 ? c + 32 : c), 0x01000193);
    else if (c < 0x250) {
      const folded = latinFold(c);
      for (let j = 0; j < folded.length; j++) h = Math.imul(h ^ folded.charCodeAt(j), 0x01000193);
    } else return hashString(foldWord(s.slice(start, end)));
  }
  return fmix32(h);
}

/** The hash a word is looked up by: hashString(foldWord(word)). */
export const hashWord = (word: string): number => hashString(foldWord(word));

/** hashFolded of a whole word: what the scan computes, for tests to hold against hashWord. */
export const hashWordInText = (word: string): number => hashFolded(word, 0, word.length);

/**
 * 32-bit hashes to small values, open addressing in typed arrays. Looked up once a word: a Set of
 * numbers in its place cost about a tenth of the fingerprinting time.
 */
export class HashTable32 {
  private readonly keys: Uint32Array;
  private readonly values: Int32Array;
  private readonly mask: number;

  constructor(entries: Iterable<readonly [number, number]>, size: number) {
    let capacity = 16;
    while (capacity < size * 2) capacity *= 2;
    this.keys = new Uint32Array(capacity);
    this.values = new Int32Array(capacity).fill(-1);
    this.mask = capacity - 1;
    for (const [key, value] of entries) this.set(key, value);
  }

  private set(key: number, value: number): void {
    if (value < 0) throw new RangeError(`values must not be negative: got ${value}`);
    let at = key & this.mask;
    while (this.values[at] !== -1 && this.keys[at] !== key) at = (at + 1) & this.mask;
    this.keys[at] = key;
    this.values[at] = value;
  }

  /** The value of a key, or −1. */
  get(key: number): number {
    let at = key & this.mask;
    for (;;) {
      const value = this.values[at]!;
      if (value === -1 || this.keys[at] === key) return value;
      at = (at + 1) & this.mask;
    }
  }
}

/** Is a word common, never a name by itself? Given its hashWord. */
export type IsCommon = (hash: number) => boolean;

/** An IsCommon of a list of words (folded first): the bench measures several lists. */
export function commonWordsTest(words: readonly string[]): IsCommon {
  const table = new HashTable32(words.filter((w) => w !== '').map((w) => [hashWord(w), 1] as const), words.length);
  return (hash) => table.get(hash) === 1;
}

let shippedCommon: IsCommon | undefined;

/** The shipped common words (lib/fingerprint/common-words.ts). */
export const isShippedCommon: IsCommon = (hash) => (shippedCommon ??= commonWordsTest(COMMON_WORDS.split(' ')))(hash);
