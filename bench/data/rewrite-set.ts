// The rewrite development set (bench/data/rewrites/, its README says what it is): each article of
// the corpus it names, with its rewrite, its Spanish and Chinese translations and an independent
// article on the same subject. `npm run check:rewrite-set` checks that no rewrite and no
// independent article shares a run of SHARED_RUN_WORDS words with the original's extracted text.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { extractArticle } from '../../lib/text/extract';
import { normalizeText, normalizedWordRanges } from '../../lib/text/words';
import { mulberry32 } from '../../lib/random';
import { CORPUS_DIR, dressText, hashName } from './republish';

export const REWRITE_SET_DIR = new URL('./rewrites/', import.meta.url).pathname;
export const REWRITE_KINDS = ['rewrite', 'translation_es', 'translation_zh', 'translation_fr', 'translation_de', 'independent'] as const;
export type RewriteKind = (typeof REWRITE_KINDS)[number];
/** Measured and reported where an article has them, never targeted (issue 47: names transliterated). */
export const EXTRA_KINDS = ['translation_ru', 'translation_ja'] as const;
export type ExtraKind = (typeof EXTRA_KINDS)[number];
/** No rewrite or independent article shares a run of this many words with its original. */
export const SHARED_RUN_WORDS = 7;

export interface RewriteText {
  title: string;
  /** Paragraphs, in order. */
  paragraphs: string[];
}

export interface RewriteArticle {
  /** The folder's name: a corpus page's, or (for an article written for the set, in original.txt) any other. */
  slug: string;
  /** The original as a page (the corpus page's HTML, or original.txt dressed as a publisher's page), and its text as Doppel extracts it. */
  originalHtml: string;
  originalText: string;
  /** True when the original was written for the set (original.txt), not taken from the corpus. */
  written: boolean;
  texts: Record<RewriteKind, RewriteText>;
  /** Russian and Japanese translations, where the article has them. */
  extra: Partial<Record<ExtraKind, RewriteText>>;
}

/**
 * The half of the set an article is in, for good (issue 47's held-out protocol): every parameter
 * is chosen on the tuning half, and the test half only reports. A hash of the folder's name
 * decides, so that an article never changes half as the set grows.
 */
export type Half = 'tuning' | 'test';
export const HALVES: readonly Half[] = ['tuning', 'test'];
export function halfOf(slug: string): Half {
  return (hashName(`half ${slug}`) & 1) === 0 ? 'tuning' : 'test';
}

/** A set file: the title on the first line, a blank line, paragraphs separated by blank lines. */
export function parseRewriteText(file: string, content: string): RewriteText {
  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  const title = lines[0]?.trim() ?? '';
  if (title === '' || lines[1] !== '') throw new Error(`${file}: the first line must be the title and the second blank`);
  const paragraphs = lines.slice(2).join('\n').split(/\n\s*\n/).map((p) => p.replace(/\s*\n\s*/g, ' ').trim()).filter((p) => p !== '');
  if (paragraphs.length === 0) throw new Error(`${file}: no paragraph after the title`);
  return { title, paragraphs };
}

/** REWRITE_SET_ONLY=a,b,c: the benches read only those folders of the set. */
function onlyFromEnvironment(): Set<string> | undefined {
  const only = process.env['REWRITE_SET_ONLY'];
  return only ? new Set(only.split(',').filter((s) => s !== '')) : undefined;
}

/** An article's original: the folder's original.txt dressed as a page, else the corpus page of that name; and its text as Doppel extracts it. */
export function originalOf(slug: string, dir = REWRITE_SET_DIR, corpusDir = CORPUS_DIR): Pick<RewriteArticle, 'originalHtml' | 'originalText' | 'written'> {
  const file = join(dir, slug, 'original.txt');
  const written = existsSync(file);
  let originalHtml: string;
  if (written) {
    const { title, paragraphs } = parseRewriteText(file, readFileSync(file, 'utf8'));
    originalHtml = dressText(title, paragraphs, mulberry32(hashName(`original ${slug}`)));
  } else {
    const source = join(corpusDir, slug, 'source.html');
    if (!existsSync(source)) throw new Error(`${slug}: neither original.txt nor the corpus's ${source}`);
    originalHtml = readFileSync(source, 'utf8');
  }
  const extraction = extractArticle(parseHTML(originalHtml).document);
  if (!extraction.ok) throw new Error(`${slug}: the original is not an article (${extraction.message})`);
  return { originalHtml, originalText: extraction.text, written };
}

/** Every article of the set, in folder order; throws naming a file that is missing or malformed. */
export function loadRewriteSet(dir = REWRITE_SET_DIR, corpusDir = CORPUS_DIR, only: ReadonlySet<string> | undefined = onlyFromEnvironment()): RewriteArticle[] {
  const out: RewriteArticle[] = [];
  for (const slug of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
    if (only !== undefined && !only.has(slug)) continue;
    const { originalHtml, originalText, written } = originalOf(slug, dir, corpusDir);
    // a kind's file, parsed; undefined when the folder has none
    const read = (kind: RewriteKind | ExtraKind): RewriteText | undefined => {
      const file = join(dir, slug, `${kind}.txt`);
      return existsSync(file) ? parseRewriteText(file, readFileSync(file, 'utf8')) : undefined;
    };
    const texts = {} as Record<RewriteKind, RewriteText>;
    for (const kind of REWRITE_KINDS) {
      const text = read(kind);
      if (text === undefined) throw new Error(`${slug}: ${kind}.txt is missing`);
      texts[kind] = text;
    }
    const extra: RewriteArticle['extra'] = {};
    for (const kind of EXTRA_KINDS) {
      const text = read(kind);
      if (text !== undefined) extra[kind] = text;
    }
    out.push({ slug, originalHtml, originalText, written, texts, extra });
  }
  return out;
}

/** The words of a text as Doppel counts them (lib/text/words.ts: Chinese and Japanese by character). */
export function wordsOf(text: string): string[] {
  const normalized = normalizeText(text);
  const { count, start, end } = normalizedWordRanges(normalized);
  return Array.from({ length: count }, (_, i) => normalized.slice(start[i]!, end[i]!));
}

/** The longest runs of at least `n` words that `text` shares with `original`, each once, in text order. */
export function sharedRuns(original: readonly string[], text: readonly string[], n = SHARED_RUN_WORDS): string[] {
  const grams = new Map<string, number[]>();
  for (let i = 0; i + n <= original.length; i++) {
    const key = original.slice(i, i + n).join(' ');
    const at = grams.get(key);
    if (at) at.push(i);
    else grams.set(key, [i]);
  }
  const runs: string[] = [];
  for (let j = 0; j + n <= text.length; j++) {
    const starts = grams.get(text.slice(j, j + n).join(' '));
    if (starts === undefined) continue;
    let longest = n;
    for (const i of starts) {
      let len = n;
      while (i + len < original.length && j + len < text.length && original[i + len] === text[j + len]) len++;
      longest = Math.max(longest, len);
    }
    runs.push(text.slice(j, j + longest).join(' '));
    j += longest - n;
  }
  return runs;
}

/**
 * `npx tsx bench/data/rewrite-set.ts [--print] [FOLDER …]`: checks the set (or the folders named), or with
 * --print writes each named original's title and text as Doppel extracts it, the text the set's
 * other files are written from.
 */
function main(args: string[]): void {
  if (!existsSync(CORPUS_DIR)) {
    console.log(`check:rewrite-set skipped: the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`);
    return;
  }
  const only = new Set(args.filter((a) => !a.startsWith('--')));
  if (args.includes('--print')) {
    for (const slug of only) console.log(`=== ${slug}\n${originalOf(slug).originalText}\n`);
    return;
  }
  const set = loadRewriteSet(REWRITE_SET_DIR, CORPUS_DIR, only.size === 0 ? undefined : only);
  let problems = 0;
  for (const article of set) {
    const original = wordsOf(article.originalText);
    for (const kind of ['rewrite', 'independent'] as const) {
      const { title, paragraphs } = article.texts[kind];
      const runs = sharedRuns(original, wordsOf([title, ...paragraphs].join('\n')));
      for (const run of runs) console.log(`${article.slug}/${kind}.txt shares ${run.split(' ').length} words with the original: "${run}"`);
      problems += runs.length;
    }
  }
  const texts = set.reduce((n, a) => n + REWRITE_KINDS.length + Object.keys(a.extra).length + (a.written ? 1 : 0), 0);
  console.log(`${set.length} articles, ${texts} texts: ${problems === 0 ? `no rewrite or independent article shares a run of ${SHARED_RUN_WORDS} words with its original` : `${problems} shared runs`}`);
  if (problems > 0) process.exitCode = 1;
}

if (process.argv[1] === new URL(import.meta.url).pathname) main(process.argv.slice(2));
