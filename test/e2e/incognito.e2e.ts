// Private (incognito) windows, end to end in Chromium: real incognito windows, opened by the
// extension's worker with chrome.windows.create({incognito: true}), in the browser's own
// off-the-record profile.
//
// - By default Chromium does not run an extension in incognito at all: the content script never
//   runs there, nothing reaches the worker, nothing is recorded.
// - "Allow in Incognito" is switched on as a person would on chrome://extensions (that page's
//   chrome.developerPrivate, with developer mode on: without it Chromium reloads an extension loaded
//   with --load-extension as an "unsupported developer extension" and disables it). The content
//   script then runs in private windows (the manifest's default "spanning" incognito mode: the same
//   worker, `sender.tab.incognito` true) and Doppel's own setting decides: off by default, so
//   the content script does not even read the page (lib/content/page-reader.ts shouldRead; the worker
//   would refuse it too, test/recorder.test.ts); ticked, private pages are recorded.
// - A private page already open when the setting is turned off is not read or recorded when its
//   address changes (a single-page site).
//
// Playwright does not drive pages of a browser context it did not create: the private tabs are
// seen through CDP (Target.getTargets: their browserContextId is not the regular one) and through
// a listener added to the worker that notes every message it receives.
import type { CDPSession, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dumpStore, storeProblems } from './consistency';
import { type ExtensionSession, type Session, type Site, sleep, startSession, visit, waitForPopupState } from './harness';


function article(i: number): string {
  const paragraphs = Array.from({ length: 5 }, (_, p) => {
    const words = Array.from({ length: 45 }, (_, w) => `w${(i * 7919 + p * 131 + w * 17) % 5003}y${i}`);
    return `<p>The private reading list, entry ${i}, part ${p}: ${words.join(' ')}.</p>`;
  });
  return `<h1>Private story ${i}</h1>${paragraphs.join('\n')}`;
}
const page = (i: number, script = ''): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Private story ${i}</title></head><body><main><article>${article(i)}</article></main>${script}</body></html>`;

// Page 4 becomes page 5 without loading: 8 s after it loads it swaps its article and pushState()s.
const SWAP_MS = 8_000;
const swapScript = `<script>setTimeout(() => { document.querySelector('article').innerHTML = ${JSON.stringify(article(5))}; document.title = 'Private story 5'; history.pushState({}, '', '/p/5.html'); }, ${SWAP_MS});</script>`;

let session: Session<'site'>;
let site: Site;
let ext: ExtensionSession;
let popup: Page;
let control: Page;
const address = (i: number): string => site.url(`/p/${i}.html`);

/** Adds (once per worker life) a listener to the worker that notes each message: type, the page's URL, incognito. */
async function watchWorker(): Promise<Worker> {
  const worker = await ext.getWorker();
  await worker.evaluate(() => {
    type Message = { type?: string; payload?: { url?: string } };
    const g = globalThis as unknown as { seen?: string[]; chrome: { runtime: { onMessage: { addListener(f: (m: Message, s: { url?: string; tab?: { incognito?: boolean } }) => void): void } } } };
    if (g.seen) return;
    const seen: string[] = [];
    g.seen = seen;
    // the page the message is about (after pushState the sender's URL may still be the loaded one)
    g.chrome.runtime.onMessage.addListener((message, sender) => void seen.push(`${message?.type} ${message?.payload?.url ?? sender.url} incognito=${sender.tab?.incognito}`));
  });
  return worker;
}

/** What content scripts sent: a page's HTML (page/html), or the simple reading of a page past the caps (page/extracted). */
const fromContent = (message: string): boolean => /^page\/(html|extracted) /.test(message);

async function seenByWorker(): Promise<string[]> {
  return (await watchWorker()).evaluate(() => (globalThis as unknown as { seen: string[] }).seen);
}

/** Opens `url` in a new incognito window from the worker; returns what windows.create gave the extension. */
async function openPrivate(url: string): Promise<{ incognito: boolean } | null> {
  return (await ext.getWorker()).evaluate(async (u) => {
    const chrome = (globalThis as unknown as { chrome: { windows: { create(o: object): Promise<{ incognito: boolean } | null | undefined> } } }).chrome;
    const win = await chrome.windows.create({ incognito: true, url: u });
    return win ? { incognito: win.incognito } : null;
  }, url);
}

interface Target {
  type: string;
  url: string;
  browserContextId?: string;
}

async function pageTargets(): Promise<Target[]> {
  const session: CDPSession = await ext.ctx.newCDPSession(control);
  try {
    return ((await session.send('Target.getTargets')) as { targetInfos: Target[] }).targetInfos.filter((t) => t.type === 'page');
  } finally {
    await session.detach().catch(() => {});
  }
}

/** Waits until a tab of another browser context than `control`'s shows `url` (loaded), then lets its content script run. */
async function privateTabLoaded(url: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const targets = await pageTargets();
    const regular = targets.find((t) => t.url === control.url())?.browserContextId;
    const found = targets.find((t) => t.url === url);
    if (found) {
      expect(found.browserContextId, `${url} is in a context of its own`).not.toBe(regular);
      break;
    }
    if (Date.now() > deadline) throw new Error(`no private tab showing ${url}`);
    await sleep(100);
  }
  await sleep(3_000); // the content script reads at document idle, then messages the worker
}

async function stored(): Promise<string[]> {
  return (await dumpStore(await ext.getWorker())).records.map((r) => r['url'] as string).sort();
}

/** Switches "Allow in Incognito" on as chrome://extensions does; the extension reloads (its pages close). */
async function allowInIncognito(): Promise<void> {
  await (await ext.getWorker()).evaluate(() => void ((globalThis as unknown as { beforeReload: boolean }).beforeReload = true));
  const manager = await ext.ctx.newPage();
  await manager.goto('chrome://extensions/');
  await manager.evaluate(async (id) => {
    const dp = (globalThis as unknown as { chrome: { developerPrivate: { updateProfileConfiguration(o: object): Promise<void>; updateExtensionConfiguration(o: object): Promise<void> } } }).chrome.developerPrivate;
    await dp.updateProfileConfiguration({ inDeveloperMode: true });
    await dp.updateExtensionConfiguration({ extensionId: id, incognitoAccess: true });
  }, ext.extensionId);
  await manager.close();
  const deadline = Date.now() + 20_000;
  for (;;) {
    await sleep(250);
    // the reloaded worker: a fresh global scope, allowed in incognito
    const allowed = await (await ext.getWorker())
      .evaluate(async () => {
        const g = globalThis as unknown as { beforeReload?: boolean; chrome: { extension: { isAllowedIncognitoAccess(): Promise<boolean> } } };
        return g.beforeReload !== true && (await g.chrome.extension.isAllowedIncognitoAccess());
      })
      .catch(() => false);
    if (allowed) break;
    if (Date.now() > deadline) throw new Error('the extension was not allowed in incognito');
  }
  popup = await ext.ctx.newPage(); // the reload closed the old one
}

beforeAll(async () => {
  session = await startSession({ site: { '/p/0.html': page(0), '/p/1.html': page(1), '/p/2.html': page(2), '/p/3.html': page(3), '/p/4.html': page(4, swapScript) } });
  ({ site } = session.sites);
  ext = session.ext!;
  control = await ext.ctx.newPage();
  await control.goto('about:blank');
  popup = await ext.ctx.newPage();
});

afterAll(() => session?.close());

describe('private windows in Chromium', () => {
  test('not allowed in incognito (the default): a private page is never read, never recorded', async () => {
    await watchWorker();
    // the same kind of page in a normal tab is recorded, in the same time
    const tab = await ext.ctx.newPage();
    await visit(tab, address(0));
    await waitForPopupState(popup, address(0), 'ready');
    await tab.close();

    expect(await openPrivate(address(1)), 'the extension is not told about the window').toBeNull();
    await privateTabLoaded(address(1));
    expect((await seenByWorker()).filter(fromContent), 'messages from content scripts').toEqual([`page/html ${address(0)} incognito=false`]);
    await waitForPopupState(popup, address(1), 'unknown');
    expect(await stored()).toEqual([address(0)]);
  });

  test('allowed in incognito: private pages are neither read nor recorded until "Record pages in private windows" is ticked; unticking it stops a page already open', async () => {
    await allowInIncognito();
    await watchWorker();

    expect(await openPrivate(address(2))).toEqual({ incognito: true });
    await privateTabLoaded(address(2));
    expect((await seenByWorker()).filter(fromContent), 'nothing read in a private window').toEqual([]);
    await waitForPopupState(popup, address(2), 'unknown');
    expect(await stored()).toEqual([address(0)]);

    // Tick the popup's checkbox, from the keyboard.
    await popup.locator('#incognito').focus();
    await popup.keyboard.press('Space');
    await expect.poll(async () => (await popup.evaluate(() => (globalThis as unknown as { chrome: { storage: { local: { get(k: string): Promise<Record<string, { recordIncognito?: boolean }>> } } } }).chrome.storage.local.get('settings')))['settings']?.recordIncognito).toBe(true);

    expect(await openPrivate(address(3))).toEqual({ incognito: true });
    await privateTabLoaded(address(3));
    await waitForPopupState(popup, address(3), 'ready');

    // A private page open while the setting is on is recorded; untick it, and the page's next
    // read (its address changes SWAP_MS after it loaded) is not.
    const opened = Date.now();
    await openPrivate(address(4));
    await waitForPopupState(popup, address(4), 'ready');
    await popup.locator('#incognito').click();
    await expect.poll(async () => (await popup.locator('#incognito').isChecked())).toBe(false);
    expect(Date.now() - opened, 'the setting was off before the page changed its address').toBeLessThan(SWAP_MS);
    // Wait until the tab shows its new address, then as long again as the content script takes to
    // notice it (1 s poll, 1.5 s to settle, idle), keeping the worker alive (an idle worker stops
    // after 30 s, and the listener that notes messages goes with it): the popup asks for its
    // settings every second.
    await watchWorker();
    const keepAlive = (): Promise<unknown> =>
      popup.evaluate(() => (globalThis as unknown as { chrome: { runtime: { sendMessage(m: object): Promise<unknown> } } }).chrome.runtime.sendMessage({ type: 'settings/get', payload: {} }));
    const deadline = opened + SWAP_MS + 15_000;
    while (!(await pageTargets()).some((t) => t.url === address(5)) && Date.now() < deadline) {
      await keepAlive();
      await sleep(500);
    }
    expect((await pageTargets()).some((t) => t.url === address(5)), 'the private tab changed its address').toBe(true);
    for (let i = 0; i < 6; i++) {
      await keepAlive();
      await sleep(1_000);
    }
    expect((await seenByWorker()).filter((m) => fromContent(m) && m.includes(` ${address(5)} `)), 'the new address is not read').toEqual([]);
    await waitForPopupState(popup, address(5), 'unknown');
    expect(await stored()).toEqual([address(0), address(3), address(4)].sort());
    expect(storeProblems(await dumpStore(await ext.getWorker()))).toEqual([]);
    expect(ext.pageErrors.filter((e) => e.startsWith('chrome-extension://')), 'extension page errors').toEqual([]);
  });
});
