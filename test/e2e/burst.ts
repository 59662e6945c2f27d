// A burst of tabs, for burst.e2e.ts and bench:browser: article tabs opened at once, the worker
// stopped over CDP once the first are stored if asked (as a crash or an update stops it, while it
// reads and stores the others), and when each page was first seen stored. The pages are
// read from the blocks store in an extension page, never through the worker, so that watching
// adds no work to it.
import type { Page } from 'playwright-core';
import { canonicalUrl } from '../../lib/url';
import { readStoredPages } from './blocks';
import { type ExtensionSession, sleep, workerStopper } from './harness';

export interface BurstOptions {
  /**
   * Stop the worker over CDP as soon as this many pages are seen stored; never if absent. On a quiet
   * machine the thirty tabs load in under 2 s and are all stored within a second of it (8–16 s on a
   * busy one), so only a stop that follows a stored page is sure to find the worker at work on the
   * others, whatever the machine.
   */
  stopAfterStored?: number;
  /** Stop watching this many ms after the tabs begin to load. */
  timeoutMs: number;
  /** How often the stored pages are read, in ms. */
  pollMs?: number;
}

/** Times in ms after the tabs began to load. */
export interface Burst {
  /** When each page was first seen stored, by canonical URL; a page not seen is absent. */
  storedAt: Map<string, number>;
  /** When every tab had fired its load event. */
  loadedAt: number;
  /** When the worker was seen stopped; null without a stop. */
  stoppedAt: number | null;
  /** The tabs, for the caller to close. */
  tabs: Page[];
}

/**
 * Opens a tab for each of `urls` at once and watches the store from `watcher` (an extension page,
 * which the stop's CDP session also talks through) until every page is stored or the time is up.
 */
export async function burstOfTabs(ext: ExtensionSession, watcher: Page, urls: readonly string[], { stopAfterStored, timeoutMs, pollMs = 100 }: BurstOptions): Promise<Burst> {
  const tabs = await Promise.all(urls.map(() => ext.ctx.newPage()));
  const stopper = stopAfterStored === undefined ? null : await workerStopper(ext, watcher);
  const start = Date.now();
  const loaded = Promise.all(tabs.map((tab, i) => tab.goto(urls[i]!, { waitUntil: 'load', timeout: timeoutMs }).catch(() => {}))).then(() => Date.now() - start);
  const stopNow = (): Promise<number> => stopper!.stop(20_000).then((at) => at - start).finally(() => stopper!.close());
  let stopped: Promise<number> | null = null;
  const wanted = new Set(urls.map(canonicalUrl));
  const storedAt = new Map<string, number>();
  while (storedAt.size < wanted.size && Date.now() - start < timeoutMs) {
    const pages = await readStoredPages(watcher);
    const at = Date.now() - start;
    for (const { url } of pages) if (wanted.has(url) && !storedAt.has(url)) storedAt.set(url, at);
    if (stopped === null && stopAfterStored !== undefined && storedAt.size >= stopAfterStored) stopped = stopNow();
    await sleep(pollMs);
  }
  return { storedAt, loadedAt: await loaded, stoppedAt: stopped === null ? null : await stopped, tabs };
}
