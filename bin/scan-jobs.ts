// Reads and fingerprints `scan`'s files on several threads. With one job the main thread does it;
// with more, that many worker threads (bin/scan-worker.ts) each take a file at a time, and the
// main thread reads files itself until the first worker is ready. Results
// are handed on in the files' order, whatever order the workers finish in, so the report is the
// same for any number of jobs. At most WINDOW_PER_JOB × jobs files are read ahead of the first
// one not yet handed on, which bounds the memory held for results waiting their turn.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import { type Listed, type ReadResult, readDocument } from './scan-read';
import type { Task } from './scan-worker';

const WINDOW_PER_JOB = 32;
/** Files sent to a worker before its first answer: keeps it busy while the main thread catches up. */
const IN_FLIGHT_PER_WORKER = 8;

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
      // a worker takes files once it has loaded its modules (about a second under tsx); until
      // then the main thread reads them itself, so that a small folder never waits for threads
      const inFlight = new Map<Worker, number>();
      const window = WINDOW_PER_JOB * workers.length;
      let next = 0;
      let handed = 0;
      let failed = false;
      const handOn = (): void => {
        while (waiting.has(handed)) {
          const ready = waiting.get(handed)!;
          waiting.delete(handed);
          onResult(handed, files[handed]!, ready);
          handed++;
        }
        if (handed === files.length) resolve();
      };
      const dispatch = (): void => {
        for (const [worker, count] of inFlight) {
          let n = count;
          while (next < files.length && next < handed + window && n < IN_FLIGHT_PER_WORKER) {
            const task: Task = { index: next, file: files[next]!, method, copies: [...copies] };
            worker.postMessage(task);
            next++;
            n++;
          }
          inFlight.set(worker, n);
        }
      };
      const fail = (error: unknown): void => {
        failed = true;
        reject(error);
      };
      // the main thread's share: one file at a time while no worker is ready, yielding between
      // files so that a worker's first message is heard
      const readHere = async (): Promise<void> => {
        while (!failed && inFlight.size === 0 && next < files.length) {
          const index = next++;
          waiting.set(index, await readDocument(files[index]!, method, copies));
          handOn();
          await new Promise<void>((r) => setImmediate(r));
        }
      };
      for (const worker of workers) {
        worker.on('message', (message: { ready: true } | { index: number; result: ReadResult }) => {
          try {
            if ('ready' in message) inFlight.set(worker, 0);
            else {
              inFlight.set(worker, inFlight.get(worker)! - 1);
              waiting.set(message.index, message.result);
              handOn();
            }
            if (handed < files.length) dispatch();
          } catch (error) {
            fail(error);
          }
        });
        worker.on('error', fail);
        worker.on('exit', (code) => {
          if (handed < files.length) fail(new Error(`a worker thread stopped (exit code ${code}) before the scan was done`));
        });
      }
      readHere().catch(fail);
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/**
 * A worker running bin/scan-worker.ts, bundled once per run by esbuild into one CommonJS script
 * (about 0.1 s): a worker would otherwise load tsx and transpile every module itself, which takes
 * it about two seconds of a core, while the main thread waits for it or competes with it.
 */
function startWorker(): Worker {
  return new Worker(workerScript(), { eval: true });
}

let bundled: string | undefined;

function workerScript(): string {
  bundled ??= buildSync({
    entryPoints: [fileURLToPath(new URL('./scan-worker.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'error',
  }).outputFiles[0]!.text;
  return bundled;
}
