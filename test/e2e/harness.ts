// End-to-end harness: serves test sites on loopback ports and drives Debian's Chromium with the
// built extension loaded (playwright-core, no downloaded browser).
//
// What was verified to work in Chromium 156 (Debian) with playwright-core 1.65.1:
// - `--load-extension` + `--disable-extensions-except` under `headless: true` (new headless mode);
//   the MV3 worker shows up in `ctx.serviceWorkers()` or as a `serviceworker` event.
// - Stopping the worker over CDP from a page session: `ServiceWorker.enable`, read the version from
//   `ServiceWorker.workerVersionUpdated` (scriptURL chrome-extension://ID/…, runningStatus
//   "running"), `ServiceWorker.stopWorker({versionId})`; the version becomes "stopped" and its
//   target leaves `Target.getTargets`. `Target.closeTarget({targetId})` stops it as well (fallback).
// - After a stop Playwright keeps the same `Worker` object: it is NOT closed and stays in
//   `ctx.serviceWorkers()`, and `worker.evaluate` on it hangs until the worker runs again. When the
//   worker restarts (a content script or the popup messages it, or `ServiceWorker.startWorker`)
//   it comes back under the same target id and the same `Worker` object works again, with a fresh
//   global scope. So never evaluate on a worker without `getServiceWorker()` first.
// - Tab ids: `chrome.tabs.query` works with no permission, but a tab's `url` and `title` are only
//   filled in with the "tabs" permission or host permissions (content-script matches are not
//   enough). `page.bringToFront()` then `tabs.query({active: true, lastFocusedWindow: true})`
//   gives the page's tab: Playwright opens every page of a persistent context as a tab of the
//   same window.
import { chromium, type BrowserContext, type CDPSession, type Page, type Worker } from 'playwright-core';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../../lib/random';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const DEFAULT_EXTENSION_DIR = '.output/chrome-mv3';
/** The built extension the e2e tests load: DOPPEL_EXTENSION_DIR, or the Chromium build. */
export const EXTENSION_DIR = process.env.DOPPEL_EXTENSION_DIR ?? DEFAULT_EXTENSION_DIR;

/** States the popup settles in (everything but `loading`). */
export const FINAL_STATES = ['ready', 'unknown', 'not-article', 'excluded', 'paused', 'storage-full', 'error'] as const;
export type PopupState = (typeof FINAL_STATES)[number] | 'loading';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Static sites

export interface Site {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  port: number;
  /** Absolute URL of a path on this site. */
  url(path: string): string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
};

/**
 * Serves a folder (`/a/b.html` → DIR/a/b.html; `/a/` → DIR/a/index.html; `/a/b` → DIR/a/b.html if
 * that exists) or a map of routes (`{'/a.html': '<!doctype html>…'}`) on 127.0.0.1. The query
 * string and fragment are ignored, so `?utm_source=x` variants serve the same page. Port 0 picks a
 * free port: two calls are two sites with two origins.
 */
export async function servePages(source: string | Record<string, string>, port = 0): Promise<Site> {
  const root = typeof source === 'string' ? resolve(source) : null;
  const routes = typeof source === 'string' ? null : source;

  const lookup = (pathname: string): { body: Buffer | string; type: string } | null => {
    if (routes) {
      const body = routes[pathname] ?? (pathname.endsWith('/') ? routes[`${pathname}index.html`] : undefined);
      return body === undefined ? null : { body, type: CONTENT_TYPES[extname(pathname)] ?? CONTENT_TYPES['.html']! };
    }
    const candidates = [pathname, `${pathname}.html`, join(pathname, 'index.html')];
    for (const candidate of candidates) {
      const file = resolve(root!, `.${candidate}`);
      if (file !== root && !file.startsWith(root! + sep)) return null; // no way out of the folder
      if (existsSync(file) && statSync(file).isFile()) {
        return { body: readFileSync(file), type: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' };
      }
    }
    return null;
  };

  const server: Server = createServer((req, res) => {
    let pathname = '/';
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    const found = req.method === 'GET' || req.method === 'HEAD' ? lookup(pathname) : null;
    if (!found) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : found.body);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('servePages: no port');
  const origin = `http://127.0.0.1:${address.port}`;
  return {
    origin,
    port: address.port,
    url: (path) => new URL(path, origin).href,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Browser with the extension

export interface ExtensionSession {
  ctx: BrowserContext;
  /** The worker found at launch. After a stop, get a running one with `getWorker()`. */
  worker: Worker;
  extensionId: string;
  /** `chrome-extension://ID/popup.html?url=ENCODED` */
  popupUrl(url: string): string;
  /** A running worker (started over CDP if it is stopped). */
  getWorker(): Promise<Worker>;
  /** Messages of every dialog (alert, confirm, prompt) any page showed; each was dismissed. */
  dialogs: string[];
  /** Uncaught errors of pages (extension pages included), as "URL: message". */
  pageErrors: string[];
  close(): Promise<void>;
}

const extensionIds = new WeakMap<BrowserContext, string>();

export function popupUrl(extensionId: string, url: string): string {
  return `chrome-extension://${extensionId}/popup.html?url=${encodeURIComponent(url)}`;
}

export function extensionIdOf(ctx: BrowserContext): string {
  const id = extensionIds.get(ctx);
  if (!id) throw new Error('this context was not started by launchWithExtension');
  return id;
}

const isExtensionWorker = (w: Worker, extensionId?: string): boolean =>
  w.url().startsWith(extensionId ? `chrome-extension://${extensionId}/` : 'chrome-extension://');

export interface LaunchOptions {
  /** The folder the temporary profile is made in (default: the system's temporary folder). */
  userDataParent?: string;
  /** A profile folder to use and keep (bench:browser --keep-profile) instead of a temporary one. */
  userDataDir?: string;
  /** More Chromium switches (`--lang=es`, `--host-resolver-rules=…`). */
  args?: string[];
}

/**
 * Starts Chromium with the unpacked extension in `extDir` in a fresh temporary profile and waits
 * for its service worker.
 */
export async function launchWithExtension(extDir: string = DEFAULT_EXTENSION_DIR, { userDataParent = tmpdir(), userDataDir: keptDir, args = [] }: LaunchOptions = {}): Promise<ExtensionSession> {
  const dir = resolve(extDir);
  if (!existsSync(join(dir, 'manifest.json'))) {
    throw new Error(`No extension at ${dir} (no manifest.json): run \`npm run build\` first.`);
  }
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: run \`bash scripts/install-browsers.sh\` (or set CHROMIUM_PATH).`);
  }
  const userDataDir = keptDir ?? mkdtempSync(join(userDataParent, 'doppel-e2e-'));
  const removeProfile = (): void => {
    if (keptDir === undefined) rmSync(userDataDir, { recursive: true, force: true });
  };
  let ctx: BrowserContext;
  try {
    ctx = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      timeout: 60_000,
      args: [
        `--disable-extensions-except=${dir}`,
        `--load-extension=${dir}`,
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        ...args,
      ],
    });
  } catch (error) {
    removeProfile();
    throw error;
  }

  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const watch = (page: Page): void => {
    page.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      dialog.dismiss().catch(() => {});
    });
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
  };
  ctx.pages().forEach(watch);
  ctx.on('page', watch);

  const close = async (): Promise<void> => {
    await ctx.close().catch(() => {});
    removeProfile();
  };

  try {
    const worker =
      ctx.serviceWorkers().find((w) => isExtensionWorker(w)) ??
      (await ctx.waitForEvent('serviceworker', { predicate: (w) => isExtensionWorker(w), timeout: 30_000 }));
    const extensionId = new URL(worker.url()).host;
    extensionIds.set(ctx, extensionId);
    return {
      ctx,
      worker,
      extensionId,
      popupUrl: (url) => popupUrl(extensionId, url),
      getWorker: () => getServiceWorker(ctx, extensionId),
      dialogs,
      pageErrors,
      close,
    };
  } catch (error) {
    await close();
    throw new Error(`The extension's service worker did not start: ${(error as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The page catalogue, and a session: the sites a test file serves and the browser it drives

/** The folder of the test sites (test/e2e/pages/). */
export const PAGES_DIR = fileURLToPath(new URL('./pages/', import.meta.url));

/**
 * The test sites of test/e2e/pages/, each a folder served on its own origin:
 * - original: The Harrowby Courier's stories (news/2024/ferry-returns.html, community/…, culture/…)
 *   and a print view of the ferry story;
 * - republisher: NewsPulse Today, a content farm: the ferry story rewritten lightly
 *   (stories/skellan-ferry-linnet.html), other copies and unrelated stories (stories/…);
 * - almanac: The Glenmorie Almanac's articles (nature/, history/, waterways/) and a sign-in page;
 * - aggregator: Wireline, which republishes the almanac's articles (copies/…), and its reader app;
 * - hostile: pages that try to break a reader (empty, deep, malformed, frames, images, scripts).
 */
export const PAGE_SITES = ['original', 'republisher', 'almanac', 'aggregator', 'hostile'] as const;
export type PageSite = (typeof PAGE_SITES)[number];

/** A site a session serves: one of the catalogue's folders, or routes (`{'/a.html': '<!doctype html>…'}`). */
export type SiteSource = PageSite | Record<string, string>;

export interface Session<Name extends string> {
  /** The browser with the extension; undefined with `launch: false` (the test starts it itself). */
  ext: ExtensionSession | undefined;
  /** The sites, by the names the test gave them. */
  sites: Record<Name, Site>;
  /** Closes the browser (warning of uncaught page errors first) and every site. */
  close(): Promise<void>;
}

/**
 * Serves the sites a test file needs, each on its own origin (two names for one folder are two
 * sites), and launches Chromium with the built extension (EXTENSION_DIR) unless `launch` is false.
 */
export async function startSession<Name extends string>(sites: Record<Name, SiteSource>, { launch = {} }: { launch?: LaunchOptions | false } = {}): Promise<Session<Name>> {
  const served = {} as Record<Name, Site>;
  const session: Session<Name> = {
    ext: undefined,
    sites: served,
    async close() {
      if (session.ext?.pageErrors.length) console.warn(`page errors during the run:\n${session.ext.pageErrors.join('\n')}`);
      await session.ext?.close();
      for (const site of Object.values<Site>(served)) await site.close();
    },
  };
  try {
    for (const [name, source] of Object.entries(sites) as [Name, SiteSource][]) {
      served[name] = await servePages(typeof source === 'string' ? join(PAGES_DIR, source) : source);
    }
    if (launch !== false) session.ext = await launchWithExtension(EXTENSION_DIR, launch);
  } catch (error) {
    await session.close();
    throw error;
  }
  return session;
}

// ---------------------------------------------------------------------------------------------
// Service worker control over CDP

/** A CDP session on some page of the context (CDP's ServiceWorker domain needs a page target). */
async function pageSession(ctx: BrowserContext): Promise<CDPSession> {
  const page = ctx.pages().find((p) => !p.isClosed()) ?? (await ctx.newPage());
  return ctx.newCDPSession(page);
}

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

async function workerTargets(session: CDPSession, extensionId: string): Promise<TargetInfo[]> {
  const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: TargetInfo[] };
  return targetInfos.filter((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extensionId}/`));
}

/** Whether the extension's service worker is running (CDP lists a target only for a running one). */
export async function isServiceWorkerRunning(ctx: BrowserContext, extensionId: string): Promise<boolean> {
  const session = await pageSession(ctx);
  try {
    return (await workerTargets(session, extensionId)).length > 0;
  } finally {
    await session.detach().catch(() => {});
  }
}

interface WorkerVersion {
  versionId: string;
  scriptURL: string;
  runningStatus: 'stopped' | 'starting' | 'running' | 'stopping';
  status: string;
}

/**
 * Stops the extension's service worker, as Chrome does to an idle worker, and waits until it has
 * stopped. A worker still being installed (just after launch) is left to become activated first, as
 * Chrome would. CDP: ServiceWorker.enable → workerVersionUpdated → ServiceWorker.stopWorker({versionId}),
 * or Target.closeTarget on the worker's target where CDP reports no version. Asked again every second: a
 * request that lands while the worker is starting or handling an event can be dropped (seen once
 * in CI: the worker ran on for 15 s). A stop that was seen counts even if an event (a tab, a
 * message) wakes the worker again at once, as it would in the browser.
 */
export async function stopServiceWorker(ctx: BrowserContext, extensionId: string, timeout = 15_000): Promise<void> {
  const session = await pageSession(ctx);
  const prefix = `chrome-extension://${extensionId}/`;
  const versions = new Map<string, WorkerVersion>();
  let stopSeen = false;
  session.on('ServiceWorker.workerVersionUpdated', (event: { versions: WorkerVersion[] }) => {
    for (const v of event.versions) {
      if (!v.scriptURL.startsWith(prefix)) continue;
      const before = versions.get(v.versionId)?.runningStatus;
      if (before !== undefined && before !== 'stopped' && v.runningStatus === 'stopped' && v.status === 'activated') stopSeen = true;
      versions.set(v.versionId, v);
    }
  });
  const deadline = Date.now() + timeout;
  const askToStop = async (): Promise<void> => {
    for (const v of versions.values()) {
      // Only an activated worker: one stopped while installing becomes redundant and the extension
      // is left with no worker at all (a fresh profile's worker is still installing for a moment
      // after launch; trust.e2e.ts, which stops it right away, failed so in 2 of 18 and 4 of 20 runs).
      if (v.status === 'activated' && (v.runningStatus === 'running' || v.runningStatus === 'starting')) {
        await session.send('ServiceWorker.stopWorker', { versionId: v.versionId }).catch(() => {});
      }
    }
    // Closing a worker's target ends it whatever its state, an installing one included (which then
    // becomes redundant, as above): only when CDP reports no version of it at all.
    if (versions.size > 0) return;
    for (const t of await workerTargets(session, extensionId)) {
      await session.send('Target.closeTarget', { targetId: t.targetId }).catch(() => {});
    }
  };
  try {
    await session.send('ServiceWorker.enable').catch(() => {});
    for (let i = 0; i < 40 && versions.size === 0; i++) await sleep(50);
    let asked = 0;
    for (;;) {
      if (Date.now() - asked >= 1_000) {
        await askToStop();
        asked = Date.now();
      }
      await sleep(50);
      const running = (await workerTargets(session, extensionId)).length > 0;
      const settled = [...versions.values()].every((v) => v.runningStatus === 'stopped');
      if ((!running && settled) || stopSeen) return;
      if (Date.now() > deadline) {
        const states = [...versions.values()].map((v) => v.runningStatus).join(', ') || 'none reported';
        throw new Error(`the service worker of ${extensionId} did not stop within ${timeout} ms (versions: ${states})`);
      }
    }
  } finally {
    await session.send('ServiceWorker.disable').catch(() => {});
    await session.detach().catch(() => {});
  }
}

/**
 * Stops the extension's service worker over CDP (ServiceWorker.stopWorker) and returns when it was
 * seen stopped (Date.now()). Unlike the harness's stopServiceWorker this does not wait for it to
 * stay stopped: the pages' messages restart it at once, which is the point of stopping it so.
 * CDP talks through `page`, which must stay where it is meanwhile.
 */
export async function stopWorkerOnce(ext: ExtensionSession, page: Page, timeout = 10_000): Promise<number> {
  const stopper = await workerStopper(ext, page);
  try {
    return await stopper.stop(timeout);
  } finally {
    await stopper.close();
  }
}

/**
 * stopWorkerOnce in two steps: the CDP session made and the worker's versions followed first, so
 * that `stop` asks at once when called (making the session takes seconds while thirty tabs load).
 */
export async function workerStopper(ext: ExtensionSession, page: Page): Promise<{ stop(timeout?: number): Promise<number>; close(): Promise<void> }> {
  const session = await ext.ctx.newCDPSession(page);
  const prefix = `chrome-extension://${ext.extensionId}/`;
  type Version = { versionId: string; scriptURL: string; status: string; runningStatus: string };
  const versions = new Map<string, Version>();
  let stoppedAt = 0;
  let asked = false;
  session.on('ServiceWorker.workerVersionUpdated', (event: { versions: Version[] }) => {
    for (const v of event.versions) {
      if (!v.scriptURL.startsWith(prefix)) continue;
      versions.set(v.versionId, v);
      if (asked && v.runningStatus === 'stopped' && !stoppedAt) stoppedAt = Date.now();
    }
  });
  await session.send('ServiceWorker.enable');
  return {
    async stop(timeout = 10_000) {
      const deadline = Date.now() + timeout;
      // never while installing: a worker stopped then is made redundant (see stopServiceWorker)
      while (![...versions.values()].some((v) => v.status === 'activated') && Date.now() < deadline) await sleep(10);
      asked = true;
      for (const v of versions.values()) {
        if (v.runningStatus === 'stopped') continue;
        await session.send('ServiceWorker.stopWorker', { versionId: v.versionId });
      }
      if ([...versions.values()].every((v) => v.runningStatus === 'stopped')) stoppedAt ||= Date.now();
      while (!stoppedAt && Date.now() < deadline) await sleep(10);
      if (!stoppedAt) throw new Error(`the service worker was not seen stopped within ${timeout} ms`);
      return stoppedAt;
    },
    async close() {
      await session.send('ServiceWorker.disable').catch(() => {});
      await session.detach().catch(() => {});
    },
  };
}

/** How long getServiceWorker waits for a worker it asked to start before it asks again. */
const WAKE_AGAIN_MS = 3_000;

/**
 * A running service worker of the extension. With `wake` (the default) a stopped worker is started
 * over CDP (ServiceWorker.startWorker on the extension's scope); without it, waits for something
 * else (a page visit, the popup) to start it.
 */
export async function getServiceWorker(
  ctx: BrowserContext,
  extensionId: string,
  { wake = true, timeout = 20_000 }: { wake?: boolean; timeout?: number } = {},
): Promise<Worker> {
  const deadline = Date.now() + timeout;
  const session = await pageSession(ctx);
  // when the last start was asked for; asked again after WAKE_AGAIN_MS without a worker: a start
  // asked for while the worker was still stopping can be lost
  let wokenAt = -Infinity;
  try {
    for (;;) {
      if ((await workerTargets(session, extensionId)).length > 0) {
        // Newest first: a worker that restarted under a new target comes later in the list.
        for (const w of ctx.serviceWorkers().filter((x) => isExtensionWorker(x, extensionId)).reverse()) {
          const alive = await Promise.race([w.evaluate(() => true).catch(() => false), sleep(3_000).then(() => false)]);
          if (alive) return w;
        }
      } else if (wake && Date.now() - wokenAt > WAKE_AGAIN_MS) {
        wokenAt = Date.now();
        // startWorker needs the domain enabled on this session first.
        await session.send('ServiceWorker.enable');
        await session.send('ServiceWorker.startWorker', { scopeURL: `chrome-extension://${extensionId}/` });
        await session.send('ServiceWorker.disable').catch(() => {});
      }
      if (Date.now() > deadline) throw new Error(`no running service worker for ${extensionId} within ${timeout} ms`);
      await sleep(100);
    }
  } finally {
    await session.detach().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// Pages, tabs, popup, badge

/** Navigates `page` to `url` and waits for the load event. */
export async function visit(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: 'load' });
}

interface TabLike {
  id?: number;
  url?: string;
  active: boolean;
}
type ChromeInWorker = {
  chrome: {
    tabs: { query(q: object): Promise<TabLike[]> };
    action: { getBadgeText(d: { tabId: number }): Promise<string>; getTitle(d: { tabId: number }): Promise<string> };
  };
};

/**
 * Visits `address` in a new tab and waits until `popup` (a page of the extension) reports it
 * recorded, then closes the tab: pages recorded one after another this way have distinct
 * first-seen times, in that order.
 */
export async function recordInTab(ctx: BrowserContext, popup: Page, address: string): Promise<void> {
  const tab = await ctx.newPage();
  await visit(tab, address);
  await waitForPopupState(popup, address, 'ready');
  await tab.close();
  await sleep(20);
}

/**
 * The extension's tab id of a Playwright page. Brings the page to the front, then asks the worker
 * for the active tab of the last focused window; where the extension can see tab URLs (the "tabs"
 * permission or host permissions), the tab whose URL is the page's is used instead.
 */
export async function tabIdOf(worker: Worker, page: Page): Promise<number> {
  await page.bringToFront();
  const tabs = await worker.evaluate(async () => {
    const { chrome } = globalThis as unknown as ChromeInWorker;
    const all = await chrome.tabs.query({});
    const active = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
    return { all, active };
  });
  const byUrl = tabs.all.filter((t) => t.url !== undefined && t.url === page.url());
  if (byUrl.length === 1 && byUrl[0]!.id !== undefined) return byUrl[0]!.id;
  const active = tabs.active[0];
  if (!active || active.id === undefined) throw new Error(`no active tab for ${page.url()}`);
  if (active.url !== undefined && active.url !== page.url()) {
    throw new Error(`the active tab shows ${active.url}, not ${page.url()}`);
  }
  return active.id;
}

/** The toolbar badge text of a tab. */
export async function badgeText(worker: Worker, tabId: number): Promise<string> {
  return worker.evaluate(async (id) => {
    const { chrome } = globalThis as unknown as ChromeInWorker;
    return chrome.action.getBadgeText({ tabId: id });
  }, tabId);
}

/** The toolbar button's title (its tooltip) on a tab. */
export async function badgeTitle(worker: Worker, tabId: number): Promise<string> {
  return worker.evaluate(async (id) => {
    const { chrome } = globalThis as unknown as ChromeInWorker;
    return chrome.action.getTitle({ tabId: id });
  }, tabId);
}

async function popupStates(page: Page): Promise<string[]> {
  return page
    .locator('[data-state]')
    .evaluateAll((els) => els.map((el) => el.getAttribute('data-state') ?? ''))
    .catch(() => []);
}

/** The hrefs (resolved, as `a.href`) of the links in the popup's #matches. */
export async function matchLinks(page: Page): Promise<string[]> {
  return page.locator('#matches a[href]').evaluateAll((els) => els.map((el) => (el as HTMLAnchorElement).href));
}

/**
 * Opens the popup for `url` in `page` and waits until it shows `expectedState` (an element with
 * data-state="…"), reloading while it settles on another state: recording is asynchronous (the
 * content script runs at document idle, then messages the worker). Returns the hrefs of
 * `#matches a[href]`; `page` is left on the popup for further checks.
 */
export async function waitForPopupState(page: Page, url: string, expectedState: PopupState, timeout = 20_000): Promise<string[]> {
  const target = popupUrl(extensionIdOf(page.context()), url);
  const deadline = Date.now() + timeout;
  let seen: string[] = [];
  for (let attempt = 0; ; attempt++) {
    if (attempt === 0 || page.url() !== target) await page.goto(target, { waitUntil: 'domcontentloaded' });
    else await page.reload({ waitUntil: 'domcontentloaded' });
    // Within one load: wait for the expected state, or for the popup to settle on another one.
    const settleBy = Math.min(deadline, Date.now() + 5_000);
    for (;;) {
      seen = await popupStates(page);
      if (seen.includes(expectedState)) return matchLinks(page);
      const settled = seen.length > 0 && !seen.includes('loading');
      if (settled || Date.now() > settleBy) break;
      await sleep(50);
    }
    if (Date.now() > deadline) {
      // The popup's own words for the state it settled on, so a failure says why (as in CI, where it cannot be rerun).
      const words = await page
        .locator('#status-text, #status-detail, #error')
        .evaluateAll((els) => els.map((el) => el.textContent?.trim() ?? '').filter(Boolean).join(' / '))
        .catch(() => '');
      throw new Error(
        `popup for ${url}: expected data-state="${expectedState}" within ${timeout} ms, ` +
          `last saw ${seen.length ? seen.map((s) => `"${s}"`).join(', ') : 'no [data-state] element'}` +
          (words ? ` (it said: ${words})` : ''),
      );
    }
    await sleep(250);
  }
}

/** Polls `read` until it returns `expected` (compared with ===) or the time is up; returns the last value. */
export async function pollFor<T>(read: () => Promise<T>, expected: T, timeout = 10_000, interval = 100): Promise<T> {
  const deadline = Date.now() + timeout;
  let value = await read();
  while (value !== expected && Date.now() < deadline) {
    await sleep(interval);
    value = await read();
  }
  return value;
}

/** Seeded prose for test pages: words like `w1234`, a comma after every 7th and a full stop after every 15th. */
export function seededProse(seed: number): (n: number) => string[] {
  const random = mulberry32(seed);
  return (n) => Array.from({ length: n }, (_, i) => `w${Math.floor(random() * 20000)}${i % 15 === 14 ? '.' : i % 7 === 6 ? ',' : ''}`);
}

const COMMON_WORDS = ('the of and to in a is that for it was on with as by at from his her they be this have are not but had which their were '
  + 'has been more one who its after when also would into about over than them two some could new last first year people said').split(' ');
const NAME_SYLLABLES = ['bar', 'ko', 'len', 'mi', 'dru', 'sat', 'vel', 'on', 'pra', 'tis', 'gor', 'ham', 'ne', 'fu', 'ril', 'cas', 'te', 'wold', 'by', 'mer'];

/**
 * Seeded prose that weighs words as a real article does, for pages that must stay near-duplicates
 * of an edited copy: common English words and the article's own made-up names and terms, each
 * drawn by Zipf's law, in sentences. With seededProse every word is about as rare as the next, so a
 * promo paragraph of 23 words moves a 700-word copy 1–7 bits from its original (more than k = 3
 * for 18 of 40 seeds); here the frequent words dominate the simhash, as in real text, and it moves
 * 0–3 (none of 40 seeds past 3). Two seeds share the common words only.
 */
export function englishLikeProse(seed: number): (n: number) => string[] {
  const random = mulberry32(seed);
  const zipf = (n: number): number => Math.min(n - 1, Math.floor(Math.exp(random() * Math.log(n + 1)) - 1));
  const own = Array.from({ length: 400 }, () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => NAME_SYLLABLES[Math.floor(random() * NAME_SYLLABLES.length)]).join(''));
  let inSentence = 0;
  return (n) =>
    Array.from({ length: n }, () => {
      const word = random() < 0.45 ? COMMON_WORDS[zipf(COMMON_WORDS.length)]! : own[zipf(own.length)]!;
      const first = inSentence === 0;
      inSentence = random() < 1 / 14 ? 0 : inSentence + 1;
      return `${first ? word[0]!.toUpperCase() + word.slice(1) : word}${inSentence === 0 ? '.' : ''}`;
    });
}

/**
 * Where marks start and end against a shared run of words: `start` is the word of the run the first
 * mark starts at (negative: that many words before the run), `end` the word it ends before (past
 * run.length: after it). Each mark's text is collapsed to single spaces; a mark is placed by five of
 * its words inside it (after its first five, before its last five), so a few words of overrun on
 * either side are measured, not refused. Null when the probe is not in the run.
 */
export function marksAgainstRun(markTexts: readonly string[], run: readonly string[]): { start: number; end: number } | null {
  const words = (text: string): string[] => text.replace(/\s+/g, ' ').trim().split(' ');
  const bare = (word: string): string => word.replace(/[.,;:!?"“”]/g, '');
  const runWords = run.map(bare);
  const find = (probe: string[]): number => runWords.findIndex((_, i) => probe.every((w, j) => runWords[i + j] === bare(w)));
  const first = words(markTexts[0] ?? '');
  const last = words(markTexts.at(-1) ?? '');
  if (first.length < 10 || last.length < 10) return null;
  const a = find(first.slice(5, 10));
  const b = find(last.slice(-10, -5));
  return a < 0 || b < 0 ? null : { start: a - 5, end: b + 10 };
}

/**
 * How many values the extension's rewrite stores hold (`rewrites`, `rewritePostings`): run in an
 * extension page with page.evaluate (Playwright or Puppeteer), so it closes over nothing.
 */
export function countRewriteStores(): Promise<[number, number]> {
  return new Promise<[number, number]>((resolve, reject) => {
    const open = indexedDB.open('doppel');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction(['rewrites', 'rewritePostings']);
      const a = tx.objectStore('rewrites').count();
      const b = tx.objectStore('rewritePostings').count();
      tx.oncomplete = () => {
        resolve([a.result, b.result]);
        open.result.close();
      };
      tx.onerror = () => reject(tx.error);
    };
  });
}
