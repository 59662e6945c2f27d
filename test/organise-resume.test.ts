// Organising killed part way (the worker or the browser stopped: what was committed stays, the rest
// is lost) resumes when the worker starts again (entrypoints/background/index.ts runs organise),
// and ends with the store an uninterrupted run leaves: every record (its groups and contentCopy),
// the passage index and its marks, the rewrite index, the counts. The history is bench:browser's
// synthetic one, with near-duplicates, partial copies and rewrites planted.
import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticHistory } from '../bench/data/synthetic-history';
import { PageStore } from '../lib/store/pages';
import { type OrganiseProgress, organise } from '../lib/organise/regroup';
import { importLines } from '../lib/store/transfer';
import { expectCountsKept } from './support/kept-counts';
import { freshStore } from './support/fresh-store';
import { storedPages } from './support/kept-tables';

const K = 3;
const IMPORTED_AT = Date.UTC(2026, 10, 1);
/** Every store but the trees' runs: a resumed run may leave its trees' entries in other chunks (the entries are compared through the records). */
const COMPARED = ['blocks', 'meta', 'siteCounts', 'passages', 'postings', 'passageMarks', 'rewrites', 'rewritePostings'] as const;
/** meta keys about the runs' layout, not the pages. */
const LAYOUT_KEYS = new Set(['runs', 'runsStamp']);

class Killed extends Error {}

let dir: string;
let lines: string[];
let uninterrupted: Record<string, unknown>;

async function imported(): Promise<PageStore> {
  const store = await freshStore();
  expect(await importLines(store, lines, { now: IMPORTED_AT })).toMatchObject({ added: lines.length - 1, rejected: [] });
  return store;
}

async function dump(store: PageStore): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of COMPARED) {
    const tx = store.db.transaction(name, 'readonly');
    const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
    out[name] = keys.map((key, i) => [key, values[i]]).filter(([key]) => name !== 'meta' || !LAYOUT_KEYS.has(String(key)));
  }
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'doppel-resume-'));
  const history = await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: 600, seed: 11, copyRate: 0.05, rewriteRate: 0.08, partialRate: 0.08 });
  expect(Math.min(history.planted.length, history.partial.length, history.rewrites.length)).toBeGreaterThan(5); // of each kind
  lines = readFileSync(history.file, 'utf8').split('\n').filter((line) => line !== '');
  const store = await imported();
  await organise(store, K);
  await expectCountsKept(store.db, 'organised without a stop');
  uninterrupted = await dump(store);
  // the outcome holds what organising works out: groups, copies by content
  const records = await storedPages(store.db);
  expect(records.filter((r) => r.contentCopy === true).length).toBeGreaterThan(20);
  expect(records.filter((r) => r.group !== undefined).length).toBeGreaterThan(30);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('organising killed part way resumes to the outcome of an uninterrupted run', () => {
  const POINTS: readonly { where: string; stopsAt: (p: OrganiseProgress) => boolean }[] = [
    { where: 'in the regroup, its groups written and not yet marked complete', stopsAt: (p) => p.phase === 'writing' },
    { where: 'in the passage index, the postings merged and the marks not written', stopsAt: (p) => p.phase === 'passages' && p.done === 2 },
    { where: 'in the copy marking, the pairs compared and the rewrites looked up, no copy saved', stopsAt: (p) => p.phase === 'copies' && p.done === 3 },
    { where: 'in the passage index, the copies marked and the pending list not yet cleared', stopsAt: (p) => p.phase === 'passages' && p.done === p.total - 1 },
  ];
  it.each(POINTS)('$where', { timeout: 120_000 }, async ({ stopsAt }) => {
    const store = await imported();
    let stopped = false;
    const killed = organise(store, K, {
      onProgress: (p) => {
        if (stopped || !stopsAt(p)) return;
        stopped = true;
        throw new Killed('killed');
      },
    });
    await expect(killed).rejects.toBeInstanceOf(Killed);
    expect(stopped).toBe(true);
    expect(await dump(store)).not.toEqual(uninterrupted); // stopped part way…
    // …and the worker starts again: a new store over the database, organising from what was committed
    const restarted = await PageStore.open(store.db);
    await organise(restarted, K);
    await expectCountsKept(restarted.db, 'resumed');
    expect(await dump(restarted)).toEqual(uninterrupted);
  });
});
