// bench:scan-scale's document generator (bench/scan/scale-data.ts): the same documents for the same
// seed, written as a stream (the heap does not grow with the documents written), and copies that
// are what the truth says they are; the truth file and the scoring of scan's lists.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { rewriteAnchors } from '../lib/fingerprint/rewrite-anchors';
import { COPY_KINDS, type CopyKind } from '../bench/scan/scale-copies';
import { SCALE_OPTIONS, type ScaleDocument, type ScaleOptions, documentId, documentPath, indexOfName, parseTruth, scaleDocuments, truthTsv, writeScaleCorpus } from '../bench/scan/scale-data';
import { parseScanLists, scoreScale } from '../bench/scan/scale-score';
import { listInputs, readDocuments } from '../bin/scan-sources';
import { AliasTable } from '../bench/scan/scale-words';

const options = (documents: number, seed = 5, more: Partial<ScaleOptions> = {}): ScaleOptions => ({ ...SCALE_OPTIONS, documents, seed, ...more });
// copies at 5% a kind, so that a few hundred documents have some of each
const dense = (documents: number, seed = 5): ScaleOptions => options(documents, seed, { htmlShare: 0, shares: Object.fromEntries(COPY_KINDS.map((k) => [k, 0.05])) as Record<CopyKind, number> });

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'doppel-scale-test-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const contents = (o: ScaleOptions): string[] => [...scaleDocuments(o)].map((d) => d.content);

describe('scaleDocuments', () => {
  it('gives the same documents for the same seed, and others for another seed', () => {
    const a = contents(options(300, 11));
    expect(contents(options(300, 11))).toEqual(a);
    const b = contents(options(300, 12));
    expect(b.filter((text, i) => text === a[i])).toEqual([]);
  });

  it('gives a document the same text whatever the corpus size (a copy regenerates its original)', () => {
    const small = contents(options(200, 3));
    expect(contents(options(400, 3)).slice(0, 200)).toEqual(small);
  });

  it('writes articles of about 200 to 1,000 words, about 3 KB on average, some as HTML', () => {
    const docs = [...scaleDocuments(options(2_000, 8))];
    const texts = docs.filter((d) => !d.html && d.kind === 'original').map((d) => d.content);
    const words = texts.map((t) => t.split(/\s+/).filter(Boolean).length);
    // 200 tokens at least, a comma among them counted as one
    expect(Math.min(...words)).toBeGreaterThanOrEqual(190);
    expect(Math.max(...words)).toBeLessThanOrEqual(1_150);
    const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.content), 0) / docs.length;
    expect(bytes).toBeGreaterThan(2_500);
    expect(bytes).toBeLessThan(4_000);
    const html = docs.filter((d) => d.html).length / docs.length;
    expect(html).toBeGreaterThan(0.07);
    expect(html).toBeLessThan(0.13);
    expect(docs.find((d) => d.html)!.content).toMatch(/^<!DOCTYPE html>[\s\S]*<article>[\s\S]*<p>/);
  });

  it('plants each kind at about its share, copying only earlier originals', () => {
    const docs = [...scaleDocuments(options(20_000, 2))];
    const kindOf = new Map(docs.map((d) => [d.index, d.kind]));
    for (const kind of COPY_KINDS) {
      const n = docs.filter((d) => d.kind === kind).length;
      expect(n, kind).toBeGreaterThan(140);
      expect(n, kind).toBeLessThan(260);
    }
    for (const d of docs) for (const s of d.sources) {
      expect(s).toBeLessThan(d.index);
      expect(kindOf.get(s)).toBe('original');
    }
  });
});

describe('planted copies are what the truth says', () => {
  const docs = [...scaleDocuments(dense(600))];
  const byIndex = new Map(docs.map((d) => [d.index, d]));
  const of = (kind: CopyKind): [ScaleDocument, ScaleDocument, ScaleDocument | undefined][] =>
    docs.filter((d) => d.kind === kind).map((d) => [d, byIndex.get(d.sources[0]!)!, d.sources[1] === undefined ? undefined : byIndex.get(d.sources[1])]);
  const body = (text: string): string[] => text.split('\n\n').slice(1).map((p) => p.trim());

  it.each(COPY_KINDS)('there are %s copies', (kind) => {
    expect(of(kind).length).toBeGreaterThan(5);
  });

  it('a verbatim copy is its original', () => {
    for (const [copy, original] of of('verbatim')) expect(copy.content).toBe(original.content);
  });

  it('a cut-last copy is its original without its last paragraph', () => {
    for (const [copy, original] of of('cut-last')) {
      const paragraphs = body(original.content);
      expect(body(copy.content)).toEqual(paragraphs.length > 1 ? paragraphs.slice(0, -1) : expect.any(Array));
    }
  });

  it('an edited copy keeps about 98% of its original words and adds a sentence', () => {
    for (const [copy, original] of of('edited')) {
      const a = original.content.split(/\s+/);
      const b = copy.content.split(/\s+/);
      expect(b.length - a.length).toBeGreaterThan(-0.03 * a.length);
      expect(b.length - a.length).toBeLessThan(0.02 * a.length + 40);
      expect(copy.content).not.toBe(original.content);
    }
  });

  it('an excerpt starts with its original’s first paragraph (or sentences of it) and goes on with its own text', () => {
    for (const [copy, original] of of('excerpt')) {
      const first = body(copy.content)[0]!;
      expect(body(original.content)[0]!.startsWith(first)).toBe(true);
      expect(copy.content.includes(body(original.content).at(-1)!)).toBe(false);
    }
  });

  it('a quote copy holds 60 words of its original in quotation marks', () => {
    for (const [copy, original] of of('quote')) {
      const quoted = /“([^”]+)”/.exec(copy.content)![1]!;
      expect(quoted.split(' ').length).toBe(60);
      expect(body(original.content).join(' ').includes(quoted)).toBe(true);
    }
  });

  it('a stitched copy begins with its first original and ends with its second', () => {
    for (const [copy, first, second] of of('stitched')) {
      expect(second).toBeDefined();
      expect(body(first.content)[0]!.startsWith(body(copy.content)[0]!.split('. ')[0]!)).toBe(true);
      expect(copy.content.trimEnd().endsWith(body(second!.content).at(-1)!.split('. ').at(-1)!)).toBe(true);
    }
  });

  it('a rewrite keeps its original’s rare words in order (a few left out) and changes most other words', () => {
    for (const [copy, original] of of('rewrite')) {
      const a = rewriteAnchors(original.content).map((x) => x.token);
      // the detector may take a spun word for a name (after a code ends a sentence: "N588. Caressed"): only the original's count
      const inOriginal = new Set(a);
      const b = rewriteAnchors(copy.content).map((x) => x.token).filter((t) => inOriginal.has(t));
      // b is a subsequence of a
      let i = 0;
      for (const token of b) {
        while (i < a.length && a[i] !== token) i++;
        expect(i, `${token} out of order`).toBeLessThan(a.length);
        i++;
      }
      expect(b.length).toBeGreaterThan(0.7 * a.length);
      const words = (t: string): string[] => t.toLowerCase().match(/\b[a-z]+\b/g) ?? [];
      const kept = new Set(words(original.content));
      const changed = words(copy.content).filter((w) => !kept.has(w)).length / words(copy.content).length;
      expect(changed).toBeGreaterThan(0.3);
    }
  });
});

describe('writeScaleCorpus', () => {
  it('writes JSONL lines {id, text | html}, one a document, and the truth it returns', async () => {
    const dir = tempDir();
    const o = options(400, 9, { htmlShare: 0.2 });
    const truth = await writeScaleCorpus(join(dir, 'docs.jsonl'), o, 'jsonl', join(dir, 'truth.tsv'));
    const lines = readFileSync(join(dir, 'docs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; text?: string; html?: string });
    const docs = [...scaleDocuments(o)];
    expect(lines).toEqual(docs.map((d) => (d.html ? { id: d.id, html: d.content } : { id: d.id, text: d.content })));
    expect(parseTruth(readFileSync(join(dir, 'truth.tsv'), 'utf8'))).toEqual(truth);
    const copies = docs.filter((d) => d.kind !== 'original');
    expect(Array.from(truth.copies)).toEqual(copies.map((d) => d.index));
    expect(Array.from(truth.sources)).toEqual(copies.map((d) => d.sources[0]));
    expect(Array.from(truth.kinds, (k) => COPY_KINDS[k])).toEqual(copies.map((d) => d.kind));
    expect(truth.html).toBe(docs.filter((d) => d.html).length);
  });

  it('writes a gzipped WARC that scan reads back as the same documents, named by URIs ending in their ids', async () => {
    const dir = tempDir();
    const o = options(300, 5, { htmlShare: 0.3 });
    const file = join(dir, 'docs.warc.gz');
    const truth = await writeScaleCorpus(file, o, 'warc');
    const { files } = await listInputs([file]);
    const read: { name: string; kind: string; content: string }[] = [];
    const others: unknown[] = [];
    for await (const item of readDocuments(files)) {
      if (item.type === 'document') read.push({ name: item.document.name, kind: item.document.kind, content: item.document.content });
      else others.push(item.type === 'container' ? { skipped: item.summary.skipped, notes: item.summary.notes, complete: item.summary.complete } : item);
    }
    const docs = [...scaleDocuments(o)];
    // HTML pages are response records, texts WET conversion records; the warcinfo record is counted, not read
    expect(read).toEqual(docs.map((d) => ({ name: `https://scale.example/${d.id}`, kind: d.html ? 'html' : 'text', content: d.content })));
    expect(read.map((d) => indexOfName(d.name))).toEqual(docs.map((d) => d.index));
    expect(truth.html).toBe(docs.filter((d) => d.html).length);
    expect(others).toEqual([{ skipped: { warcinfo: 1 }, notes: 0, complete: true }]);
  });

  it('writes a folder of .txt and .html files, named so that indexOfName reads their index back', async () => {
    const dir = tempDir();
    const truth = await writeScaleCorpus(dir, options(1_200, 4, { htmlShare: 0.3 }), 'folder');
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBe(1_200);
    expect(readdirSync(dir).sort()).toEqual(['0000', '0001']);
    expect(files.filter((f) => f.name.endsWith('.html')).length).toBe(truth.html);
    expect(files.map((f) => indexOfName(f.name)).sort((a, b) => a - b)).toEqual(Array.from({ length: 1_200 }, (_, i) => i));
  });

  it('streams: the heap does not grow with the documents written (5,000 documents)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap: number[] = [];
    await writeScaleCorpus(join(tempDir(), 'docs.jsonl'), options(5_000, 6), 'jsonl', undefined, () => {
      gc();
      heap.push(process.memoryUsage().heapUsed);
    }, 1_000);
    expect(heap.length).toBe(5);
    // 4,000 documents are about 13 MB of text: kept, they would show
    expect(Math.max(...heap) - heap[0]!).toBeLessThan(3 * 2 ** 20);
  });
});

describe('names and truth', () => {
  it('names a document by a zero-padded id, and a file a thousand to a folder', () => {
    expect(documentId(123, 2_000)).toBe('0000123');
    expect(documentId(5, 20_000_000)).toBe('00000005');
    expect(documentPath('0012345', false)).toBe('0012/0012345.txt');
    expect(documentPath('0000007', true)).toBe('0000/0000007.html');
    expect([indexOfName('0012345'), indexOfName('0012/0012345.txt'), indexOfName('docs/0000/0000007.html'), indexOfName('notes.txt')]).toEqual([12345, 12345, 7, NaN]);
  });

  it('reads back the truth it writes, and names the line it cannot read', () => {
    const truth = { documents: 9, html: 1, bytes: 100, copies: Int32Array.of(4, 7), kinds: Uint8Array.of(0, 5), sources: Int32Array.of(1, 2), seconds: Int32Array.of(-1, 3) };
    expect(parseTruth(truthTsv(truth))).toEqual(truth);
    expect(() => parseTruth(`${truthTsv(truth)}8\tspun\t1\t-1\n`, 't.tsv')).toThrow('t.tsv: line 5 is no copy');
  });
});

describe('scoreScale', () => {
  // 0–3 originals; 4 verbatim of 1; 5 stitched of 1 and 2; 6 rewrite of 3
  const truth = { documents: 8, html: 0, bytes: 0, copies: Int32Array.of(4, 5, 6), kinds: Uint8Array.of(0, 5, 6), sources: Int32Array.of(1, 1, 3), seconds: Int32Array.of(-1, 2, -1) };
  const link = (a: number, b: number): { a: string; b: string } => ({ a: documentPath(documentId(a, 8), false), b: documentPath(documentId(b, 8), false) });

  it('counts a copy found when any list links it with its original, and a pair of documents with no original in common as false', () => {
    const score = scoreScale(truth, { pairs: [link(1, 4), link(0, 7)], reuse: [link(1, 5), link(4, 5)], rewrites: [link(2, 3)] });
    expect(score.byKind.verbatim).toEqual({ total: 1, found: 1, byList: { pairs: 1, reuse: 0, rewrites: 0 } });
    expect(score.byKind.stitched).toEqual({ total: 2, found: 1, byList: { pairs: 0, reuse: 1, rewrites: 0 } });
    expect(score.byKind.rewrite).toEqual({ total: 1, found: 0, byList: { pairs: 0, reuse: 0, rewrites: 0 } });
    expect(score.byGroup.whole.found).toBe(1);
    expect(score.byGroup.passages).toEqual({ total: 2, found: 1, byList: { pairs: 0, reuse: 1, rewrites: 0 } });
    expect(score.falsePairs).toEqual({ pairs: [link(0, 7)], reuse: [], rewrites: [link(2, 3)] });
    expect(score.unknownNames).toEqual([]);
  });

  it('reads scan --json and --ndjson output alike', () => {
    const lists = { pairs: [link(1, 4)], reuse: [link(1, 5)], rewrites: [link(3, 6)] };
    expect(parseScanLists(JSON.stringify({ k: 3, documents: [], ...lists, clusters: [] }, null, 2))).toEqual(lists);
    const ndjson = [{ method: 'simhash' }, { document: { path: 'x' } }, { pair: lists.pairs[0] }, { reuse: lists.reuse[0] }, { rewrite: lists.rewrites[0] }].map((l) => JSON.stringify(l)).join('\n');
    expect(parseScanLists(ndjson)).toEqual(lists);
  });
});

describe('AliasTable', () => {
  it('draws each index at its weight', () => {
    const table = new AliasTable([1, 0, 3, 4]);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 8_000; i++) counts[table.sample((i + 0.5) / 8_000)]!++;
    expect(counts).toEqual([1_000, 0, 3_000, 4_000]);
    expect(() => new AliasTable([0, 0])).toThrow('the weights add up to 0');
  });
});
