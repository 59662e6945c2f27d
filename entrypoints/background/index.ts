// The service worker: wires browser events to lib/background/recorder.ts, keeps the toolbar badge, and is
// the only context that writes the database: the history page's imports, forgetting, clearing
// and organising arrive over writer ports (lib/background/writer.ts).
import { browser } from 'wxt/browser';
import { badgeText, badgeTitle } from '@/lib/ui/badge';
import { PAGE_REPLY_DEADLINE_MS, settleWithin } from '@/lib/background/deadline';
import { type Localizer, createLocalizer } from '@/lib/ui/i18n';
import { classifySender, createRecorder } from '@/lib/background/recorder';
import { measureHandling } from '@/lib/background/timing';
import { WRITER_PORT } from '@/lib/protocol/messages';
import { createWriter } from '@/lib/background/writer';
import { htmlReader } from './reader';
import { extensionStores } from './stores';

/** How long after the worker starts its start-up organising begins. */
const ORGANISE_AFTER_MS = 1_000;

/** Runs `work`, calling an extension API every 20 s until it ends, so that Chrome does not stop the worker as idle. */
async function whileWorking<T>(work: () => Promise<T>): Promise<T> {
  const keepAlive = setInterval(() => void browser.runtime.getPlatformInfo().catch(() => {}), 20_000);
  try {
    return await work();
  } finally {
    clearInterval(keepAlive);
  }
}

export default defineBackground(() => {
  performance.mark('doppel:worker-main'); // bench:browser places the worker's start-up on a stopped-first popup's way
  const stores = extensionStores();
  // Nearly every event that wakes the worker needs the store: opening it now overlaps the rest of
  // the start-up (a failed open is not kept, and the message that needs it reports the error).
  void stores.store().catch(() => {});
  // MV3 (Chrome) has `action`; the Firefox MV2 build has `browserAction`.
  const action = browser.action ?? browser.browserAction;

  // The toolbar badge: the number of near-duplicates of each tab's page and of pages sharing
  // passages with it, both said in its title (lib/ui/badge.ts). The tabs whose badge Doppel set, and
  // for which page, are kept (in this worker's life) so that forgetting, clearing or a change of k
  // updates them at once; a tab closed meanwhile is dropped.
  const badgeTabs = new Map<number, string>();
  // Made at the first badge, not at start-up: its Intl formatters would delay the worker's first reply.
  let localizer: Localizer | undefined;
  const l = (): Localizer => (localizer ??= createLocalizer((key, substitutions) => browser.i18n.getMessage(key as never, substitutions), browser.i18n.getUILanguage()));
  const setBadge = async (tabId: number, matches: number, passages: number, rewrites: number): Promise<void> => {
    await action.setBadgeText({ tabId, text: badgeText(matches, passages, rewrites) });
    await action.setTitle({ tabId, title: badgeTitle(l(), matches, passages, rewrites) });
    await action.setBadgeBackgroundColor({ tabId, color: '#8a4b08' });
  };
  const refreshBadges = async (): Promise<number> => {
    let refreshed = 0;
    for (const [tabId, url] of [...badgeTabs]) {
      try {
        const counts = await recorder.matchCount(url);
        await setBadge(tabId, counts?.matches ?? 0, counts?.passages ?? 0, counts?.rewrites ?? 0);
        refreshed++;
      } catch {
        badgeTabs.delete(tabId); // the tab is gone
      }
    }
    return refreshed;
  };
  browser.tabs?.onRemoved?.addListener((tabId) => void badgeTabs.delete(tabId));

  const recorder = createRecorder({ ...stores, readHtml: htmlReader(), now: () => Date.now(), log: (message) => console.warn(`Doppel: ${message}`), onPagesChanged: refreshBadges });
  const ext = { id: browser.runtime.id, origin: browser.runtime.getURL('/') };
  /** The reply to a page whose recording outlasts PAGE_REPLY_DEADLINE_MS (it goes on). */
  const PAGE_RECORDED_LATER = 'Doppel is still updating how your history is stored; it will record this page when that is done.';
  // The history page's jobs, one at a time. Clearing also forgets the not-article outcomes and the
  // storage-full notice (the recorder's clearAll).
  const writer = createWriter({
    store: stores.store,
    k: async () => (await stores.settings.get()).k,
    clear: () => recorder.clearAll(),
    onPagesChanged: () => void refreshBadges(),
    whileWorking,
  });
  // Registered synchronously, so that a port which wakes the worker is not missed.
  browser.runtime.onConnect.addListener((port) => {
    if (port.name !== WRITER_PORT) return;
    if (classifySender(port.sender ?? {}, ext).kind !== 'extension-page') return port.disconnect();
    writer.serve(port);
  });

  // The browser starts the worker when it starts (a listener for onStartup asks it to): organising
  // cut off by a crash or a quit resumes then, not at the first page the reader opens.
  browser.runtime.onStartup.addListener(() => undefined);

  // A store that has grown past its table design, a change of k, or an import that left the groups
  // incomplete (or such work cut off when the worker was stopped) is brought up to date at start-up,
  // in batches, while queries keep working; a job of the history page waits its turn. That can take
  // minutes at a million pages. Chrome stops a worker that has had no event and made no extension
  // call for 30 s, so the writer makes a cheap call every 20 s meanwhile. It starts a second after
  // the worker does: its look at the store (the run index, the pending passages) would otherwise
  // delay the answer to the message that woke the worker, usually a popup waiting to show.
  void (async () => {
    await new Promise((resolve) => setTimeout(resolve, ORGANISE_AFTER_MS));
    const { moved, regrouped, compacted } = await writer.organise();
    if (moved) console.info(`Doppel: table design moved to k=${moved.to.k} b=${moved.to.b} (${moved.rewritten} pages)`);
    if (regrouped) console.info(`Doppel: regrouped ${regrouped.pages} pages for k=${regrouped.k}: ${regrouped.groups} groups (${regrouped.rewriteLookups} pages looked up for rewrites)`);
    if (compacted > 0) console.info(`Doppel: merged the runs of ${compacted} trees into one each`);
  })().catch((error: unknown) => console.warn('Doppel: organising the store failed:', error));

  // Registered synchronously, so that a message which wakes the worker is not missed.
  browser.runtime.onMessage.addListener((message: unknown, sender) => {
    const received = performance.now();
    const { type, replyByDeadline, handled } = recorder.receive(message, sender, ext);
    const reply = handled.then(({ reply, page, pagesChanged }) => {
      measureHandling(type, received);
      const tabId = sender.tab?.id;
      if (page !== null && tabId !== undefined) {
        if (page.recorded) badgeTabs.set(tabId, page.url);
        else badgeTabs.delete(tabId);
        void setBadge(tabId, page.matches, page.passages, page.rewrites).catch(() => {});
      }
      if (pagesChanged) void refreshBadges();
      return reply;
    });
    if (!replyByDeadline) return reply;
    // A page's message waits for the store, minutes long while an update moves the pages: the
    // reply comes before Chrome's 5-minute limit on one event, and the page is recorded after it.
    return settleWithin(reply, PAGE_REPLY_DEADLINE_MS, () => ({ ok: false as const, error: PAGE_RECORDED_LATER }), (error) =>
      console.warn('Doppel: recording a page after its reply failed:', error),
    );
  });
  performance.mark('doppel:worker-listening');
});
