// The Firefox e2e harness: Debian's firefox-esr driven over WebDriver BiDi with puppeteer-core,
// the extension installed from .output/firefox-mv2 as a temporary add-on. What the extension
// recorded is read back through its popup, opened as a tab at
// moz-extension://UUID/popup.html?url=<encoded URL>.
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
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { sleep } from '../e2e/harness';

const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const EXTENSION_DIR = resolve(process.env.DOPPEL_FIREFOX_EXTENSION_DIR ?? '.output/firefox-mv2');
/** The add-on id, from the manifest's browser_specific_settings.gecko.id. */
const ADDON_ID = 'doppel@doppel.invalid';
/** Fixed moz-extension host for the add-on (any UUID will do; fixed so the popup URL is known). */
const UUID = '5f1c3b2a-8d4e-4f60-9a7b-0d0e1f2a3b4c';

export type PopupState = 'loading' | 'ready' | 'unknown' | 'not-article' | 'excluded' | 'paused' | 'unsupported' | 'error';

export const sorted = (xs: string[]): string[] => [...xs].sort();

/** The URL of one of the extension's pages, e.g. `history.html`. */
export const extensionUrl = (path: string): string => `moz-extension://${UUID}/${path}`;

/** puppeteer's BiDi frame exposes its browsingContext (not in the public Frame type). */
interface BidiFrameLike {
  browsingContext: { navigate(url: string, wait?: 'none' | 'interactive' | 'complete'): Promise<void> };
}

/** Navigates `page` to `url` without waiting for navigation events (extension pages send none). */
export async function navigateNoWait(page: Page, url: string): Promise<void> {
  await (page.mainFrame() as unknown as BidiFrameLike).browsingContext.navigate(url, 'none');
}

/**
 * Polls `probe` every 50 ms until it gives something other than null, undefined or false, and
 * returns that; throws, saying `what`, after `timeout` ms. A probe that throws (the document is
 * being replaced) counts as not yet.
 */
export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeout = 20_000): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeout} ms`);
    await sleep(50);
  }
}

/**
 * Waits until `selector` matches in `page`. Polled with page.evaluate: waitForFunction's poller
 * is built with Function(), which an extension page's CSP blocks.
 */
export async function waitFor(page: Page, selector: string, timeout = 20_000): Promise<void> {
  await until(`${page.url()}: ${selector}`, () => page.evaluate((s: string) => document.querySelector(s) !== null, selector), timeout);
}

/** Opens an extension page in `page` (navigated without waiting, as the popup is) and waits for `selector`. */
export async function openExtensionPage(page: Page, path: string, selector: string): Promise<void> {
  await navigateNoWait(page, extensionUrl(path));
  await waitFor(page, selector);
}

/** "Forget everything" on the history page (#clear-all, then the dialog's #clear-confirm); resolves once the list is empty. */
export async function clearAll(history: Page): Promise<void> {
  await history.click('#clear-all');
  await waitFor(history, '#clear-dialog[open]');
  await history.click('#clear-confirm');
  await waitFor(history, '#list[data-state="empty"]');
}

/** Imports `file` on the history page (#import-file, #import); resolves with #import-summary once the form is done, throws if it failed. */
export async function importFile(history: Page, file: string): Promise<string> {
  const input = await history.$('#import-file');
  await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(file);
  await waitFor(history, '#import:enabled');
  await history.click('#import');
  await waitFor(history, '#import-form[data-state="done"], #import-form[data-state="failed"]', 30_000);
  const { state, summary, error } = await history.$eval('#import-form', (form) => ({
    state: form.getAttribute('data-state'),
    summary: form.querySelector('#import-summary')?.textContent ?? '',
    error: form.querySelector('#import-error')?.textContent ?? '',
  }));
  if (state !== 'done') throw new Error(`the import failed: ${error}`);
  return summary;
}

/** An export's lines, parsed: the header, then one object per page. Checks that the file ends with a newline. */
export function readExport(file: string): { header: Record<string, unknown>; pages: Record<string, unknown>[] } {
  const lines = readFileSync(file, 'utf8').split('\n');
  expect(lines.at(-1)).toBe(''); // ends with a newline
  const [header, ...pages] = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
  return { header: header!, pages };
}

export interface FirefoxSession {
  browser: Browser;
  /** The tab pages are visited in. */
  tab: Page;
  /** The tab the popup is opened in. */
  popup: Page;
  /** Another tab for pages, its errors and dialogs kept as the page tab's are. */
  newTab(): Promise<Page>;
  /** Uncaught errors of visited pages, as "URL: message". */
  pageErrors: string[];
  /** Dialogs (alert, confirm, prompt) any page showed; each was dismissed. */
  dialogs: string[];
  /** Where Firefox saves downloads (the history page's export), without asking. */
  downloads: string;
  /**
   * Opens the popup for `address` in the popup tab (with `&tab=<id>` when `tab` is given: the tab
   * it marks passages in); resolves with its settled state, or the last seen (null while the new
   * document is not yet there) after `settleMs`.
   */
  openPopup(address: string, options?: { tab?: number; settleMs?: number }): Promise<PopupState | null>;
  /**
   * Re-opens the popup for `address` until it shows `expected` (recording is asynchronous: the
   * content script reads the page at document idle, then messages the background page). Returns
   * the sorted hrefs of `#matches a[href]`; the popup tab is left on that report.
   */
  waitForPopupState(address: string, expected: PopupState, options?: { tab?: number; timeout?: number }): Promise<string[]>;
  /**
   * Clicks #export on the history page `history`; resolves with the path of the file Firefox
   * saved (a .part file until the download completes) once the button says done.
   */
  exportHistory(history: Page): Promise<string>;
  /** Visits `address` in `page` (default: the page tab) and waits until the extension has recorded it. */
  record(address: string, page?: Page): Promise<string[]>;
  close(): Promise<void>;
}

/** Launches firefox-esr with the built extension installed, a tab for pages and one for the popup. */
export async function launchFirefox(): Promise<FirefoxSession> {
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) {
    throw new Error(`No extension at ${EXTENSION_DIR} (no manifest.json): run \`npm run build:firefox\` first.`);
  }
  if (!existsSync(FIREFOX_PATH)) {
    throw new Error(`No Firefox at ${FIREFOX_PATH}: run \`bash scripts/install-firefox.sh\` (or set FIREFOX_PATH).`);
  }
  const downloads = mkdtempSync(join(tmpdir(), 'doppel-firefox-downloads-'));
  const browser = await puppeteer.launch({
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
  const pageErrors: string[] = [];
  const dialogs: string[] = [];
  const newTab = async (): Promise<Page> => {
    const page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${(error as Error).message}`));
    page.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      dialog.dismiss().catch(() => {});
    });
    return page;
  };
  const tab = await newTab();
  const popup = await browser.newPage();

  let openings = 0;
  /** `e2e=n` makes every opening a distinct URL, so a fresh document is told from the previous one. */
  const popupUrl = (address: string, tabId?: number): string =>
    extensionUrl(`popup.html?url=${encodeURIComponent(address)}${tabId === undefined ? '' : `&tab=${tabId}`}&e2e=${++openings}`);

  /** The hrefs (resolved, as `a.href`) of the links in the popup's #matches. */
  const matchLinks = (): Promise<string[]> => popup.$$eval('#matches a[href]', (els) => els.map((el) => (el as HTMLAnchorElement).href));

  const openPopup: FirefoxSession['openPopup'] = async (address, { tab: tabId, settleMs = 5_000 } = {}) => {
    const target = popupUrl(address, tabId);
    await navigateNoWait(popup, target);
    const deadline = Date.now() + settleMs;
    for (;;) {
      // checks that the document is the one just opened
      const state = await popup
        .evaluate((t: string) => (location.href === t ? (document.querySelector('[data-state]')?.getAttribute('data-state') ?? null) : null), target)
        .catch(() => null); // the document is being replaced
      if ((state !== null && state !== 'loading') || Date.now() > deadline) return state as PopupState | null;
      await sleep(50);
    }
  };

  const waitForPopupState: FirefoxSession['waitForPopupState'] = async (address, expected, { tab: tabId, timeout = 20_000 } = {}) => {
    const deadline = Date.now() + timeout;
    for (;;) {
      const seen = await openPopup(address, tabId === undefined ? {} : { tab: tabId });
      if (seen === expected) return sorted(await matchLinks());
      if (Date.now() > deadline) {
        throw new Error(`popup for ${address}: expected data-state="${expected}" within ${timeout} ms, last saw ${seen === null ? 'no settled [data-state]' : `"${seen}"`}`);
      }
      await sleep(250);
    }
  };

  return {
    browser,
    tab,
    popup,
    newTab,
    pageErrors,
    dialogs,
    downloads,
    openPopup,
    waitForPopupState,
    async exportHistory(history) {
      const earlier = new Set(readdirSync(downloads));
      await history.click('#export');
      await waitFor(history, '#export[data-state="done"]');
      const saved = await until('the exported file', async () => {
        const files = readdirSync(downloads).filter((f) => !earlier.has(f));
        const exported = files.filter((f) => /^doppel-history-\d{4}-\d{2}-\d{2}\.ndjson$/.test(f));
        return exported.length === 1 && !files.some((f) => f.endsWith('.part')) ? exported[0] : null;
      });
      return join(downloads, saved);
    },
    async record(address, page = tab) {
      try {
        await page.goto(address, { waitUntil: 'load' });
      } catch (error) {
        // Firefox has refused a local page's navigation once in a long run ("Address rejected"),
        // and loaded it when asked again: one more try for that error alone
        if (!String(error).includes('Address rejected')) throw error;
        await sleep(500);
        await page.goto(address, { waitUntil: 'load' });
      }
      return waitForPopupState(address, 'ready');
    },
    async close() {
      if (pageErrors.length) console.warn(`page errors during the Firefox e2e run:\n${pageErrors.join('\n')}`);
      await browser.close().catch(() => {});
      rmSync(downloads, { recursive: true, force: true });
    },
  };
}
