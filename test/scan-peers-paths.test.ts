// scan's two paths on the 940 pages `npm run bench:peers` scans at 1× (bench/peers/peers-data.ts: the
// quality benchmark's originals and their excerpts, stitched pages and quotes), written as it writes
// them, as HTML pages and as .txt files of their articles: in memory and on disk, every list (pairs,
// clusters, reuse, rewrites) the same entry for entry, by simhash and by MinHash. The pages are
// made from Readability's test pages in ../shared/corpus: without it the test is skipped.
// About a minute on two idle cores (building the pages takes half of it).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS_DIR } from '../bench/data/republish';
import { buildPeerSet, writePeerSet } from '../bench/peers/peers-data';
import { scanJson } from '../bin/scan-lists';
import { bothPaths } from './support/scan-paths';

const present = existsSync(CORPUS_DIR);
const dir = mkdtempSync(join(tmpdir(), 'doppel-peers-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('on disk and in memory: bench:peers\' 940 pages at 1×', () => {
  if (!present) it.skip(`${CORPUS_DIR} is absent on this machine, so the pages cannot be built`, () => {});
  let pages = 0;
  beforeAll(() => {
    if (!present) return;
    const set = buildPeerSet(1);
    pages = set.pages.length;
    writePeerSet(set, dir);
  }, 600_000);

  it.runIf(present).each([
    ['html', 'simhash'],
    ['html', 'minhash'],
    ['txt', 'simhash'],
    ['txt', 'minhash'],
  ])('the %s files by %s: every list the same, entry for entry', async (folder, method) => {
    expect(pages).toBe(940);
    const { memory, disk } = await bothPaths(join(dir, folder), method);
    expect(memory.documents.length).toBe(940);
    expect(disk.documents).toEqual(memory.documents);
    expect(disk.pairs).toEqual(memory.pairs);
    expect(disk.clusters).toEqual(memory.clusters);
    expect(disk.lists.map(([key]) => key)).toEqual(['reuse', 'rewrites']);
    expect(disk.lists).toEqual(memory.lists);
    expect(JSON.stringify(scanJson(disk))).toBe(JSON.stringify(scanJson(memory)));
    // the pages hold copies of every kind: each list has entries to compare (bench:peers finds
    // about 98% of the 1,128 partial copies, each in one of the lists)
    const lists = Object.fromEntries(memory.lists);
    expect(memory.pairs.length).toBeGreaterThan(50);
    expect(memory.clusters.length).toBeGreaterThan(20);
    expect(lists.reuse!.length).toBeGreaterThan(500);
    expect(lists.rewrites!.length).toBeGreaterThan(0);
  }, 600_000);
});
