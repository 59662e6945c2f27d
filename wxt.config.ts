import { defineConfig } from 'wxt';

// See https://wxt.dev/api/config.html
export default defineConfig({
  // WXT 0.20+ no longer bundles webextension-polyfill; this module makes `wxt/browser` the polyfill.
  modules: ['@wxt-dev/webextension-polyfill'],
  manifest: ({ browser }) => ({
    name: 'Doppel',
    description: 'Notices when the page you are reading is a near-duplicate of one you read before.',
    // storage: settings (storage.local) and why a page was not recorded (storage.session).
    // activeTab: the popup reads the address of the tab it was opened on, and only that one.
    permissions: ['storage', 'activeTab'],
    // Firefox needs a fixed add-on id; Chrome warns about the key, so only Firefox gets it.
    ...(browser === 'firefox' && {
      browser_specific_settings: {
        // Doppel collects and transmits no data: Firefox shows this at install (the key needs
        // Firefox 140, Android 142).
        gecko: { id: 'doppel@doppel.invalid', strict_min_version: '140.0', data_collection_permissions: { required: ['none'] } },
        gecko_android: { strict_min_version: '142.0' },
      },
    }),
  }),
});
