// Rewrites and translations in the browser, end to end in Chromium with the built extension: the
// tide-mill article of samples/ on its own site, a reworded version of it on a content farm and its
// Spanish translation on a third site, visited in that order. The translation's popup lists the
// original and the rewrite in #rewrites ("Looks like the Spanish translation of …"), with
// data-share; the badge counts them; the history page folds the rewrite and the translation into
// the original's entry, and its sites that copy count them as copies of the original; forgetting
// the original removes it from the lists, its entry (the translation, dated before the rewrite,
// heads what is left) and its
// fingerprints and postings from the store; an export carries the fingerprints, and after clearing
// everything (the rewrite stores emptied) and importing it, the translation lists both again and
// the history folds the three into one entry again.
import type { Page } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { badgeText, badgeTitle, countRewriteStores, EXTENSION_DIR, type ExtensionSession, launchWithExtension, pollFor, popupUrl, sleep, tabIdOf, visit, waitForPopupState } from './harness';
import { type TideMillSites, serveTideMill } from './tide-mill-sites';

let tideMill: TideMillSites;
let ext: ExtensionSession;
let dir: string;
let url: TideMillSites['url'];

beforeAll(async () => {
  tideMill = await serveTideMill();
  url = tideMill.url;
  ext = await launchWithExtension(EXTENSION_DIR);
  dir = mkdtempSync(join(tmpdir(), 'doppel-rewrites-'));
});

afterAll(async () => {
  if (ext?.pageErrors.length) console.warn(`page errors during the run:\n${ext.pageErrors.join('\n')}`);
  await ext?.close();
  await tideMill?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Listed {
  url: string;
  kind: string;
  share: number;
  text: string;
}

async function rewritesIn(popup: Page): Promise<Listed[]> {
  return popup.locator('#rewrites li.rewrite').evaluateAll((items) =>
    items.map((li) => {
      const el = li as HTMLElement;
      return { url: el.dataset['url'] ?? '', kind: el.dataset['kind'] ?? '', share: Number(el.dataset['share']), text: el.querySelector('.rewrite-line')?.textContent ?? '' };
    }),
  );
}

/** Opens the popup for `address` until it is ready and lists `count` rewrites (or 20 s pass). */
async function popupListing(popup: Page, address: string, count: number): Promise<Listed[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await waitForPopupState(popup, address, 'ready');
    const listed = await rewritesIn(popup);
    if (listed.length === count || Date.now() > deadline) return listed;
    await sleep(250);
  }
}

/** The history page's entries once its list is ready: each as its title's href, then its copies' hrefs. */
async function historyEntries(): Promise<string[][]> {
  const history = await ext.ctx.newPage();
  await history.goto(`chrome-extension://${ext.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
  await history.locator('#list[data-state="ready"]').waitFor({ timeout: 15_000 });
  const entries = await history.locator('#list article.entry').evaluateAll((els) =>
    els.map((el) => [el.querySelector('a.entry-title'), ...el.querySelectorAll('.copies a.copy-title')].map((a) => (a as HTMLAnchorElement).href)),
  );
  await history.close();
  return entries;
}

describe('rewrites and translations in the popup', () => {
  let popup: Page;
  let spanishTab: Page;

  test('the translation\'s popup lists the original and the rewrite as "the Spanish translation of"; the badge counts them', async () => {
    popup = await ext.ctx.newPage();
    const tab = await ext.ctx.newPage();
    await visit(tab, url.original());
    await waitForPopupState(popup, url.original(), 'ready');
    await visit(tab, url.rewrite());
    await waitForPopupState(popup, url.rewrite(), 'ready');
    spanishTab = await ext.ctx.newPage();
    await visit(spanishTab, url.spanish());

    const listed = await popupListing(popup, url.spanish(), 2);
    expect(listed.map((r) => r.url).sort()).toEqual([url.original(), url.rewrite()].sort());
    for (const r of listed) {
      expect(r.kind).toBe('translationOf');
      expect(r.share).toBeGreaterThanOrEqual(0.3);
      // the original of the three carries its tag: the translation credits it
      const tag = r.url === url.original() ? ' Original · named as the source by this page' : '';
      expect(r.text).toMatch(new RegExp(`^Looks like the Spanish translation of .+, which you read on .+ \\(127\\.0\\.0\\.1:\\d+\\)${tag}$`));
    }
    expect(await popup.locator('#rewrites-section').isVisible()).toBe(true);
    expect(await popup.locator('#matches-section').isHidden()).toBe(true);
    expect(await popup.locator('#passages-section').isHidden()).toBe(true);
    expect(await popup.locator('#status-text').textContent()).toBe('You have read this story before, in other words.');
    // keyboard: the entries' links are reachable and name the pages
    expect(await popup.locator('#rewrites a.title').count()).toBe(2);

    const rewrite = await popupListing(popup, url.rewrite(), 2);
    const ofOriginal = rewrite.find((r) => r.url === url.original())!;
    expect(ofOriginal.kind).toBe('rewriteOf');
    expect(ofOriginal.text).toMatch(/^Looks like a rewrite of /);
    expect(rewrite.find((r) => r.url === url.spanish())!.kind).toBe('translatedAs');

    const worker = await ext.getWorker();
    const spanishTabId = await tabIdOf(worker, spanishTab);
    expect(await pollFor(() => badgeText(worker, spanishTabId), '2')).toBe('2');
    expect(await badgeTitle(worker, spanishTabId)).toBe('Doppel: 2 pages you have read tell the same story as this one in other words');
  });

  test('the sites that copy count the rewrite and the translation as copies, each shown beside the original', async () => {
    const history = await ext.ctx.newPage();
    await history.goto(`chrome-extension://${ext.extensionId}/history.html#sites`, { waitUntil: 'domcontentloaded' });
    await history.locator('#site-list[data-state="ready"]').waitFor({ timeout: 15_000 });
    expect(await history.locator('#site-rule').textContent()).toContain('or when it looks like a rewrite or translation of one.');
    const rowOf = (address: string) => history.locator(`#site-list tr[data-site="${new URL(address).host}"]`);
    // pages, copies, their share; the original's site has no copy and is not listed
    expect(await rowOf(url.original()).count()).toBe(0);
    // the rewrite names no source; the translation credits the original's article in its last line
    for (const [address, kind, words, flag] of [
      [url.rewrite(), 'rewrite', ' looks like a rewrite of ', 'copies'],
      [url.spanish(), 'translation', ' looks like the Spanish translation of ', 'credited'],
    ] as const) {
      const row = rowOf(address);
      expect(await row.getAttribute('data-flag')).toBe(flag);
      expect((await row.locator('td.num').allTextContents()).slice(0, 3)).toEqual(['1', '1', '100%']);
      await row.getByRole('button', { name: 'Show 1 copy' }).click();
      const evidence = history.locator(`li[data-copy="${address}"]`);
      await evidence.waitFor();
      expect(await evidence.evaluate((li) => [(li as HTMLElement).dataset['original'], (li as HTMLElement).dataset['rewrite']])).toEqual([url.original(), kind]);
      expect(await evidence.textContent()).toContain(words);
    }
    await history.close();
  });

  test('the history page folds the rewrite and the translation into the original\'s entry', async () => {
    expect(await historyEntries()).toEqual([[url.original(), url.rewrite(), url.spanish()]]);
  });

  test('"Show the shared names on the page" marks the rare words the translation shares, by keyboard, with the markup unchanged; a second press clears them', async () => {
    const before = await spanishTab.evaluate(() => document.documentElement.outerHTML);
    const tabId = await tabIdOf(await ext.getWorker(), spanishTab);
    const marking = await ext.ctx.newPage();
    await marking.goto(`${popupUrl(ext.extensionId, url.spanish())}&tab=${tabId}`, { waitUntil: 'domcontentloaded' });
    await marking.waitForSelector('#report[data-state="ready"]');
    const button = marking.locator('#show-rewrites');
    await expect.poll(() => marking.locator('#rewrites-section').getAttribute('data-marks')).toBe('none');
    expect(await button.textContent()).toBe('Show the shared names on the page');
    await button.focus();
    await marking.keyboard.press('Enter');
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('true');
    const marked = await spanishTab.evaluate(() => ({
      names: [...CSS.highlights.keys()],
      texts: [...(CSS.highlights.get('doppel-rewrite') ?? [])].map((r) => (r as Range).toString()),
    }));
    expect(marked.names).toEqual(['doppel-rewrite']);
    expect(marked.texts.length).toBeGreaterThanOrEqual(3);
    // each mark is a name, a number or a date of the article, e.g. "Wrenmouth", "1793", "1,4 millones", "abril"
    const month = '(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre)';
    const rareWord = new RegExp(`^(?:\\p{Lu}[\\p{L}'’-]*(?: \\p{Lu}[\\p{L}'’-]*)*|[\\d.,]+(?: (?:mil|millones|millón))?|(?:\\d+ de )?${month})$`, 'u');
    for (const text of marked.texts) expect(text, text).toMatch(rareWord);
    expect(await marking.locator('#rewrites-status').textContent()).toMatch(/^Marked in \d+ places on the page\./);
    expect(await spanishTab.evaluate(() => document.documentElement.outerHTML)).toBe(before);
    await button.click();
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('false');
    expect(await spanishTab.evaluate(() => [...CSS.highlights.keys()])).toEqual([]);
    await marking.close();
  });

  test('forgetting the original removes it from the lists and its fingerprints from the store', async () => {
    const before = await popup.evaluate(countRewriteStores);
    expect(before[0]).toBeGreaterThan(0);
    expect(before[1]).toBeGreaterThan(0);
    await waitForPopupState(popup, url.original(), 'ready');
    await popup.locator('#forget').click();
    await waitForPopupState(popup, url.original(), 'unknown');
    const listed = await popupListing(popup, url.spanish(), 1);
    expect(listed.map((r) => r.url)).toEqual([url.rewrite()]);
    const worker = await ext.getWorker();
    const spanishTabId = await tabIdOf(worker, spanishTab);
    expect(await pollFor(() => badgeText(worker, spanishTabId), '1')).toBe('1');
    // the original's entry is gone; the translation and the rewrite stay one entry, led by the
    // translation: it says it was published two days before the rewrite says it was
    expect(await historyEntries()).toEqual([[url.spanish(), url.rewrite()]]);
  });

  test('an export carries the rewrite fingerprints; cleared and imported again, the translation lists both pages again', async () => {
    const tab = await ext.ctx.newPage();
    await visit(tab, url.original());
    await popupListing(popup, url.spanish(), 2);
    // read again, the original leads its entry again: the translation credits it, and it says it was published before the rewrite
    expect(await historyEntries()).toEqual([[url.original(), url.rewrite(), url.spanish()]]);
    const history = await ext.ctx.newPage();
    await history.goto(`chrome-extension://${ext.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
    const [download] = await Promise.all([history.waitForEvent('download'), history.locator('#export').click()]);
    const file = join(dir, 'export.ndjson');
    await download.saveAs(file);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!).rewrites).toEqual({ scheme: 1, bits: 20, cap: 64 });
    expect(lines.slice(1).map((l) => typeof JSON.parse(l).rewrites)).toEqual(['string', 'string', 'string']);
    // fingerprints, never words: no sentence of the article is in the file
    expect(lines.join('\n')).not.toContain('watched a wooden wheel');
    expect(lines.join('\n')).not.toContain('Tide mills were once common');

    await history.locator('#clear-all').click();
    await history.locator('#clear-confirm').click();
    await waitForPopupState(popup, url.spanish(), 'unknown');
    expect(await popup.evaluate(countRewriteStores)).toEqual([0, 0]);

    await history.locator('#import-file').setInputFiles(file);
    await expect.poll(() => history.locator('#import').isEnabled()).toBe(true);
    await history.locator('#import').click();
    await history.waitForFunction(() => document.getElementById('import-form')?.dataset['state'] === 'done', undefined, { timeout: 30_000 });
    const listed = await popupListing(popup, url.spanish(), 2);
    expect(listed.map((r) => r.url).sort()).toEqual([url.original(), url.rewrite()].sort());
    // organised after the import, the three are one entry again, under the original, though it was read again last
    expect(await historyEntries()).toEqual([[url.original(), url.rewrite(), url.spanish()]]);
    expect(ext.pageErrors).toEqual([]);
  });

  test('a German translation, nouns capitalised and numbers written the German way: its popup lists the original as "the German translation of", tagged as the source it credits', async () => {
    const tab = await ext.ctx.newPage();
    await visit(tab, url.german());
    const listed = await popupListing(popup, url.german(), 3);
    expect(listed.map((r) => r.url).sort()).toEqual([url.original(), url.rewrite(), url.spanish()].sort());
    const ofOriginal = listed.find((r) => r.url === url.original())!;
    expect(ofOriginal.kind).toBe('translationOf');
    expect(ofOriginal.share).toBeGreaterThanOrEqual(0.3);
    expect(ofOriginal.text).toMatch(/^Looks like the German translation of .+, which you read on .+ \(127\.0\.0\.1:\d+\) Original · named as the source by this page$/);
    expect(ext.pageErrors).toEqual([]);
  });
});
