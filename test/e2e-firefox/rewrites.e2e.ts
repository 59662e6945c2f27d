// Rewrites and translations in Firefox, end to end through the popup (harness.ts: firefox-esr, the
// built add-on); the Firefox twin of test/e2e/rewrites.e2e.ts. The tide-mill article of samples/ on
// its own site, a reworded version of it on a content farm and its Spanish translation on a third
// site, visited in that order. The translation's popup lists the original and the rewrite in
// #rewrites ("Looks like the Spanish translation of …"), with data-share, and the rewrite's lists
// the original as "a rewrite of"; forgetting the original removes it from the translation's list;
// the sites that copy count the rewrite and the translation as copies of the original;
// an export carries the rewrite fingerprints (no text), and after clearing everything (the rewrite
// stores emptied) and importing it, the translation lists both again.
// The badge of the translation's tab counts the two pages, and its title says so.
//
// The tests share one browser and run in order: each relies on what the ones before did.
import type { Page } from 'puppeteer-core';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { countRewriteStores, sleep } from '../e2e/harness';
import { type TideMillSites, serveTideMill } from '../e2e/tide-mill-sites';
import { type FirefoxSession, clearAll, importFile, launchFirefox, openExtensionPage, readExport, sorted, until } from './harness';

let tideMill: TideMillSites;
let url: TideMillSites['url'];
let ff: FirefoxSession;
/** The tab that keeps the Spanish translation open throughout. */
let spanishTab: Page;

interface Listed {
  url: string;
  kind: string;
  share: number;
  text: string;
}

/** What the popup (left on a report) lists under #rewrites. */
function rewritesIn(): Promise<Listed[]> {
  return ff.popup.$$eval('#rewrites li.rewrite', (items) =>
    items.map((li) => {
      const el = li as HTMLElement;
      return { url: el.dataset['url'] ?? '', kind: el.dataset['kind'] ?? '', share: Number(el.dataset['share']), text: el.querySelector('.rewrite-line')?.textContent ?? '' };
    }),
  );
}

/** Opens the popup for `address` until it is ready and lists `count` rewrites (or 20 s pass); the popup tab is left on that report. */
async function popupListing(address: string, count: number): Promise<Listed[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await ff.waitForPopupState(address, 'ready');
    const listed = await rewritesIn();
    if (listed.length === count || Date.now() > deadline) return listed;
    await sleep(250);
  }
}

/** Whether each of the popup's sections is shown: not [hidden], and rendered (checkVisibility). */
function sectionsShown(): Promise<Record<'rewrites' | 'matches' | 'passages', boolean>> {
  return ff.popup.evaluate(() => {
    const shown = (id: string): boolean => {
      const el = document.getElementById(id);
      return el !== null && !el.hidden && el.checkVisibility();
    };
    return { rewrites: shown('rewrites-section'), matches: shown('matches-section'), passages: shown('passages-section') };
  });
}


beforeAll(async () => {
  tideMill = await serveTideMill();
  url = tideMill.url;
  ff = await launchFirefox();
  spanishTab = await ff.newTab();
});

afterAll(async () => {
  await ff?.close();
  await tideMill?.close();
});

describe('rewrites and translations in Firefox', () => {
  test('the translation\'s popup lists the original and the rewrite as "the Spanish translation of"; the rewrite\'s lists the original as "a rewrite of"', async () => {
    await ff.record(url.original());
    await ff.record(url.rewrite());
    await ff.record(url.spanish(), spanishTab);

    const listed = await popupListing(url.spanish(), 2);
    expect(sorted(listed.map((r) => r.url))).toEqual(sorted([url.original(), url.rewrite()]));
    for (const r of listed) {
      expect(r.kind, r.url).toBe('translationOf');
      expect(r.share, r.url).toBeGreaterThanOrEqual(0.3);
      // the original of the three carries its tag: the translation credits it
      const tag = r.url === url.original() ? ' Original · named as the source by this page' : '';
      expect(r.text).toMatch(new RegExp(`^Looks like the Spanish translation of .+, which you read on .+ \\(127\\.0\\.0\\.1:\\d+\\)${tag}$`));
    }
    expect(await sectionsShown()).toEqual({ rewrites: true, matches: false, passages: false });
    expect(await ff.popup.$eval('#status-text', (el) => el.textContent)).toBe('You have read this story before, in other words.');
    // the entries' links are there and name the pages
    expect(await ff.popup.$$eval('#rewrites a.title', (els) => els.length)).toBe(2);

    const rewrite = await popupListing(url.rewrite(), 2);
    const ofOriginal = rewrite.find((r) => r.url === url.original());
    expect(ofOriginal?.kind).toBe('rewriteOf');
    expect(ofOriginal?.text).toMatch(/^Looks like a rewrite of /);
    expect(rewrite.find((r) => r.url === url.spanish())?.kind).toBe('translatedAs');

    // the badge of the translation's tab (its id as the popup page sees the active tab)
    await spanishTab.bringToFront();
    const badge = await ff.popup.evaluate(async () => {
      const { browser } = globalThis as unknown as { browser: { tabs: { query(q: object): Promise<{ id?: number }[]> }; browserAction: { getBadgeText(d: object): Promise<string>; getTitle(d: object): Promise<string> } } };
      const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
      return { text: await browser.browserAction.getBadgeText({ tabId: tab!.id }), title: await browser.browserAction.getTitle({ tabId: tab!.id }) };
    });
    expect(badge).toEqual({ text: '2', title: 'Doppel: 2 pages you have read tell the same story as this one in other words' });
  });

  test('the sites that copy count the rewrite and the translation as copies, each shown beside the original', async () => {
    const history = await ff.browser.newPage();
    await openExtensionPage(history, 'history.html#sites', '#site-list[data-state="ready"]');
    expect(await history.$eval('#site-rule', (el) => el.textContent)).toContain('or when it looks like a rewrite or translation of one.');
    const rowOf = (address: string): string => `#site-list tr[data-site="${new URL(address).host}"]`;
    // pages, copies, their share; the original's site has no copy and is not listed
    expect(await history.$$eval(rowOf(url.original()), (rows) => rows.length)).toBe(0);
    // the rewrite names no source; the translation credits the original's article in its last line
    for (const [address, kind, words, flag] of [
      [url.rewrite(), 'rewrite', ' looks like a rewrite of ', 'copies'],
      [url.spanish(), 'translation', ' looks like the Spanish translation of ', 'credited'],
    ] as const) {
      const row = rowOf(address);
      expect(await history.$eval(row, (tr) => tr.getAttribute('data-flag'))).toBe(flag);
      expect((await history.$$eval(`${row} td.num`, (cells) => cells.map((c) => c.textContent))).slice(0, 3)).toEqual(['1', '1', '100%']);
      const pressed = await history.$$eval(`${row} button`, (buttons) => {
        const show = buttons.find((b) => b.textContent === 'Show 1 copy') as HTMLButtonElement | undefined;
        show?.click();
        return show !== undefined;
      });
      expect(pressed, `${address}: a "Show 1 copy" button`).toBe(true);
      const evidence = await until(`the evidence of ${address}`, () => history.$(`li[data-copy="${address}"]`));
      expect(await evidence.evaluate((li) => [(li as HTMLElement).dataset['original'], (li as HTMLElement).dataset['rewrite'], li.textContent])).toEqual([url.original(), kind, expect.stringContaining(words)]);
    }
    await history.close();
  });

  test('forgetting the original removes it from the translation\'s list', async () => {
    const before = await ff.popup.evaluate(countRewriteStores);
    expect(before[0]).toBeGreaterThan(0);
    expect(before[1]).toBeGreaterThan(0);
    await ff.waitForPopupState(url.original(), 'ready');
    await ff.popup.bringToFront();
    await ff.popup.click('#forget');
    await until('the original forgotten', () => ff.popup.evaluate(() => document.querySelector('[data-state="unknown"]') !== null));
    expect(await ff.waitForPopupState(url.original(), 'unknown')).toEqual([]);

    const listed = await popupListing(url.spanish(), 1);
    expect(listed.map((r) => r.url)).toEqual([url.rewrite()]);
    // with the original gone the translation is the story's original, dated two days before the
    // rewrite: the rewrite is listed as translating it
    expect(listed[0]!.kind).toBe('translatedAs');
  });

  test('an export carries the rewrite fingerprints; cleared and imported again, the translation lists both pages again', async () => {
    // visited again after it was forgotten, the original is the story's original again (the
    // translation credits it), though read last: the translation lists it as 'translationOf'; and
    // the rewrite, read before the translation, as 'translationOf' too
    await ff.record(url.original());
    const kinds = (listed: Listed[]): Record<string, string> => Object.fromEntries(listed.map((r) => [r.url, r.kind]));
    const expected = { [url.original()]: 'translationOf', [url.rewrite()]: 'translationOf' };
    expect(kinds(await popupListing(url.spanish(), 2))).toEqual(expected);

    const history = await ff.browser.newPage();
    await openExtensionPage(history, 'history.html', '#list[data-state="ready"]');
    const exported = await ff.exportHistory(history);
    const { header, pages } = readExport(exported);
    expect(header['rewrites']).toEqual({ scheme: 1, bits: 20, cap: 64 });
    expect(sorted(pages.map((p) => p['url'] as string))).toEqual(sorted([url.original(), url.rewrite(), url.spanish()]));
    expect(pages.map((p) => typeof p['rewrites'])).toEqual(['string', 'string', 'string']);
    // fingerprints, never words: no sentence of the article is in the file
    const text = readFileSync(exported, 'utf8');
    expect(text).not.toContain('watched a wooden wheel');
    expect(text).not.toContain('Tide mills were once common');

    await clearAll(history);
    expect(await ff.waitForPopupState(url.spanish(), 'unknown')).toEqual([]);
    expect(await ff.popup.evaluate(countRewriteStores)).toEqual([0, 0]);

    expect(await importFile(history, exported)).toMatch(/^3 pages added, 0 merged/);
    // the import keeps when each page was first read: the same pages, the same kinds
    expect(kinds(await popupListing(url.spanish(), 2))).toEqual(expected);
    await history.close();
    expect(ff.pageErrors).toEqual([]);
    expect(ff.dialogs).toEqual([]);
  });

  test('a German translation: its popup lists the original as "the German translation of", tagged as the source it credits', async () => {
    await ff.record(url.german());
    const listed = await popupListing(url.german(), 3);
    expect(sorted(listed.map((r) => r.url))).toEqual(sorted([url.original(), url.rewrite(), url.spanish()]));
    const ofOriginal = listed.find((r) => r.url === url.original())!;
    expect(ofOriginal.kind).toBe('translationOf');
    expect(ofOriginal.text).toMatch(/^Looks like the German translation of .+, which you read on .+ \(127\.0\.0\.1:\d+\) Original · named as the source by this page$/);
    expect(ff.pageErrors).toEqual([]);
  });
});
