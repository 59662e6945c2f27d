// A `scan` worker thread (bin/scan-jobs.ts): reads, extracts and fingerprints the files it is sent,
// one message per file, and answers each with its index and result; its first message says it is ready.
import { parentPort } from 'node:worker_threads';
import { type Listed, readDocument } from './scan-read';

export interface Task {
  index: number;
  file: Listed;
  /** The detector's name (lib/scan/registry.ts). */
  method: string;
  /** The copy detectors whose codes are taken (lib/scan/registry.ts). */
  copies: string[];
}

parentPort!.on('message', async ({ index, file, method, copies }: Task) => {
  const result = await readDocument(file, method, copies);
  const transfer = result.ok && result.code ? [result.code.buffer as ArrayBuffer] : [];
  parentPort!.postMessage({ index, result }, transfer);
});
// the modules are loaded: the main thread may send files
parentPort!.postMessage({ ready: true });
