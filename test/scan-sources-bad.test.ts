// bin/scan-sources.ts over bad input (issue 48, part 8): a .warc.gz cut at every byte, records whose
// Content-Length lies, a 200 MB record, bad JSONL lines, gzip streams cut short, binary garbage
// named as a WARC or a JSONL file. Each time the reading goes on, a note names the file and the
// record or line, and every document before the problem is yielded as in a good reading.
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { WARCRecord } from 'warcio';
import { WARCSerializer } from 'warcio/node';
import { afterAll, describe, expect, it } from 'vitest';
import { type SourceDocument, type SourceItem, type SourceNote, listInputs, readSources } from '../bin/scan-sources';
import { readJsonl } from '../bin/sources/jsonl';
import { readWarc } from '../bin/sources/warc';
import { mulberry32 } from '../lib/random';
import { page, warcFile, warcRecord } from './support/warc';
import { KITE } from './support/scan-texts';

const dir = mkdtempSync(join(tmpdir(), 'doppel-scan-bad-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const html = (n: number): string => `<html><head><title>Page ${n}</title></head><body><article>${KITE.map((p) => `<p>${p} (${n})</p>`).join('')}</article></body></html>`;
const PAGES = [1, 2, 3, 4].map((n) => page(`https://news.example/${n}`, html(n)));

async function all(items: AsyncIterable<SourceItem>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}
const documentsOf = (items: SourceItem[]): SourceDocument[] => items.flatMap((i) => (i.type === 'document' ? [i.document] : []));
const notesOf = (items: SourceItem[]): SourceNote[] => items.flatMap((i) => (i.type === 'note' ? [i.note] : []));
const summaryOf = (items: SourceItem[]) => (items.at(-1) as Extract<SourceItem, { type: 'container' }>).summary;

function randomBytes(length: number, seed: number): Buffer {
  const random = mulberry32(seed);
  return Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
}

describe('a truncated .warc.gz', () => {
  it('cut at any byte: the documents before the cut as in the whole file, then one note naming the file (none at a record boundary)', async () => {
    const { bytes, records } = await warcFile(PAGES, true);
    const whole = join(dir, 'whole.warc.gz');
    writeFileSync(whole, bytes);
    const full = documentsOf(await all(readWarc({ absolute: whole, where: 'cut.warc.gz' })));
    expect(full.map((d) => d.name)).toEqual(PAGES.map((p) => p.url));
    const ends: number[] = [];
    for (const r of records) ends.push((ends.at(-1) ?? 0) + r.length);
    const path = join(dir, 'cut.warc.gz');
    for (let cut = 1; cut < bytes.length; cut += 3) {
      writeFileSync(path, bytes.subarray(0, cut));
      const items = await all(readWarc({ absolute: path, where: 'cut.warc.gz' }));
      const documents = documentsOf(items).map((d) => ({ ...d, position: { ...d.position, file: whole } }));
      const notes = notesOf(items);
      // the pages whose gzip member ends before the cut (the warcinfo record is the first member)
      const before = ends.slice(1).filter((end) => end <= cut).length;
      expect(documents, `cut at ${cut}`).toEqual(full.slice(0, documents.length));
      if (ends.includes(cut)) {
        expect(documents.length, `cut at ${cut}`).toBe(before);
        expect(notes, `cut at ${cut}`).toEqual([]);
        expect(summaryOf(items).complete).toBe(true);
      } else {
        // a page whose block was whole before its member's end was cut is kept
        expect(documents.length, `cut at ${cut}`).toBeGreaterThanOrEqual(before);
        expect(documents.length, `cut at ${cut}`).toBeLessThanOrEqual(before + 1);
        expect(notes, `cut at ${cut}`).toHaveLength(1);
        expect(notes[0]!.where, `cut at ${cut}`).toMatch(/^cut\.warc\.gz( record \d)?/);
        expect(notes[0]!.message, `cut at ${cut}`).toMatch(/cut short/);
        expect(summaryOf(items).complete).toBe(false);
      }
    }
  }, 60_000);
});

/** The record with its WARC Content-Length changed by `delta` (the block left as it is), gzipped again when it was. */
function lying(record: Uint8Array, gzip: boolean, delta: number): Buffer {
  const text = Buffer.from(gzip ? gunzipSync(record) : record).toString('latin1');
  const changed = text.replace(/Content-Length: (\d+)\r\n/, (_, n: string) => `Content-Length: ${Number(n) + delta}\r\n`);
  const bytes = Buffer.from(changed, 'latin1');
  return gzip ? gzipSync(bytes) : bytes;
}

describe.each([false, true])('a record whose Content-Length lies (gzipped: %s)', (gzip) => {
  const cases: [string, number, RegExp][] = [
    ['too short by 7 bytes', -7, /^its Content-Length \(\d+ bytes\) is too short: the next record starts \d+ bytes after the end it gives; its page is left out$/],
    ['too short by 400 bytes', -400, /^its Content-Length \(\d+ bytes\) is too short: the next record starts 404 bytes after the end it gives; its page is left out$/],
    ['too long by 9 bytes (into the next record\'s first line)', 9, /^its Content-Length \(\d+ bytes\) is too long: the next record starts 5 bytes before the end it gives; its page is left out$/],
    ['too long by 300 bytes (into the next record\'s headers)', 300, /is too long: the next record starts 296 bytes before/],
    ['too long by a megabyte (past the file\'s end)', 1_000_000, /is too long/],
  ];

  it.each(cases)('%s: that record is left out with a note naming it, every other page is read', async (_, delta, message) => {
    const { records } = await warcFile(PAGES, gzip);
    records[2] = lying(records[2]!, gzip, delta);
    const path = join(dir, `lie-${delta}${gzip ? '.warc.gz' : '.warc'}`);
    writeFileSync(path, Buffer.concat(records));
    const items = await all(readWarc({ absolute: path, where: 'lie.warc' }));
    expect(documentsOf(items).map((d) => d.name)).toEqual(['https://news.example/1', 'https://news.example/3', 'https://news.example/4']);
    expect(notesOf(items).map((n) => [n.where, n.message])).toEqual([['lie.warc record 3 (https://news.example/2)', expect.stringMatching(message)]]);
    expect(summaryOf(items)).toMatchObject({ entries: 5, documents: 3, notes: 1, complete: true });
  });
});

describe('a 200 MB record', () => {
  it.each([false, true])('is read past in bounded memory with a note, and the pages after it are read (gzipped: %s)', async (gzip) => {
    const path = join(dir, `big.warc${gzip ? '.gz' : ''}`);
    const out = createWriteStream(path);
    out.write((await warcFile([PAGES[0]!], gzip)).bytes);
    const mib = Buffer.alloc(1024 * 1024, '<p>a very long page </p>\n');
    async function* body(): AsyncIterable<Uint8Array> {
      yield Buffer.from('<html><body>');
      for (let i = 0; i < 200; i++) yield mib;
    }
    const big = WARCRecord.create({ type: 'response', url: 'https://news.example/big', date: '2024-05-01T12:00:00Z', warcVersion: 'WARC/1.1', httpHeaders: { 'Content-Type': 'text/html' } }, body());
    // warcio's Node serializer holds a large block in a temporary file, not in memory
    for await (const chunk of new WARCSerializer(big, { gzip })) if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    out.write(await warcRecord(PAGES[1]!, gzip));
    out.end();
    await finished(out);

    global.gc?.();
    const used = (): number => {
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    const baseline = used();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, used())), 2);
    const items = await all(readWarc({ absolute: path, where: 'big.warc' }));
    clearInterval(sampler);
    expect(documentsOf(items).map((d) => d.name)).toEqual(['https://news.example/1', 'https://news.example/2']);
    expect(notesOf(items).map((n) => [n.where, n.message])).toEqual([['big.warc record 3 (https://news.example/big)', 'over 8 MiB (its block: 200 MiB): skipped']]);
    expect(summaryOf(items)).toMatchObject({ entries: 4, documents: 2, notes: 1, complete: true });
    // at most the cap (8 MiB) and the block's kept end (1 MiB) are held, with chunks and garbage
    expect((peak - baseline) / (1024 * 1024)).toBeLessThan(64);
  }, 120_000);
});

describe('bad JSONL lines', () => {
  it('each gets a note naming the file and line; a line without a name is named FILE:LINE; the others are read', async () => {
    const lines = [
      JSON.stringify({ id: 'good-1', text: 'first' }),
      '{not json',
      '[1, 2]',
      JSON.stringify({ id: 'no-text', title: 'x' }),
      JSON.stringify({ id: 'number-text', text: 42 }),
      JSON.stringify({ text: 'unnamed' }),
      '"just a string"',
      randomBytes(300, 48).toString('latin1').replace(/\n/g, ' '),
      JSON.stringify({ id: 'too-long', text: 'x'.repeat(5000) }),
      JSON.stringify({ id: 'good-2', html: '<p>last</p>' }),
    ];
    const path = join(dir, 'bad.jsonl');
    writeFileSync(path, Buffer.from(lines.join('\n'), 'latin1'));
    const items = await all(readJsonl({ absolute: path, where: 'bad.jsonl' }, { maxDocumentBytes: 1000 }));
    expect(documentsOf(items).map((d) => [d.name, d.kind, d.content])).toEqual([['good-1', 'text', 'first'], ['bad.jsonl:6', 'text', 'unnamed'], ['good-2', 'html', '<p>last</p>']]);
    expect(notesOf(items).map((n) => [n.where, n.message.replace(/^not JSON \(.*\)$/, 'not JSON (…)')])).toEqual([
      ['bad.jsonl line 2', 'not JSON (…)'],
      ['bad.jsonl line 3', 'not a JSON object but an array'],
      ['bad.jsonl line 4', 'no "text" or "html" in it'],
      ['bad.jsonl line 5', 'its "text" is not a string'],
      ['bad.jsonl line 7', 'not a JSON object but a string'],
      ['bad.jsonl line 8', 'not JSON (…)'],
      ['bad.jsonl line 9', 'over 1000 bytes (4.9 KiB): skipped'],
    ]);
    // a note prints no control characters
    expect(notesOf(items).every((n) => !/[\u0000-\u001f]/.test(n.message))).toBe(true);
    expect(summaryOf(items)).toMatchObject({ entries: 10, documents: 3, notes: 7, complete: true });
  });

  it('a .jsonl.gz cut short: its whole lines, then one note on the line it cuts', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ id: `doc-${i}`, text: `${KITE[i % KITE.length]} ${i}` }));
    const bytes = gzipSync(lines.join('\n') + '\n');
    const path = join(dir, 'cut.jsonl.gz');
    for (const fraction of [0.3, 0.6, 0.9]) {
      writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length * fraction)));
      const items = await all(readJsonl({ absolute: path, where: 'cut.jsonl.gz' }));
      const documents = documentsOf(items);
      expect(documents.length).toBeGreaterThan(0);
      expect(documents.length).toBeLessThan(200);
      expect(documents.map((d) => d.name)).toEqual(lines.slice(0, documents.length).map((_, i) => `doc-${i}`));
      expect(notesOf(items).map((n) => [n.where, n.message])).toEqual([['cut.jsonl.gz', expect.stringMatching(new RegExp(`^reading stopped after line ${documents.length}: unexpected end of file(; line ${documents.length + 1} is cut after \\d+ bytes and left out)?$`))]]);
      expect(summaryOf(items).complete).toBe(false);
    }
  });
});

describe('binary garbage', () => {
  const good = join(dir, 'good.warc.gz');

  it.each([
    ['garbage.warc.gz', randomBytes(100_000, 1), /^not a WARC file: no record in its \d+ bytes$/],
    ['gzip-header.warc.gz', Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), randomBytes(50_000, 2)]), /^not a WARC file: no record in its \d+ bytes$/],
    ['garbage.warc', randomBytes(100_000, 3), /^not a WARC file: no record in its \d+ bytes$/],
    ['garbage.jsonl.gz', Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), randomBytes(50_000, 4)]), /^reading stopped at its start: /],
  ])('%s: a note, and the next file is read', async (name, bytes, message) => {
    writeFileSync(good, (await warcFile(PAGES.slice(0, 2), true)).bytes);
    const path = join(dir, name);
    writeFileSync(path, bytes);
    const { files } = await listInputs([path, good]);
    const items = await all(readSources(files));
    expect(notesOf(items).map((n) => [n.where, n.message])).toEqual([[path, expect.stringMatching(message)]]);
    expect(documentsOf(items).map((d) => d.name)).toEqual(['https://news.example/1', 'https://news.example/2']);
  });

  it('garbage.jsonl: a note a line, the run goes on', async () => {
    const path = join(dir, 'garbage.jsonl');
    const bytes = randomBytes(20_000, 5);
    writeFileSync(path, bytes);
    const lineCount = bytes.toString('latin1').split('\n').filter((l) => l.replace(/\r$/, '').trim() !== '').length;
    const items = await all(readJsonl({ absolute: path, where: 'garbage.jsonl' }));
    expect(documentsOf(items)).toEqual([]);
    expect(notesOf(items).length).toBe(lineCount);
    expect(notesOf(items).every((n) => /^garbage\.jsonl line \d+$/.test(n.where))).toBe(true);
  });

  it('between two records of a .warc: a note, and both records are read', async () => {
    const { records } = await warcFile(PAGES.slice(0, 2), false);
    records.splice(2, 0, Buffer.concat([randomBytes(3000, 6), Buffer.from('\r\n')]));
    const path = join(dir, 'middle.warc');
    writeFileSync(path, Buffer.concat(records));
    const items = await all(readWarc({ absolute: path, where: 'middle.warc' }));
    expect(documentsOf(items).map((d) => d.name)).toEqual(['https://news.example/1', 'https://news.example/2']);
    expect(notesOf(items).map((n) => [n.where, n.message])).toEqual([['middle.warc', expect.stringMatching(/^\d+ bytes that are no WARC record before record 3; read on from there$/)]]);
  });
});
