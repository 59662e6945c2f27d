// The Firefox build, end to end: Debian's firefox-esr driven over WebDriver BiDi with
// puppeteer-core, the extension installed from .output/firefox-mv2 as a temporary add-on. Pages
// of two local "sites" are visited, and what the extension recorded is read back through its
// popup, opened as a tab at moz-extension://UUID/popup.html?url=<encoded URL>.
//
// Before running:  bash scripts/install-firefox.sh   (once: apt-get install firefox-esr)
//                  npm run build:firefox             (→ .output/firefox-mv2)
// Run:             npm run test:e2e:firefox
// Env: FIREFOX_PATH (default /usr/bin/firefox-esr), DOPPEL_FIREFOX_EXTENSION_DIR (default
// .output/firefox-mv2).
//
// Firefox specifics (firefox-esr 153, puppeteer-core 24.43.1):
// - The add-on's moz-extension UUID is random per profile unless the pref
//   `extensions.webextensions.uuids` maps its id (browser_specific_settings.gecko.id) to one:
//   that gives the popup a known URL.
// - `browser.installExtension` needs `--remote-allow-system-access`.
// - Extension pages send no BiDi navigation events, so `page.goto(moz-extension://…)` never
//   resolves: the popup is opened with the browsing context's `navigate(url, 'none')` and then
//   waited for by polling its DOM with page.evaluate (waitForFunction's poller is built with
//   Function(), which an extension page's CSP blocks).
// - MV2 grants the content script's `matches` (http://*/*, https://*/*) at install, so the
//   content script runs on the 127.0.0.1 test sites with no permission prompt.
//
// Sites (test/e2e/pages/, shared with the Chromium e2e):
//   original/     news/2024/ferry-returns.html        the original article
//                 culture/repair-cafe.html            unrelated article
//   republisher/  stories/ferry-service-back.html     verbatim copy, another template
//                 stories/skellan-ferry-linnet.html   credit line added, last paragraph cut
//                 stories/second-hand-bicycle.html    unrelated article
//
// The tests share one browser and run in order: later ones rely on pages visited by earlier ones.
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { base64ToBytes, decodePassageBytes } from '../../lib/passages/codec';
import { dumpStore, storeProblems } from '../e2e/consistency';
import { servePages, sleep, type Site } from '../e2e/harness';

const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const EXTENSION_DIR = resolve(process.env.DOPPEL_FIREFOX_EXTENSION_DIR ?? '.output/firefox-mv2');
const PAGES = fileURLToPath(new URL('../e2e/pages/', import.meta.url));
/** The add-on id, from the manifest's browser_specific_settings.gecko.id. */
const ADDON_ID = 'doppel@doppel.invalid';
/** Fixed moz-extension host for the add-on (any UUID will do; fixed so the popup URL is known). */
const UUID = '5f1c3b2a-8d4e-4f60-9a7b-0d0e1f2a3b4c';

type PopupState = 'loading' | 'ready' | 'unknown' | 'not-article' | 'excluded' | 'paused' | 'unsupported' | 'error';

let original: Site;
let republisher: Site;
let browser: Browser;
/** The tab pages are visited in. */
let tab: Page;
/** The tab the popup is opened in. */
let popup: Page;
/** Uncaught errors of visited pages, as "URL: message". */
const pageErrors: string[] = [];
/** Dialogs (alert, confirm, prompt) any page showed; each was dismissed. */
const dialogs: string[] = [];
/** Where Firefox saves downloads (the history page's export), set by the prefs below. */
const downloads = mkdtempSync(join(tmpdir(), 'doppel-firefox-downloads-'));

const url = {
  original: () => original.url('/news/2024/ferry-returns.html'),
  unrelatedOriginal: () => original.url('/culture/repair-cafe.html'),
  verbatim: () => republisher.url('/stories/ferry-service-back.html'),
  edited: () => republisher.url('/stories/skellan-ferry-linnet.html'),
  unrelatedRepublisher: () => republisher.url('/stories/second-hand-bicycle.html'),
};

const sorted = (xs: string[]): string[] => [...xs].sort();

/** `n` makes every opening a distinct URL, so a fresh document is told from the previous one. */
function popupUrl(address: string, n: number): string {
  return `moz-extension://${UUID}/popup.html?url=${encodeURIComponent(address)}&e2e=${n}`;
}

/** puppeteer's BiDi frame exposes its browsingContext (not in the public Frame type). */
interface BidiFrameLike {
  browsingContext: { navigate(url: string, wait?: 'none' | 'interactive' | 'complete'): Promise<void> };
}

let openings = 0;

/**
 * Opens the popup for `address` in the popup tab; resolves with its settled state (or the last
 * seen: null while the new document is not yet there). Polled with page.evaluate, which checks
 * that the document is the one just opened: waitForFunction's poller is built with Function(),
 * which the extension page's CSP blocks.
 */
async function openPopup(address: string, settleMs = 5_000): Promise<PopupState | null> {
  const target = popupUrl(address, ++openings);
  // page.goto would wait for BiDi navigation events that extension pages never send.
  await (popup.mainFrame() as unknown as BidiFrameLike).browsingContext.navigate(target, 'none');
  const deadline = Date.now() + settleMs;
  for (;;) {
    const state = await popup
      .evaluate((t: string) => (location.href === t ? (document.querySelector('[data-state]')?.getAttribute('data-state') ?? null) : null), target)
      .catch(() => null); // the document is being replaced
    if ((state !== null && state !== 'loading') || Date.now() > deadline) return state as PopupState | null;
    await sleep(50);
  }
}

/** The hrefs (resolved, as `a.href`) of the links in the popup's #matches. */
function matchLinks(): Promise<string[]> {
  return popup.$$eval('#matches a[href]', (els) => els.map((el) => (el as HTMLAnchorElement).href));
}

/**
 * Re-opens the popup for `address` until it shows `expected` (recording is asynchronous: the
 * content script reads the page at document idle, then messages the background page). Returns
 * the sorted hrefs of `#matches a[href]`; the popup tab is left on that report.
 */
async function waitForPopupState(address: string, expected: PopupState, timeout = 20_000): Promise<string[]> {
  const deadline = Date.now() + timeout;
  let seen: PopupState | null = null;
  for (;;) {
    seen = await openPopup(address);
    if (seen === expected) return sorted(await matchLinks());
    if (Date.now() > deadline) {
      throw new Error(`popup for ${address}: expected data-state="${expected}" within ${timeout} ms, last saw ${seen === null ? 'no settled [data-state]' : `"${seen}"`}`);
    }
    await sleep(250);
  }
}

/**
 * Waits until `selector` matches in `page`. Polled with page.evaluate: waitForFunction's poller
 * is built with Function(), which an extension page's CSP blocks.
 */
async function waitFor(page: Page, selector: string, timeout = 20_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await page.evaluate((s: string) => document.querySelector(s) !== null, selector).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${page.url()}: nothing matched ${selector} within ${timeout} ms`);
    await sleep(50);
  }
}

/** Opens an extension page in `page` (navigated without waiting, as the popup is) and waits for `selector`. */
async function openExtensionPage(page: Page, path: string, selector: string): Promise<void> {
  await (page.mainFrame() as unknown as BidiFrameLike).browsingContext.navigate(`moz-extension://${UUID}/${path}`, 'none');
  await waitFor(page, selector);
}

/** Visits `address` in the page tab and waits until the extension has recorded it. */
async function record(address: string): Promise<string[]> {
  await tab.goto(address, { waitUntil: 'load' });
  return waitForPopupState(address, 'ready');
}

beforeAll(async () => {
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) {
    throw new Error(`No extension at ${EXTENSION_DIR} (no manifest.json): run \`npm run build:firefox\` first.`);
  }
  if (!existsSync(FIREFOX_PATH)) {
    throw new Error(`No Firefox at ${FIREFOX_PATH}: run \`bash scripts/install-firefox.sh\` (or set FIREFOX_PATH).`);
  }
  original = await servePages(`${PAGES}original`);
  republisher = await servePages(`${PAGES}republisher`);
  browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    timeout: 60_000,
    args: ['--remote-allow-system-access'],
    extraPrefsFirefox: {
      'extensions.webextensions.uuids': JSON.stringify({ [ADDON_ID]: UUID }),
      // downloads go to a folder of the test's own, without asking
      'browser.download.folderList': 2,
      'browser.download.dir': downloads,
      'browser.download.useDownloadDir': true,
      'browser.download.always_ask_before_handling_new_types': false,
    },
  });
  const id = await browser.installExtension(EXTENSION_DIR);
  expect(id).toBe(ADDON_ID);
  tab = await browser.newPage();
  tab.on('pageerror', (error) => pageErrors.push(`${tab.url()}: ${(error as Error).message}`));
  tab.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  popup = await browser.newPage();
});

afterAll(async () => {
  if (pageErrors.length) console.warn(`page errors during the Firefox e2e run:\n${pageErrors.join('\n')}`);
  await browser?.close().catch(() => {});
  await original?.close();
  await republisher?.close();
  rmSync(downloads, { recursive: true, force: true });
});

describe('Doppel in Firefox', () => {
  test('the extension runs on the test sites: the original is recorded with no near-duplicates', async () => {
    expect(await record(url.original())).toEqual([]);
  });

  test('copies list the original among their near-duplicates', async () => {
    const verbatim = await record(url.verbatim());
    expect(verbatim).toContain(url.original());
    expect(verbatim).toEqual([url.original()]);

    const edited = await record(url.edited());
    expect(edited).toContain(url.original());
    expect(edited).toEqual(sorted([url.original(), url.verbatim()]));
  });

  test("the original's popup lists both copies", async () => {
    expect(await waitForPopupState(url.original(), 'ready')).toEqual(sorted([url.verbatim(), url.edited()]));
    // #matches holds the near-duplicates' links and nothing else.
    expect(await popup.$$eval('#matches a', (els) => els.length)).toBe(2);
  });

  test('unrelated pages are recorded with no near-duplicates', async () => {
    for (const address of [url.unrelatedRepublisher(), url.unrelatedOriginal()]) {
      expect(await record(address), address).toEqual([]);
      expect(await popup.$$eval('#matches a', (els) => els.length), `links in #matches for ${address}`).toBe(0);
    }
    // …and they do not show up among the original's near-duplicates either.
    expect(await waitForPopupState(url.original(), 'ready')).toEqual(sorted([url.verbatim(), url.edited()]));
  });

  test('a page never visited is unknown', async () => {
    expect(await openPopup(original.url('/news/2024/never-visited.html'))).toBe('unknown');
    expect(await popup.$$eval('#matches a', (els) => els.length)).toBe(0);
    expect(await openPopup(republisher.url('/stories/not-here-either.html'))).toBe('unknown');
    expect(dialogs).toEqual([]);
  });

  test('Export downloads the history; after "Forget everything", importing that file brings it back (a round trip)', async () => {
    const visited = [url.original(), url.verbatim(), url.edited(), url.unrelatedRepublisher(), url.unrelatedOriginal()];
    const history = await browser.newPage();
    await openExtensionPage(history, 'history.html', '#list[data-state="ready"]');
    // the store as Firefox keeps it is whole (test/e2e/consistency.ts: blocks, trees, counts), read from the history page
    const storeOf = () => dumpStore(history as unknown as Parameters<typeof dumpStore>[0]);
    const before = await storeOf();
    expect(storeProblems(before)).toEqual([]);
    expect(sorted(before.records.map((r) => r.url))).toEqual(sorted(visited));

    await history.click('#export');
    await waitFor(history, '#export[data-state="done"]');
    expect(await history.$eval('#export-status', (el) => el.textContent)).toBe('Exported 5 pages.');
    // the file Firefox saved (a .part file until the download completes)
    const deadline = Date.now() + 20_000;
    let saved: string[] = [];
    while (Date.now() < deadline) {
      const files = readdirSync(downloads);
      saved = files.filter((f) => /^doppel-history-\d{4}-\d{2}-\d{2}\.ndjson$/.test(f));
      if (saved.length === 1 && !files.some((f) => f.endsWith('.part'))) break;
      await sleep(100);
    }
    expect(saved).toHaveLength(1);
    const exported = join(downloads, saved[0]!);
    const lines = readFileSync(exported, 'utf8').split('\n');
    expect(lines.at(-1)).toBe(''); // ends with a newline
    const [header, ...pages] = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(header).toMatchObject({ format: 'doppel', version: 1, pages: 5, k: 3, passages: { k: 5, w: 26 } });
    expect(sorted(pages.map((p) => p['url'] as string))).toEqual(sorted(visited));
    for (const page of pages) {
      // no page text: the passage fingerprints are hashes and word positions, in base64
      expect(Object.keys(page).sort()).toEqual(['check', 'firstSeen', 'lastSeen', 'passages', 'simhash', 'site', 'title', 'url', 'visits']);
      expect(decodePassageBytes(base64ToBytes(page['passages'] as string)).fingerprints.hashes.length).toBeGreaterThan(0);
    }

    await history.click('#clear-all');
    await waitFor(history, '#clear-dialog[open]');
    await history.click('#clear-confirm');
    await waitFor(history, '#list[data-state="empty"]');
    for (const address of visited) expect(await waitForPopupState(address, 'unknown'), address).toEqual([]);

    const input = await history.$('#import-file');
    await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(exported);
    await waitFor(history, '#import:enabled');
    await history.click('#import');
    await waitFor(history, '#import-form[data-state="done"], #import-form[data-state="failed"]', 30_000);
    expect(await history.$eval('#import-form', (el) => el.getAttribute('data-state'))).toBe('done');
    expect(await history.$eval('#import-summary', (el) => el.textContent)).toMatch(/^5 pages added, 0 merged/);

    // the same history: every page known again, with the same near-duplicates as before the clear
    expect(await waitForPopupState(url.original(), 'ready')).toEqual(sorted([url.verbatim(), url.edited()]));
    expect(await waitForPopupState(url.verbatim(), 'ready')).toEqual(sorted([url.original(), url.edited()]));
    for (const address of [url.unrelatedRepublisher(), url.unrelatedOriginal()]) expect(await waitForPopupState(address, 'ready'), address).toEqual([]);
    const after = await storeOf();
    expect(storeProblems(after)).toEqual([]);
    expect(sorted(after.records.map((r) => r.url))).toEqual(sorted(visited));
    await history.close();
    expect(dialogs).toEqual([]);
  });
});
