// The extension in Chromium, end to end: pages of two local "sites" are visited in tabs, and what
// the extension recorded is read back through its popup (opened as a tab at
// popup.html?url=<encoded URL>) and its toolbar badge.
//
// Sites (test/e2e/pages/):
//   original/     news/2024/ferry-returns.html        the original article
//                 print/news/2024/ferry-returns.html  its printer-friendly edition (same text)
//                 culture/repair-cafe.html            unrelated article, no copies
//                 community/apple-pressing.html       an article copied by the hostile page
//   republisher/  stories/ferry-service-back.html     verbatim copy, another template
//                 stories/skellan-ferry-linnet.html   credit line added, last paragraph cut
//                 stories/second-hand-bicycle.html    unrelated article
//                 stories/orchard-juice.html          copy of apple-pressing, <title> is markup
//
// The tests share one browser and run in order: later ones rely on pages visited by earlier ones.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DB_VERSION } from '../../lib/store/schema';
import {
  badgeText,
  isServiceWorkerRunning,
  type Session,
  pollFor,
  sleep,
  startSession,
  stopServiceWorker,
  tabIdOf,
  visit,
  waitForPopupState,
  type ExtensionSession,
  type Site,
} from './harness';

const HOSTILE_TITLE = '<img src=x onerror=alert(1)>';

let session: Session<'original' | 'republisher'>;
let original: Site;
let republisher: Site;
let ext: ExtensionSession;
/** The tab the popup is opened in. */
let popup: Page;

const url = {
  original: () => original.url('/news/2024/ferry-returns.html'),
  print: () => original.url('/print/news/2024/ferry-returns.html'),
  unrelatedOriginal: () => original.url('/culture/repair-cafe.html'),
  apple: () => original.url('/community/apple-pressing.html'),
  verbatim: () => republisher.url('/stories/ferry-service-back.html'),
  edited: () => republisher.url('/stories/skellan-ferry-linnet.html'),
  unrelatedRepublisher: () => republisher.url('/stories/second-hand-bicycle.html'),
  hostile: () => republisher.url('/stories/orchard-juice.html'),
};

interface Tab {
  page: Page;
  tabId: number;
  url: string;
}

/** Opens `address` in a new tab and finds that tab's id. */
async function openTab(address: string): Promise<Tab> {
  const page = await ext.ctx.newPage();
  await visit(page, address);
  const tabId = await tabIdOf(await ext.getWorker(), page);
  return { page, tabId, url: address };
}

/** Visits `address` in a new tab and waits until the extension has recorded it. */
async function record(address: string): Promise<{ tab: Tab; matches: string[] }> {
  const tab = await openTab(address);
  const matches = await waitForPopupState(popup, address, 'ready');
  return { tab, matches: sorted(matches) };
}

async function matchesOf(address: string): Promise<string[]> {
  return sorted(await waitForPopupState(popup, address, 'ready'));
}

const sorted = (xs: string[]): string[] => [...xs].sort();

async function readBadge(tab: Tab): Promise<string> {
  return badgeText(await ext.getWorker(), tab.tabId);
}

/** The badge eventually reads `expected` (it is set after the page is recorded). */
async function expectBadge(tab: Tab, expected: string): Promise<void> {
  const text = await pollFor(() => readBadge(tab), expected, 10_000);
  expect(text, `badge on ${tab.url}`).toBe(expected);
}

/** The badge stays blank: checked once recording is done and a moment has passed. */
async function expectBlankBadge(tab: Tab): Promise<void> {
  await sleep(500);
  expect(await readBadge(tab), `badge on ${tab.url}`).toBe('');
}

beforeAll(async () => {
  session = await startSession({ original: 'original', republisher: 'republisher' });
  ({ original, republisher } = session.sites);
  ext = session.ext!;
  popup = await ext.ctx.newPage();
});

afterAll(() => session?.close());

describe('Doppel in Chromium', () => {
  test('copies list the original among their near-duplicates; the badge counts earlier ones', async () => {
    const first = await record(url.original());
    expect(first.matches).toEqual([]);
    await expectBlankBadge(first.tab);

    const verbatim = await record(url.verbatim());
    expect(verbatim.matches).toEqual(sorted([url.original()]));
    await expectBadge(verbatim.tab, '1');

    const edited = await record(url.edited());
    expect(edited.matches).toEqual(sorted([url.original(), url.verbatim()]));
    await expectBadge(edited.tab, '2');

    for (const tab of [first.tab, verbatim.tab, edited.tab]) await tab.page.close();
  });

  test('the worker keeps the pages in IndexedDB database "doppel" at schema version 2', async () => {
    const worker = await ext.getWorker();
    const databases = await worker.evaluate(async () => (await indexedDB.databases()).map(({ name, version }) => ({ name, version })));
    expect(databases).toEqual([{ name: 'doppel', version: DB_VERSION }]);
    expect(DB_VERSION).toBe(2);
  });

  test("the original's popup lists its copies", async () => {
    expect(await matchesOf(url.original())).toEqual(sorted([url.verbatim(), url.edited()]));
  });

  test('unrelated pages are recorded with no near-duplicates and a blank badge', async () => {
    for (const address of [url.unrelatedOriginal(), url.unrelatedRepublisher()]) {
      const { tab, matches } = await record(address);
      expect(matches, address).toEqual([]);
      expect(await popup.locator('#matches a[href]').count(), `links in #matches for ${address}`).toBe(0);
      await expectBlankBadge(tab);
      await tab.page.close();
    }
    // …and they do not show up among the copies' near-duplicates either.
    expect(await matchesOf(url.original())).toEqual(sorted([url.verbatim(), url.edited()]));
  });

  test('a page never visited is unknown', async () => {
    await waitForPopupState(popup, original.url('/news/2024/never-visited.html'), 'unknown');
    expect(await popup.locator('#matches a[href]').count()).toBe(0);
    await waitForPopupState(popup, republisher.url('/stories/not-here-either.html'), 'unknown');
  });

  test('URLs that differ only by fragment or utm_* parameters are the same page', async () => {
    const expected = sorted([url.verbatim(), url.edited()]);
    expect(await matchesOf(`${url.original()}#comments`)).toEqual(expected);
    expect(await matchesOf(`${url.original()}?utm_source=newsletter&utm_medium=email&utm_campaign=spring`)).toEqual(expected);
  });

  test('a hostile <title> is shown as text, never as markup', async () => {
    const source = await record(url.apple());
    expect(source.matches).toEqual([]);

    const hostile = await record(url.hostile());
    expect(hostile.matches).toEqual([url.apple()]);
    expect(await hostile.tab.page.title()).toBe(HOSTILE_TITLE);
    await expectBadge(hostile.tab, '1');
    expect(await popup.locator('img[src="x"], [onerror]').count(), "img from the hostile page's own title").toBe(0);

    // The source's popup lists the hostile page: its title must appear as literal text.
    expect(await matchesOf(url.apple())).toEqual([url.hostile()]);
    expect(await popup.locator('body').innerText()).toContain(HOSTILE_TITLE);
    expect(await popup.locator('img[src="x"], [onerror]').count(), 'img created from the hostile title').toBe(0);

    await sleep(500); // an onerror handler would have fired by now
    expect(ext.dialogs).toEqual([]);
    for (const tab of [source.tab, hostile.tab]) await tab.page.close();
  });

  test('what was recorded survives a service worker restart, and recording goes on after it', async () => {
    const recorded = [
      url.original(),
      url.verbatim(),
      url.edited(),
      url.unrelatedOriginal(),
      url.unrelatedRepublisher(),
      url.apple(),
      url.hostile(),
    ];
    const before = new Map<string, string[]>();
    for (const address of recorded) before.set(address, await matchesOf(address));

    const worker = await ext.getWorker();
    await worker.evaluate(() => {
      (globalThis as { __doppelE2eMarker?: string }).__doppelE2eMarker = 'before-stop';
    });
    await stopServiceWorker(ext.ctx, ext.extensionId);
    expect(await isServiceWorkerRunning(ext.ctx, ext.extensionId)).toBe(false);

    // Opening the popup is enough to get the reports back (it wakes the worker if it needs it).
    for (const address of recorded) {
      expect(await matchesOf(address), `matches of ${address} after the restart`).toEqual(before.get(address));
    }

    const print = await record(url.print());
    expect(print.matches).toEqual(sorted([url.original(), url.verbatim(), url.edited()]));
    await expectBadge(print.tab, '3');
    expect(await matchesOf(url.original())).toEqual(sorted([url.verbatim(), url.edited(), url.print()]));

    // The worker that answered is a new one: the stop was real.
    const after = await ext.getWorker();
    expect(await after.evaluate(() => (globalThis as { __doppelE2eMarker?: string }).__doppelE2eMarker)).toBeUndefined();
    expect(ext.dialogs).toEqual([]);
    await print.tab.page.close();
  });

  test('pages are read in the reader document; when it closes itself (as after a while idle), the next page opens it again', async () => {
    const readers = (): Promise<number> =>
      ext.getWorker().then((worker) =>
        worker.evaluate(async () => {
          const { chrome } = globalThis as unknown as { chrome: { runtime: { getURL(p: string): string; getContexts(f: object): Promise<unknown[]> } } };
          return (await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'], documentUrls: [chrome.runtime.getURL('reader.html')] })).length;
        }),
      );
    expect(await readers(), 'the reader document, opened by the earlier visits').toBe(1);
    // What its idle timer does: window.close() in the document itself, sent over CDP.
    const session = await ext.ctx.newCDPSession(popup);
    const { targetInfos } = await session.send('Target.getTargets');
    const reader = targetInfos.find((t) => t.url === `chrome-extension://${ext.extensionId}/reader.html`);
    expect(reader, 'the reader document target').toBeDefined();
    const { sessionId } = await session.send('Target.attachToTarget', { targetId: reader!.targetId, flatten: false });
    const evaluate = (id: number, expression: string): Promise<unknown> =>
      new Promise((resolve) => {
        const listener = (event: { sessionId: string; message: string }): void => {
          const reply = JSON.parse(event.message) as { id?: number; result?: { result?: { value?: unknown } } };
          if (event.sessionId !== sessionId || reply.id !== id) return;
          session.off('Target.receivedMessageFromTarget', listener);
          resolve(reply.result?.result?.value);
        };
        session.on('Target.receivedMessageFromTarget', listener);
        void session.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, returnByValue: true } }) });
      });
    // It takes the worker's requests over ports: with no onMessage listener, no content script's
    // page/html (the page's whole HTML) or popup message is copied into it.
    expect(await evaluate(1, '[chrome.runtime.onMessage.hasListeners(), chrome.runtime.onConnect.hasListeners()]')).toEqual([false, true]);
    await session.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: 2, method: 'Runtime.evaluate', params: { expression: 'window.close()' } }) });
    expect(await pollFor(readers, 0, 10_000), 'the reader document closed itself').toBe(0);
    await session.detach().catch(() => {});

    const again = `${url.unrelatedOriginal()}?edition=reopened`;
    const { tab, matches } = await record(again);
    expect(matches).toEqual([url.unrelatedOriginal()]);
    expect(await readers(), 'opened again for that page').toBe(1);
    await tab.page.close();
  });
});
