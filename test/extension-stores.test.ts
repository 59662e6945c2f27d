// The background's storage adapter on WXT's fake browser: settings in storage.local, not-article
// reasons in storage.session (or memory where there is none).
import 'fake-indexeddb/auto';
import { fakeBrowser } from 'wxt/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { extensionStores } from '../entrypoints/background/stores';
import { DEFAULT_SETTINGS } from '../lib/protocol/messages';
import { resetDb } from '../lib/store/db';

describe('extensionStores', () => {
  beforeEach(async () => {
    fakeBrowser.reset();
    await resetDb();
  });

  it('reads default settings, writes them to storage.local, and drops what is not a setting', async () => {
    const { settings } = extensionStores();
    expect(await settings.get()).toEqual(DEFAULT_SETTINGS);
    const chosen = { paused: true, excludedSites: ['a.example'], recordIncognito: false, k: 5, siteMarks: { 'b.example': 'farm' as const } };
    await settings.set(chosen);
    expect((await fakeBrowser.storage.local.get('settings'))['settings']).toEqual(chosen);
    expect(await settings.get()).toEqual(chosen);
    await fakeBrowser.storage.local.set({ settings: { paused: 'yes', excludedSites: 'all', extra: 1, k: 9, siteMarks: { 'c.example': 'evil' } } });
    expect(await settings.get()).toEqual(DEFAULT_SETTINGS);
  });

  it('keeps not-article reasons in storage.session, per URL', async () => {
    const { outcomes } = extensionStores();
    await outcomes.set('https://a.example/x', { state: 'not-article', reason: 'Too short.' });
    expect(await outcomes.get('https://a.example/x')).toEqual({ state: 'not-article', reason: 'Too short.' });
    expect(await outcomes.get('https://a.example/y')).toBeUndefined();
    expect(Object.keys(await fakeBrowser.storage.session.get())).toEqual(['outcome:https://a.example/x']);
    await outcomes.delete('https://a.example/x');
    expect(await outcomes.get('https://a.example/x')).toBeUndefined();
  });

  it('keeps whether storage was found full in storage.local, and drops a malformed value', async () => {
    const { storage } = extensionStores();
    expect(await storage.get()).toBeUndefined();
    await storage.set({ state: 'full', at: 5, evicted: 100 });
    expect((await fakeBrowser.storage.local.get('storageStatus'))['storageStatus']).toEqual({ state: 'full', at: 5, evicted: 100 });
    expect(await storage.get()).toEqual({ state: 'full', at: 5, evicted: 100 });
    await storage.clear();
    expect(await storage.get()).toBeUndefined();
    await fakeBrowser.storage.local.set({ storageStatus: { state: 'full', at: 'yesterday', evicted: 1 } });
    expect(await storage.get()).toBeUndefined();
  });

  it('opens the page store on IndexedDB', async () => {
    const { store } = extensionStores();
    const pages = typeof store === 'function' ? await store() : store;
    expect(await pages.count()).toBe(0);
    expect(pages.design.tables).toHaveLength(4);
  });
});
