// bench:browser-quality's visits in Chromium with the extension: a page opened in a tab and its
// popup (popup.html?url=…) polled until the page is recorded or known as not-article, a few tabs at
// a time; and a popup read once more when every page is visited.
import type { Page } from 'playwright-core';
import { type ExtensionSession, sleep } from '../../test/e2e/harness';
import { type PopupRead, UNREAD, readPopup } from './popup-read';

/** How long a visited page may take to be recorded (or known as not-article). */
export const RECORD_TIMEOUT_MS = 15_000;
export const NAVIGATION_TIMEOUT_MS = 30_000;

export interface Visit {
  /** The popup's data-state once settled, or 'timeout' / 'load-failed'. */
  state: string;
  /** The popup's status detail (the not-article reason), or what went wrong. */
  detail: string;
  ms: number;
}

/** A tab that visits pages and an extension page that shows their popups. */
export interface TabPair {
  tab: Page;
  popup: Page;
}

/** `tabs` pairs of pages in the session. */
export async function openTabs(ext: ExtensionSession, tabs: number): Promise<TabPair[]> {
  const out: TabPair[] = [];
  for (let i = 0; i < tabs; i++) out.push({ tab: await ext.ctx.newPage(), popup: await ext.ctx.newPage() });
  return out;
}

/** Aborts every request to anything but 127.0.0.1: the pages are read as an offline user would. */
export async function offline(ext: ExtensionSession): Promise<void> {
  await ext.ctx.route(
    (url) => (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '127.0.0.1',
    (route) => route.abort('internetdisconnected'),
  );
}

/** Opens the popup for url and waits (up to settleMs) for it to leave `loading`. */
export async function openPopup(popup: Page, target: string, reload: boolean, settleMs: number): Promise<PopupRead> {
  if (reload) await popup.reload({ waitUntil: 'domcontentloaded' });
  else await popup.goto(target, { waitUntil: 'domcontentloaded' });
  const until = Date.now() + settleMs;
  for (;;) {
    const read = await readPopup(popup).catch(() => UNREAD);
    if ((read.state && read.state !== 'loading') || Date.now() > until) return read;
    await sleep(50);
  }
}

/** Visits url in tab, then polls its popup until the page is recorded or not-article. */
export async function visitAndWait(ext: ExtensionSession, tab: Page, popup: Page, url: string): Promise<Visit> {
  const started = Date.now();
  try {
    await tab.goto(url, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
  } catch (error) {
    return { state: 'load-failed', detail: (error as Error).message.split('\n')[0]!, ms: Date.now() - started };
  }
  const target = ext.popupUrl(url);
  const deadline = started + RECORD_TIMEOUT_MS;
  let last: PopupRead = UNREAD;
  for (let attempt = 0; ; attempt++) {
    try {
      last = await openPopup(popup, target, attempt > 0 && popup.url() === target, 3_000);
    } catch {
      // the popup page was busy navigating: try again
    }
    if (last.state === 'ready' || last.state === 'not-article' || last.state === 'excluded' || last.state === 'paused' || last.state === 'error') {
      return { state: last.state, detail: last.detail, ms: Date.now() - started };
    }
    if (Date.now() > deadline) {
      return { state: 'timeout', detail: `not recorded within ${RECORD_TIMEOUT_MS / 1000} s (popup: ${last.state || 'no state'})`, ms: Date.now() - started };
    }
    await sleep(200);
  }
}

/**
 * Opens url's popup in `popup` (up to three tries) once every page is visited, and reads it with
 * readPopup; then `more(popup)`, if given, reads the same settled popup further.
 */
export async function readSettledPopup<T = undefined>(ext: ExtensionSession, popup: Page, url: string, more?: (popup: Page) => Promise<T>): Promise<{ read: PopupRead; more?: T }> {
  const target = ext.popupUrl(url);
  let read: PopupRead = UNREAD;
  for (let attempt = 0; attempt < 3; attempt++) {
    read = await openPopup(popup, target, false, 5_000).catch((error: Error) => ({ ...UNREAD, detail: `popup failed: ${error.message.split('\n')[0]}` }));
    if (read.state && read.state !== 'loading') break;
    await sleep(500);
  }
  if (!more || !read.state || read.state === 'loading') return { read };
  return { read, more: await more(popup).catch(() => undefined) };
}

/** Runs fn over items with one worker per pair of pages. */
export async function pool<T>(items: readonly T[], tabs: readonly TabPair[], fn: (item: T, pages: TabPair) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    tabs.map(async (pages) => {
      while (next < items.length) {
        const item = items[next++]!;
        await fn(item, pages);
      }
    }),
  );
}
