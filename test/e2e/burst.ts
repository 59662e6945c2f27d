// A burst of tabs, for burst.e2e.ts and bench:browser: article tabs opened at once, the worker
// stopped over CDP a moment after they have loaded if asked (as a crash or an update stops it,
// while it reads and stores their pages), and when each page was first seen stored. The pages are
// read from the blocks store in an extension page, never through the worker, so that watching
// adds no work to it.
import type { Page } from 'playwright-core';
import { canonicalUrl } from '../../lib/url';
import { readStoredPages } from './blocks';
import { type ExtensionSession, sleep, workerStopper } from './harness';

export interface BurstOptions {
  /**
   * Stop the worker this many ms after the last tab's load event; never if absent. After the load,
   * not after the opening: the content scripts send their pages once their tab is idle, and thirty
   * tabs take 8–16 s to load on a 2-core machine, so a stop a second after the opening finds no page
   * sent yet.
   */
  stopAfterLoadMs?: number;
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
export async function burstOfTabs(ext: ExtensionSession, watcher: Page, urls: readonly string[], { stopAfterLoadMs, timeoutMs, pollMs = 100 }: BurstOptions): Promise<Burst> {
  const tabs = await Promise.all(urls.map(() => ext.ctx.newPage()));
  const stopper = stopAfterLoadMs === undefined ? null : await workerStopper(ext, watcher);
  const start = Date.now();
  const loaded = Promise.all(tabs.map((tab, i) => tab.goto(urls[i]!, { waitUntil: 'load', timeout: timeoutMs }).catch(() => {}))).then(() => Date.now() - start);
  const stopped = stopper === null ? Promise.resolve(null) : loaded.then((at) => sleep(at + stopAfterLoadMs! - (Date.now() - start))).then(() => stopper.stop(20_000)).then((at) => at - start).finally(() => stopper.close());
  const wanted = new Set(urls.map(canonicalUrl));
  const storedAt = new Map<string, number>();
  while (storedAt.size < wanted.size && Date.now() - start < timeoutMs) {
    const pages = await readStoredPages(watcher);
    const at = Date.now() - start;
    for (const { url } of pages) if (wanted.has(url) && !storedAt.has(url)) storedAt.set(url, at);
    await sleep(pollMs);
  }
  return { storedAt, loadedAt: await loaded, stoppedAt: await stopped, tabs };
}
