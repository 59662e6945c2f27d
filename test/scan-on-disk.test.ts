// scan's on-disk path (bin/scan-db/) against its in-memory one (bin/scan-lists.ts MemoryScan): the
// same documents, pairs, clusters, reuse and rewrites, field for field and in the same order, for
// every method, on samples/, on a seeded folder with copies of every kind planted
// (support/scan-corpus.ts), and on Readability's test pages where the shared corpus has them.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COPY_DETECTORS, DETECTORS } from '../lib/scan/registry';
import { MemoryScan, type ReadDocument, type ScanResult, scanJson } from '../bin/scan-lists';
import { listFiles } from '../bin/scan-files';
import { readDocument } from '../bin/scan-read';
import { OnDiskScan, scanOnDisk } from '../bin/scan-db/scan-on-disk';
import { scanCorpus, writeCorpus } from './support/scan-corpus';

const ROOT = new URL('..', import.meta.url).pathname;
const READABILITY = '/work/shared/corpus/readability-test-pages';

const generated = mkdtempSync(join(tmpdir(), 'doppel-on-disk-'));
writeCorpus(generated, scanCorpus(48));
afterAll(() => rmSync(generated, { recursive: true, force: true }));

/** A document read as scan reads it, with the text it fingerprinted (null: none). */
type Read = { kind: 'html' | 'text'; read: ReadDocument; text: string | null };

const folders = new Map<string, Promise<Read[]>>();

/** The documents of a folder read once (by simhash, with every copy detector's code), kept for each method's comparison. */
function readFolder(dir: string): Promise<Read[]> {
  let reading = folders.get(dir);
  if (reading === undefined) {
    reading = (async () => {
      const out: Read[] = [];
      for (const file of (await listFiles(dir)).files) {
        let text: string | null = null;
        const result = await readDocument(file, 'simhash', OnDiskScan.copies, (t) => (text = t));
        if (result.ok) out.push({ kind: file.kind, read: result, text });
      }
      return out;
    })();
    folders.set(dir, reading);
  }
  return reading;
}

/** The scan of a folder by a method on each path. */
async function bothPaths(dir: string, name: string): Promise<{ memory: ScanResult; disk: ScanResult }> {
  const method = DETECTORS.find((d) => d.name === name)!;
  // the method's code of the same text, as readDocument takes it (fingerprintFor)
  const documents = (await readFolder(dir)).map(({ kind, read, text }) => ({ kind, read: { ...read, code: text === null ? null : method.code(text) } }));
  const memory = new MemoryScan(method, method.defaultThreshold, COPY_DETECTORS);
  // each path its own copy: the on-disk one must read back what it stored, not share objects
  const forDisk = documents.map(({ kind, read }) => ({ ...structuredClone(read), kind }));
  for (const { read } of documents) memory.add(structuredClone(read));
  const scan = await scanOnDisk(forDisk, { method, memoryLimit: '256MB', threads: 2 });
  try {
    return { memory: await memory.result(), disk: await scan.result() };
  } finally {
    scan.close();
  }
}

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

  it('prints the same --json and text report as the in-memory scan, and refuses --ndjson and a limit without it', async () => {
    const [memoryJson, diskJson, memoryText, diskText] = await Promise.all([run(['--json']), run(['--on-disk', '--json', '--memory-limit', '256MB']), run([]), run(['--on-disk'])]);
    expect(diskJson.code).toBe(0);
    expect(diskJson.stdout).toBe(memoryJson.stdout);
    expect(diskText.stdout).toBe(memoryText.stdout);
    expect(JSON.parse(diskJson.stdout).pairs.length).toBeGreaterThan(0);
    const ndjson = await run(['--on-disk', '--ndjson']);
    expect([ndjson.code, ndjson.stderr.trim()]).toEqual([2, expect.stringContaining('--on-disk does not stream --ndjson')]);
    const limit = await run(['--memory-limit', '1GB']);
    expect([limit.code, limit.stderr.trim()]).toEqual([2, expect.stringContaining('--memory-limit is the limit of --on-disk')]);
  }, 120_000);
});
