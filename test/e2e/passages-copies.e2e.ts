// An article read on two sites, then a page quoting two of its paragraphs on a third, end to end
// in Chromium with the built extension: the quoting page's popup lists the article once, led by the
// copy seen first, and names the other copy under it ("Also in 1 other page you read"); the badge
// counts one entry; "Show on the page" marks the passage in one colour.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ExtensionSession, type Session, type Site, badgeText, pollFor, popupUrl, startSession, tabIdOf, visit, waitForPopupState } from './harness';


let session: Session<'almanac' | 'digest' | 'courier'>;
let almanac: Site;
let digest: Site;
let courier: Site;
let ext: ExtensionSession;

beforeAll(async () => {
  session = await startSession({ almanac: 'almanac', digest: 'aggregator', courier: 'original' });
  ({ almanac, digest, courier } = session.sites);
  ext = session.ext!;
});

afterAll(() => session?.close());

describe('copies sharing the same passages', () => {
  test('one entry, led by the copy seen first, the other named under it; the badge counts one; one colour marked', async () => {
    const original = almanac.url('/history/lighthouse-logbooks.html');
    const copy = digest.url('/copies/lighthouse-logbooks.html');
    const quoting = courier.url('/community/keepers-diaries.html');
    const popup = await ext.ctx.newPage();
    for (const address of [original, copy]) {
      const tab = await ext.ctx.newPage();
      await visit(tab, address);
      await waitForPopupState(popup, address, 'ready');
      await tab.close();
    }
    const tab = await ext.ctx.newPage();
    await visit(tab, quoting);
    // the copy is a near-duplicate of the original: the quoting page is neither's
    expect(await waitForPopupState(popup, quoting, 'ready')).toEqual([]);
    expect(await waitForPopupState(popup, copy, 'ready')).toEqual([original]);

    const tabId = await tabIdOf(await ext.getWorker(), tab);
    await popup.goto(`${popupUrl(ext.extensionId, quoting)}&tab=${tabId}`, { waitUntil: 'domcontentloaded' });
    await popup.locator('#report[data-state="ready"]').waitFor();
    const entries = await popup.locator('#passages li.passage').evaluateAll((items) =>
      items.map((li) => ({
        url: (li.querySelector('.title') as HTMLAnchorElement).href,
        also: [...li.querySelectorAll('.also-in a[href]')].map((a) => [(a as HTMLAnchorElement).href, a.textContent, a.getAttribute('title')]),
        alsoText: li.querySelector('.also-in')?.textContent ?? null,
      })),
    );
    expect(entries).toEqual([
      {
        url: original,
        also: [[copy, new URL(copy).host, 'What the lighthouse logbooks remember']],
        alsoText: `Also in 1 other page you read: ${new URL(copy).host}`,
      },
    ]);
    expect(await popup.locator('#passages-heading').textContent()).toBe('1 page you read before shares passages with this one');
    expect(await pollFor(async () => badgeText(await ext.getWorker(), tabId), '1')).toBe('1');

    await popup.locator('#show-passages').click();
    await popup.locator('#show-passages[aria-pressed="true"]').waitFor();
    const names = await tab.evaluate(() => [...CSS.highlights.keys()]);
    expect(names).toEqual(['doppel-passage-0']);
  });
});
