// One synthetic article of bench:scan-scale (bench/scan/scale-data.ts), drawn from a seeded random
// stream: a title and paragraphs of sentences of English words at their frequencies, some from the
// article's topic, with the article's cast (people, places, organisations) and numbers, dates and
// codes sprinkled at about the rate of news prose (an anchor every 15 words or so). Kept as tokens
// until written, so that the copies (bench/scan/scale-copies.ts) can edit words and keep anchors.
//
//   token     "council" (a word: starts with a lower-case letter) | "," | an anchor, anything else:
//             "Kelvar Ostrum", "Dravenford", "NTSB", "A320", "2019", "$4.8 million", "March 14, 2021"
//   sentence  token[]: the first word capitalised and a full stop added when written
//   article   { title: token[], paragraphs: sentence[][] }
import type { Vocabulary } from './scale-words';

export type Sentence = string[];
export interface Article {
  title: Sentence;
  paragraphs: Sentence[][];
}

/** Whether a token is a word a spinner may change (not an anchor, not punctuation). */
export const isWord = (token: string): boolean => {
  const c = token.charCodeAt(0);
  return c >= 97 && c <= 122;
};

/** The people, places and organisations an article is about, and its topic. */
export interface Cast {
  people: { first: string; last: string; named: boolean }[];
  places: string[];
  organisations: string[];
  topic: Int32Array;
  /** The article's own words (indices into the vocabulary's words), the first the most used: what it repeats. */
  keywords: Int32Array;
}

export interface ArticleOptions {
  /** Share of the words drawn from the article's topic, and from its own keywords, rather than from all English. */
  topicShare: number;
  keywordShare: number;
  /** How many keywords an article has, at least and at most. */
  keywords: [number, number];
  /** A name's index in its pool is ⌊size · u^power⌋: power 1 draws all alike, higher favours the first (famous) ones. */
  namePower: number;
}

export const ARTICLE_OPTIONS: ArticleOptions = { topicShare: 0.08, keywordShare: 0.3, keywords: [15, 50], namePower: 2 };

/** 1250000 → "1,250,000" (toLocaleString is ten times slower). */
export function withCommas(n: number): string {
  const digits = String(n);
  let out = '';
  for (let i = 0; i < digits.length; i++) out += (i > 0 && (digits.length - i) % 3 === 0 ? ',' : '') + digits[i];
  return out;
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Draws an article's words and anchors from `random`. */
export class ArticleWriter {
  constructor(readonly vocabulary: Vocabulary, readonly options: ArticleOptions = ARTICLE_OPTIONS) {}

  private famous<T>(random: () => number, pool: readonly T[]): T {
    return pool[Math.floor(pool.length * random() ** this.options.namePower)]!;
  }

  cast(random: () => number): Cast {
    const v = this.vocabulary;
    const people = Array.from({ length: 2 + Math.floor(random() * 5) }, () => ({ first: this.famous(random, v.firstNames), last: this.famous(random, v.surnames), named: false }));
    const places = Array.from({ length: 1 + Math.floor(random() * 4) }, () => this.famous(random, v.places));
    const organisations = Array.from({ length: Math.floor(random() * 3) }, () => this.famous(random, v.acronyms));
    const [fewest, most] = this.options.keywords;
    // keywords of any rank past the function words, a rare one as likely as a common one by rank's logarithm
    const keywords = Int32Array.from({ length: fewest + Math.floor(random() * (most - fewest + 1)) }, () => Math.floor(v.functionWords * (v.words.length / v.functionWords) ** random()));
    return { people, places, organisations, topic: v.topics[Math.floor(random() * v.topics.length)]!, keywords };
  }

  /** A word: from the topic at topicShare, from the keywords (the first ones most: the article repeats them) at keywordShare, else from all English at its frequency. */
  word(random: () => number, cast: Pick<Cast, 'topic' | 'keywords'>): string {
    const v = this.vocabulary;
    const { topicShare, keywordShare } = this.options;
    const u = random();
    if (u < topicShare) return v.words[cast.topic[Math.floor((u / topicShare) * cast.topic.length)]!]!;
    if (u < topicShare + keywordShare) return v.words[cast.keywords[Math.floor(cast.keywords.length * ((u - topicShare) / keywordShare) ** 1.5)]!]!;
    return v.words[v.common.sample(random())]!;
  }

  number(random: () => number): string {
    const u = random();
    if (u < 0.4) return String(2025 - Math.floor(75 * random() ** 2));
    if (u < 0.7) {
      return withCommas(Math.floor(10 * 1000 ** random()));
    }
    if (u < 0.9) {
      const amount = random() < 0.5 ? `${(1 + Math.floor(random() * 999)) / 10} million` : withCommas(1000 * (10 + Math.floor(random() * 990)));
      return `$${amount}`;
    }
    return `${10 + Math.floor(random() * 90)} percent`;
  }

  date(random: () => number): string {
    const month = MONTH_NAMES[Math.floor(random() * 12)]!;
    const day = 1 + Math.floor(random() * 28);
    return random() < 0.5 ? `${month} ${day}` : `${month} ${day}, ${2025 - Math.floor(30 * random() ** 2)}`;
  }

  anchor(random: () => number, cast: Cast): string {
    const u = random();
    if (u < 0.42) {
      // the first person is the article's subject: half the mentions
      const person = random() < 0.5 ? cast.people[0]! : cast.people[Math.floor(random() * cast.people.length)]!;
      if (person.named) return person.last;
      person.named = true;
      return `${person.first} ${person.last}`;
    }
    if (u < 0.62) return cast.places[Math.floor(random() * cast.places.length)]!;
    if (u < 0.7 && cast.organisations.length > 0) return cast.organisations[Math.floor(random() * cast.organisations.length)]!;
    if (u < 0.9) return this.number(random);
    if (u < 0.97) return this.date(random);
    return this.famous(random, this.vocabulary.codes);
  }

  /** A sentence of 6 to 31 tokens, 0 to 3 of them anchors (1.2 on average). */
  sentence(random: () => number, cast: Cast): Sentence {
    const length = 6 + Math.floor(13 * (random() + random()));
    const a = random();
    const anchors = a < 0.22 ? 0 : a < 0.62 ? 1 : a < 0.9 ? 2 : 3;
    const at = new Set<number>();
    while (at.size < anchors) at.add(Math.floor(random() * length));
    const out: Sentence = [];
    for (let i = 0; i < length; i++) {
      out.push(at.has(i) ? this.anchor(random, cast) : this.word(random, cast));
      if (i < length - 2 && random() < 0.05) out.push(',');
    }
    return out;
  }

  /** Paragraphs of 1 to 5 sentences until at least `words` tokens. */
  paragraphs(random: () => number, cast: Cast, words: number): Sentence[][] {
    const out: Sentence[][] = [];
    let total = 0;
    while (total < words) {
      const paragraph: Sentence[] = [];
      const sentences = 1 + Math.floor(random() * 5);
      for (let s = 0; s < sentences && total < words; s++) {
        const sentence = this.sentence(random, cast);
        total += sentence.length;
        paragraph.push(sentence);
      }
      out.push(paragraph);
    }
    return out;
  }

  /** An article of 200 to 1,000 words (about 520 on average). */
  article(random: () => number, cast = this.cast(random)): Article {
    const words = 200 + Math.floor(800 * random() ** 1.5);
    const title: Sentence = [cast.people[0]!.last];
    const titleWords = 3 + Math.floor(random() * 5);
    for (let i = 0; i < titleWords; i++) title.push(this.word(random, cast));
    title.push(cast.places[0]!);
    return { title, paragraphs: this.paragraphs(random, cast, words) };
  }
}

// ---------- Writing ----------

const capitalise = (s: string): string => (isWord(s) ? s[0]!.toUpperCase() + s.slice(1) : s);

export function sentenceText(sentence: Sentence): string {
  let out = '';
  for (const token of sentence) {
    if (token === ',') out += ',';
    else out += out === '' ? capitalise(token) : ` ${token}`;
  }
  return out + '.';
}

export function titleText(title: Sentence): string {
  return title.map((t, i) => (i === 0 ? capitalise(t) : t)).join(' ');
}

export function paragraphTexts(article: Article): string[] {
  return article.paragraphs.map((p) => p.map(sentenceText).join(' '));
}

/** A plain-text file: the title on the first line (scan's title for text), a blank line between paragraphs. */
export function articleText(article: Article): string {
  return `${titleText(article.title)}\n\n${paragraphTexts(article).join('\n\n')}\n`;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A news site's page around the article: a header, navigation and a footer that Readability leaves out. */
export function articleHtml(article: Article, site: string): string {
  const title = escapeHtml(titleText(article.title));
  const body = paragraphTexts(article)
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | ${site}</title><meta property="og:site_name" content="${site}"></head>
<body><header><div class="logo">${site}</div><nav><ul><li><a href="/news">News</a></li><li><a href="/business">Business</a></li><li><a href="/sport">Sport</a></li><li><a href="/opinion">Opinion</a></li></ul></nav></header>
<main><article><h1>${title}</h1>
${body}
</article></main>
<footer><p>© ${site}. All rights reserved.</p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>
</body></html>
`;
}
