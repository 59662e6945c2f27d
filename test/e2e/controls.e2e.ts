// The popup's controls and the content script's less common paths, end to end in Chromium with
// the built extension: single-page navigation, a page that is not an article, pausing with the
// keyboard, forgetting a page, excluding a site, and URL variants of one page.
//
// Sites (test/e2e/pages/):
//   almanac/     history/lighthouse-logbooks.html   article X
//                nature/winter-bees.html            article Y (static: no script)
//                waterways/canal-lock.html          article Z
//                account/sign-in.html               a sign-in form, not an article
//   aggregator/  copies/{lighthouse-logbooks,winter-bees,canal-lock}.html   copies of X, Y, Z
//                app/reader.html                    single-page reader: shows X; "Next story"
//                                                   swaps in Y and pushes /app/stories/winter-bees.html
//
// Each group gets its own browser (fresh profile): pausing, excluding and forgetting change state
// that the other groups must not see.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXTENSION_DIR, type ExtensionSession, launchWithExtension, type PopupState, type Session, type Site, sleep, startSession, visit, waitForPopupState } from './harness';

/** The content script reads a page at idle (requestIdleCallback, timeout 3 s): by then it has run. */
const READ_WINDOW_MS = 3_000;

let almanac: Site;
let aggregator: Site;

const url = {
  lighthouse: () => almanac.url('/history/lighthouse-logbooks.html'),
  bees: () => almanac.url('/nature/winter-bees.html'),
  canal: () => almanac.url('/waterways/canal-lock.html'),
  signIn: () => almanac.url('/account/sign-in.html'),
  lighthouseCopy: () => aggregator.url('/copies/lighthouse-logbooks.html'),
  beesCopy: () => aggregator.url('/copies/winter-bees.html'),
  canalCopy: () => aggregator.url('/copies/canal-lock.html'),
  reader: () => aggregator.url('/app/reader.html'),
  readerSecond: () => aggregator.url('/app/stories/winter-bees.html'),
};

let session: Session<'almanac' | 'aggregator'>;

beforeAll(async () => {
  session = await startSession({ almanac: 'almanac', aggregator: 'aggregator' }, { launch: false });
  ({ almanac, aggregator } = session.sites);
});

afterAll(() => session?.close());

/** A browser of its own for a describe block, with a tab for the popup. */
function freshBrowser(): { ext: () => ExtensionSession; popup: () => Page } {
  let ext: ExtensionSession | undefined;
  let popup: Page | undefined;
  beforeAll(async () => {
    ext = await launchWithExtension(EXTENSION_DIR);
    popup = await ext.ctx.newPage();
  });
  afterAll(async () => {
    await ext?.close();
  });
  return { ext: () => ext!, popup: () => popup! };
}

async function openTab(ext: ExtensionSession, address: string): Promise<Page> {
  const page = await ext.ctx.newPage();
  await visit(page, address);
  return page;
}

const stateOf = (popup: Page): Promise<string | null> => popup.locator('#report').getAttribute('data-state');
const textOf = async (popup: Page, selector: string): Promise<string> => ((await popup.locator(selector).textContent()) ?? '').trim();

/** Waits (without reloading) until the popup's #report shows `state`, e.g. after a button press. */
async function expectStateSoon(popup: Page, state: PopupState, timeout = 10_000): Promise<void> {
  await popup.locator(`#report[data-state="${state}"]`).waitFor({ state: 'attached', timeout }).catch(() => {});
  expect(await stateOf(popup), `state of the popup at ${popup.url()}`).toBe(state);
}

/** Opens the popup for `address` (once recorded) and reloads it until #status-detail matches `pattern`. */
async function waitForDetail(popup: Page, address: string, pattern: RegExp, timeout = 15_000): Promise<string> {
  const deadline = Date.now() + timeout;
  for (;;) {
    await waitForPopupState(popup, address, 'ready', Math.max(1_000, deadline - Date.now()));
    const detail = await textOf(popup, '#status-detail');
    if (pattern.test(detail) || Date.now() > deadline) return detail;
    await sleep(250);
  }
}

/** Presses Tab until `selector` has the focus (at most `max` presses); whether it got there. */
async function tabTo(page: Page, selector: string, max = 12): Promise<boolean> {
  await page.bringToFront();
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.locator(selector).evaluate((el) => el === document.activeElement)) return true;
  }
  return false;
}

describe('single-page navigation', () => {
  const { ext, popup } = freshBrowser();

  test('a static page is recorded and its DOM is left exactly as it was', async () => {
    const page = await ext().ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // Snapshot the markup at DOMContentLoaded, before the content script (document_idle) runs;
    // kept in the page's own world, outside the DOM.
    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        (window as unknown as { __before: string }).__before = document.documentElement.outerHTML;
      });
    });
    await visit(page, url.bees());
    expect(await waitForPopupState(popup(), url.bees(), 'ready')).toEqual([]);
    await sleep(300);
    const { before, after } = await page.evaluate(() => ({
      before: (window as unknown as { __before?: string }).__before,
      after: document.documentElement.outerHTML,
    }));
    expect(before, 'snapshot taken at DOMContentLoaded').toContain('allotment bees');
    expect(after).toBe(before);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('after history.pushState the new URL is recorded with the new article; the first URL keeps its own', async () => {
    const page = await ext().ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await visit(page, url.reader());
    // The first story (X) is recorded under the first URL: nothing visited so far resembles it.
    expect(await waitForPopupState(popup(), url.reader(), 'ready')).toEqual([]);

    await page.click('#next');
    expect(page.url()).toBe(url.readerSecond());
    expect(await page.locator('#story h1').textContent()).toBe('How the allotment bees got through the winter');

    // The second story is the almanac's winter-bees article, visited in the previous test.
    expect(await waitForPopupState(popup(), url.readerSecond(), 'ready', 20_000)).toEqual([url.bees()]);
    expect(await textOf(popup(), '#page-title')).toContain('allotment bees');

    // The first URL is still recorded with its own article (X), which resembles nothing else…
    expect(await waitForPopupState(popup(), url.reader(), 'ready')).toEqual([]);
    expect(await textOf(popup(), '#page-title')).toContain('lighthouse logbooks');
    // …and the original of the second story lists the new URL only.
    expect(await waitForPopupState(popup(), url.bees(), 'ready')).toEqual([url.readerSecond()]);

    expect(errors, 'errors on the single-page reader').toEqual([]);
    expect(ext().pageErrors, 'errors on any page, the popup included').toEqual([]);
    await page.close();
  });
});

describe('not an article; pausing with the keyboard', () => {
  const { ext, popup } = freshBrowser();

  test('a sign-in form is not an article, and the popup says why in words', async () => {
    const page = await openTab(ext(), url.signIn());
    expect(await waitForPopupState(popup(), url.signIn(), 'not-article')).toEqual([]);
    expect(await textOf(popup(), '#status-text')).toMatch(/not an article/i);
    const detail = await textOf(popup(), '#status-detail');
    // A sentence, not an internal code such as "no-article" or "too-short".
    expect(detail, '#status-detail of a not-article page').not.toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(detail.split(/\s+/).filter(Boolean).length, `words in #status-detail ("${detail}")`).toBeGreaterThanOrEqual(4);
    expect(await popup().locator('#forget').isDisabled(), 'nothing to forget').toBe(true);
    await page.close();
  });

  test('Tab then Enter pauses recording; pages opened meanwhile are not recorded; Tab then Space resumes', async () => {
    const first = await openTab(ext(), url.lighthouse());
    expect(await waitForPopupState(popup(), url.lighthouse(), 'ready')).toEqual([]);
    expect(await popup().locator('#pause').getAttribute('aria-pressed')).toBe('false');

    expect(await tabTo(popup(), '#pause'), 'Tab reaches #pause').toBe(true);
    await popup().keyboard.press('Enter');
    await popup().locator('#pause[aria-pressed="true"]').waitFor({ state: 'attached', timeout: 10_000 }).catch(() => {});
    expect(await popup().locator('#pause').getAttribute('aria-pressed')).toBe('true');
    expect(await textOf(popup(), '#pause')).toMatch(/resume/i);

    // A page opened while paused: the popup says so, and it stays so once the page has been idle.
    const second = await openTab(ext(), url.canal());
    await sleep(READ_WINDOW_MS);
    await waitForPopupState(popup(), url.canal(), 'paused');
    expect(await textOf(popup(), '#status-text')).toMatch(/paused/i);

    // Resume from this popup, with the keyboard again.
    expect(await tabTo(popup(), '#pause'), 'Tab reaches #pause').toBe(true);
    await popup().keyboard.press('Space');
    await popup().locator('#pause[aria-pressed="false"]').waitFor({ state: 'attached', timeout: 10_000 }).catch(() => {});
    expect(await popup().locator('#pause').getAttribute('aria-pressed')).toBe('false');
    // Nothing was recorded for it while paused.
    await expectStateSoon(popup(), 'unknown');

    // Visited again, now that recording is on: recorded.
    await second.reload({ waitUntil: 'load' });
    expect(await waitForPopupState(popup(), url.canal(), 'ready')).toEqual([]);
    expect(ext().pageErrors).toEqual([]);
    await first.close();
    await second.close();
  });
});

describe('forgetting a page; URL variants', () => {
  const { ext, popup } = freshBrowser();

  test('Forget makes a page unknown and drops it from its copy’s near-duplicates', async () => {
    const original = await openTab(ext(), url.lighthouse());
    expect(await waitForPopupState(popup(), url.lighthouse(), 'ready')).toEqual([]);
    const copy = await openTab(ext(), url.lighthouseCopy());
    expect(await waitForPopupState(popup(), url.lighthouseCopy(), 'ready')).toEqual([url.lighthouse()]);
    expect(await waitForPopupState(popup(), url.lighthouse(), 'ready')).toEqual([url.lighthouseCopy()]);

    await waitForPopupState(popup(), url.lighthouseCopy(), 'ready');
    await popup().click('#forget');
    await expectStateSoon(popup(), 'unknown');
    expect(await popup().locator('#forget').isDisabled()).toBe(true);

    await waitForPopupState(popup(), url.lighthouseCopy(), 'unknown');
    expect(await waitForPopupState(popup(), url.lighthouse(), 'ready')).toEqual([]);
    expect(await popup().locator('#matches a[href]').count()).toBe(0);
    await original.close();
    await copy.close();
  });

  test('#fragment and utm_* variants are visits to one page', async () => {
    const withFragment = await openTab(ext(), `${url.canal()}#section`);
    expect(await waitForPopupState(popup(), url.canal(), 'ready')).toEqual([]);
    const withUtm = await openTab(ext(), `${url.canal()}?utm_source=x`);
    const detail = await waitForDetail(popup(), url.canal(), /\b([2-9]|\d{2,}) visits\b/);
    expect(detail, '#status-detail of the plain URL').toMatch(/\b([2-9]|\d{2,}) visits\b/);
    expect(await stateOf(popup())).toBe('ready');
    // The variants are not records of their own: their popups show the same page and count.
    for (const variant of [`${url.canal()}#section`, `${url.canal()}?utm_source=x`]) {
      await waitForPopupState(popup(), variant, 'ready');
      expect(await textOf(popup(), '#status-detail'), `#status-detail for ${variant}`).toBe(detail);
    }
    expect(ext().pageErrors).toEqual([]);
    await withFragment.close();
    await withUtm.close();
  });
});

describe('excluding a site', () => {
  const { ext, popup } = freshBrowser();

  test('confirmed exclusion forgets the site’s pages and stops recording it; “Record … again” undoes it', async () => {
    const tabs: Page[] = [];
    for (const address of [url.lighthouse(), url.bees()]) {
      tabs.push(await openTab(ext(), address));
      expect(await waitForPopupState(popup(), address, 'ready'), address).toEqual([]);
    }
    tabs.push(await openTab(ext(), url.lighthouseCopy()));
    expect(await waitForPopupState(popup(), url.lighthouseCopy(), 'ready')).toEqual([url.lighthouse()]);
    tabs.push(await openTab(ext(), url.beesCopy()));
    expect(await waitForPopupState(popup(), url.beesCopy(), 'ready')).toEqual([url.bees()]);
    expect(await waitForPopupState(popup(), url.lighthouse(), 'ready')).toEqual([url.lighthouseCopy()]);
    expect(await waitForPopupState(popup(), url.bees(), 'ready')).toEqual([url.beesCopy()]);

    // The first click only arms the button.
    await waitForPopupState(popup(), url.beesCopy(), 'ready');
    const exclude = popup().locator('#exclude');
    expect(await textOf(popup(), '#exclude')).toBe(`Never record ${new URL(aggregator.origin).host}`);
    await exclude.click();
    expect(await exclude.getAttribute('data-confirm')).toBe('armed');
    await sleep(300);
    expect(await stateOf(popup()), 'state after one click').toBe('ready');
    // The second confirms.
    await exclude.click();
    await expectStateSoon(popup(), 'excluded');
    expect(await textOf(popup(), '#exclude')).toMatch(/^Record .+ again$/);

    // The site's pages are forgotten: their originals no longer list them.
    expect(await waitForPopupState(popup(), url.lighthouse(), 'ready')).toEqual([]);
    expect(await waitForPopupState(popup(), url.bees(), 'ready')).toEqual([]);
    await waitForPopupState(popup(), url.lighthouseCopy(), 'excluded');

    // A new visit to the site is not recorded.
    const canalCopy = await openTab(ext(), url.canalCopy());
    await sleep(READ_WINDOW_MS);
    await waitForPopupState(popup(), url.canalCopy(), 'excluded');

    // "Record … again": one click, no confirmation.
    await popup().locator('#exclude').click();
    await expectStateSoon(popup(), 'unknown'); // it was not recorded while excluded
    expect(await textOf(popup(), '#exclude')).toMatch(/^Never record /);

    await canalCopy.reload({ waitUntil: 'load' });
    expect(await waitForPopupState(popup(), url.canalCopy(), 'ready')).toEqual([]);
    // The forgotten pages stay forgotten until visited again.
    await waitForPopupState(popup(), url.beesCopy(), 'unknown');

    expect(ext().pageErrors).toEqual([]);
    expect(ext().dialogs).toEqual([]);
    for (const tab of [...tabs, canalCopy]) await tab.close();
  });
});
