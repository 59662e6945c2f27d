// The service worker: wires browser events to lib/recorder.ts, and keeps the toolbar badge.
import { browser } from 'wxt/browser';
import { createRecorder } from '@/lib/recorder';
import { ORGANISE_LOCK, organise } from '@/lib/store/groups';
import { extensionStores } from './stores';

export default defineBackground(() => {
  const stores = extensionStores();
  const recorder = createRecorder({ ...stores, now: () => Date.now(), log: (message) => console.warn(`Doppel: ${message}`) });
  const ext = { id: browser.runtime.id, origin: browser.runtime.getURL('/') };
  // MV3 (Chrome) has `action`; the Firefox MV2 build has `browserAction`.
  const action = browser.action ?? browser.browserAction;

  // A store that has grown past its table design, a change of k, or an import or upgrade that left
  // the groups incomplete (or such work cut off when the worker was stopped) is brought up to date
  // at start-up, in batches, while queries keep working; a history page doing it too waits its turn.
  void (async () => {
    const store = await stores.store();
    const { k } = await stores.settings.get();
    const run = () => organise(store, k);
    const { moved, regrouped } = navigator.locks ? await navigator.locks.request(ORGANISE_LOCK, run) : await run();
    if (moved) console.info(`Doppel: table design moved to k=${moved.to.k} b=${moved.to.b} (${moved.rewritten} pages)`);
    if (regrouped) console.info(`Doppel: regrouped ${regrouped.pages} pages for k=${regrouped.k}: ${regrouped.groups} groups`);
  })().catch((error: unknown) => console.warn('Doppel: organising the store failed:', error));

  // Registered synchronously, so that a message which wakes the worker is not missed.
  browser.runtime.onMessage.addListener((message: unknown, sender) =>
    recorder.handle(message, sender, ext).then((reply) => {
      const tabId = sender.tab?.id;
      if (reply.ok && tabId !== undefined && (message as { type?: unknown }).type === 'page/extracted') {
        const matches = (reply.value as { matches: number }).matches;
        void action.setBadgeText({ tabId, text: matches > 0 ? String(matches) : '' }).catch(() => {});
        void action.setBadgeBackgroundColor({ tabId, color: '#8a4b08' }).catch(() => {});
      }
      return reply;
    }),
  );
});
