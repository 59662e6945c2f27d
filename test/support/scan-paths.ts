// A folder scanned on both of scan's paths, in memory (bin/scan-lists.ts MemoryScan) and on disk
// (bin/scan-db/), from the same documents read once: for the tests that hold the two to the same output.
import { COPY_DETECTORS, DETECTORS } from '../../lib/scan/registry';
import { MemoryScan, type ReadDocument, type ScanResult } from '../../bin/scan-lists';
import { listFiles } from '../../bin/scan-files';
import { readDocument } from '../../bin/scan-read';
import { OnDiskScan, scanOnDisk } from '../../bin/scan-db/scan-on-disk';

/** A document read as scan reads it, with the text it fingerprinted (null: none). */
type Read = { kind: 'html' | 'text'; read: ReadDocument; text: string | null };

const folders = new Map<string, Promise<Read[]>>();

/** The documents of a folder read once (by simhash, with every copy detector's code), kept for each method's comparison. */
export function readFolder(dir: string): Promise<Read[]> {
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
export async function bothPaths(dir: string, name: string): Promise<{ memory: ScanResult; disk: ScanResult }> {
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

