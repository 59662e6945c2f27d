// lib/background/writer.ts and lib/ui/writer-client.ts: the history page's jobs run in the worker, over a port.
// Both ends are the real code; the port between them is a fake that delivers each message as a
// structured clone, later, as runtime.Port does, and can be cut (a worker stopped mid-way).
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { fingerprintToHex } from '../lib/fingerprint/bits';
import { randomFingerprints } from '../lib/fingerprint/bits';
import { PageStore } from '../lib/store/pages';
import { type PortLike, createWriter } from '../lib/background/writer';
import { IMPORT_MESSAGE_LINES, type Saved, WriterFailed, WriterStopped, importThrough, runJob } from '../lib/ui/writer-client';
import { IMPORT_WINDOW_LINES, type WriterEvent } from '../lib/protocol/writer-protocol';
import { freshStore } from './support/fresh-store';


interface End extends PortLike {
  listeners: ((message: unknown) => void)[];
  gone: (() => void)[];
  open: boolean;
}

/** Two ends of a port. `cut()` closes it as a stopped worker does: the page hears onDisconnect. */
function portPair(onWorkerMessage?: (message: unknown) => void) {
  const make = (): End => {
    const e = { listeners: [] as ((message: unknown) => void)[], gone: [] as (() => void)[], open: true } as End;
    e.onMessage = { addListener: (listener) => void e.listeners.push(listener) };
    e.onDisconnect = { addListener: (listener) => void e.gone.push(listener) };
    return e;
  };
  const page = make();
  const worker = make();
  let frozen = false;
  const link = (from: End, to: End, spy?: (message: unknown) => void) => {
    from.postMessage = (message) => {
      if (!from.open) throw new Error('Attempting to use a disconnected port object');
      const copy = structuredClone(message);
      setTimeout(() => {
        if (!to.open || (from === worker && frozen)) return;
        spy?.(copy);
        for (const listener of to.listeners) listener(copy);
      }, 0);
    };
    from.disconnect = () => {
      if (!from.open) return;
      from.open = false;
      setTimeout(() => {
        if (!to.open) return;
        to.open = false;
        for (const listener of to.gone) listener();
      }, 0);
    };
  };
  link(page, worker, onWorkerMessage);
  link(worker, page);
  /** The worker is stopped: its code runs no more, the page hears onDisconnect and nothing else. */
  const stopWorker = (): void => {
    worker.open = false;
    worker.listeners.length = 0;
    setTimeout(() => {
      if (!page.open) return;
      page.open = false;
      for (const listener of page.gone) listener();
    }, 0);
  };
  /**
   * The worker is stopped, and the page's end stays open (as Chromium can leave it for minutes):
   * the page hears nothing, not even what the worker posted just before and the page had yet to
   * hear (delivered late on a busy machine, it made the page ping twice), and what it posts is lost.
   */
  const freezeWorker = (): void => {
    frozen = true;
    worker.listeners.length = 0;
    worker.postMessage = () => {};
    worker.disconnect = () => {};
  };
  return { page, worker, stopWorker, freezeWorker };
}

/** Pings after 40 ms of silence, and a stopped worker after 200 ms more. */
const QUICK_SILENCE = { pingAfterMs: 40, answerWithinMs: 200 };

const NOW = Date.UTC(2025, 0, 15, 9, 30);
const HEADER = '{"format":"doppel","version":1,"exported":"2025-01-01T00:00:00.000Z","pages":0,"k":3}';

/** An export of `count` pages (header first), every 10th page line malformed, a blank line every 7. */
function exportFile(count: number): string[] {
  const simhashes = randomFingerprints(0x5eedn, count);
  const lines = [HEADER];
  for (let i = 0; i < count; i++) {
    if (i % 7 === 3) lines.push('');
    lines.push(i % 10 === 9 ? `{"url": "https://bad.example/${i}"` : JSON.stringify({ url: `https://site${i % 13}.example/a/${i}`, title: `Article ${i}`, simhash: fingerprintToHex(simhashes[i]!), visits: 1 + (i % 3) }));
  }
  return lines;
}
const pagesIn = (count: number): number => count - Math.floor(count / 10);

function writerOver(store: PageStore, k = 3) {
  let pagesChanged = 0;
  const writer = createWriter({
    store: async () => store,
    k: async () => k,
    clear: async () => store.clear(),
    onPagesChanged: () => void pagesChanged++,
  });
  return { writer, changed: () => pagesChanged };
}

describe('an import through the worker', () => {
  it('saves every page, reports each batch saved, then organises the store; importing again adds nothing', async () => {
    const store = await freshStore();
    const { writer, changed } = writerOver(store);
    const lines = exportFile(9_000);
    const { page, worker } = portPair();
    writer.serve(worker);
    const saves: Saved[] = [];
    const phases = new Set<string>();
    let allSaved: Saved | undefined;
    const saved = await importThrough(page, lines, NOW, {
      onSaved: (s) => saves.push({ ...s, rejected: [...s.rejected] }),
      onAllSaved: (s) => (allSaved = { ...s }),
      onOrganise: (step) => phases.add(step.phase),
    });
    expect(saved).toMatchObject({ through: lines.length, added: pagesIn(9_000), merged: 0, unchanged: 0 });
    expect(saved.rejected).toHaveLength(900);
    expect(saved.rejected[0]).toEqual({ line: lines.indexOf('{"url": "https://bad.example/9"') + 1, problems: [{ code: 'not-json' }] });
    expect(saves.map((s) => s.through)).toEqual([4000, 8000, lines.length]);
    expect(allSaved?.through).toBe(lines.length);
    expect(await store.count()).toBe(pagesIn(9_000));
    expect(phases.has('reading')).toBe(true);
    expect(await store.groupsState()).toEqual({ k: 3, complete: true });
    expect(changed()).toBe(1);

    const again = portPair();
    writer.serve(again.worker);
    expect(await importThrough(again.page, lines, NOW + 1000)).toMatchObject({ added: 0, merged: 0, unchanged: pagesIn(9_000) });
    expect(await store.count()).toBe(pagesIn(9_000));
  });

  it('never has more than the window of lines sent and not yet saved', async () => {
    const store = await freshStore();
    const { writer } = writerOver(store);
    const lines = exportFile(20_000);
    let received = 0;
    let savedThrough = 0;
    let most = 0;
    const { page, worker } = portPair((message) => {
      const m = message as { type: string; lines?: string[] };
      if (m.type === 'import/lines') received += m.lines!.length;
      most = Math.max(most, received - savedThrough);
    });
    writer.serve(worker);
    let read = 0;
    let mostRead = 0;
    async function* reading() {
      for (const line of lines) {
        read++;
        mostRead = Math.max(mostRead, read - savedThrough);
        yield line;
      }
    }
    await importThrough(page, reading(), NOW, { onSaved: (s) => (savedThrough = s.through) });
    expect(received).toBe(lines.length);
    expect(most).toBeLessThanOrEqual(IMPORT_WINDOW_LINES + IMPORT_MESSAGE_LINES);
    expect(mostRead).toBeLessThanOrEqual(IMPORT_WINDOW_LINES + IMPORT_MESSAGE_LINES);
  });

  it('a file that is not an export is refused and nothing is imported', async () => {
    const store = await freshStore();
    const { writer } = writerOver(store);
    const { page, worker } = portPair();
    writer.serve(worker);
    const lines = ['{"not":"doppel"}', ...exportFile(5_000).slice(1)];
    const error = await importThrough(page, lines, NOW).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriterFailed);
    expect((error as WriterFailed).failure).toBe('refused');
    expect((error as WriterFailed).message).toMatch(/^Cannot import line 1: .*Nothing was imported\.$/);
    expect((error as WriterFailed).refusal).toEqual({ code: 'not-export' });
    expect(await store.count()).toBe(0);
  });

  it('a worker stopped mid-import: WriterStopped with what was saved, which is all stored; importing again completes it', async () => {
    const store = await freshStore();
    const { writer } = writerOver(store);
    const lines = exportFile(12_000);
    const { page, worker, stopWorker } = portPair();
    writer.serve(worker);
    let stopped = false;
    const error = await importThrough(page, lines, NOW, {
      onSaved: (s) => {
        if (s.through >= 4000 && !stopped) {
          stopped = true;
          stopWorker();
        }
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriterStopped);
    const saved = (error as WriterStopped).saved!;
    expect(saved.through).toBe(4000);
    expect(error).toHaveProperty('message', 'Doppel’s background worker stopped before the job was finished.');
    // here the stopped worker's code goes on (a real one would not): its batch in flight may still commit
    let stored = await store.count();
    for (let before = -1; stored !== before; ) {
      before = stored;
      await new Promise((resolve) => setTimeout(resolve, 300));
      stored = await store.count();
    }
    expect(stored).toBeGreaterThanOrEqual(saved.added);

    // the browser starts the worker again: a new writer over the same database
    const restarted = writerOver(store).writer;
    const again = portPair();
    restarted.serve(again.worker);
    const second = await importThrough(again.page, lines, NOW);
    expect(second.added + second.unchanged).toBe(pagesIn(12_000));
    expect(second.unchanged).toBe(stored);
    expect(await store.count()).toBe(pagesIn(12_000));
  });

  it('a worker stopped while the page waits, its port left open: the page asks, hears nothing, and WriterStopped comes with what was saved', async () => {
    const store = await freshStore();
    const { writer } = writerOver(store);
    const lines = exportFile(12_000);
    const pings: number[] = [];
    const { page, worker, freezeWorker } = portPair();
    // pings counted as the page posts them: one posted just before the freeze may arrive after it
    const post = page.postMessage;
    page.postMessage = (message) => {
      if ((message as { type: string }).type === 'ping') pings.push(performance.now());
      post(message);
    };
    writer.serve(worker);
    let frozenAt = 0;
    const error = await importThrough(page, lines, NOW, {
      onSaved: (s) => {
        if (s.through >= 4000 && frozenAt === 0) {
          frozenAt = performance.now();
          freezeWorker();
        }
      },
    }, QUICK_SILENCE).catch((e: unknown) => e);
    const heardAfter = performance.now() - frozenAt;
    expect(error).toBeInstanceOf(WriterStopped);
    expect((error as WriterStopped).saved!.through).toBe(4000);
    // one ping posted after the worker stopped, unanswered: it was stopped
    expect(pings.filter((t) => t > frozenAt)).toHaveLength(1);
    expect(heardAfter).toBeGreaterThanOrEqual(QUICK_SILENCE.pingAfterMs + QUICK_SILENCE.answerWithinMs - 5);
    expect(heardAfter).toBeLessThan(5_000); // not the minutes of an open port
    expect(page.open).toBe(false); // the page let its end go
  });

  it('a file that fails to read part way closes the port: the worker ends the import as interrupted, and the next job runs', async () => {
    const store = await freshStore();
    const { writer } = writerOver(store);
    const lines = exportFile(5_000);
    async function* breaking(): AsyncGenerator<string> {
      for (let i = 0; i < 2_500; i++) yield lines[i]!;
      throw new Error('the file could not be read');
    }
    const { page, worker } = portPair();
    writer.serve(worker);
    await expect(importThrough(page, breaking(), NOW)).rejects.toThrow('the file could not be read');
    expect(page.open).toBe(false);
    await writer.idle(); // the import job ended: it did not wait for lines that never come
    const next = portPair();
    writer.serve(next.worker);
    expect(await runJob(next.page, { type: 'pages/forget', urls: ['https://nowhere.example/'] })).toEqual({ forgotten: 0 });
  });

  it('a store that fails to open ends the job with failed, and the port', async () => {
    const writer = createWriter({ store: () => Promise.reject(new Error('the database is blocked')), k: async () => 3, clear: async () => 0 });
    const { page, worker } = portPair();
    writer.serve(worker);
    const error = await importThrough(page, exportFile(10), NOW).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriterFailed);
    expect((error as WriterFailed).message).toBe('the database is blocked');
    expect(worker.open).toBe(false);
    await writer.idle();
  });

  it('grouping that fails after every line is saved: failed with `grouping`, every page kept', async () => {
    const store = await freshStore();
    // organising reads the settings' k first: unreadable settings fail it, after the lines are saved
    const writer = createWriter({ store: async () => store, k: () => Promise.reject(new Error('the settings cannot be read')), clear: async () => 0 });
    const lines = exportFile(3_000);
    const { page, worker } = portPair();
    writer.serve(worker);
    const error = await importThrough(page, lines, NOW).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriterFailed);
    expect((error as WriterFailed).failure).toBe('grouping');
    expect((error as WriterFailed).message).toBe('the settings cannot be read');
    expect((error as WriterFailed).saved).toMatchObject({ through: lines.length, added: pagesIn(3_000) });
    expect(await store.count()).toBe(pagesIn(3_000));
  });

  it('lines out of order, or lines before a start, are refused', async () => {
    const store = await freshStore();
    const { writer } = writerOver(store);
    const events: unknown[] = [];
    const { page, worker } = portPair();
    page.onMessage.addListener((message) => events.push(message));
    writer.serve(worker);
    page.postMessage({ type: 'import/lines', first: 1, lines: [HEADER] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual([{ type: 'failed', failure: 'failed', error: 'Doppel refused a message: import/lines must follow import/start' }]);

    const second = portPair();
    const got: WriterEvent[] = [];
    second.page.onMessage.addListener((message) => got.push(message as WriterEvent));
    writer.serve(second.worker);
    second.page.postMessage({ type: 'import/start', now: NOW });
    second.page.postMessage({ type: 'import/lines', first: 1, lines: [HEADER] });
    second.page.postMessage({ type: 'import/lines', first: 5, lines: [] });
    await writer.idle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(got.at(-1)).toEqual({ type: 'failed', failure: 'interrupted', error: expect.stringContaining('lines must arrive in order: expected line 2, got 5') });
  });
});

describe('other jobs through the worker', () => {
  async function imported(count: number) {
    const store = await freshStore();
    const { writer, changed } = writerOver(store);
    const { page, worker } = portPair();
    writer.serve(worker);
    await importThrough(page, exportFile(count), NOW);
    return { store, writer, changed };
  }
  const job = async (writer: ReturnType<typeof createWriter>, request: Parameters<typeof runJob>[1], callbacks = {}) => {
    const { page, worker } = portPair();
    writer.serve(worker);
    return runJob(page, request, callbacks);
  };

  it('forgets pages, then everything', async () => {
    const { store, writer, changed } = await imported(100);
    expect(await job(writer, { type: 'pages/forget', urls: ['https://site0.example/a/0', 'https://site1.example/a/1', 'https://nowhere.example/'] })).toEqual({ forgotten: 2 });
    expect(await store.get('https://site0.example/a/0')).toBeUndefined();
    expect(await job(writer, { type: 'data/clear' })).toEqual({ forgotten: pagesIn(100) - 2 });
    expect(await store.count()).toBe(0);
    expect(changed()).toBe(3);
  });

  it('organises for the current k, with progress', async () => {
    const { store } = await imported(300);
    expect(await store.groupsState()).toEqual({ k: 3, complete: true });
    const other = writerOver(store, 5).writer; // the settings' k is now 5
    const phases: string[] = [];
    expect(await job(other, { type: 'store/organise' }, { onOrganise: (s: { phase: string }) => phases.push(s.phase) })).toEqual({});
    expect(phases).toContain('reading');
    expect(await store.groupsState()).toEqual({ k: 5, complete: true });
  });

  it('runs one job at a time: a job queued behind another hears `waiting`, and starts after it ends', async () => {
    const store = await freshStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    // organising asks for k first: holding k back holds the organising in the queue
    const writer = createWriter({ store: async () => store, k: async () => (await gate, 3), clear: async () => 0 });
    const organising = writer.organise().then(() => void order.push('organise'));
    let waited = false;
    const forgetting = job(writer, { type: 'pages/forget', urls: ['https://a.example/'] }, { onWaiting: () => (waited = true) }).then((r) => {
      order.push('forget');
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(waited).toBe(true);
    expect(order).toEqual([]);
    release();
    expect(await forgetting).toEqual({ forgotten: 0 });
    await organising;
    expect(order).toEqual(['organise', 'forget']);
  });

  it('a job silent for longer than the page waits: the worker answers each ping, and the job ends as ever', async () => {
    const store = await freshStore();
    const writer = createWriter({ store: async () => store, k: async () => 3, clear: () => new Promise<number>((resolve) => setTimeout(() => resolve(7), 1_000)) });
    const asked: string[] = [];
    const { page, worker } = portPair((message) => void asked.push((message as { type: string }).type));
    writer.serve(worker);
    expect(await runJob(page, { type: 'data/clear' }, {}, QUICK_SILENCE)).toEqual({ forgotten: 7 });
    // pinged after each 40 ms of silence in the second, each answered: far more than one ping, no stop
    expect(asked[0]).toBe('data/clear');
    expect(asked.filter((type) => type === 'ping').length).toBeGreaterThanOrEqual(5);
    expect(asked.slice(1).every((type) => type === 'ping')).toBe(true);
  });

  it('a ping before any job is answered, and starts none', async () => {
    const store = await freshStore();
    const started: string[] = [];
    const writer = createWriter({ store: async () => store, k: async () => 3, clear: async () => (started.push('clear'), 0) });
    const { page, worker } = portPair();
    writer.serve(worker);
    const heard: unknown[] = [];
    page.onMessage.addListener((message) => void heard.push(message));
    page.postMessage({ type: 'ping' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).toEqual([{ type: 'pong' }]);
    expect(await runJob(page, { type: 'data/clear' })).toEqual({ forgotten: 0 }); // the port's job is still to come
    expect(started).toEqual(['clear']);
  });

  it('a worker stopped mid-job: WriterStopped, nothing saved to report', async () => {
    const store = await freshStore();
    const writer = createWriter({ store: async () => store, k: async () => 3, clear: () => new Promise<number>(() => {}) });
    const { page, worker } = portPair();
    writer.serve(worker);
    const result = runJob(page, { type: 'data/clear' });
    setTimeout(() => worker.disconnect(), 10);
    const error = await result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriterStopped);
    expect((error as WriterStopped).saved).toBeNull();
  });

  it('an event the page cannot read ends the job with a clear error', async () => {
    const { page, worker } = portPair();
    worker.onMessage.addListener(() => worker.postMessage({ type: 'done', forgotten: -1 }));
    const error = await runJob(page, { type: 'data/clear' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriterFailed);
    expect((error as WriterFailed).message).toBe('Doppel’s worker sent a message the page cannot read: forgotten must be a whole number, 0 or more');
  });
});
