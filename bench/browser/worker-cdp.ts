// CDP on the service worker's target, for bench:browser. Playwright opens CDP sessions on pages
// only, so this attaches to the worker from a page session (Target.attachToTarget without flatten)
// and talks to it through Target.sendMessageToTarget. On it: the worker's V8 CPU profile over a
// piece of work (--cpu-profile, --import-cpu-profile), with its IndexedDB requests counted.
import { writeFileSync } from 'node:fs';
import type { BrowserContext } from 'playwright-core';
import type { ExtensionSession } from '../../test/e2e/harness';
import { int, log } from './output';

export interface RawSession {
  send(method: string, params?: object): Promise<any>;
  on(event: string, listener: (payload: any) => void): void;
  off(event: string, listener: (payload: any) => void): void;
  detach(): Promise<void>;
}

export async function withWorkerTarget<T>(ctx: BrowserContext, extensionId: string, fn: (send: (method: string, params?: object) => Promise<any>) => Promise<T>): Promise<T> {
  const page = ctx.pages().find((p) => !p.isClosed()) ?? (await ctx.newPage());
  const session = (await ctx.newCDPSession(page)) as unknown as RawSession;
  try {
    const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: { targetId: string; type: string; url: string }[] };
    const target = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extensionId}/`));
    if (!target) throw new Error('the service worker is not running');
    const { sessionId } = (await session.send('Target.attachToTarget', { targetId: target.targetId, flatten: false })) as { sessionId: string };
    let nextId = 1;
    const pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
    const listener = (event: { sessionId: string; message: string }): void => {
      if (event.sessionId !== sessionId) return;
      const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: { message: string } };
      const waiting = message.id === undefined ? undefined : pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id!);
      if (message.error) waiting.fail(new Error(message.error.message));
      else waiting.ok(message.result);
    };
    session.on('Target.receivedMessageFromTarget', listener);
    const send = (method: string, params: object = {}): Promise<any> =>
      new Promise((ok, fail) => {
        const id = nextId++;
        pending.set(id, { ok, fail });
        session.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(fail);
      });
    try {
      return await fn(send);
    } finally {
      session.off('Target.receivedMessageFromTarget', listener);
      await session.send('Target.detachFromTarget', { sessionId }).catch(() => {});
    }
  } finally {
    await session.detach().catch(() => {});
  }
}

/** Runs `work` with the worker's V8 profiler on, until it ends or calls `stopProfile`; writes the profile to `file` and logs the top functions by self time and the IndexedDB reads, naming them as over `what`. */
export async function profiledInWorker<T>(ext: ExtensionSession, file: string, what: string, work: (stopProfile: () => Promise<void>) => Promise<T>): Promise<T> {
  const worker = await ext.getWorker();
  // the IndexedDB reads by object store, counted by wrapping the prototypes' methods for the run
  await worker.evaluate(() => {
    const counts: Record<string, number> = {};
    (globalThis as unknown as { __idbReads: Record<string, number> }).__idbReads = counts;
    for (const method of ['get', 'getAll', 'getAllKeys', 'openCursor', 'count'] as const) {
      const original = IDBObjectStore.prototype[method] as (...args: unknown[]) => IDBRequest;
      (IDBObjectStore.prototype as unknown as Record<string, unknown>)[method] = function (this: IDBObjectStore, ...args: unknown[]) {
        counts[`${this.name}.${method}`] = (counts[`${this.name}.${method}`] ?? 0) + 1;
        return original.apply(this, args);
      };
    }
  });
  const result = await withWorkerTarget(ext.ctx, ext.extensionId, async (send) => {
    await send('Profiler.enable');
    await send('Profiler.setSamplingInterval', { interval: 100 });
    await send('Profiler.start');
    let stopped: Promise<void> | undefined;
    // `work` may stop the profile early (the import: once every line is saved, before organising)
    const stopProfile = (): Promise<void> =>
      (stopped ??= (async () => {
        const { profile } = (await send('Profiler.stop')) as { profile: CpuProfile };
        writeFileSync(file, JSON.stringify(profile));
        const self = new Map<string, number>();
        const byId = new Map(profile.nodes.map((n) => [n.id, n]));
        profile.samples.forEach((id, i) => {
          const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
          const name = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
          self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
        });
        const total = [...self.values()].reduce((a, b) => a + b, 0);
        log(`  worker CPU profile over ${what} (${file}): ${(total / 1000).toFixed(0)} ms sampled; by self time:`);
        for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) log(`    ${(us / 1000).toFixed(1).padStart(8)} ms  ${name}`);
        const reads = await worker.evaluate(() => (globalThis as unknown as { __idbReads: Record<string, number> }).__idbReads);
        log(`  IndexedDB requests in the worker over ${what}, by object store: ${Object.entries(reads).sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${int(n)}`).join(', ')}`);
      })());
    const result = await work(stopProfile);
    await stopProfile();
    return result;
  });
  return result;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}
