// The worker's side of the writer protocol (lib/protocol/writer-protocol.ts): the service worker is the
// only context that writes the database, and this is where the history page's jobs arrive. One
// queue runs the jobs one after another (an import, forgetting, clearing, organising the store,
// and the organising the worker does when it starts), so two multi-transaction jobs never
// interleave; a single visit's write is one transaction and goes on meanwhile.
import { type PageStore } from '../store/pages';
import { type OrganiseProgress, organise } from '../organise/regroup';
import { ImportError, ImportInterruptedError, importLines } from '../store/transfer';
import { InvalidMessage } from '../protocol/validation';
import { type JobRequest, type PortLike, type WriterEvent, type WriterRequest, IMPORT_WINDOW_LINES, parseWriterRequest } from '../protocol/writer-protocol';

export type { PortLike } from '../protocol/writer-protocol';

export interface WriterDeps {
  store(): Promise<PageStore>;
  /** The k of the current settings. */
  k(): Promise<number>;
  /** Forgets every page (the recorder's 'data/clear'); returns how many. */
  clear(): Promise<number>;
  /** Told after a job changed the pages (the worker refreshes the toolbar badges). */
  onPagesChanged?(): void;
  /** Runs a job; the worker keeps itself awake meanwhile. */
  whileWorking?<T>(work: () => Promise<T>): Promise<T>;
}

export interface Writer {
  /** Serves one port: its first request says the job; the port ends with `done` or `failed`. */
  serve(port: PortLike): void;
  /** Organises the store for the current k (what the worker does when it starts), in the queue. */
  organise(onProgress?: (progress: OrganiseProgress) => void): Promise<Awaited<ReturnType<typeof organise>>>;
  /** Resolves when every queued job has ended (tests). */
  idle(): Promise<void>;
}

/** An import's lines as they arrive over the port: an async iterable that importLines reads. */
class LineFeed implements AsyncIterable<string> {
  private lines: string[] = [];
  private ended = false;
  private error: unknown;
  private wake: (() => void) | undefined;
  /** The number the next line must have. */
  next = 1;

  /** Lines queued and not yet read. */
  get queued(): number {
    return this.lines.length;
  }

  push(first: number, lines: readonly string[]): void {
    if (this.ended) throw new InvalidMessage('lines arrived after import/end');
    if (first !== this.next) throw new InvalidMessage(`lines must arrive in order: expected line ${this.next}, got ${first}`);
    if (this.lines.length + lines.length > 2 * IMPORT_WINDOW_LINES) throw new InvalidMessage(`too many lines were sent before they were saved (at most ${2 * IMPORT_WINDOW_LINES} may wait)`);
    this.lines.push(...lines);
    this.next += lines.length;
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  fail(error: unknown): void {
    this.error ??= error;
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string, void, undefined> {
    for (;;) {
      if (this.error !== undefined) throw this.error;
      if (this.lines.length > 0) {
        const taken = this.lines;
        this.lines = [];
        for (const line of taken) yield line;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function createWriter(deps: WriterDeps): Writer {
  let tail: Promise<void> = Promise.resolve();
  let running = 0;
  const whileWorking = deps.whileWorking ?? (<T>(work: () => Promise<T>) => work());

  /** Runs `job` after every job queued before it; `onWait` is called first if it has to wait. */
  function enqueue<T>(job: () => Promise<T>, onWait?: () => void): Promise<T> {
    if (running > 0) onWait?.();
    running++;
    const run = tail.then(() => whileWorking(job));
    tail = run.then(
      () => void running--,
      () => void running--,
    );
    return run;
  }

  const organiseStore = async (onProgress?: (progress: OrganiseProgress) => void) => organise(await deps.store(), await deps.k(), { onProgress });

  function serve(port: PortLike): void {
    let closed = false;
    let job: Promise<unknown> | undefined;
    let feed: LineFeed | undefined;
    const post = (event: WriterEvent): void => {
      if (closed) return;
      try {
        port.postMessage(event);
      } catch {
        closed = true; // the page is gone
      }
    };
    const finish = (event: WriterEvent): void => {
      post(event);
      if (!closed) port.disconnect();
      closed = true;
    };
    const organiseProgress = (progress: OrganiseProgress): void => post({ type: 'organise/progress', ...progress });
    const changed = (): void => deps.onPagesChanged?.();

    async function importJob(now: number, lines: LineFeed): Promise<void> {
      const store = await deps.store();
      let rejectedSent = 0;
      let failure: WriterEvent | undefined;
      try {
        await importLines(store, lines, {
          now,
          onProgress: (linesRead, summary) => {
            const rejected = summary.rejected.slice(rejectedSent);
            rejectedSent = summary.rejected.length;
            post({ type: 'import/saved', through: linesRead, added: summary.added, merged: summary.merged, unchanged: summary.unchanged, rejected });
          },
        });
      } catch (error) {
        if (error instanceof ImportError) return finish({ type: 'failed', failure: 'refused', error: error.message, refusal: error.refusal });
        // an interrupted import sends what stopped it: the history page words the rest in the reader's language
        failure = error instanceof ImportInterruptedError ? { type: 'failed', failure: 'interrupted', error: errorText(error.cause) } : { type: 'failed', failure: 'failed', error: errorText(error) };
      }
      // imported pages arrive in no group, and many of them can outgrow the table design: bring
      // the store up to date, after an interrupted import too
      try {
        await organiseStore(organiseProgress);
      } catch (error) {
        failure ??= { type: 'failed', failure: 'grouping', error: errorText(error) };
      }
      changed();
      finish(failure ?? { type: 'done' });
    }

    async function simpleJob(request: JobRequest): Promise<void> {
      try {
        switch (request.type) {
          case 'pages/forget':
            finish({ type: 'done', forgotten: await (await deps.store()).forgetMany(request.urls) });
            break;
          case 'data/clear':
            finish({ type: 'done', forgotten: await deps.clear() });
            break;
          case 'store/organise':
            await organiseStore(organiseProgress);
            finish({ type: 'done' });
            break;
        }
        changed();
      } catch (error) {
        finish({ type: 'failed', failure: 'failed', error: errorText(error) });
      }
    }

    port.onDisconnect.addListener(() => {
      closed = true;
      feed?.fail(new Error('the history page closed before the import ended'));
    });

    port.onMessage.addListener((message) => {
      if (closed) return;
      let request: WriterRequest;
      try {
        request = parseWriterRequest(message);
        if (request.type === 'ping') return post({ type: 'pong' }); // no part of a job
        if (job === undefined) {
          if (request.type === 'import/lines' || request.type === 'import/end') throw new InvalidMessage(`${request.type} must follow import/start`);
        } else if (feed === undefined || (request.type !== 'import/lines' && request.type !== 'import/end')) {
          throw new InvalidMessage(`a port carries one job: ${request.type} arrived during another`);
        }
        if (request.type === 'import/lines') feed!.push(request.first, request.lines);
        else if (request.type === 'import/end') feed!.end();
      } catch (error) {
        feed?.fail(error);
        if (job === undefined) finish({ type: 'failed', failure: 'failed', error: `Doppel refused a message: ${errorText(error)}` });
        return;
      }
      if (job !== undefined) return;
      const onWait = () => post({ type: 'waiting' });
      // a job that throws past its own handling (the store failing to open) still ends its port
      const failed = (error: unknown) => finish({ type: 'failed', failure: 'failed', error: errorText(error) });
      if (request.type === 'import/start') {
        const lines = (feed = new LineFeed());
        job = enqueue(() => importJob(request.now, lines), onWait).catch(failed);
      } else if (request.type !== 'import/lines' && request.type !== 'import/end') {
        job = enqueue(() => simpleJob(request), onWait).catch(failed);
      }
    });
  }

  return {
    serve,
    organise: (onProgress) => enqueue(() => organiseStore(onProgress)),
    idle: async () => {
      while (running > 0) await tail;
    },
  };
}
