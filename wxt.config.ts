import { defineConfig } from 'wxt';

// See https://wxt.dev/api/config.html
export default defineConfig({
  manifest: {
    name: 'Doppel',
    description: 'Notices when the page you are reading is a near-duplicate of one you read before.',
    browser_specific_settings: {
      gecko: { id: 'doppel@doppel.invalid' },
    },
  },
});
