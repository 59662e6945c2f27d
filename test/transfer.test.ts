// lib/store/transfer.ts: exporting the store as NDJSON and importing it back, on fake-indexeddb.
import { FIELD_TREE_BASE, PageRows, textKey } from '../lib/rows/page-rows';
import { UrlFilter } from '../lib/rows/url-filter';
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Fingerprint, fingerprintFromHex, fingerprintToHex } from '../lib/fingerprint/bits';
import { splitLines } from '../lib/protocol/ndjson';
import { randomFingerprints } from '../lib/fingerprint/bits';
import { openDoppelDb } from '../lib/store/db';
import { PageStore } from '../lib/store/pages';
import { NO_CHECK } from '../lib/store/records';
import { type Db, type DesignMeta, PAGE_RECORD_FIELDS, type PageRecord } from '../lib/store/schema';
import { readRunIndexValue } from '../lib/rows/run-index';
import type { Refusal } from '../lib/protocol/ndjson';
import { FILTER_AFTER_BATCHES, ImportError, ImportInterruptedError, exportPages, importLines, type ImportSummary, updateMany, urlFilter } from '../lib/store/transfer';
import { flipBits } from './support/index-suite';
import { uint32s } from '../lib/random';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSyntheticHistory } from '../bench/data/synthetic-history';
import { expectTablesOfRecords, storedPages } from './support/kept-tables';
import { nearDuplicatesOf, recordVisit } from './support/store-queries';

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function freshStore(design?: DesignMeta): Promise<PageStore> {
  const db = await openDoppelDb('doppel', { factory: new IDBFactory() });
  opened.push(db);
  return PageStore.open(db, design);
}

const NOW = Date.UTC(2025, 0, 15, 9, 30);
const HEADER = '{"format":"doppel","version":1,"exported":"2025-01-01T00:00:00.000Z","pages":0,"k":3}';
const iso = (ms: number): string => new Date(ms).toISOString();
const A = '0123456789abcdef';
const A_CHECK = 'fedcba9876543210';

interface Line {
  url?: unknown;
  title?: unknown;
  simhash?: unknown;
  check?: unknown;
  firstSeen?: unknown;
  lastSeen?: unknown;
  visits?: unknown;
  [other: string]: unknown;
}
const pageLine = (fields: Line): string => JSON.stringify({ url: 'https://a.example/p', title: 'T', simhash: A, ...fields });
const file = (...lines: string[]): string[] => [HEADER, ...lines];

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/** Every stored record, by URL. */
const all = async (store: PageStore): Promise<PageRecord[]> => (await storedPages(store.db)).sort((x, y) => (x.url < y.url ? -1 : x.url > y.url ? 1 : 0));

/** Every stored record is whole: exactly the PageRecord fields; and the tables hold exactly the entries of the records' simhashes. */
async function expectWhole(store: PageStore): Promise<void> {
  for (const record of await all(store)) {
    expect(Object.keys(record)).toEqual([...PAGE_RECORD_FIELDS]);
    expect(record.check === NO_CHECK || /^[0-9a-f]{16}$/.test(record.check)).toBe(true);
  }
  await expectTablesOfRecords(store.db);
}

/** A store of `count` recorded pages (some revisited, some with a changed text), and a few imported without a check. */
async function populated(count: number, design?: DesignMeta): Promise<PageStore> {
  const store = await freshStore(design);
  const simhashes = randomFingerprints(0x7a45n, count);
  const checks = randomFingerprints(0xc4ecn, count);
  for (let i = 0; i < count; i++) {
    const visit = {
      url: `https://site${i % 7}.example/article/${i}?id=${i * 31}`,
      title: i % 11 === 0 ? '' : `Article ${i} — “quoted” ✓`,
      site: `site${i % 7}.example`,
      simhash: simhashes[i]!,
      check: checks[i]!,
      now: Date.UTC(2024, 0, 1) + i * 60_000,
    };
    await recordVisit(store, visit);
    if (i % 5 === 0) await recordVisit(store, { ...visit, now: visit.now + 86_400_000 });
    if (i % 13 === 0) await recordVisit(store, { ...visit, simhash: flipBits(visit.simhash, [1, 2]), now: visit.now + 2 * 86_400_000 });
  }
  await importLines(store, file(pageLine({ url: 'https://nocheck.example/', title: 'No check', simhash: '00000000ffffffff', visits: 3 })), { now: NOW });
  return store;
}

describe('exportPages', () => {
  it('a header with the page count, then one line per page in id order (the order first stored), read a chunk at a time', async () => {
    const store = await populated(40);
    const spy = vi.spyOn(store, 'pagesAfter');
    const lines = await collect(exportPages(store, { now: Date.UTC(2025, 1, 3), chunkSize: 7 }));
    expect(lines[0]).toBe('{"format":"doppel","version":1,"exported":"2025-02-03T00:00:00.000Z","pages":41,"k":3,"passages":{"k":5,"w":26,"bytes":2},"rewrites":{"scheme":1,"bits":20,"cap":64}}');
    expect(lines).toHaveLength(42);
    const urls = lines.slice(1).map((l) => JSON.parse(l).url as string);
    expect(new Set(urls).size).toBe(41);
    const ids = await Promise.all(urls.map(async (url) => (await store.get(url))!.id));
    expect(ids).toEqual(Array.from({ length: 41 }, (_, i) => i));
    expect(spy).toHaveBeenCalledTimes(6); // 41 records in chunks of 7
    for (const line of lines.slice(1)) {
      expect(Object.keys(JSON.parse(line))).toEqual(['url', 'title', 'site', 'simhash', 'check', 'firstSeen', 'lastSeen', 'visits']);
    }
    expect(JSON.parse(lines.find((l) => l.includes('nocheck.example'))!).check).toBeNull();
  });

  it('a consumer may take its time between lines: no transaction is held open', async () => {
    const store = await populated(15);
    const lines: string[] = [];
    for await (const line of exportPages(store, { chunkSize: 4 })) {
      lines.push(line);
      await new Promise((resolve) => setTimeout(resolve, 1)); // an idle transaction would commit here
    }
    expect(lines).toHaveLength(17);
  });

  it('an empty store: the header alone', async () => {
    const store = await freshStore();
    const lines = await collect(exportPages(store, { now: 0 }));
    expect(lines).toEqual(['{"format":"doppel","version":1,"exported":"1970-01-01T00:00:00.000Z","pages":0,"k":3,"passages":{"k":5,"w":26,"bytes":2},"rewrites":{"scheme":1,"bits":20,"cap":64}}']);
    expect(await importLines(store, lines, { now: NOW })).toEqual({ added: 0, merged: 0, unchanged: 0, rejected: [] });
  });
});

describe('round trip', () => {
  it('exporting, clearing and importing gives the same records', async () => {
    const store = await populated(300);
    const before = await all(store);
    expect(before.some((r) => r.check === NO_CHECK)).toBe(true);
    expect(before.some((r) => r.visits > 1)).toBe(true);

    const text = (await collect(exportPages(store, { chunkSize: 64 }))).map((l) => l + '\n').join('');
    expect(await store.clear()).toBe(301); // the 300 pages visited and the one imported
    expect(await store.count()).toBe(0);

    // read back as a file arrives: in uneven chunks through splitLines
    const chunks = text.match(/[^]{1,997}/g)!;
    const summary = await importLines(store, splitLines(chunks), { now: NOW, batchSize: 100 });
    expect(summary).toEqual({ added: before.length, merged: 0, unchanged: 0, rejected: [] });
    const after = await all(store);
    // the same pages, each with a new id: ids are never given out twice
    const withoutId = (records: PageRecord[]) => records.map(({ id: _, ...rest }) => rest);
    expect(withoutId(after)).toEqual(withoutId(before));
    expect(Math.min(...after.map((record) => record.id))).toBe(301);
    for (const [i, record] of after.entries()) expect(Object.keys(record)).toEqual(Object.keys(before[i]!));
  });

  it('into a store of another table design: the tables are built for it', async () => {
    const source = await populated(50);
    const target = await freshStore({ k: 3, b: 6 });
    await importLines(target, exportPages(source), { now: NOW });
    expect(await all(target)).toEqual(await all(source));
    const index = readRunIndexValue(await target.db.get('meta', 'runs'));
    expect(new Set(index.runs.map((run) => run.tree).filter((tree) => tree < FIELD_TREE_BASE)).size).toBe(20); // the tables
    await expectWhole(target);
  });

  it('importing the same file twice adds nothing the second time', async () => {
    const source = await populated(120);
    const lines = await collect(exportPages(source));
    const target = await freshStore();
    const first = await importLines(target, lines, { now: NOW, batchSize: 50 });
    expect(first).toEqual({ added: 121, merged: 0, unchanged: 0, rejected: [] });
    const once = await all(target);
    const second = await importLines(target, lines, { now: NOW + 1_000_000, batchSize: 50 });
    expect(second).toEqual({ added: 0, merged: 0, unchanged: 121, rejected: [] });
    expect(await all(target)).toEqual(once);
    // and into the store it came from
    expect(await importLines(source, lines, { now: NOW })).toEqual({ added: 0, merged: 0, unchanged: 121, rejected: [] });
  });

  it('a file without dates, imported twice at different times, changes nothing the second time', async () => {
    const store = await freshStore();
    const lines = file(pageLine({ url: 'https://a.example/1' }), pageLine({ url: 'https://a.example/2', visits: 2, firstSeen: iso(NOW - 10) }));
    expect(await importLines(store, lines, { now: NOW })).toMatchObject({ added: 2 });
    const once = await all(store);
    expect(once.map((r) => [r.firstSeen, r.lastSeen, r.visits])).toEqual([[NOW, NOW, 1], [NOW - 10, NOW, 2]]);
    // the defaults (the new import time) are only for new pages: they do not move a stored lastSeen
    expect(await importLines(store, lines, { now: NOW + 5_000 })).toEqual({ added: 0, merged: 0, unchanged: 2, rejected: [] });
    expect(await all(store)).toEqual(once);
  });
});

describe('merging with a stored page', () => {
  const T = (day: number): number => Date.UTC(2024, 0, day);
  const stored = (fields: Line = {}): Line => ({
    title: 'Stored',
    simhash: A,
    check: A_CHECK,
    firstSeen: iso(T(10)),
    lastSeen: iso(T(20)),
    visits: 5,
    ...fields,
  });
  const B = 'f0f0f0f0f0f0f0f0';
  const B_CHECK = '0f0f0f0f0f0f0f0f';

  // [name, stored page, imported page, outcome, the fields of the record afterwards]
  const cases: [string, Line, Line, 'merged' | 'unchanged', Partial<PageRecord>][] = [
    ['the same page: unchanged', stored(), stored(), 'unchanged', { firstSeen: T(10), lastSeen: T(20), visits: 5, title: 'Stored' }],
    ['inside the stored span, fewer visits: unchanged', stored(), stored({ firstSeen: iso(T(12)), lastSeen: iso(T(15)), visits: 2 }), 'unchanged', { firstSeen: T(10), lastSeen: T(20), visits: 5 }],
    ['earlier firstSeen: the earlier one', stored(), stored({ firstSeen: iso(T(1)), lastSeen: iso(T(15)) }), 'merged', { firstSeen: T(1), lastSeen: T(20), visits: 5 }],
    ['later lastSeen: the later one', stored(), stored({ firstSeen: iso(T(15)), lastSeen: iso(T(30)) }), 'merged', { firstSeen: T(10), lastSeen: T(30) }],
    ['more visits: the larger count, not the sum', stored(), stored({ visits: 9 }), 'merged', { visits: 9 }],
    ['fewer visits: the stored count', stored({ visits: 9 }), stored({ visits: 5 }), 'unchanged', { visits: 9 }],
    ['another title: the stored title stays', stored(), stored({ title: 'Imported' }), 'unchanged', { title: 'Stored' }],
    ['an empty stored title: the imported one', stored({ title: '' }), stored({ title: 'Imported' }), 'merged', { title: 'Imported' }],
    ['an empty imported title: the stored one', stored(), stored({ title: '' }), 'unchanged', { title: 'Stored' }],
    [
      'another text seen later: its fingerprints and keys',
      stored(),
      stored({ simhash: B, check: B_CHECK, lastSeen: iso(T(25)) }),
      'merged',
      { simhash: B, check: B_CHECK, lastSeen: T(25) },
    ],
    ['another text seen earlier: the stored fingerprints stay', stored(), stored({ simhash: B, check: B_CHECK, lastSeen: iso(T(18)) }), 'unchanged', { simhash: A, check: A_CHECK }],
    ['another text, seen at the same time: the stored fingerprints stay', stored(), stored({ simhash: B, check: B_CHECK }), 'unchanged', { simhash: A, check: A_CHECK }],
    ['another text seen later, without a check: the check is unknown', stored(), stored({ simhash: B, check: null, lastSeen: iso(T(25)) }), 'merged', { simhash: B, check: NO_CHECK }],
    ['no stored check: the imported check fills it', stored({ check: null }), stored(), 'merged', { check: A_CHECK }],
    ['no imported check: the stored check stays', stored(), stored({ check: null }), 'unchanged', { check: A_CHECK }],
    ['a newer check for the same simhash seen later: the newer check', stored(), stored({ check: B_CHECK, lastSeen: iso(T(21)) }), 'merged', { check: B_CHECK, lastSeen: T(21) }],
    ['an older check for the same simhash: the stored check', stored(), stored({ check: B_CHECK, lastSeen: iso(T(19)) }), 'unchanged', { check: A_CHECK }],
  ];

  it.each(cases)('%s', async (_name, old, imported, outcome, want) => {
    const store = await freshStore();
    await importLines(store, file(pageLine(old)), { now: NOW });
    const summary = await importLines(store, file(pageLine(imported)), { now: NOW });
    expect(summary).toEqual({ added: 0, merged: outcome === 'merged' ? 1 : 0, unchanged: outcome === 'unchanged' ? 1 : 0, rejected: [] });
    const record = await store.get('https://a.example/p');
    expect(record).toMatchObject(want);
    await expectWhole(store);
  });

  it('merges into a page recorded by a visit, and the next visit counts on from the merged count', async () => {
    const store = await freshStore();
    const url = 'https://a.example/p';
    await recordVisit(store, { url, title: 'Visited', site: 'a.example', simhash: fingerprintFromHex(A), check: fingerprintFromHex(A_CHECK), now: T(10) });
    expect(await importLines(store, file(pageLine({ title: 'Imported', firstSeen: iso(T(1)), lastSeen: iso(T(2)), visits: 7 })), { now: NOW })).toMatchObject({ merged: 1 });
    expect(await store.get(url)).toMatchObject({ title: 'Visited', firstSeen: T(1), lastSeen: T(10), visits: 7, check: A_CHECK });
    expect(await recordVisit(store, { url, title: 'Visited', site: 'a.example', simhash: fingerprintFromHex(A), check: fingerprintFromHex(A_CHECK), now: T(11) })).toMatchObject({ visits: 8 });
  });
});

describe('importLines', () => {
  it('bad lines are rejected with their line numbers and reasons, and the import goes on', async () => {
    const store = await freshStore();
    const lines = [
      '\uFEFF' + HEADER, // 1
      pageLine({ url: 'https://a.example/1' }), // 2
      '', // 3: blank lines are skipped
      'not json', // 4
      pageLine({ url: 'https://a.example/2', simhash: 'zz' }), // 5
      '   ', // 6
      pageLine({ url: 'ftp://a.example/3' }), // 7
      pageLine({ url: 'https://a.example/4', visits: 0, firstSeen: 'yesterday' }), // 8
      HEADER, // 9
      pageLine({ url: 'https://a.example/5', visits: 2 }), // 10
      '[]', // 11
    ];
    const summary = await importLines(store, lines, { now: NOW, batchSize: 2 });
    expect(summary).toEqual({
      added: 2,
      merged: 0,
      unchanged: 0,
      rejected: [
        { line: 4, problems: [{ code: 'not-json' }] },
        { line: 5, problems: [{ code: 'not-hex', field: 'simhash' }] },
        { line: 7, problems: [{ code: 'not-http', field: 'url' }] },
        { line: 8, problems: [{ code: 'not-date', field: 'firstSeen' }, { code: 'not-visits' }] },
        { line: 9, problems: [{ code: 'second-header' }] },
        { line: 11, problems: [{ code: 'not-object' }] },
      ],
    });
    expect((await all(store)).map((r) => r.url)).toEqual(['https://a.example/1', 'https://a.example/5']);
  });

  it('line numbers count blank lines and CRLF files as an editor does', async () => {
    const store = await freshStore();
    const text = `${HEADER}\r\n\r\n${pageLine({ url: 'https://a.example/1' })}\r\n\r\nbad\r\n${pageLine({ simhash: 1 })}`;
    const summary = await importLines(store, splitLines([text]), { now: NOW });
    expect(summary).toEqual({
      added: 1,
      merged: 0,
      unchanged: 0,
      rejected: [
        { line: 5, problems: [{ code: 'not-json' }] },
        { line: 6, problems: [{ code: 'not-hex', field: 'simhash' }] },
      ],
    });
  });

  it('tracking-parameter and fragment variants of a URL merge into one page', async () => {
    const store = await freshStore();
    const lines = file(
      pageLine({ url: 'https://news.example/story?id=7', firstSeen: iso(Date.UTC(2024, 0, 5)), lastSeen: iso(Date.UTC(2024, 0, 6)), visits: 2 }),
      pageLine({ url: 'https://news.example/story?utm_source=newsletter&id=7&utm_medium=email', firstSeen: iso(Date.UTC(2024, 0, 1)), lastSeen: iso(Date.UTC(2024, 0, 2)) }),
      pageLine({ url: 'https://news.example/story?id=7&fbclid=abc#comments', firstSeen: iso(Date.UTC(2024, 0, 3)), lastSeen: iso(Date.UTC(2024, 0, 9)), visits: 4 }),
      pageLine({ url: 'https://news.example/story?id=7&gclid=x', firstSeen: iso(Date.UTC(2024, 0, 3)), lastSeen: iso(Date.UTC(2024, 0, 4)) }),
      pageLine({ url: 'https://news.example/story?id=8' }),
    );
    for (const batchSize of [1, 500]) {
      const fresh = batchSize === 1 ? store : await freshStore();
      expect(await importLines(fresh, lines, { now: NOW, batchSize })).toEqual({ added: 2, merged: 2, unchanged: 1, rejected: [] });
      expect(await fresh.get('https://news.example/story?id=7')).toMatchObject({
        firstSeen: Date.UTC(2024, 0, 1),
        lastSeen: Date.UTC(2024, 0, 9),
        visits: 4,
        site: 'news.example',
      });
      expect((await all(fresh)).map((r) => r.url)).toEqual(['https://news.example/story?id=7', 'https://news.example/story?id=8']);
    }
  });

  it('a file without a header, or of a newer version, imports nothing and says why', async () => {
    const store = await freshStore();
    const page = pageLine({});
    const cases: [string[], string, Refusal][] = [
      [[page, page], 'Cannot import line 1: this is not a Doppel export: the first line must be its header, {"format":"doppel","version":1,…}. Nothing was imported.', { code: 'not-export' }],
      [
        [HEADER.replace('"version":1', '"version":2'), page],
        'Cannot import line 1: this file is in version 2 of the Doppel export format, newer than version 1, the newest this copy of Doppel reads: update Doppel to import it. Nothing was imported.',
        { code: 'newer-version', version: 2, newest: 1 },
      ],
      [['', '  ', page], 'Cannot import line 3: this is not a Doppel export: the first line must be its header, {"format":"doppel","version":1,…}. Nothing was imported.', { code: 'not-export' }],
      [[], 'Cannot import: the file is empty, and a Doppel export starts with its header line. Nothing was imported.', { code: 'empty' }],
      [['', '\uFEFF'], 'Cannot import: the file is empty, and a Doppel export starts with its header line. Nothing was imported.', { code: 'empty' }],
    ];
    for (const [lines, message, refusal] of cases) {
      const error = await importLines(store, lines, { now: NOW }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImportError);
      expect((error as Error).message).toBe(message);
      expect((error as ImportError).refusal).toEqual(refusal);
    }
    expect(await store.count()).toBe(0);
  });

  it('a header after blank lines is read', async () => {
    const store = await freshStore();
    expect(await importLines(store, ['', HEADER, pageLine({})], { now: NOW })).toMatchObject({ added: 1 });
  });

  it('reports progress after each batch and at the end', async () => {
    const store = await freshStore();
    const lines = file(...Array.from({ length: 10 }, (_, i) => pageLine({ url: `https://a.example/${i}` })), 'bad');
    const calls: [number, ImportSummary][] = [];
    await importLines(store, lines, { now: NOW, batchSize: 4, onProgress: (read, summary) => void calls.push([read, structuredClone(summary)]) });
    expect(calls).toEqual([
      [4, { added: 3, merged: 0, unchanged: 0, rejected: [] }],
      [8, { added: 7, merged: 0, unchanged: 0, rejected: [] }],
      [12, { added: 10, merged: 0, unchanged: 0, rejected: [{ line: 12, problems: [{ code: 'not-json' }] }] }],
    ]);
  });

  it('rejects a batch size or time that makes no sense', async () => {
    const store = await freshStore();
    await expect(importLines(store, [HEADER], { now: NOW, batchSize: 0 })).rejects.toThrow(RangeError);
    await expect(importLines(store, [HEADER], { now: Number.NaN })).rejects.toThrow(RangeError);
  });
});

describe('an import cut off half way', () => {
  async function* readFailingAfter(lines: readonly string[], n: number): AsyncGenerator<string> {
    for (const [i, line] of lines.entries()) {
      if (i === n) throw new Error('the file could not be read');
      yield line;
    }
  }

  it('leaves only whole records, reports what was committed, and importing again completes it', async () => {
    const source = await populated(200);
    const lines = await collect(exportPages(source));
    expect(lines).toHaveLength(202);

    const store = await freshStore({ k: 3, b: 5 });
    const error = await importLines(store, readFailingAfter(lines, 137), { now: NOW, batchSize: 30 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportInterruptedError);
    const interrupted = error as ImportInterruptedError;
    expect(interrupted.message).toBe(
      'The import stopped after line 137: the file could not be read. The pages imported so far are kept; importing the file again completes it.',
    );
    expect((interrupted.cause as Error).message).toBe('the file could not be read');
    // batches end at lines 30, 60, 90, 120: 119 pages (line 1 is the header); lines 121–137 were not written
    expect(interrupted.linesRead).toBe(137);
    expect(interrupted.summary).toEqual({ added: 119, merged: 0, unchanged: 0, rejected: [] });
    expect(await store.count()).toBe(119);
    await expectWhole(store);

    const rest = await importLines(store, lines, { now: NOW, batchSize: 30 });
    expect(rest).toEqual({ added: 201 - 119, merged: 0, unchanged: 119, rejected: [] });
    await expectWhole(store);
    expect(await all(store)).toEqual(await all(source));
  });

  it('a batch whose transaction fails writes none of its records', async () => {
    const store = await freshStore();
    const lines = file(...Array.from({ length: 25 }, (_, i) => pageLine({ url: `https://a.example/${String(i).padStart(2, '0')}` })));
    const write = store.write.bind(store);
    let batches = 0;
    vi.spyOn(store, 'write').mockImplementation(async (work) => {
      batches++;
      if (batches < 3) return write(work);
      // the third batch: a last put fails (a record without its key), after the batch's own were put
      return write(async (w) => {
        const result = await work(w);
        await w.rows.put({ title: 'no url' } as unknown as PageRecord);
        return result;
      });
    });
    const error = await importLines(store, lines, { now: NOW, batchSize: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportInterruptedError);
    // batches: lines 2–10 (9 pages), 11–20 (10), then 21–26 failed
    expect((error as ImportInterruptedError).summary).toEqual({ added: 19, merged: 0, unchanged: 0, rejected: [] });
    expect(await store.count()).toBe(19);
    expect((await all(store)).at(-1)!.url).toBe('https://a.example/18');
    await expectWhole(store);
  });
});

describe('pages imported without a check', () => {
  const simhash = fingerprintFromHex(A);
  const farCheck = (fp: Fingerprint): Fingerprint => flipBits(fp, Array.from({ length: 30 }, (_, i) => i * 2));

  it('are near-duplicates on the simhash alone, since their check cannot confirm or refute', async () => {
    const store = await freshStore();
    await importLines(store, file(pageLine({ url: 'https://imported.example/' })), { now: NOW });
    expect((await store.get('https://imported.example/'))!.check).toBe(NO_CHECK);
    await recordVisit(store, { url: 'https://visited.example/', title: 'V', site: 'visited.example', simhash: flipBits(simhash, [0]), check: fingerprintFromHex(A_CHECK), now: NOW });
    await recordVisit(store, { url: 'https://refuted.example/', title: 'R', site: 'refuted.example', simhash: flipBits(simhash, [1]), check: farCheck(fingerprintFromHex(A_CHECK)), now: NOW });

    // a query with a check: the imported page is accepted, the visited page with a far check is not
    const found = await store.nearDuplicates(flipBits(simhash, [0]), fingerprintFromHex(A_CHECK), { excludeUrl: 'https://visited.example/' });
    expect(found.map((m) => [m.record.url, m.distance])).toEqual([['https://imported.example/', 1]]);
    expect(await store.nearDuplicates(flipBits(simhash, [5, 6, 7, 8]), fingerprintFromHex(A_CHECK))).toEqual([]); // beyond k

    // the imported page's own near-duplicates: every page within k, none can be confirmed
    const imported = (await store.get('https://imported.example/'))!;
    expect((await nearDuplicatesOf(store, imported)).map((m) => m.record.url)).toEqual(['https://refuted.example/', 'https://visited.example/']);
    // a recorded page's, through nearDuplicatesOf: its check is used as nearDuplicates does
    const visited = (await store.get('https://visited.example/'))!;
    expect((await nearDuplicatesOf(store, visited)).map((m) => m.record.url)).toEqual(['https://imported.example/']);
    expect(await nearDuplicatesOf(store, visited)).toEqual(await store.nearDuplicates(fingerprintFromHex(visited.simhash), fingerprintFromHex(visited.check), { excludeUrl: visited.url }));
  });

  it('get their check on the next visit', async () => {
    const store = await freshStore();
    await importLines(store, file(pageLine({ url: 'https://imported.example/', visits: 3 })), { now: NOW });
    const record = await recordVisit(store, { url: 'https://imported.example/', title: 'T', site: 'imported.example', simhash, check: fingerprintFromHex(A_CHECK), now: NOW + 1 });
    expect(record).toMatchObject({ check: A_CHECK, visits: 4 });
    expect(fingerprintToHex(fingerprintFromHex(record.check))).toBe(A_CHECK);
  });
});

describe('an import reads no group of page ids not given out yet', () => {
  it('its blocks, passages, marks and rewrites past meta nextId are not read, and it stores what an import in one go stores', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doppel-absent-'));
    try {
      const history = await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: 300, seed: 5, rewriteRate: 0.05 });
      const lines = readFileSync(history.file, 'utf8').split('\n').filter((line) => line !== '');
      expect(lines.slice(1).every((line) => line.includes('"passages"') && line.includes('"rewrites"'))).toBe(true);
      const inOneGo = await freshStore();
      await importLines(inOneGo, lines, { now: NOW });
      // 80 pages first (meta nextId 80: groups 0 and 1 may hold pages), then the rest
      const store = await freshStore();
      await importLines(store, lines.slice(0, 81), { now: NOW });
      const get = vi.spyOn(IDBObjectStore.prototype, 'get');
      await importLines(store, [lines[0]!, ...lines.slice(81)], { now: NOW });
      const read = new Map<string, Set<unknown>>();
      for (const [i, [key]] of get.mock.calls.entries()) {
        const name = (get.mock.contexts[i] as IDBObjectStore).name;
        if (['blocks', 'passages', 'passageMarks', 'rewrites'].includes(name)) read.set(name, (read.get(name) ?? new Set()).add(key));
      }
      get.mockRestore();
      expect(Object.fromEntries([...read].map(([name, keys]) => [name, [...keys].sort()]))).toEqual({ blocks: [1], passages: [1], passageMarks: [1], rewrites: [1] });
      for (const name of ['blocks', 'passages', 'passageMarks', 'rewrites'] as const) {
        expect(await store.db.getAll(name), name).toEqual(await inOneGo.db.getAll(name));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a long import looks up only the URLs that may be stored (UrlFilter)', () => {
  /** A seeded file: new pages, pages of the store (merged or unchanged), repeats and tracking variants. */
  function mixedFile(lines: number): string[] {
    const simhashes = randomFingerprints(0x5107n, lines);
    return file(
      ...Array.from({ length: lines }, (_, i) => {
        const n = i % 5 === 0 ? i % 400 : i; // every fifth line a page the store already has (0–299) or one of the file's own
        const url = `https://site${n % 7}.example/article/${n}?id=${n * 31}${i % 9 === 0 ? '&utm_source=feed' : ''}`;
        return pageLine({ url, title: `Line ${i}`, simhash: fingerprintToHex(simhashes[n]!), lastSeen: iso(Date.UTC(2024, 5, 1) + i * 1000), visits: 1 + (i % 4) });
      }),
    );
  }

  it('gives the same store and summary as an import that looks up every URL, with far fewer lookups', async () => {
    const byUrl = vi.spyOn(PageRows.prototype, 'byUrl');
    const lookups = async (batchSize: number): Promise<{ records: PageRecord[]; summary: ImportSummary; lookups: number }> => {
      const store = await populated(300);
      byUrl.mockClear();
      const summary = await importLines(store, mixedFile(3_000), { now: NOW, batchSize });
      return { records: await all(store), summary, lookups: byUrl.mock.calls.length };
    };
    const oneBatch = await lookups(10_000); // one batch: no filter
    const filtered = await lookups(100); // the filter from batch FILTER_AFTER_BATCHES + 1 on
    byUrl.mockRestore();
    expect(filtered.records).toEqual(oneBatch.records);
    expect(filtered.summary).toEqual(oneBatch.summary);
    expect(filtered.summary.added).toBeGreaterThan(2_000);
    expect(filtered.summary.merged + filtered.summary.unchanged).toBeGreaterThan(500);
    // one lookup a distinct URL without the filter; with it, the first batches' and those of pages that may be stored
    expect(oneBatch.lookups).toBeGreaterThan(2_400);
    // at most: every URL of the first batches, and every fifth line after (a page the store may have)
    expect(filtered.lookups).toBeLessThanOrEqual(FILTER_AFTER_BATCHES * 100 + 3_000 / 5);
  });

  it('a page stored after the filter was filled is merged, not added twice: its id is past what the filter has seen', async () => {
    const store = await populated(20);
    const before = await store.count();
    const filter = await urlFilter(store);
    for (const record of await all(store)) expect(filter.mayHold(textKey(record.url))).toBe(true);
    expect(filter.throughId).toBe(before);
    const late = 'https://late.example/visited-during-the-import';
    const fresh = 'https://fresh.example/only-in-the-file';
    expect(filter.mayHold(textKey(late)) || filter.mayHold(textKey(fresh))).toBe(false);
    await recordVisit(store, { url: late, title: 'Visited', site: 'late.example', simhash: fingerprintFromHex(A), check: fingerprintFromHex(A_CHECK), now: NOW });

    const seen: (number | undefined)[] = [];
    await updateMany(store, [late, fresh], (current) => {
      seen.push(current.get(late)?.visits);
      const visits = (current.get(late)?.visits ?? 0) + 10;
      return [late, fresh].map((url) => ({ url, title: 'Imported', site: new URL(url).host, simhash: A, check: A_CHECK, firstSeen: NOW, lastSeen: NOW, visits }));
    }, { filter });
    expect(seen).toEqual([1]); // the late page was read (the filter caught up first), once
    expect((await all(store)).filter((r) => r.url === late)).toMatchObject([{ visits: 11 }]);
    expect(await store.get(fresh)).toMatchObject({ visits: 11 });
    expect(await store.count()).toBe(before + 2);
    expect([filter.mayHold(textKey(late)), filter.mayHold(textKey(fresh)), filter.throughId]).toEqual([true, true, before + 2]);
  });

  it('holds a million URLs with few false positives (three bits of 2^25 a URL)', () => {
    // one bit of 2^24 a URL gave 5.8% at a million (a lookup each), one or two bits of 2^25 2.9% and 0.33%
    const filter = new UrlFilter();
    const key = uint32s(0xf117e4);
    for (let i = 0; i < 1_000_000; i++) filter.add(key());
    const asked = Array.from({ length: 50_000 }, (_, i) => `https://new${i % 97}.example/story/${i}`);
    const falsePositives = asked.filter((url) => filter.mayHold(textKey(url))).length;
    expect(falsePositives).toBeLessThanOrEqual(75); // 31 expected (1 in 1,600)
    const added = asked.slice(0, 1_000);
    for (const url of added) filter.add(textKey(url));
    expect(added.every((url) => filter.mayHold(textKey(url)))).toBe(true);
  });

  it('an empty store gives a filter that holds nothing', async () => {
    const filter = await urlFilter(await freshStore());
    expect(filter).toBeInstanceOf(UrlFilter);
    expect([filter.mayHold(textKey('https://a.example/')), filter.throughId]).toEqual([false, 0]);
  });
});
