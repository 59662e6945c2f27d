import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectorNamed } from '../lib/scan/registry';
import { COPY_DETECTORS } from '../lib/scan/registry';
import { MemoryScan, type ReadDocument, scanJson } from '../bin/scan-lists';
import { type Listed, kindOf, readDocument } from '../bin/scan-read';
import { OnDiskScan, scanOnDisk } from '../bin/scan-db/scan-on-disk';

const ROOT = new URL('..', import.meta.url).pathname;

function listed(root: string): Listed[] {
  const out: Listed[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const absolute = join(dir, entry.name);
      if (entry.isDirectory()) walk(absolute);
      else if (entry.isFile() && kindOf(entry.name)) out.push({ path: relative(root, absolute).split(sep).join('/'), absolute, kind: kindOf(entry.name)! });
    }
  };
  walk(root);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function readAll(files: Listed[], method: string): Promise<ReadDocument[]> {
  const out: ReadDocument[] = [];
  for (const f of files) {
    const r = await readDocument(f, method, OnDiskScan.copies);
    if (r.ok) out.push(r);
  }
  return out;
}

describe('scan on disk', () => {
  it.each(['simhash', 'minhash', 'nilsimsa'])('samples/ by %s: the same as in memory', async (name) => {
    const method = detectorNamed(name);
    const files = listed(join(ROOT, 'samples'));
    const memory = new MemoryScan(method, method.defaultThreshold, COPY_DETECTORS);
    for (const d of await readAll(files, name)) memory.add(d);
    const expected = await memory.result();
    const disk = await scanOnDisk(await readAll(files, name), { method });
    const got = await disk.result();
    disk.close();
    expect(JSON.stringify(scanJson(got), null, 2)).toBe(JSON.stringify(scanJson(expected), null, 2));
    console.log(name, expected.pairs.length, expected.clusters.length, expected.lists.map(([k, l]) => `${k} ${l.length}`));
  }, 60000);
});
