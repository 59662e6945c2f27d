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
//   waited for by polling its DOM (`waitForFunction` survives the document change).
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
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
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

/** Opens the popup for `address` in the popup tab; resolves with its settled state (or the last seen). */
async function openPopup(address: string, settleMs = 5_000): Promise<PopupState | null> {
  const target = popupUrl(address, ++openings);
  // page.goto would wait for BiDi navigation events that extension pages never send.
  await (popup.mainFrame() as unknown as BidiFrameLike).browsingContext.navigate(target, 'none');
  const handle = await popup
    .waitForFunction(
      (t: string) => {
        if (location.href !== t) return null;
        const state = document.querySelector('[data-state]')?.getAttribute('data-state');
        return state && state !== 'loading' ? state : null;
      },
      { timeout: settleMs, polling: 50 },
      target,
    )
    .catch(() => null);
  if (handle) return (await handle.jsonValue()) as PopupState;
  return popup.evaluate(() => document.querySelector('[data-state]')?.getAttribute('data-state') ?? null).catch(() => null) as Promise<PopupState | null>;
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
    extraPrefsFirefox: { 'extensions.webextensions.uuids': JSON.stringify({ [ADDON_ID]: UUID }) },
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
});
