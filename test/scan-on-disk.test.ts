// scan's on-disk path (bin/scan-db/) against its in-memory one (bin/scan-lists.ts MemoryScan): the
// same documents, pairs, clusters, reuse and rewrites, field for field and in the same order, for
// every method, on samples/, on a seeded folder with copies of every kind planted
// (support/scan-corpus.ts), and on Readability's test pages where the shared corpus has them.
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
