// The history page end to end in Chromium with the built extension: an original site, two sites
// republishing its articles, and unrelated pages; then the groups, the site flags and their
// evidence, the popup's flag, search and filters, marks, forgetting, k and clearing all data.
//
// Sites: almanac (test/e2e/pages/almanac) publishes X (lighthouse logbooks), Y (winter bees) and
// Z (canal lock); the aggregator pages (test/e2e/pages/aggregator/copies) are served twice, on two
// ports, so they are two sites (URL.host includes the port): "copier A" copies X, "copier B" copies
// X and Y. The contract the tests rely on: history.html; each group of near-duplicates is an
// element with data-group holding one link per page; each flagged site is an element with
// data-site = its host and data-flag="copies".
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ExtensionSession, type Session, type Site, badgeText, getServiceWorker, pollFor, sleep, startSession, recordInTab, tabIdOf, visit, waitForPopupState } from './harness';


let session: Session<'almanac' | 'copierA' | 'copierB'>;
let almanac: Site;
let copierA: Site;
let copierB: Site;
let ext: ExtensionSession;
let popup: Page;
let history: Page;

const url = {
  x: () => almanac.url('/history/lighthouse-logbooks.html'),
  y: () => almanac.url('/nature/winter-bees.html'),
  z: () => almanac.url('/waterways/canal-lock.html'),
  xOnA: () => copierA.url('/copies/lighthouse-logbooks.html'),
  xOnB: () => copierB.url('/copies/lighthouse-logbooks.html'),
  yOnB: () => copierB.url('/copies/winter-bees.html'),
};
const host = (site: Site): string => new URL(site.origin).host;

/** Records `address` (in a tab of its own), after every page recorded before it. */
const record = (address: string): Promise<void> => recordInTab(ext.ctx, popup, address);

/** Opens (or reloads) history.html and waits for the list to settle. */
async function openHistory(): Promise<void> {
  await history.goto(`chrome-extension://${ext.extensionId}/history.html`);
  await history.locator('#list:is([data-state="ready"], [data-state="empty"])').waitFor({ timeout: 15_000 });
  await history.locator('#site-list[data-state="ready"]').waitFor({ timeout: 15_000 });
}

/** The groups on the page: each as the sorted hrefs of its links. */
async function groups(): Promise<string[][]> {
  return history.locator('[data-group]').evaluateAll((els) =>
    els.map((el) => [...el.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href).sort()),
  );
}

async function entryCount(): Promise<number> {
  return history.locator('#list .entry').count();
}

async function waitForList(check: () => Promise<boolean>, what: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`history page: ${what} did not happen within ${timeout} ms`);
    await sleep(100);
  }
}

beforeAll(async () => {
  session = await startSession({ almanac: 'almanac', copierA: 'aggregator', copierB: 'aggregator' });
  ({ almanac, copierA, copierB } = session.sites);
  ext = session.ext!;
  popup = await ext.ctx.newPage();
  for (const address of [url.x(), url.y(), url.z(), url.xOnA(), url.xOnB(), url.yOnB()]) await record(address);
  history = await ext.ctx.newPage();
  await openHistory();
});

afterAll(() => session?.close());

describe('history.html', () => {
  test('folds near-duplicates into one entry per article, newest first, the original as its title', async () => {
    expect(await groups()).toEqual([
      [url.y(), url.yOnB()].sort(), // Y's copy was the last page read
      [url.x(), url.xOnA(), url.xOnB()].sort(),
    ]);
    // Z stands alone, with no data-group
    expect(await history.locator('[data-page]').evaluateAll((els) => els.map((el) => el.getAttribute('data-page')))).toEqual([url.z()]);
    const xGroup = history.locator('[data-group]').nth(1);
    expect(await xGroup.locator('.entry-title').getAttribute('href')).toBe(url.x()); // earliest seen first
    expect(await xGroup.locator('.copies a').evaluateAll((els) => els.map((a) => (a as HTMLAnchorElement).href))).toEqual([url.xOnA(), url.xOnB()]);
    expect(await history.locator('#overview').textContent()).toBe('6 pages · 3 distinct articles · 2 articles met more than once.');
  });

  test('flags the sites that copy, with each copy beside the page it copies', async () => {
    const flagged = await history.locator('[data-flag="copies"]').evaluateAll((els) => els.map((el) => el.getAttribute('data-site')));
    expect(flagged.sort()).toEqual([host(copierA), host(copierB)].sort());
    expect(await history.locator(`[data-site="${host(almanac)}"][data-flag]`).count()).toBe(0);
    const rowB = history.locator(`tr[data-site="${host(copierB)}"]`);
    expect(await rowB.locator('td').allTextContents()).toEqual(expect.arrayContaining(['2', '2', '100%']));
    expect(await history.locator('#site-rule').textContent()).toContain('more than half of the pages');

    // evidence, one click away, by keyboard
    await rowB.getByRole('button', { name: 'Show 2 copies' }).focus();
    await history.keyboard.press('Enter');
    const evidence = history.locator('.evidence:not([hidden]) li');
    await evidence.first().waitFor();
    const pairs = await evidence.evaluateAll((els) => els.map((el) => [el.getAttribute('data-copy'), el.getAttribute('data-original')]));
    expect(pairs.sort()).toEqual([[url.xOnB(), url.x()], [url.yOnB(), url.y()]].sort());
    expect(await evidence.first().locator('time').count()).toBe(2); // the date each was first seen
  });

  test('the popup shows the flag for the page of a flagged site', async () => {
    await waitForPopupState(popup, url.yOnB(), 'ready');
    const flag = popup.locator('#site-flag');
    expect(await flag.isVisible()).toBe(true);
    expect(await flag.getAttribute('data-site')).toBe(host(copierB));
    expect(await flag.getAttribute('data-flag')).toBe('copies');
    expect(await flag.textContent()).toContain('2 of the 2 pages you read there are copies');
    await waitForPopupState(popup, url.x(), 'ready');
    expect(await popup.locator('#site-flag').isVisible()).toBe(false);
  });

  test('search by title, URL or site, and the filters', async () => {
    await history.locator('#search').fill('WINTER-bees'); // in the URLs, whatever the case
    await waitForList(async () => (await entryCount()) === 1, 'the search for "winter-bees"');
    expect(await groups()).toEqual([[url.y(), url.yOnB()].sort()]);
    await history.locator('#search').fill(host(copierA)); // by site: the whole group it is in
    await waitForList(async () => JSON.stringify(await groups()) === JSON.stringify([[url.x(), url.xOnA(), url.xOnB()].sort()]), 'the search by site');
    await history.locator('#search').fill('no such article anywhere');
    await history.locator('#list[data-state="empty"]').waitFor({ state: 'attached' });
    expect(await history.locator('#list-status').textContent()).toBe('Nothing you read matches this search.');
    await history.locator('#search').fill('');
    await history.locator('#has-copies').check();
    await waitForList(async () => (await entryCount()) === 2, 'the "met more than once" filter');
    expect(await history.locator('[data-page]').count()).toBe(0);
    await history.locator('#has-copies').uncheck();
    await history.locator('#from').fill('2000-01-01');
    await history.locator('#to').fill('2000-12-31');
    await history.locator('#to').dispatchEvent('change');
    await history.locator('#list[data-state="empty"]').waitFor({ state: 'attached' });
    await history.locator('#from').fill('');
    await history.locator('#to').fill('');
    await history.locator('#to').dispatchEvent('change');
    await waitForList(async () => (await entryCount()) === 3, 'the list without filters');
  });

  test('a site marked trusted is never flagged; a content farm always is', async () => {
    await history.locator(`tr[data-site="${host(copierA)}"] select`).selectOption('trusted');
    await history.locator(`tr[data-site="${host(copierA)}"]:not([data-flag])`).waitFor();
    expect(await history.locator(`tr[data-site="${host(copierA)}"] .flag-tag`).count()).toBe(0);
    await history.locator(`tr[data-site="${host(copierB)}"] select`).selectOption('farm');
    await history.locator(`tr[data-site="${host(copierB)}"] .flag-tag`, { hasText: 'content farm' }).waitFor();
    for (const site of [copierA, copierB]) await history.locator(`tr[data-site="${host(site)}"] select`).selectOption('');
    await history.locator(`tr[data-site="${host(copierA)}"][data-flag="copies"]`).waitFor();
  });

  test('forgetting a copy, then a whole article, removes their records and regroups; open tabs\' badges follow', async () => {
    // a tab left open on the copy on B: its badge counts the original and the copy on A
    const open = await ext.ctx.newPage();
    await visit(open, url.xOnB());
    const worker = await getServiceWorker(ext.ctx, ext.extensionId);
    const openTab = await tabIdOf(worker, open);
    expect(await pollFor(() => badgeText(worker, openTab), '2')).toBe('2');
    await openHistory();
    const xGroup = history.locator('[data-group]').filter({ has: history.locator(`a[href="${url.x()}"]`) });
    await xGroup.getByLabel(`Select the copy on ${host(copierA)}`).check();
    await history.locator('#forget-selected').click();
    expect(await history.locator('#forget-selected').textContent()).toBe('Forget 1 page? Click again');
    await history.locator('#forget-selected').click();
    const xLeft = JSON.stringify([url.x(), url.xOnB()].sort());
    await waitForList(async () => {
      const now = await groups(); // one reading: the list is redrawn after forgetting
      return now.some((g) => JSON.stringify(g) === xLeft) && !JSON.stringify(now).includes(url.xOnA());
    }, 'forgetting the copy');
    await waitForPopupState(popup, url.xOnA(), 'unknown'); // the record is gone
    expect(await pollFor(() => badgeText(worker, openTab), '1'), 'the open tab\'s badge after forgetting').toBe('1');
    await open.close();

    // the whole Y group at once
    const yGroup = history.locator('[data-group]').filter({ has: history.locator(`a[href="${url.y()}"]`) });
    await yGroup.locator('.entry-head > input.pick').check();
    expect(await history.locator('#selection-count').textContent()).toBe('2 pages selected.');
    await history.locator('#forget-selected').click();
    await history.locator('#forget-selected').click();
    await waitForList(async () => {
      const now = JSON.stringify(await groups());
      return now.includes(url.x()) && !now.includes(url.y());
    }, 'forgetting the Y group');
    await waitForPopupState(popup, url.y(), 'unknown');
    await waitForPopupState(popup, url.yOnB(), 'unknown');
    // copier B now has one page, a copy: still flagged; copier A has none left
    await history.locator(`tr[data-site="${host(copierB)}"][data-flag="copies"]`).waitFor();
    expect(await history.locator(`tr[data-site="${host(copierA)}"]`).count()).toBe(0);
  });

  test('k applies at once: at 0 bits only identical texts group, and back at 3 the group returns', async () => {
    const slider = history.locator('#k');
    await slider.fill('0');
    await history.locator('#k-status', { hasText: 'within 0 bits' }).waitFor({ timeout: 30_000 });
    expect(await history.locator('#k-value').textContent()).toBe('0');
    await waitForPopupState(popup, url.x(), 'ready');
    expect(await popup.locator('#matches-heading').textContent().catch(() => '')).not.toContain('within 3 bits');
    await slider.fill('3');
    await history.locator('#k-status', { hasText: 'within 3 bits' }).waitFor({ timeout: 30_000 });
    await openHistory();
    expect(await groups()).toContainEqual([url.x(), url.xOnB()].sort());
  });

  test('clearing all data asks first, then forgets every page', async () => {
    await history.locator('#clear-all').click();
    const dialog = history.locator('#clear-dialog');
    expect(await dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await entryCount()).toBeGreaterThan(0);
    await history.locator('#clear-all').click();
    await dialog.getByRole('button', { name: 'Forget everything' }).click();
    await history.locator('#list[data-state="empty"]').waitFor({ state: 'attached' });
    expect(await history.locator('#settings-status').textContent()).toMatch(/^Forgot \d+ pages\.$/);
    await waitForPopupState(popup, url.x(), 'unknown');
    expect(ext.pageErrors).toEqual([]);
  });
});
