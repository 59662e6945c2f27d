// The Firefox build, end to end (harness.ts: firefox-esr driven over WebDriver BiDi with
// puppeteer-core, the extension installed from .output/firefox-mv2). Pages of two local "sites"
// are visited, and what the extension recorded is read back through its popup, opened as a tab.
//
// Sites (test/e2e/pages/, shared with the Chromium e2e):
//   original/     news/2024/ferry-returns.html        the original article
//                 culture/repair-cafe.html            unrelated article
//   republisher/  stories/ferry-service-back.html     verbatim copy, another template
//                 stories/skellan-ferry-linnet.html   credit line added, last paragraph cut
//                 stories/second-hand-bicycle.html    unrelated article
//
// The tests share one browser and run in order: later ones rely on pages visited by earlier ones.
import type { Page } from 'puppeteer-core';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { base64ToBytes, decodePassageBytes } from '../../lib/fingerprint/passage-codec';
import { decodeRewriteBytes } from '../../lib/fingerprint/rewrite-codec';
import { dumpStore, storeProblems } from '../e2e/consistency';
import { servePages, type Site } from '../e2e/harness';
import { type FirefoxSession, clearAll, importFile, launchFirefox, openExtensionPage, readExport, sorted } from './harness';

const PAGES = fileURLToPath(new URL('../e2e/pages/', import.meta.url));

let original: Site;
let republisher: Site;
let ff: FirefoxSession;
/** The popup tab (ff.popup). */
let popup: Page;

const url = {
  original: () => original.url('/news/2024/ferry-returns.html'),
  unrelatedOriginal: () => original.url('/culture/repair-cafe.html'),
  verbatim: () => republisher.url('/stories/ferry-service-back.html'),
  edited: () => republisher.url('/stories/skellan-ferry-linnet.html'),
  unrelatedRepublisher: () => republisher.url('/stories/second-hand-bicycle.html'),
};

beforeAll(async () => {
  original = await servePages(`${PAGES}original`);
  republisher = await servePages(`${PAGES}republisher`);
  ff = await launchFirefox();
  popup = ff.popup;
});

afterAll(async () => {
  await ff?.close();
  await original?.close();
  await republisher?.close();
});

describe('Doppel in Firefox', () => {
  test('the extension runs on the test sites: the original is recorded with no near-duplicates', async () => {
    expect(await ff.record(url.original())).toEqual([]);
  });

  test('copies list the original among their near-duplicates', async () => {
    const verbatim = await ff.record(url.verbatim());
    expect(verbatim).toContain(url.original());
    expect(verbatim).toEqual([url.original()]);

    const edited = await ff.record(url.edited());
    expect(edited).toContain(url.original());
    expect(edited).toEqual(sorted([url.original(), url.verbatim()]));
  });

  test("the original's popup lists both copies", async () => {
    expect(await ff.waitForPopupState(url.original(), 'ready')).toEqual(sorted([url.verbatim(), url.edited()]));
    // #matches holds the near-duplicates' links and nothing else.
    expect(await popup.$$eval('#matches a', (els) => els.length)).toBe(2);
  });

  test('unrelated pages are recorded with no near-duplicates', async () => {
    for (const address of [url.unrelatedRepublisher(), url.unrelatedOriginal()]) {
      expect(await ff.record(address), address).toEqual([]);
      expect(await popup.$$eval('#matches a', (els) => els.length), `links in #matches for ${address}`).toBe(0);
    }
    // …and they do not show up among the original's near-duplicates either.
    expect(await ff.waitForPopupState(url.original(), 'ready')).toEqual(sorted([url.verbatim(), url.edited()]));
  });

  test('a page never visited is unknown', async () => {
    expect(await ff.openPopup(original.url('/news/2024/never-visited.html'))).toBe('unknown');
    expect(await popup.$$eval('#matches a', (els) => els.length)).toBe(0);
    expect(await ff.openPopup(republisher.url('/stories/not-here-either.html'))).toBe('unknown');
    expect(ff.dialogs).toEqual([]);
  });

  test('Export downloads the history; after "Forget everything", importing that file brings it back (a round trip)', async () => {
    const visited = [url.original(), url.verbatim(), url.edited(), url.unrelatedRepublisher(), url.unrelatedOriginal()];
    const history = await ff.browser.newPage();
    await openExtensionPage(history, 'history.html', '#list[data-state="ready"]');
    // the store as Firefox keeps it is whole (test/e2e/consistency.ts: blocks, trees, counts), read from the history page
    const storeOf = () => dumpStore(history as unknown as Parameters<typeof dumpStore>[0]);
    const before = await storeOf();
    expect(storeProblems(before)).toEqual([]);
    expect(sorted(before.records.map((r) => r.url))).toEqual(sorted(visited));

    const exported = await ff.exportHistory(history);
    expect(await history.$eval('#export-status', (el) => el.textContent)).toBe('Exported 5 pages.');
    const { header, pages } = readExport(exported);
    expect(header).toMatchObject({ format: 'doppel', version: 1, pages: 5, k: 3, passages: { k: 5, w: 26, bytes: 2 }, rewrites: { scheme: 1, bits: 20, cap: 64 } });
    expect(sorted(pages.map((p) => p['url'] as string))).toEqual(sorted(visited));
    // what each page says of itself: the original site's articles date their byline, the republisher's do not
    const publishedOf = new Map([
      [url.original(), '2024-03-14T00:00:00.000Z'],
      [url.unrelatedOriginal(), '2024-03-11T00:00:00.000Z'],
    ]);
    for (const page of pages) {
      // no page text: the passage fingerprints are hashes and word positions, in base64
      const published = publishedOf.get(page['url'] as string);
      const keys = ['check', 'firstSeen', 'lastSeen', 'passages', 'rewrites', 'simhash', 'site', 'title', 'url', 'visits', ...(published === undefined ? [] : ['published'])];
      expect(Object.keys(page).sort()).toEqual(keys.sort());
      expect(page['published']).toBe(published);
      // rewrite fingerprints: hashes of pairs of rare words, never words
      expect(decodeRewriteBytes(base64ToBytes(page['rewrites'] as string)).hashes.length).toBeLessThanOrEqual(64);
      expect(decodePassageBytes(base64ToBytes(page['passages'] as string)).hashes.length).toBeGreaterThan(0);
    }

    await clearAll(history);
    for (const address of visited) expect(await ff.waitForPopupState(address, 'unknown'), address).toEqual([]);

    expect(await importFile(history, exported)).toMatch(/^5 pages added, 0 merged/);

    // the same history: every page known again, with the same near-duplicates as before the clear
    expect(await ff.waitForPopupState(url.original(), 'ready')).toEqual(sorted([url.verbatim(), url.edited()]));
    expect(await ff.waitForPopupState(url.verbatim(), 'ready')).toEqual(sorted([url.original(), url.edited()]));
    for (const address of [url.unrelatedRepublisher(), url.unrelatedOriginal()]) expect(await ff.waitForPopupState(address, 'ready'), address).toEqual([]);
    const after = await storeOf();
    expect(storeProblems(after)).toEqual([]);
    expect(sorted(after.records.map((r) => r.url))).toEqual(sorted(visited));
    await history.close();
    expect(ff.dialogs).toEqual([]);
  });
});
