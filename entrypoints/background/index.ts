// The service worker: wires browser events to lib/recorder.ts, and keeps the toolbar badge.
import { browser } from 'wxt/browser';
import { createRecorder } from '@/lib/recorder';
import { extensionStores } from './stores';

export default defineBackground(() => {
  const recorder = createRecorder({ ...extensionStores(), now: () => Date.now(), log: (message) => console.warn(`Doppel: ${message}`) });
  const ext = { id: browser.runtime.id, origin: browser.runtime.getURL('/') };
  // MV3 (Chrome) has `action`; the Firefox MV2 build has `browserAction`.
  const action = browser.action ?? browser.browserAction;

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
