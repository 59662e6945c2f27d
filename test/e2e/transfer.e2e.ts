// Export and import through the history page (history.html), end to end in Chromium: pages
// visited in one browser profile are exported to a file, and the file is imported into a fresh
// profile, where the popup then knows the pages and their near-duplicates.
//
// Pages (test/e2e/pages/, see extension.e2e.ts): the original ferry article, its verbatim copy on
// the republisher's site, and an unrelated article.
import type { Page } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { base64ToBytes, decodePassageBytes } from '../../lib/fingerprint/passage-codec';
import { decodeRewriteBytes } from '../../lib/fingerprint/rewrite-codec';
import { EXTENSION_DIR, type ExtensionSession, launchWithExtension, type Session, type Site, sleep, startSession, visit, waitForPopupState } from './harness';


let original: Site;
let republisher: Site;
let ext: ExtensionSession | undefined;
let dir: string;
/** The exported file, saved by the first test. */
let exported: string;

const url = {
  original: () => original.url('/news/2024/ferry-returns.html'),
  verbatim: () => republisher.url('/stories/ferry-service-back.html'),
  unrelated: () => original.url('/culture/repair-cafe.html'),
};
const sorted = (xs: string[]): string[] => [...xs].sort();

async function openHistory(session: ExtensionSession): Promise<Page> {
  const page = await session.ctx.newPage();
  await page.goto(`chrome-extension://${session.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
  return page;
}

/** Imports `file` through the page's file input; returns the summary line and the listed rejections. */
async function importFile(page: Page, file: string): Promise<{ state: string; summary: string; error: string; rejected: string[] }> {
  await page.locator('#import-file').setInputFiles(file);
  await expect.poll(() => page.locator('#import').isEnabled()).toBe(true);
  await page.locator('#import').click();
  await page.waitForFunction(() => {
    const state = document.getElementById('import-form')?.dataset['state'];
    return state === 'done' || state === 'failed';
  });
  return {
    state: (await page.locator('#import-form').getAttribute('data-state')) ?? '',
    summary: (await page.locator('#import-summary').textContent()) ?? '',
    error: (await page.locator('#import-error').textContent()) ?? '',
    rejected: await page.locator('#rejected-lines li').allTextContents(),
  };
}

async function closeSession(): Promise<void> {
  const session = ext;
  ext = undefined;
  if (session?.pageErrors.length) console.warn(`page errors:\n${session.pageErrors.join('\n')}`);
  expect(session?.pageErrors ?? []).toEqual([]);
  await session?.close();
}

let sites: Session<'original' | 'republisher'>;

beforeAll(async () => {
  sites = await startSession({ original: 'original', republisher: 'republisher' }, { launch: false });
  ({ original, republisher } = sites.sites);
  dir = mkdtempSync(join(tmpdir(), 'doppel-transfer-'));
});

afterAll(async () => {
  await ext?.close();
  await sites?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('export and import in Chromium', () => {
  test('the popup links to the history page, outside its list of matches', async () => {
    ext = await launchWithExtension(EXTENSION_DIR);
    const popup = await ext.ctx.newPage();
    await waitForPopupState(popup, original.url('/news/2024/never-visited.html'), 'unknown');
    const link = popup.locator('#history-link');
    expect(await link.textContent()).toBe('History and data');
    expect(await link.evaluate((a) => (a as HTMLAnchorElement).href)).toBe(`chrome-extension://${ext.extensionId}/history.html`);
    expect(await popup.locator('#matches #history-link').count()).toBe(0);
    const [opened] = await Promise.all([ext.ctx.waitForEvent('page', { timeout: 10_000 }), link.focus().then(() => popup.keyboard.press('Enter'))]);
    await opened.waitForLoadState('domcontentloaded');
    expect(opened.url()).toBe(`chrome-extension://${ext.extensionId}/history.html`);
    expect(await opened.locator('h2').allTextContents()).toEqual(['Reading history', 'Sites that copy', 'Settings', 'Your data']);
    await opened.close();
    await popup.close();
  });

  test('Export downloads a header line and one line per visited page, without text', async () => {
    ext ??= await launchWithExtension(EXTENSION_DIR);
    const popup = await ext.ctx.newPage();
    for (const address of [url.original(), url.verbatim(), url.unrelated()]) {
      const tab = await ext.ctx.newPage();
      await visit(tab, address);
      await waitForPopupState(popup, address, 'ready');
      await tab.close();
    }
    expect(sorted(await waitForPopupState(popup, url.verbatim(), 'ready'))).toEqual([url.original()]);

    const history = await openHistory(ext);
    const [download] = await Promise.all([history.waitForEvent('download'), history.locator('#export').click()]);
    expect(download.suggestedFilename()).toMatch(/^doppel-history-\d{4}-\d{2}-\d{2}\.ndjson$/);
    exported = join(dir, download.suggestedFilename());
    await download.saveAs(exported);
    await expect.poll(() => history.locator('#export-status').textContent()).toBe('Exported 3 pages.');

    const lines = readFileSync(exported, 'utf8').split('\n');
    expect(lines.at(-1)).toBe(''); // ends with a newline
    const [header, ...pages] = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(header).toMatchObject({ format: 'doppel', version: 1, pages: 3, k: 3, passages: { k: 5, w: 26, bytes: 2 }, rewrites: { scheme: 1, bits: 20, cap: 64 } });
    expect(pages).toHaveLength(3);
    expect(sorted(pages.map((p) => p['url'] as string))).toEqual(sorted([url.original(), url.verbatim(), url.unrelated()]));
    // what each page says of itself: the original and the unrelated article date their byline, the republisher does not
    const publishedOf = new Map([
      [url.original(), '2024-03-14T00:00:00.000Z'],
      [url.unrelated(), '2024-03-11T00:00:00.000Z'],
    ]);
    for (const page of pages) {
      expect(page).not.toHaveProperty('text'); // Doppel keeps no page text
      const published = publishedOf.get(page['url'] as string);
      const keys = ['check', 'firstSeen', 'lastSeen', 'passages', 'rewrites', 'simhash', 'site', 'title', 'url', 'visits', ...(published === undefined ? [] : ['published'])];
      expect(Object.keys(page).sort()).toEqual(keys.sort());
      expect(page['published']).toBe(published);
      // rewrite fingerprints: hashes of pairs of rare words, never words
      expect(decodeRewriteBytes(base64ToBytes(page['rewrites'] as string)).hashes.length).toBeLessThanOrEqual(64);
      // passage fingerprints (hashes and word positions), never words
      const fingerprints = decodePassageBytes(base64ToBytes(page['passages'] as string));
      expect(fingerprints.hashes.length).toBeGreaterThan(10);
      expect(fingerprints.hashes.length).toBe(fingerprints.positions.length);
      expect(page['simhash']).toMatch(/^[0-9a-f]{16}$/);
      expect(page['check']).toMatch(/^[0-9a-f]{16}$/);
    }
    await closeSession();
  });

  test('importing the file into a fresh profile adds the pages, and the popup knows them', async () => {
    expect(exported, 'the export test ran').toBeTruthy();
    await ext?.close(); // the export test's profile, if it failed before closing it
    ext = await launchWithExtension(EXTENSION_DIR); // a fresh profile
    const popup = await ext.ctx.newPage();
    await waitForPopupState(popup, url.verbatim(), 'unknown');

    const history = await openHistory(ext);
    expect(await importFile(history, exported)).toEqual({
      state: 'done',
      summary: '3 pages added, 0 merged, 0 unchanged, 0 lines rejected.',
      error: '',
      rejected: [],
    });
    expect(sorted(await waitForPopupState(popup, url.verbatim(), 'ready'))).toEqual([url.original()]);
    expect(sorted(await waitForPopupState(popup, url.original(), 'ready'))).toEqual([url.verbatim()]);
    expect(await waitForPopupState(popup, url.unrelated(), 'ready')).toEqual([]);

    // the same file again: nothing new
    expect((await importFile(history, exported)).summary).toBe('0 pages added, 0 merged, 3 unchanged, 0 lines rejected.');
  });

  test('an import made while scrolled down to the form reads the list only as far as the viewport needs', async () => {
    // A page whose list end is above the viewport must not read on: with scroll anchoring the
    // end stays above, and the page once read the whole history after every import (at a
    // million pages, a gigabyte of entries in the page and its main thread busy for minutes).
    ext ??= await launchWithExtension(EXTENSION_DIR);
    const lines = (from: number, count: number): string[] =>
      Array.from({ length: count }, (_, i) => {
        const n = from + i;
        // distinct simhashes far apart: every page is its own article, its own entry
        const simhash = (BigInt(n + 1) * 0x9e3779b97f4a7c15n & 0xffffffffffffffffn).toString(16).padStart(16, '0');
        return JSON.stringify({ url: `https://scroll.example/articles/${n}.html`, title: `Article number ${n}`, simhash, check: null, visits: 1 });
      });
    const header = JSON.stringify({ format: 'doppel', version: 1 });
    const first = join(dir, 'scroll-first.ndjson');
    const second = join(dir, 'scroll-second.ndjson');
    writeFileSync(first, [header, ...lines(0, 400), ''].join('\n'));
    writeFileSync(second, [header, ...lines(400, 400), ''].join('\n'));
    const history = await openHistory(ext);
    expect((await importFile(history, first)).summary).toBe('400 pages added, 0 merged, 0 unchanged, 0 lines rejected.');
    const chunks = (): Promise<number> => history.locator('#list .chunk').count();
    await expect.poll(chunks).toBeGreaterThan(0);

    await history.locator('#import-form').scrollIntoViewIfNeeded();
    const listEndAbove = (): Promise<boolean> => history.evaluate(() => document.getElementById('list-end')!.getBoundingClientRect().bottom < 0);
    expect(await listEndAbove()).toBe(true);
    expect((await importFile(history, second)).summary).toBe('400 pages added, 0 merged, 0 unchanged, 0 lines rejected.');
    await history.locator('#list[data-state="ready"]').waitFor();
    await sleep(1000); // time for reads that should not happen
    // the list starts again after an import: its first chunk only
    expect(await chunks()).toBe(1);
    expect(await listEndAbove()).toBe(true);

    // scrolled back to the list, reading goes on as the end comes near
    const before = await chunks();
    await history.locator('#list-end').scrollIntoViewIfNeeded();
    await expect.poll(chunks).toBeGreaterThan(before);
    await closeSession();
  });

  test('bad lines are listed with their line numbers; the good ones are imported', async () => {
    ext ??= await launchWithExtension(EXTENSION_DIR);
    const header = readFileSync(exported, 'utf8').split('\n')[0]!;
    const page = (path: string, simhash: string): string =>
      JSON.stringify({ url: original.url(path), title: `Page ${path}`, simhash, check: null, visits: 1 });
    const file = join(dir, 'two-bad-lines.ndjson');
    writeFileSync(
      file,
      [
        header,
        page('/imported/one.html', '0123456789abcdef'),
        page('/imported/bad-simhash.html', 'xyz'),
        '{"url": "http://example.com/", "title": ', // cut off
        page('/imported/two.html', 'fedcba9876543210'),
        '',
      ].join('\n'),
    );
    const history = await openHistory(ext);
    const result = await importFile(history, file);
    expect(result.state).toBe('done');
    expect(result.summary).toBe('2 pages added, 0 merged, 0 unchanged, 2 lines rejected.');
    expect(result.rejected).toEqual(['line 3: simhash must be 16 hexadecimal digits', 'line 4: not valid JSON']);
    const popup = await ext.ctx.newPage();
    await waitForPopupState(popup, original.url('/imported/one.html'), 'ready');
    await waitForPopupState(popup, original.url('/imported/two.html'), 'ready');
    await waitForPopupState(popup, original.url('/imported/bad-simhash.html'), 'unknown');

    // not a Doppel export: nothing imported, said plainly
    const notExport = join(dir, 'not-an-export.ndjson');
    writeFileSync(notExport, `${page('/imported/three.html', '0000000000000000')}\n`);
    const refused = await importFile(history, notExport);
    expect(refused.state).toBe('failed');
    expect(refused.error).toBe('Nothing was imported: this file is not a Doppel export (its first line must be the export’s header).');
    await closeSession();
  });
});
