import { defineConfig } from 'wxt';

// Content Security Policy of the extension's own pages (popup, history page, background). They load
// only module scripts and stylesheets from the extension itself (no inline scripts or styles, no
// eval) and Doppel sends nothing anywhere, so everything is 'self' and network access is 'none'
// (connect-src 'none': no fetch/XHR/WebSocket/beacon; `wxt` dev mode is not meant to run with
// it). No 'unsafe-inline' or 'unsafe-eval': test/e2e/trust.e2e.ts checks the built manifest.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "object-src 'none'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The toolbar and store icons: public/icon/SIZE.png, rendered from assets/icon/ by `npm run icons`. */
const ICONS = Object.fromEntries([16, 32, 48, 128].map((size) => [size, `icon/${size}.png`]));

// See https://wxt.dev/api/config.html
export default defineConfig({
  hooks: {
    // WXT reads an entrypoint named `history` as Chrome's history-page override. Doppel's page must be
    // `history.html` but must never replace chrome://history, so the override is taken out again.
    // test/manifest.test.ts checks both built manifests.
    'build:manifestGenerated': (_wxt, manifest) => {
      delete manifest.chrome_url_overrides;
    },
  },
  // AMO's sources zip (npm run zip) needs what builds the add-on, not the documents' pictures.
  zip: { excludeSources: ['docs/**/*.png'] },
  // WXT 0.20+ no longer bundles webextension-polyfill; this module makes `wxt/browser` the polyfill.
  modules: ['@wxt-dev/webextension-polyfill'],
  manifest: ({ browser }) => ({
    // Name and description come from public/_locales/LOCALE/messages.json.
    name: '__MSG_extName__',
    description: '__MSG_extDescription__',
    default_locale: 'en',
    icons: ICONS,
    // The toolbar button (MV3 `action`, MV2 `browser_action`); WXT adds the popup to it.
    [browser === 'firefox' ? 'browser_action' : 'action']: { default_icon: ICONS },
    // storage: settings (storage.local) and why a page was not recorded (storage.session).
    // activeTab: the popup reads the address of the tab it was opened on, and only that one.
    // offscreen (Chromium): the reader document, where Readability reads the pages' HTML
    // (entrypoints/reader/); Firefox reads them in its background page.
    permissions: ['storage', 'activeTab', 'unlimitedStorage', ...(browser === 'firefox' ? [] : ['offscreen'])],
    // MV3 (Chrome) takes an object, MV2 (Firefox) the bare string.
    content_security_policy: browser === 'firefox' ? CSP : { extension_pages: CSP },
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
