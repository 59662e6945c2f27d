// The history page's side of the writer protocol (lib/protocol/writer-protocol.ts): each job opens a port
// to the worker (the only context that writes the database), sends its request and follows the
// worker's events to the end. An import sends the file's lines in batches and never has more than
// IMPORT_WINDOW_LINES lines sent and not yet saved, so a file of a million lines is never in
// memory at once on either side. A port that closes before the job's end means the worker
// stopped: WriterStopped, with what the worker had reported saved. So does a port that stays open
// and silent: a worker stopped while the page waits can leave the page's end open for minutes
// (Chromium, seen in test/e2e/faults.e2e.ts), so a page that hears nothing asks (`ping`), and
// takes the worker for stopped if nothing answers.
import type { Refusal } from '../protocol/ndjson';
import { IMPORT_BATCH, type Rejection } from '../store/transfer';
import { InvalidMessage } from '../protocol/validation';
import type { PortLike } from '../protocol/writer-protocol';
import { type ImportCounts, type JobRequest, type OrganisePhase, type WriterEvent, type WriterFailure, type WriterRequest, IMPORT_WINDOW_LINES, WRITER_LIMITS, parseWriterEvent } from '../protocol/writer-protocol';

/** Lines per import/lines message: one batch of importLines (lib/store/transfer.ts IMPORT_BATCH). */
export const IMPORT_MESSAGE_LINES = IMPORT_BATCH;

/** What the worker reported committed: the lines through `through`, with these counts. */
export interface Saved extends ImportCounts {
  through: number;
  rejected: Rejection[];
}

export interface OrganiseStep {
  phase: OrganisePhase;
  done: number;
  total: number;
}

export interface JobCallbacks {
  /** The job waits for another job of the worker. */
  onWaiting?(): void;
  onOrganise?(step: OrganiseStep): void;
}

export interface ImportCallbacks extends JobCallbacks {
  /** After each batch the worker committed (the live object: copy what you keep). */
  onSaved?(saved: Readonly<Saved>): void;
  /** Every line is saved; the worker organises the store next. */
  onAllSaved?(saved: Readonly<Saved>): void;
}

/** The worker stopped before the job ended. `saved` is what an import had committed by then. */
export class WriterStopped extends Error {
  override name = 'WriterStopped';
  constructor(readonly saved: Saved | null) {
    super('Doppel’s background worker stopped before the job was finished.');
  }
}

/** The worker ended the job with `failed`. */
export class WriterFailed extends Error {
  override name = 'WriterFailed';
  constructor(
    readonly failure: WriterFailure,
    message: string,
    readonly saved: Saved | null,
    /** Why a file was refused (failure 'refused'), for the page to word. */
    readonly refusal: Refusal | null = null,
  ) {
    super(message);
  }
}

/**
 * When a waiting page asks whether the worker still serves its port, and how long it waits for an
 * answer. The worker answers between its steps, which yield every few tens of milliseconds (the
 * popup's p99 while a million pages are organised is about a second: docs/benchmarks.md), so 30 s
 * of silence after a ping is a stopped worker, not a busy one.
 */
export interface Silence {
  pingAfterMs: number;
  answerWithinMs: number;
}
export const WRITER_SILENCE: Silence = { pingAfterMs: 3_000, answerWithinMs: 30_000 };

/** A port's events, one at a time, in order; 'stopped' once it closed, or went silent, without a last event. */
class Events {
  private queue: WriterEvent[] = [];
  private stopped = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly port: PortLike,
    private readonly silence: Silence,
  ) {
    port.onMessage.addListener((message) => {
      try {
        const event = parseWriterEvent(message);
        if (event.type !== 'pong') this.queue.push(event); // a pong only says the worker is there
      } catch (error) {
        const text = error instanceof InvalidMessage ? error.message : String(error);
        this.queue.push({ type: 'failed', failure: 'failed', error: `Doppel’s worker sent a message the page cannot read: ${text}` });
        port.disconnect();
      }
      this.wake?.();
    });
    port.onDisconnect.addListener(() => {
      this.stopped = true;
      this.wake?.();
    });
  }

  /** The next event if one has arrived. */
  poll(): WriterEvent | 'stopped' | undefined {
    return this.queue.shift() ?? (this.stopped ? 'stopped' : undefined);
  }

  async next(): Promise<WriterEvent | 'stopped'> {
    let pinged = false;
    for (;;) {
      const event = this.poll();
      if (event !== undefined) return event;
      if (await this.heardWithin(pinged ? this.silence.answerWithinMs : this.silence.pingAfterMs)) {
        pinged = false;
        continue;
      }
      if (pinged) {
        this.stopped = true;
        return 'stopped';
      }
      pinged = true;
      try {
        this.port.postMessage({ type: 'ping' } satisfies WriterRequest);
      } catch {
        this.stopped = true; // posting to a port the worker closed throws before onDisconnect is heard
      }
    }
  }

  /** Whether a message, or the port's closing, arrives within `ms`. */
  private async heardWithin(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await new Promise<boolean>((resolve) => {
        this.wake = () => resolve(true);
        timer = setTimeout(() => resolve(false), ms);
      });
    } finally {
      clearTimeout(timer);
      this.wake = undefined;
    }
  }
}

/** Follows a job's events; returns its `done`, throws WriterFailed or WriterStopped. */
function follower(events: Events, callbacks: JobCallbacks & { onSaved?(event: Extract<WriterEvent, { type: 'import/saved' }>): void }, saved: () => Saved | null) {
  return (event: WriterEvent | 'stopped'): Extract<WriterEvent, { type: 'done' }> | undefined => {
    if (event === 'stopped') throw new WriterStopped(saved());
    switch (event.type) {
      case 'pong': // never queued (Events)
        return undefined;
      case 'waiting':
        callbacks.onWaiting?.();
        return undefined;
      case 'import/saved':
        callbacks.onSaved?.(event);
        return undefined;
      case 'organise/progress':
        callbacks.onOrganise?.({ phase: event.phase, done: event.done, total: event.total });
        return undefined;
      case 'failed':
        throw new WriterFailed(event.failure, event.error, saved(), event.refusal ?? null);
      case 'done':
        return event;
    }
  };
}

/** Runs a job other than an import: forgetting, clearing, excluding a site, organising. */
export async function runJob(port: PortLike, request: JobRequest, callbacks: JobCallbacks = {}, silence = WRITER_SILENCE): Promise<{ forgotten?: number }> {
  const events = new Events(port, silence);
  const follow = follower(events, callbacks, () => null);
  try {
    port.postMessage(request);
    for (;;) {
      const done = follow(await events.next());
      if (done) return done.forgotten === undefined ? {} : { forgotten: done.forgotten };
    }
  } finally {
    port.disconnect(); // the worker's job ends too if the page gave up first
  }
}

/**
 * Imports a file's lines (as from splitLines: the n-th string is line n) through the worker, then
 * lets it organise the store. Returns what was saved; throws WriterFailed (refused: nothing was
 * imported; interrupted: `saved` is kept) or WriterStopped.
 */
export async function importThrough(port: PortLike, lines: AsyncIterable<string> | Iterable<string>, now: number, callbacks: ImportCallbacks = {}, silence = WRITER_SILENCE): Promise<Saved> {
  const events = new Events(port, silence);
  const saved: Saved = { through: 0, added: 0, merged: 0, unchanged: 0, rejected: [] };
  const follow = follower(events, {
    ...callbacks,
    onSaved: (event) => {
      Object.assign(saved, { through: event.through, added: event.added, merged: event.merged, unchanged: event.unchanged });
      saved.rejected.push(...event.rejected);
      callbacks.onSaved?.(saved);
      allSaved();
    },
  }, () => saved);
  let sent = 0;
  let ended = false;
  let told = false;
  const allSaved = (): void => {
    if (!ended || told || saved.through < sent) return;
    told = true;
    callbacks.onAllSaved?.(saved);
  };
  // posting to a port the worker closed throws before onDisconnect is heard
  const post = (request: WriterRequest): void => {
    try {
      port.postMessage(request);
    } catch {
      throw new WriterStopped(saved);
    }
  };
  let batch: string[] = [];
  let chars = 0;

  const send = async (): Promise<void> => {
    // take what has arrived (a refusal stops the sending at once), then wait for room in the window
    for (let event = events.poll(); event !== undefined; event = events.poll()) follow(event);
    while (sent - saved.through >= IMPORT_WINDOW_LINES) follow(await events.next());
    post({ type: 'import/lines', first: sent + 1, lines: batch });
    sent += batch.length;
    batch = [];
    chars = 0;
  };

  try {
    post({ type: 'import/start', now });
    for await (const whole of lines) {
      // a line too long for a message is sent cut: the worker rejects it as not a page
      const line = whole.length > WRITER_LIMITS.lineChars ? whole.slice(0, WRITER_LIMITS.lineChars) : whole;
      if (batch.length > 0 && chars + line.length > WRITER_LIMITS.messageChars) await send();
      batch.push(line);
      chars += line.length;
      if (batch.length >= IMPORT_MESSAGE_LINES) await send();
    }
    if (batch.length > 0) await send();
    post({ type: 'import/end' });
    ended = true;
    allSaved();
    for (;;) if (follow(await events.next())) return saved;
  } finally {
    // A file that fails to read, or a callback that throws, must not leave the worker waiting for
    // lines: its import ends as interrupted once the port closes.
    port.disconnect();
  }
}
