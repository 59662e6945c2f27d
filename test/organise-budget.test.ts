// Organising's memory, bounded by design (lib/organise/budget.ts): each pass tells what its typed
// arrays hold at their most, and on a seeded synthetic history (bench's generator: near-duplicates,
// partial copies and rewrites planted) every pass is within its budget: the regroup and the copy
// marking a few hundred bytes a page, a pass over postings a fixed amount however many pages.
import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticHistory } from '../bench/data/synthetic-history';
import { type HeldMemory, budgetOf, withinBudget } from '../lib/organise/budget';
import { indexPending } from '../lib/organise/passage-organise';
import { organise } from '../lib/organise/regroup';
import { POSTING_BUCKETS } from '../lib/index/postings';
import type { PageStore } from '../lib/store/pages';
import { importLines } from '../lib/store/transfer';
import { freshStore } from './support/fresh-store';

const K = 3;
const PAGES = 1500;
/** Small passes, so that this history takes many. */
const POSTINGS_PER_PASS = 5000;

let dir: string;
let lines: string[];

async function imported(): Promise<PageStore> {
  const store = await freshStore();
  expect(await importLines(store, lines, { now: Date.UTC(2026, 10, 1) })).toMatchObject({ added: PAGES, rejected: [] });
  return store;
}

const over = (held: readonly HeldMemory[], options?: { postingsPerPass?: number }): HeldMemory[] => held.filter((h) => !withinBudget(h, options));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'doppel-budget-'));
  const history = await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: PAGES, seed: 23, copyRate: 0.05, rewriteRate: 0.08, partialRate: 0.08 });
  lines = readFileSync(history.file, 'utf8').split('\n').filter((line) => line !== '');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('organising holds at most its budget in each pass', () => {
  it('organise: the regroup, each postings pass and the copy marking are within budget', async () => {
    const held: HeldMemory[] = [];
    await organise(await imported(), K, { onMemory: (h) => held.push(h) });
    expect(held.map((h) => h.pass)).toEqual(['regroup', 'passagePostings', 'rewritePostings', 'copies']);
    expect(held[0]!.pages).toBe(PAGES);
    expect(over(held)).toEqual([]);
    // the regroup holds more than its fixed part (the rewrite postings' starts and their copy, a
    // chunk of the keys' log): the check weighs its bytes a page. (Its part a page is set for every
    // page judged at once, which this history's few rewrites do not reach: about 40 bytes a page here.)
    const regroup = budgetOf('regroup');
    expect(held[0]!.bytes - regroup.fixed).toBeGreaterThan(20 * PAGES);
  });

  it('an import of many postings takes many passes, each within the fixed budget, and the whole rewrite index read into memory is within its own', async () => {
    const held: HeldMemory[] = [];
    const result = await indexPending(await imported(), { postingsPerPass: POSTINGS_PER_PASS, maxRewriteLookups: 0, onMemory: (h) => held.push(h) });
    // every pass takes at most postingsPerPass (ranges of whole buckets: one more pass at most)
    const planned = Math.ceil(result!.fingerprints / POSTINGS_PER_PASS);
    expect(planned).toBeGreaterThan(10);
    expect(result!.passes).toBeGreaterThanOrEqual(planned);
    expect(result!.passes).toBeLessThanOrEqual(planned + 1);
    expect(result!.rewritesInMemory).toBe(true);
    const passes = held.filter((h) => h.pass === 'passagePostings');
    expect(passes.length).toBe(result!.passes);
    // the rewrite passes take half as many fingerprints each
    expect(held.filter((h) => h.pass === 'rewritePostings').length).toBe(Math.ceil(result!.fingerprints / (POSTINGS_PER_PASS / 2)));
    expect(over(held, { postingsPerPass: POSTINGS_PER_PASS })).toEqual([]);
    // what a pass holds follows the postings it is given: passes half as large hold much less
    const halves: HeldMemory[] = [];
    await indexPending(await imported(), { postingsPerPass: POSTINGS_PER_PASS / 2, onMemory: (h) => halves.push(h) });
    // (less every bucket's count, 4 bytes each, which every pass holds)
    const most = (list: readonly HeldMemory[]): number => Math.max(...list.filter((h) => h.pass === 'passagePostings').map((h) => h.bytes)) - 4 * POSTING_BUCKETS;
    expect(most(halves)).toBeLessThan(0.75 * most(held));
    // and the copy marking's packed index is most of what it holds, a few hundred bytes a page
    const copies = held.find((h) => h.pass === 'copies')!;
    expect(copies.bytes - budgetOf('copies').fixed).toBeGreaterThan(100 * PAGES);
  });
});
