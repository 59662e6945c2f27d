// A seeded folder of a few hundred documents with copies of every kind planted, for the tests that
// hold scan's on-disk path to its in-memory one: articles of common words with names and numbers,
// lightly edited whole copies (some as HTML pages naming the original by a canonical link, or
// dated), partial copies (a run of 60 to 90 words of one article inside another text), rewrites
// (the same names and numbers in the same order, every other word new), a box of words on more
// than 100 documents (boilerplate by page count) and a box on 22 pages of one site (by site).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { COMMON_WORDS } from '../../lib/fingerprint/common-words';
import { mulberry32, pick } from '../../lib/random';

export interface CorpusCounts {
  articles: number;
  wholeCopies: number;
  partialCopies: number;
  rewrites: number;
  boxed: number;
  sitePages: number;
}

export const DEFAULT_COUNTS: CorpusCounts = { articles: 150, wholeCopies: 40, partialCopies: 40, rewrites: 40, boxed: 110, sitePages: 22 };

const COMMON = COMMON_WORDS.split(' ').filter((w) => /^[a-z]{3,}$/.test(w));
const SYLLABLES = ['ka', 'ro', 'ven', 'dal', 'mir', 'tes', 'lo', 'bran', 'ush', 'el', 'tor', 'quin', 'sa', 'mo', 'rak', 'ji', 'pel', 'dor'];

type Token = { word: string; anchor: boolean };

/** An article: sentences of common words, a sixth of the words names and numbers of its own. */
function article(random: () => number, words: number): Token[] {
  const names = Array.from({ length: 14 }, () => {
    const n = 2 + Math.floor(random() * 2);
    const name = Array.from({ length: n }, () => pick(random, SYLLABLES)).join('');
    return name[0]!.toUpperCase() + name.slice(1);
  });
  const tokens: Token[] = [];
  while (tokens.length < words) {
    const r = random();
    if (r < 0.12) tokens.push({ word: pick(random, names), anchor: true });
    else if (r < 0.17) tokens.push({ word: String(10 + Math.floor(random() * 5000)), anchor: true });
    else tokens.push({ word: pick(random, COMMON), anchor: false });
  }
  return tokens;
}

/** Tokens as sentences of 8 to 15 words. */
function prose(random: () => number, tokens: readonly Token[]): string {
  const out: string[] = [];
  let sentence: string[] = [];
  let length = 8 + Math.floor(random() * 8);
  for (const { word } of tokens) {
    sentence.push(sentence.length === 0 ? word[0]!.toUpperCase() + word.slice(1) : word);
    if (sentence.length === length) {
      out.push(sentence.join(' ') + '.');
      sentence = [];
      length = 8 + Math.floor(random() * 8);
    }
  }
  if (sentence.length) out.push(sentence.join(' ') + '.');
  return out.join(' ');
}

/** The same names and numbers in the same order, every common word drawn anew (and a few more or fewer). */
function rewrite(random: () => number, tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    if (t.anchor) out.push(t);
    else if (random() < 0.9) out.push({ word: pick(random, COMMON), anchor: false });
    if (random() < 0.1) out.push({ word: pick(random, COMMON), anchor: false });
  }
  return out;
}

/** A few words replaced. */
function edit(random: () => number, tokens: readonly Token[], changes: number): Token[] {
  const out = tokens.slice();
  for (let i = 0; i < changes; i++) out[Math.floor(random() * out.length)] = { word: pick(random, COMMON), anchor: false };
  return out;
}

function html(title: string, text: string, head: string): string {
  const paragraphs = text.match(/[^.]+\.(\s+[^.]+\.){0,3}/g) ?? [text];
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>
<main><article><h1>${title}</h1>
${paragraphs.map((p) => `<p>${p.trim()}</p>`).join('\n')}
</article></main><footer><p>Footer of the site.</p></footer></body></html>`;
}

/** The corpus's files: relative path → content. */
export function scanCorpus(seed: number, counts: CorpusCounts = DEFAULT_COUNTS): Map<string, string> {
  const random = mulberry32(seed);
  const files = new Map<string, string>();
  // boxes of common words alone: they share no rare words, so that they make no rewrites
  const commonWords = (n: number): string => prose(random, article(random, 2 * n).filter((t) => !t.anchor).slice(0, n));
  const box = commonWords(45);
  const siteBox = commonWords(45);
  const boxes: string[] = [];
  const articles = Array.from({ length: counts.articles }, () => article(random, 250 + Math.floor(random() * 250)));
  articles.forEach((tokens, i) => {
    const boxed = i < counts.boxed ? `\n\n${box}` : '';
    const text = prose(random, tokens);
    boxes.push(boxed);
    if (i % 5 === 0) {
      const published = `<meta property="article:published_time" content="2024-03-${String(1 + (i % 28)).padStart(2, '0')}T08:00:00Z">`;
      files.set(`origin.example/a/${i}.html`, html(`Article ${i}`, text + boxed, published));
    } else files.set(`articles/a${String(i).padStart(3, '0')}.txt`, `Article ${i}\n\n${text}${boxed}\n`);
  });
  for (let c = 0; c < counts.wholeCopies; c++) {
    // a copy on mirror.example names its original on origin.example by a canonical link
    const mirrored = c % 4 === 0;
    const i = mirrored ? 5 * Math.floor(random() * Math.ceil(counts.articles / 5)) : Math.floor(random() * counts.articles);
    const text = prose(random, edit(random, articles[i]!, 1 + Math.floor(random() * 3))) + boxes[i]!;
    if (mirrored) files.set(`mirror.example/copy/${c}.html`, html(`Article ${i}`, text, `<link rel="canonical" href="https://origin.example/a/${i}.html">`));
    else files.set(`copies/c${String(c).padStart(3, '0')}.txt`, `Article ${i}\n\n${text}\n`);
  }
  for (let c = 0; c < counts.partialCopies; c++) {
    const source = articles[Math.floor(random() * counts.articles)]!;
    const length = 60 + Math.floor(random() * 30);
    const from = Math.floor(random() * (source.length - length));
    const tokens = [...article(random, 120), ...source.slice(from, from + length), ...article(random, 80)];
    files.set(`partial/p${String(c).padStart(3, '0')}.txt`, `Digest ${c}\n\n${prose(random, tokens)}\n`);
  }
  for (let c = 0; c < counts.rewrites; c++) {
    const i = Math.floor(random() * counts.articles);
    files.set(`rewrites/r${String(c).padStart(3, '0')}.txt`, `Story ${c}\n\n${prose(random, rewrite(random, articles[i]!))}\n`);
  }
  for (let c = 0; c < counts.sitePages; c++) {
    const canonical = `<link rel="canonical" href="https://farm.example/p/${c}">`;
    files.set(`farm.example/p/${c}.html`, html(`Farm page ${c}`, `${prose(random, article(random, 200))} ${siteBox}`, canonical));
  }
  return files;
}

/** Writes the corpus under `dir`. */
export function writeCorpus(dir: string, files: ReadonlyMap<string, string>): void {
  for (const [path, content] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}
