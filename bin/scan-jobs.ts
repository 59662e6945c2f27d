// Reads and fingerprints `scan`'s files on several threads. With one job the main thread does it;
// with N, the main thread and N − 1 worker threads (bin/scan-worker.ts) each take a file at a
// time: the main thread is one of the jobs, as it would otherwise wait idle on a core. Results
// are handed on in the files' order, whatever order the workers finish in, so the report is the
// same for any number of jobs. At most WINDOW_PER_JOB × jobs files are read ahead of the first
// one not yet handed on, which bounds the memory held for results waiting their turn.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { type Listed, type ReadResult, readDocument } from './scan-read';
import type { Task } from './scan-worker';

const WINDOW_PER_JOB = 32;
/** Files sent to a worker before its first answer: keeps it busy while the main thread catches up. */
const IN_FLIGHT_PER_WORKER = 8;

export type OnResult = (index: number, file: Listed, result: ReadResult) => void;

export interface ReadOptions {
  /** The copy detectors whose codes are taken (lib/scan/registry.ts). */
  copies?: readonly string[];
  /**
   * What the main thread reads: 'all' its share of the files all along; 'until-ready' only until
   * the first worker is ready (so that a small folder does not wait for threads); 'none' (tests,
   * to load the workers). By default 'all' for a folder of mostly text files, 'until-ready' for
   * HTML: the main thread holds every file's fingerprints, and parsing HTML beside that heap made
   * its garbage collections slow (at 9,400 HTML files the read took 159 s, against 104 s with two
   * workers).
   */
  mainThread?: 'all' | 'until-ready' | 'none';
}

/**
 * Reads `files` on `jobs` threads, calling onResult in the files' order; how many files each thread
 * read (the main thread's first). `files` may be a stream (a container's documents, read as they
 * are needed): at most the read-ahead window of it is pulled ahead of the first one not yet handed on.
 */
export async function readFiles(files: readonly Listed[] | AsyncIterable<Listed>, method: string, jobs: number, onResult: OnResult, { copies = [], mainThread }: ReadOptions = {}): Promise<number[]> {
  if (!Number.isInteger(jobs) || jobs < 1) throw new RangeError(`jobs must be a positive integer: got ${jobs}`);
  const known = isList(files) ? files : null;
  if (jobs === 1 || (known !== null && known.length < 2)) {
    let count = 0;
    for await (const file of files) onResult(count++, file, await readDocument(file, method, copies));
    return [count];
  }
  // a stream's kinds are not known ahead: the main thread pulls it, and the workers read
  mainThread ??= known !== null && mostlyText(known) ? 'all' : 'until-ready';
  const counts = [0];
  const workerCount = known === null ? (mainThread === 'all' ? jobs - 1 : jobs) : mainThread === 'all' ? Math.min(jobs - 1, known.length - 1) : Math.min(jobs, known.length);
  const workers: Worker[] = [];
  const source: AsyncIterator<Listed> | Iterator<Listed> = known !== null ? known[Symbol.iterator]() : (files as AsyncIterable<Listed>)[Symbol.asyncIterator]();
  try {
    await new Promise<void>((resolve, reject) => {
      const waiting = new Map<number, ReadResult>();
      /** Files pulled from the source and not yet handed on, by index; and those not yet given to a thread. */
      const pulled = new Map<number, Listed>();
      const queue: number[] = [];
      // a worker takes files once it has loaded its modules; the main thread reads from the start
      const inFlight = new Map<Worker, number>();
      const window = WINDOW_PER_JOB * (workerCount + 1);
      let wake: (() => void) | undefined;
      let pulledCount = 0;
      let exhausted = false;
      let pulling = false;
      let handed = 0;
      let failed = false;
      let finished = false;
      const wakeMain = (): void => {
        wake?.();
        wake = undefined;
      };
      const finishIfDone = (): void => {
        if (exhausted && handed === pulledCount && !finished) {
          finished = true;
          resolve();
        }
      };
      const handOn = (): void => {
        while (waiting.has(handed)) {
          const ready = waiting.get(handed)!;
          waiting.delete(handed);
          const file = pulled.get(handed)!;
          pulled.delete(handed);
          onResult(handed, file, ready);
          handed++;
        }
        finishIfDone();
        pull();
      };
      const dispatch = (): void => {
        for (const [worker, count] of inFlight) {
          let n = count;
          while (queue.length > 0 && n < IN_FLIGHT_PER_WORKER) {
            const index = queue.shift()!;
            const task: Task = { index, file: pulled.get(index)!, method, copies: [...copies] };
            worker.postMessage(task);
            n++;
          }
          inFlight.set(worker, n);
        }
      };
      const fail = (error: unknown): void => {
        failed = true;
        wakeMain();
        reject(error);
      };
      // pulls files from the source while the window has room, one pull at a time
      const pull = (): void => {
        if (pulling || exhausted || failed) return;
        pulling = true;
        void (async () => {
          while (!exhausted && !failed && pulledCount < handed + window) {
            const next = await source.next();
            if (next.done) exhausted = true;
            else {
              pulled.set(pulledCount, next.value);
              queue.push(pulledCount++);
            }
            dispatch();
            wakeMain();
          }
          pulling = false;
          finishIfDone();
        })().catch(fail);
      };
      // the main thread's share: one file at a time, yielding between files so that the workers'
      // messages are heard and answered with more files
      const readHere = async (): Promise<void> => {
        while (mainThread !== 'none' && !failed && !finished && (mainThread === 'all' || inFlight.size === 0)) {
          if (queue.length === 0) {
            if (exhausted) break;
            // the window is full of files the workers hold, or the source has none ready: wait
            await new Promise<void>((r) => (wake = r));
            continue;
          }
          const index = queue.shift()!;
          waiting.set(index, await readDocument(pulled.get(index)!, method, copies));
          counts[0]!++;
          handOn();
          await new Promise<void>((r) => setImmediate(r));
        }
      };
      const listen = (worker: Worker): void => {
        worker.on('message', (message: { ready: true } | { index: number; result: ReadResult }) => {
          try {
            if ('ready' in message) inFlight.set(worker, 0);
            else {
              inFlight.set(worker, inFlight.get(worker)! - 1);
              counts[workers.indexOf(worker) + 1]!++;
              waiting.set(message.index, message.result);
              handOn();
            }
            if (!finished) dispatch();
            wakeMain();
          } catch (error) {
            fail(error);
          }
        });
        worker.on('error', fail);
        worker.on('exit', (code) => {
          if (!finished) fail(new Error(`a worker thread stopped (exit code ${code}) before the scan was done`));
        });
      };
      // the workers start once their script is bundled; the main thread reads meanwhile
      workerScript()
        .then((script) => {
          for (let i = 0; i < workerCount && !failed && !finished; i++) {
            const worker = new Worker(script, { eval: true });
            workers.push(worker);
            counts.push(0);
            listen(worker);
          }
        })
        .catch(fail);
      pull();
      readHere().catch(fail);
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return counts;
}

function isList(files: readonly Listed[] | AsyncIterable<Listed>): files is readonly Listed[] {
  return Array.isArray(files);
}

/** Whether more than half of the files are text files (not HTML). */
function mostlyText(files: readonly Listed[]): boolean {
  let text = 0;
  for (const file of files) if (file.kind === 'text') text++;
  return text * 2 > files.length;
}

/**
 * The workers' script: bin/scan-worker.ts, bundled once per run by esbuild into one CommonJS
 * script (about a quarter of a second, in esbuild's own process): a worker would otherwise load
 * tsx and transpile every module itself, which takes it about two seconds of a core.
 */
let bundled: Promise<string> | undefined;

function workerScript(): Promise<string> {
  bundled ??= build({
    entryPoints: [fileURLToPath(new URL('./scan-worker.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'error',
  }).then((result) => result.outputFiles[0]!.text);
  return bundled;
}
