// The planted copies of bench:scan-scale (bench/scan/scale-data.ts), each made from its original's
// tokens (bench/scan/scale-article.ts) the way republishers and content farms make them (as
// bench/data/republish.ts does to real articles):
//   whole     verbatim; edited (2% of the words dropped or changed, a sentence added); cut-last
//             (the last paragraph cut)
//   passages  excerpt (the first 30–60%, then text of its own); quote (60 words of it inside an
//             article of its own); stitched (the first half of one original, the second of another)
//   rewrites  rewrite: every sentence spun (words swapped for others of about their frequency,
//             function words changed, words dropped and added, the words between two anchors
//             shuffled) while the names, places, numbers and dates stay, in order
import { type Article, type ArticleWriter, type Sentence, isWord, paragraphTexts } from './scale-article';

export const COPY_KINDS = ['verbatim', 'edited', 'cut-last', 'excerpt', 'quote', 'stitched', 'rewrite'] as const;
export type CopyKind = (typeof COPY_KINDS)[number];

export const GROUPS = ['whole', 'passages', 'rewrites'] as const;
export type Group = (typeof GROUPS)[number];
export const KIND_GROUP: Record<CopyKind, Group> = { verbatim: 'whole', edited: 'whole', 'cut-last': 'whole', excerpt: 'passages', quote: 'passages', stitched: 'passages', rewrite: 'rewrites' };

/** Words of the quote kind (as bench/data/republish.ts's QUOTE_WORDS). */
export const QUOTE_WORDS = 60;

const copyArticle = (a: Article): Article => ({ title: [...a.title], paragraphs: a.paragraphs.map((p) => p.map((s) => [...s])) });
const tokenCount = (a: Article): number => a.paragraphs.reduce((n, p) => n + p.reduce((m, s) => m + s.length, 0), 0);

/** Whole sentences from the start while fewer than `share` of the tokens are taken (at least one). */
function headSentences(article: Article, share: number): Sentence[][] {
  const limit = tokenCount(article) * share;
  const out: Sentence[][] = [];
  let taken = 0;
  for (const paragraph of article.paragraphs) {
    const kept: Sentence[] = [];
    for (const sentence of paragraph) {
      if (taken > 0 && taken + sentence.length > limit) break;
      kept.push(sentence);
      taken += sentence.length;
    }
    if (kept.length > 0) out.push(kept);
    if (kept.length < paragraph.length) break;
  }
  return out;
}

/** Whole sentences from where `share` of the tokens have gone by to the end. */
function tailSentences(article: Article, share: number): Sentence[][] {
  const from = tokenCount(article) * share;
  const out: Sentence[][] = [];
  let seen = 0;
  for (const paragraph of article.paragraphs) {
    const kept = paragraph.filter((sentence) => {
      const keep = seen >= from;
      seen += sentence.length;
      return keep;
    });
    if (kept.length > 0) out.push(kept);
  }
  return out;
}

// Words a republisher's light edit puts in place of others (bench/data/republish.ts's).
const SUBSTITUTES = ['also', 'very', 'new', 'said', 'now', 'many', 'some', 'still', 'really', 'just', 'major', 'local', 'recent', 'often'];

export function edited(original: Article, writer: ArticleWriter, random: () => number): Article {
  const out = copyArticle(original);
  for (const paragraph of out.paragraphs) {
    for (let s = 0; s < paragraph.length; s++) {
      paragraph[s] = paragraph[s]!.flatMap((token) => {
        if (!isWord(token) || random() >= 0.02) return [token];
        return random() < 0.5 ? [] : [SUBSTITUTES[Math.floor(random() * SUBSTITUTES.length)]!];
      });
    }
  }
  const paragraph = out.paragraphs[Math.floor(random() * out.paragraphs.length)]!;
  paragraph.splice(Math.floor(random() * (paragraph.length + 1)), 0, writer.sentence(random, writer.cast(random)));
  return out;
}

export function cutLast(original: Article): Article {
  const out = copyArticle(original);
  if (out.paragraphs.length > 1) out.paragraphs.pop();
  else if (out.paragraphs[0]!.length > 1) out.paragraphs[0]!.pop();
  return out;
}

export function excerpt(original: Article, writer: ArticleWriter, random: () => number): Article {
  const share = 0.3 + 0.3 * random();
  const own = writer.paragraphs(random, writer.cast(random), 200 + Math.floor(400 * random()));
  return { title: [...original.title], paragraphs: [...headSentences(original, share), ...own] };
}

/** An article of its own with QUOTE_WORDS words of the original, in quotation marks, as a paragraph halfway. */
export function quote(original: Article, writer: ArticleWriter, random: () => number): Article {
  const own = writer.article(random);
  const words = paragraphTexts(original).join(' ').split(' ');
  const from = Math.floor(random() * Math.max(1, words.length - QUOTE_WORDS));
  const quoted = `“${words.slice(from, from + QUOTE_WORDS).join(' ').replace(/[.,]$/, '')}”`;
  own.paragraphs.splice(Math.floor(own.paragraphs.length / 2), 0, [[quoted]]);
  return own;
}

export function stitched(first: Article, second: Article): Article {
  return { title: [...first.title], paragraphs: [...headSentences(first, 0.5), ...tailSentences(second, 0.5)] };
}

// ---------- Spinning ----------

export interface SpinOptions {
  /** Chance that a function word is swapped for another. */
  functionSwap: number;
  /** Chance that any other word is swapped for one of about its frequency. */
  wordSwap: number;
  /** Chances that a word is dropped, and that one is added after it. */
  drop: number;
  add: number;
  /** Chance that an anchor is left out. */
  dropAnchor: number;
  /** Chance that the words between two anchors are shuffled. */
  shuffle: number;
}

export const SPIN_OPTIONS: SpinOptions = { functionSwap: 0.5, wordSwap: 0.9, drop: 0.08, add: 0.08, dropAnchor: 0.05, shuffle: 0.5 };

/** A content farm's spinner over an article's words, its anchors kept in their order. */
export class Spinner {
  private readonly rank: Map<string, number>;

  constructor(private readonly writer: ArticleWriter, private readonly options: SpinOptions = SPIN_OPTIONS) {
    this.rank = new Map(writer.vocabulary.words.map((w, i) => [w, i]));
  }

  /** A word for `word`: a function word for a function word, else one of about its rank. */
  private swap(word: string, random: () => number): string {
    const { words, common, functionWords } = this.writer.vocabulary;
    const r = this.rank.get(word) ?? functionWords + Math.floor(random() * 20_000);
    if (r < functionWords) {
      if (random() >= this.options.functionSwap) return word;
      for (let tries = 0; tries < 8; tries++) {
        const other = common.sample(random());
        if (other < functionWords) return words[other]!;
      }
      return word;
    }
    if (random() >= this.options.wordSwap) return word;
    const low = Math.max(functionWords, Math.floor(r * 0.8));
    const high = Math.min(words.length - 1, Math.ceil(r * 1.25) + 10);
    return words[low + Math.floor(random() * (high - low + 1))]!;
  }

  sentence(sentence: Sentence, random: () => number): Sentence {
    const { drop, add, dropAnchor, shuffle } = this.options;
    // the words between anchors, spun and maybe shuffled; the anchors kept in order
    const out: Sentence = [];
    let segment: string[] = [];
    const flush = (): void => {
      if (segment.length > 1 && random() < shuffle) {
        for (let i = segment.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1));
          [segment[i], segment[j]] = [segment[j]!, segment[i]!];
        }
      }
      out.push(...segment);
      segment = [];
    };
    for (const token of sentence) {
      if (token === ',') continue;
      if (!isWord(token)) {
        flush();
        if (random() >= dropAnchor) out.push(token);
        continue;
      }
      if (random() >= drop) segment.push(this.swap(token, random));
      if (random() < add) segment.push(this.writer.vocabulary.words[this.writer.vocabulary.common.sample(random())]!);
    }
    flush();
    return out.length > 0 ? out : [...sentence];
  }

  article(original: Article, random: () => number): Article {
    return { title: this.sentence(original.title, random), paragraphs: original.paragraphs.map((p) => p.map((s) => this.sentence(s, random))) };
  }
}
