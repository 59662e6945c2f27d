// The background's storage, on browser APIs: settings in storage.local (the content script reads
// them too), not-article reasons in storage.session (they need not outlive the browser session;
// a Map where storage.session is missing), whether storage was found full in storage.local (the
// notice outlives the browser session; storage.local is not IndexedDB's quota), pages in IndexedDB.
import { browser } from 'wxt/browser';
import { type Settings, parseSettings } from '@/lib/protocol/messages';
import type { PageOutcome, RecorderDeps } from '@/lib/background/recorder';
import { type PageStore, keptPageStore } from '@/lib/store/pages';
import { type StatusStore } from '@/lib/background/storage-full';
import { STORAGE_STATUS_KEY as STORAGE_STATUS, parseStorageStatus } from '@/lib/protocol/messages';

const OUTCOME_PREFIX = 'outcome:';

export function extensionStores(): Pick<RecorderDeps, 'settings' | 'outcomes'> & { store: () => Promise<PageStore>; storage: StatusStore } {
  const session = browser.storage.session as typeof browser.storage.local | undefined;
  const memory = new Map<string, PageOutcome>();
  return {
    store: keptPageStore(),
    settings: {
      async get(): Promise<Settings> {
        return parseSettings((await browser.storage.local.get('settings'))['settings']);
      },
      async set(settings: Settings): Promise<void> {
        await browser.storage.local.set({ settings });
      },
    },
    outcomes: {
      async get(url) {
        if (!session) return memory.get(url);
        return (await session.get(OUTCOME_PREFIX + url))[OUTCOME_PREFIX + url] as PageOutcome | undefined;
      },
      async set(url, outcome) {
        if (!session) memory.set(url, outcome);
        else await session.set({ [OUTCOME_PREFIX + url]: outcome });
      },
      async delete(url) {
        if (!session) memory.delete(url);
        else await session.remove(OUTCOME_PREFIX + url);
      },
      async clear() {
        memory.clear();
        if (session) await session.remove(Object.keys(await session.get(null)).filter((key) => key.startsWith(OUTCOME_PREFIX)));
      },
    },
    storage: {
      async get() {
        return parseStorageStatus((await browser.storage.local.get(STORAGE_STATUS))[STORAGE_STATUS]);
      },
      async set(status) {
        await browser.storage.local.set({ [STORAGE_STATUS]: status });
      },
      async clear() {
        await browser.storage.local.remove(STORAGE_STATUS);
      },
    },
  };
}
