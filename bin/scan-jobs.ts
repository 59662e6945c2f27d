// Reads and fingerprints `scan`'s files on several threads. With one job the main thread does it;
// with more, that many worker threads (bin/scan-worker.ts) each take a file at a time. Results
// are handed on in the files' order, whatever order the workers finish in, so the report is the
// same for any number of jobs. At most WINDOW_PER_JOB × jobs files are read ahead of the first
// one not yet handed on, which bounds the memory held for results waiting their turn.
import { Worker } from 'node:worker_threads';
import { type Listed, type ReadResult, readDocument } from './scan-read';
import type { Task } from './scan-worker';

const WINDOW_PER_JOB = 32;
/** Files sent to a worker before its first answer: keeps it busy while the main thread catches up. */
const IN_FLIGHT_PER_WORKER = 2;

export type OnResult = (index: number, file: Listed, result: ReadResult) => void;

export async function readFiles(files: readonly Listed[], method: string, jobs: number, onResult: OnResult, copies: readonly string[] = []): Promise<void> {
  if (!Number.isInteger(jobs) || jobs < 1) throw new RangeError(`jobs must be a positive integer: got ${jobs}`);
  if (jobs === 1 || files.length < 2) {
    for (let i = 0; i < files.length; i++) onResult(i, files[i]!, await readDocument(files[i]!, method, copies));
    return;
  }
  const workers = Array.from({ length: Math.min(jobs, files.length) }, startWorker);
  try {
    await new Promise<void>((resolve, reject) => {
      const waiting = new Map<number, ReadResult>();
      const inFlight = new Map<Worker, number>(workers.map((w) => [w, 0]));
      const window = WINDOW_PER_JOB * workers.length;
      let next = 0;
      let handed = 0;
      const dispatch = (): void => {
        for (const worker of workers) {
          while (next < files.length && next < handed + window && inFlight.get(worker)! < IN_FLIGHT_PER_WORKER) {
            const task: Task = { index: next, file: files[next]!, method, copies: [...copies] };
            worker.postMessage(task);
            inFlight.set(worker, inFlight.get(worker)! + 1);
            next++;
          }
        }
      };
      for (const worker of workers) {
        worker.on('message', ({ index, result }: { index: number; result: ReadResult }) => {
          inFlight.set(worker, inFlight.get(worker)! - 1);
          waiting.set(index, result);
          try {
            while (waiting.has(handed)) {
              const ready = waiting.get(handed)!;
              waiting.delete(handed);
              onResult(handed, files[handed]!, ready);
              handed++;
            }
          } catch (error) {
            reject(error);
            return;
          }
          if (handed === files.length) resolve();
          else dispatch();
        });
        worker.on('error', reject);
        worker.on('exit', (code) => {
          if (handed < files.length) reject(new Error(`a worker thread stopped (exit code ${code}) before the scan was done`));
        });
      }
      dispatch();
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/**
 * A worker running bin/scan-worker.ts. `scan` runs under tsx, whose loader a worker does not
 * inherit (tsx 4.23, Node 20), so the worker registers it before importing its TypeScript entry.
 */
function startWorker(): Worker {
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./scan-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true });
}
