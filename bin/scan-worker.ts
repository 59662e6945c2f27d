// A `scan` worker thread (bin/scan-jobs.ts): reads, extracts and fingerprints the files it is sent,
// one message per file, and answers each with its index and result.
import { parentPort } from 'node:worker_threads';
import { type Listed, readDocument } from './scan-read';

export interface Task {
  index: number;
  file: Listed;
  /** The detector's name (lib/scan/registry.ts). */
  method: string;
  forReuse: boolean;
}

parentPort!.on('message', async ({ index, file, method, forReuse }: Task) => {
  const result = await readDocument(file, method, forReuse);
  const transfer = result.ok && result.code ? [result.code.buffer as ArrayBuffer] : [];
  parentPort!.postMessage({ index, result }, transfer);
});
