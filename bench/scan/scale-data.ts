// The documents of bench:scan-scale: N synthetic articles (bench/scan/scale-article.ts) with planted
// copies of every kind (bench/scan/scale-copies.ts), written as JSONL ({"id", "text" | "html"} a
// line) or as a folder of .txt and .html files, streamed with backpressure, and the truth: which
// document copies which original, and how.
//
// Every document is a pure function of (seed, its index): a copy regenerates its original from
// the original's index instead of keeping it, so memory stays flat however many are written, and
// the truth is three arrays of indices and one of kinds (about 7% of the documents).
//
// Names: document i's id is i in decimal, zero-padded to 7 digits (more when N needs them); in a
// folder it is the file `ID[:-3]/ID.txt` (or .html), a thousand files a folder: "0012/0012345.txt"
// for id "0012345". indexOfName reads the index back from either.
import { once } from 'node:events';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmix32 } from '../../lib/fingerprint/hash';
import { mulberry32 } from '../../lib/random';
import { ARTICLE_OPTIONS, type Article, type ArticleOptions, ArticleWriter, articleHtml, articleText } from './scale-article';
import { COPY_KINDS, type CopyKind, SPIN_OPTIONS, type SpinOptions, Spinner, cutLast, edited, excerpt, quote, stitched } from './scale-copies';
import { VOCABULARY_OPTIONS, type VocabularyOptions, buildVocabulary } from './scale-words';
import { scaleWarcRecord, warcInfo } from './scale-warc';

export interface ScaleOptions {
  documents: number;
  seed: number;
  /** Share of the documents written as HTML pages; the others are plain text. */
  htmlShare: number;
  /** Share of the documents that are copies of each kind. */
  shares: Record<CopyKind, number>;
  article: ArticleOptions;
  vocabulary: VocabularyOptions;
  spin: SpinOptions;
}

export const SCALE_OPTIONS: Omit<ScaleOptions, 'documents' | 'seed'> = {
  htmlShare: 0.1,
  shares: Object.fromEntries(COPY_KINDS.map((k) => [k, 0.01])) as Record<CopyKind, number>,
  article: ARTICLE_OPTIONS,
  vocabulary: VOCABULARY_OPTIONS,
  spin: SPIN_OPTIONS,
};

/** The first documents are originals, so that every copy has earlier originals to copy. */
export const FIRST_ORIGINALS = 10;

export interface ScaleDocument {
  index: number;
  id: string;
  html: boolean;
  /** The text, or the HTML page when `html`. */
  content: string;
  kind: 'original' | CopyKind;
  /** The originals it copies (two for stitched), by index. */
  sources: number[];
}

// ---------- Names ----------

export function idWidth(documents: number): number {
  return Math.max(7, String(Math.max(0, documents - 1)).length);
}

export function documentId(index: number, documents: number): string {
  return String(index).padStart(idWidth(documents), '0');
}

/** A document's path in a folder corpus: a thousand files a folder. */
export function documentPath(id: string, html: boolean): string {
  return `${id.slice(0, -3)}/${id}.${html ? 'html' : 'txt'}`;
}

/** The index of a document named by its id or its path (as scan reports it); NaN for another name. */
export function indexOfName(name: string): number {
  const m = /(?:^|\/)(\d+)(?:\.(?:txt|html))?$/.exec(name);
  return m ? Number(m[1]) : NaN;
}

// ---------- Drawing ----------

const SALT = { kind: 0x6b696e64, article: 0x61727469, copy: 0x636f7079, html: 0x68746d6c } as const;

/**
 * A seeded stream for one purpose of one document: two mulberry32 streams XORed. One stream of
 * 32 bits of state would not do: its sequence has period 2^32, and a million documents draw about
 * 2^31 numbers, so two documents' streams would run over the same stretch (the same words for a
 * sentence or more: a shared passage by chance). Two overlap only where both seeds line up at once.
 */
export function streamFor(seed: number, index: number, salt: number): () => number {
  const key = fmix32((seed ^ salt) >>> 0);
  const a = mulberry32(fmix32((key ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0));
  const b = mulberry32(fmix32((Math.imul(key, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35) ^ 0x27d4eb2f) >>> 0));
  return () => (((a() * 4294967296) ^ (b() * 4294967296)) >>> 0) / 4294967296;
}

/** The kind of document `index`: an original, or a copy of one kind at the kinds' shares. */
export function kindOf(seed: number, index: number, shares: Record<CopyKind, number>): 'original' | CopyKind {
  if (index < FIRST_ORIGINALS) return 'original';
  let u = streamFor(seed, index, SALT.kind)();
  for (const kind of COPY_KINDS) {
    u -= shares[kind];
    if (u < 0) return kind;
  }
  return 'original';
}

/** The documents of a corpus, one at a time, in index order. */
export function* scaleDocuments(options: ScaleOptions): Generator<ScaleDocument> {
  const { documents, seed, shares, htmlShare } = options;
  const total = Object.values(shares).reduce((a, b) => a + b, 0);
  if (!(total >= 0 && total < 1)) throw new RangeError(`the copies' shares must add up to less than 1: got ${total}`);
  if (!Number.isInteger(documents) || documents < 1) throw new RangeError(`documents must be a positive integer: got ${documents}`);
  const vocabulary = buildVocabulary(seed, options.vocabulary);
  const writer = new ArticleWriter(vocabulary, options.article);
  const spinner = new Spinner(writer, options.spin);
  const originalOf = (index: number): Article => writer.article(streamFor(seed, index, SALT.article));
  /** A random earlier original, other than `not`. */
  const earlierOriginal = (random: () => number, before: number, not = -1): number => {
    for (let tries = 0; tries < 64; tries++) {
      const j = Math.floor(random() * before);
      if (j !== not && kindOf(seed, j, shares) === 'original') return j;
    }
    return not === 0 ? 1 : 0;
  };
  for (let index = 0; index < documents; index++) {
    const kind = kindOf(seed, index, shares);
    let article: Article;
    const sources: number[] = [];
    if (kind === 'original') article = originalOf(index);
    else {
      const random = streamFor(seed, index, SALT.copy);
      const source = earlierOriginal(random, index);
      sources.push(source);
      const original = originalOf(source);
      if (kind === 'verbatim') article = original;
      else if (kind === 'edited') article = edited(original, writer, random);
      else if (kind === 'cut-last') article = cutLast(original);
      else if (kind === 'excerpt') article = excerpt(original, writer, random);
      else if (kind === 'quote') article = quote(original, writer, random);
      else if (kind === 'rewrite') article = spinner.article(original, random);
      else {
        const second = earlierOriginal(random, index, source);
        sources.push(second);
        article = stitched(original, originalOf(second));
      }
    }
    // a copy is in its original's format (a republisher's page of a page): a text file holds its
    // title as its first line, which HTML's extracted text leaves out
    const htmlRandom = streamFor(seed, index, SALT.html);
    const html = (sources.length > 0 ? streamFor(seed, sources[0]!, SALT.html)() : htmlRandom()) < htmlShare;
    if (sources.length > 0) htmlRandom();
    const content = html ? articleHtml(article, vocabulary.sites[Math.floor(htmlRandom() * vocabulary.sites.length)]!) : articleText(article);
    yield { index, id: documentId(index, documents), html, content, kind, sources };
  }
}

// ---------- Truth ----------

/** Which documents are copies, of which originals, of which kind: indices only, a few bytes a copy. */
export interface ScaleTruth {
  documents: number;
  /** Documents written as HTML, and the bytes of all the documents' content. */
  html: number;
  bytes: number;
  copies: Int32Array;
  /** Index into COPY_KINDS. */
  kinds: Uint8Array;
  sources: Int32Array;
  /** A stitched copy's second original; −1 for the other kinds. */
  seconds: Int32Array;
}

export class TruthBuilder {
  private copies: number[] = [];
  private kinds: number[] = [];
  private sources: number[] = [];
  private seconds: number[] = [];
  private html = 0;
  private bytes = 0;
  private documents = 0;

  add(doc: ScaleDocument): void {
    this.documents++;
    if (doc.html) this.html++;
    this.bytes += Buffer.byteLength(doc.content);
    if (doc.kind === 'original') return;
    this.copies.push(doc.index);
    this.kinds.push(COPY_KINDS.indexOf(doc.kind));
    this.sources.push(doc.sources[0]!);
    this.seconds.push(doc.sources[1] ?? -1);
  }

  build(): ScaleTruth {
    return { documents: this.documents, html: this.html, bytes: this.bytes, copies: Int32Array.from(this.copies), kinds: Uint8Array.from(this.kinds), sources: Int32Array.from(this.sources), seconds: Int32Array.from(this.seconds) };
  }
}

const TRUTH_HEADER = 'copy\tkind\tsource\tsecond';

/** The truth as TSV: a line per copy, the header first and a comment line with the counts. */
export function truthTsv(truth: ScaleTruth): string {
  const lines = [`# documents ${truth.documents} html ${truth.html} bytes ${truth.bytes}`, TRUTH_HEADER];
  for (let i = 0; i < truth.copies.length; i++) lines.push(`${truth.copies[i]}\t${COPY_KINDS[truth.kinds[i]!]}\t${truth.sources[i]}\t${truth.seconds[i]}`);
  return lines.join('\n') + '\n';
}

export function parseTruth(tsv: string, file = 'truth'): ScaleTruth {
  const lines = tsv.split('\n').filter(Boolean);
  const counts = /^# documents (\d+) html (\d+) bytes (\d+)$/.exec(lines[0] ?? '');
  if (!counts || lines[1] !== TRUTH_HEADER) throw new Error(`${file}: not a bench:scan-scale truth file (line 1 or 2)`);
  const rows = lines.slice(2).map((line, i) => {
    const [copy, kind, source, second] = line.split('\t');
    const k = COPY_KINDS.indexOf(kind as CopyKind);
    if (k < 0 || !/^\d+$/.test(copy ?? '') || !/^\d+$/.test(source ?? '') || !/^-?\d+$/.test(second ?? '')) throw new Error(`${file}: line ${i + 3} is no copy: ${JSON.stringify(line)}`);
    return [Number(copy), k, Number(source), Number(second)] as const;
  });
  return {
    documents: Number(counts[1]),
    html: Number(counts[2]),
    bytes: Number(counts[3]),
    copies: Int32Array.from(rows, (r) => r[0]),
    kinds: Uint8Array.from(rows, (r) => r[1]),
    sources: Int32Array.from(rows, (r) => r[2]),
    seconds: Int32Array.from(rows, (r) => r[3]),
  };
}

export const readTruth = (file: string): ScaleTruth => parseTruth(readFileSync(file, 'utf8'), file);

// ---------- Writing ----------

export type ScaleFormat = 'jsonl' | 'warc' | 'folder';

/** Lines of JSONL: {"id", "text"} or {"id", "html"}. */
export function jsonLine(doc: ScaleDocument): string {
  return JSON.stringify(doc.html ? { id: doc.id, html: doc.content } : { id: doc.id, text: doc.content }) + '\n';
}

/** Bytes gathered before a write to the stream: fewer, larger writes. */
const CHUNK_BYTES = 1 << 20;

/**
 * Writes a corpus to `target` (a .jsonl file, a .warc.gz file, or a folder) and its truth to
 * `truthFile` when given. A file goes through a stream a megabyte at a time, waiting for it to
 * drain. `onProgress` hears the count every `progressEvery` documents.
 */
export async function writeScaleCorpus(target: string, options: ScaleOptions, format: ScaleFormat, truthFile?: string, onProgress?: (written: number) => void, progressEvery = 10_000): Promise<ScaleTruth> {
  const truth = new TruthBuilder();
  if (format === 'folder') {
    let folder = '';
    for (const doc of scaleDocuments(options)) {
      truth.add(doc);
      const path = documentPath(doc.id, doc.html);
      const sub = path.slice(0, path.indexOf('/'));
      if (sub !== folder) mkdirSync(join(target, sub), { recursive: true });
      folder = sub;
      writeFileSync(join(target, path), doc.content);
      if (onProgress && (doc.index + 1) % progressEvery === 0) onProgress(doc.index + 1);
    }
  } else {
    const out = createWriteStream(target);
    const failed = once(out, 'error').then(([error]) => {
      throw new Error(`${target}: ${(error as Error).message}`);
    });
    let chunk: (string | Uint8Array)[] = format === 'warc' ? [await warcInfo()] : [];
    let bytes = 0;
    for (const doc of scaleDocuments(options)) {
      truth.add(doc);
      const piece = format === 'warc' ? await scaleWarcRecord(doc) : jsonLine(doc);
      chunk.push(piece);
      bytes += piece.length;
      if (bytes >= CHUNK_BYTES) {
        if (!out.write(format === 'warc' ? Buffer.concat(chunk as Uint8Array[]) : chunk.join(''))) await Promise.race([once(out, 'drain'), failed]);
        chunk = [];
        bytes = 0;
      }
      if (onProgress && (doc.index + 1) % progressEvery === 0) onProgress(doc.index + 1);
    }
    out.end(format === 'warc' ? Buffer.concat(chunk as Uint8Array[]) : chunk.join(''));
    await Promise.race([once(out, 'finish'), failed]);
  }
  const built = truth.build();
  if (truthFile) writeFileSync(truthFile, truthTsv(built));
  return built;
}
