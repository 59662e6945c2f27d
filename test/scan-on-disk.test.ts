// scan's on-disk path (bin/scan-db/) against its in-memory one (bin/scan-lists.ts MemoryScan): the
// same documents, pairs, clusters, reuse and rewrites, field for field and in the same order, for
// every method, on samples/, on a seeded folder with copies of every kind planted
// (support/scan-corpus.ts), and on Readability's test pages where the shared corpus has them.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DETECTORS } from '../lib/scan/registry';
import { PASSAGE_PARAMS, type WordPassageFingerprints } from '../lib/fingerprint/passages';
import { kgramSecondHashes } from '../lib/fingerprint/winnow';
import { scanJson } from '../bin/scan-lists';
import { scanOnDisk } from '../bin/scan-db/scan-on-disk';
import { scanCorpus, writeCorpus } from './support/scan-corpus';
import { bothPaths, readFolder } from './support/scan-paths';

const ROOT = new URL('..', import.meta.url).pathname;
const READABILITY = '/work/shared/corpus/readability-test-pages';

const generated = mkdtempSync(join(tmpdir(), 'doppel-on-disk-'));
writeCorpus(generated, scanCorpus(48));
afterAll(() => rmSync(generated, { recursive: true, force: true }));

const FOLDERS: [string, string, { pairs: number; reuse: number; rewrites: number }][] = [
  ['samples/', join(ROOT, 'samples'), { pairs: 5, reuse: 3, rewrites: 15 }],
  ['the generated folder', generated, { pairs: 30, reuse: 30, rewrites: 40 }],
  // its copies are the pairs of each page's source and expected output: nearly all near-duplicates
  ['Readability\'s test pages', READABILITY, { pairs: 100, reuse: 0, rewrites: 0 }],
];

describe.each(FOLDERS)('on disk and in memory: %s', (label, dir, least) => {
  const present = existsSync(dir);
  if (!present) it.skip(`${label}: ${dir} is absent on this machine, so its comparison is skipped`, () => {});
  it.runIf(present).each(DETECTORS.map((d) => d.name))('by %s: the same lists, fields and order', async (name) => {
    const { memory, disk } = await bothPaths(dir, name);
    expect(disk.documents).toEqual(memory.documents);
    expect(disk.pairs).toEqual(memory.pairs);
    expect(disk.clusters).toEqual(memory.clusters);
    expect(disk.lists).toEqual(memory.lists);
    // and byte for byte as --json prints them (the order of every field too)
    expect(JSON.stringify(scanJson(disk), null, 2)).toBe(JSON.stringify(scanJson(memory), null, 2));
    // the folder has something of each kind to compare (lower bounds under what the in-memory path finds)
    const lists = Object.fromEntries(memory.lists);
    expect(memory.pairs.length).toBeGreaterThanOrEqual(least.pairs);
    expect(memory.clusters.length).toBeGreaterThanOrEqual(1);
    expect(lists.reuse!.length).toBeGreaterThanOrEqual(least.reuse);
    expect(lists.rewrites!.length).toBeGreaterThanOrEqual(least.rewrites);
  }, 300_000);
});

describe('on disk: the generated folder', () => {
  it('has passage boilerplate by page count and by site, and clusters by rounds of SQL equal those by union-find', async () => {
    const method = DETECTORS[0]!;
    const documents = (await readFolder(generated)).map(({ kind, read }) => ({ ...structuredClone(read), kind }));
    const byUnion = await scanOnDisk(documents, { method });
    const bySql = await scanOnDisk(documents.map((d) => structuredClone(d)), { method, components: 'sql' });
    try {
      const [rules] = await byUnion.db.rows(`WITH df AS (SELECT hash, count(*) AS n FROM passage_hashes GROUP BY hash)
        SELECT count(*) FILTER (WHERE n > 100)::INTEGER AS by_count, count(*) FILTER (WHERE n <= 100)::INTEGER AS by_site FROM passage_boilerplate JOIN df USING (hash)`);
      expect(rules!.by_count).toBeGreaterThan(0);
      expect(rules!.by_site).toBeGreaterThan(0);
      // each document's passage postings: its (hash, k-gram's second hash) pairs, each once, exactly
      // (hashes of 2^21 and more among them: the two as one number would pass 2^53 and be rounded)
      const expected: string[] = [];
      documents.forEach((d, id) => {
        const f = (d.copies.passages as { fingerprints: WordPassageFingerprints } | null)?.fingerprints;
        if (d.fingerprinted.fingerprints === null || f === undefined) return;
        const seconds = kgramSecondHashes(f.wordHashes, f.positions, PASSAGE_PARAMS.k);
        for (const key of new Set(Array.from(f.hashes, (h, i) => `${h} ${seconds[i]} ${id}`))) expected.push(key);
      });
      const stored = (await byUnion.db.rows('SELECT hash, second_hash, doc FROM passage_hashes')).map((r) => `${String(r.hash)} ${String(r.second_hash)} ${String(r.doc)}`);
      expect(stored.sort()).toEqual(expected.sort());
      expect(expected.filter((key) => Number(key.split(' ')[0]) >= 2 ** 21).length).toBeGreaterThan(100);
      const clusters = (await byUnion.result()).clusters;
      expect(clusters.length).toBeGreaterThan(10);
      expect((await bySql.result()).clusters).toEqual(clusters);
    } finally {
      byUnion.close();
      bySql.close();
    }
  }, 120_000);
});

describe('scan --on-disk', () => {
  const run = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'bin', 'scan.ts'), ...args], { cwd: ROOT }, (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      });
    });

  it('prints the same --json and text report as the in-memory scan, and refuses --ndjson and a limit with --in-memory', async () => {
    const [memoryJson, diskJson, memoryText, diskText] = await Promise.all([run(['--json']), run(['--on-disk', '--json', '--memory-limit', '256MB']), run([]), run(['--on-disk'])]);
    expect(diskJson.code).toBe(0);
    expect(diskJson.stdout).toBe(memoryJson.stdout);
    expect(diskText.stdout).toBe(memoryText.stdout);
    expect(JSON.parse(diskJson.stdout).pairs.length).toBeGreaterThan(0);
    const ndjson = await run(['--on-disk', '--ndjson']);
    expect([ndjson.code, ndjson.stderr.trim()]).toEqual([2, expect.stringContaining('--on-disk does not stream --ndjson')]);
    const limit = await run(['--in-memory', '--memory-limit', '1GB']);
    expect([limit.code, limit.stderr.trim()]).toEqual([2, expect.stringContaining('--memory-limit is the limit of the on-disk path')]);
  }, 120_000);
});
