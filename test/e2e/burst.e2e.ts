// A burst of thirty article tabs, the worker stopped a second after they loaded, as a crash or an
// update stops it, while it reads and stores their pages (test/e2e/burst.ts): every page is
// recorded within 30 s of the stop, and none twice.
// The content script sends a page until the worker acknowledges it (lib/content/delivery.ts), and
// the worker stores each capture once (lib/protocol/captures.ts).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { canonicalUrl } from '../../lib/url';
import { readStoredPages } from './blocks';
import { burstOfTabs } from './burst';
import { type ExtensionSession, type Session, type Site, sleep, startSession } from './harness';
import { NEWS_ROUTES, SUBJECTS, newsPath } from './news-articles';

let session: Session<'site'>;
let site: Site;
let ext: ExtensionSession;
let watcher: Page;

beforeAll(async () => {
  session = await startSession({ site: NEWS_ROUTES });
  ({ site } = session.sites);
  ext = session.ext!;
  watcher = await ext.ctx.newPage();
  await watcher.goto(ext.popupUrl(site.url('/')), { waitUntil: 'domcontentloaded' });
});

afterAll(() => session?.close());

describe('a burst of tabs', () => {
  test('30 article tabs opened at once, the worker stopped once the first page is stored: all 30 recorded within 30 s of the stop, none twice', async () => {
    const urls = SUBJECTS.slice(0, 30).map((s) => site.url(newsPath(s)));
    // once the first is stored, the worker is at work on the others (on a quiet machine all 30 are stored within a second of loading)
    const burst = await burstOfTabs(ext, watcher, urls, { stopAfterStored: 1, timeoutMs: 90_000 });
    const stoppedAt = burst.stoppedAt!;
    const times = [...burst.storedAt.values()].sort((a, b) => a - b);
    const last = times.at(-1) ?? NaN;
    console.info(`tabs loaded at ${burst.loadedAt} ms, worker seen stopped at ${stoppedAt} ms with ${times.filter((t) => t <= stoppedAt).length} pages stored; ${times.length} of 30 stored by ${last} ms (${last - stoppedAt} ms after the stop)`);
    expect(urls.map(canonicalUrl).filter((url) => !burst.storedAt.has(url)), 'pages not recorded').toEqual([]);
    expect(last - stoppedAt, 'ms from the stop until the last page was stored').toBeLessThanOrEqual(30_000);

    // A copy sent again after its page was stored would land within the content scripts' waits (1 to 16 s).
    await sleep(5_000);
    const pages = await readStoredPages(watcher);
    expect(pages.map((p) => p.url).sort(), 'each page stored once').toEqual(urls.map(canonicalUrl).sort());
    expect(pages.filter((p) => p.visits !== 1).map((p) => `${p.url}: ${p.visits} visits`), 'no page recorded twice').toEqual([]);
    expect(ext.pageErrors.filter((e) => e.startsWith('chrome-extension://')), 'extension page errors').toEqual([]);
    await Promise.all(burst.tabs.map((tab) => tab.close()));
  });
});
