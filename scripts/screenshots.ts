// Takes the README's screenshots (docs/screenshots/) in Debian's Chromium with the built
// extension: the popup on a copy from a flagged site, and the history page, light and dark.
// Run: npm run build && npm run screenshots
import type { Page } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { launchWithExtension, servePages, sleep, visit, waitForPopupState } from '../test/e2e/harness';

const PAGES = fileURLToPath(new URL('../test/e2e/pages/', import.meta.url));
const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));

const almanac = await servePages(`${PAGES}almanac`);
const copierA = await servePages(`${PAGES}aggregator`);
const copierB = await servePages(`${PAGES}aggregator`);
const ext = await launchWithExtension(process.env.DOPPEL_EXTENSION_DIR ?? '.output/chrome-mv3');
try {
  const popup = await ext.ctx.newPage();
  const reads = [
    almanac.url('/history/lighthouse-logbooks.html'),
    almanac.url('/nature/winter-bees.html'),
    almanac.url('/waterways/canal-lock.html'),
    copierA.url('/copies/lighthouse-logbooks.html'),
    copierB.url('/copies/lighthouse-logbooks.html'),
    copierB.url('/copies/winter-bees.html'),
  ];
  for (const address of reads) {
    const tab = await ext.ctx.newPage();
    await visit(tab, address);
    await waitForPopupState(popup, address, 'ready');
    await tab.close();
    await sleep(50);
  }
  const history: Page = await ext.ctx.newPage();
  await history.setViewportSize({ width: 900, height: 1100 });
  await popup.setViewportSize({ width: 420, height: 560 });
  for (const scheme of ['light', 'dark'] as const) {
    await popup.emulateMedia({ colorScheme: scheme });
    await waitForPopupState(popup, copierB.url('/copies/lighthouse-logbooks.html'), 'ready');
    await popup.screenshot({ path: `${OUT}popup-${scheme}.png` });
    await history.emulateMedia({ colorScheme: scheme });
    await history.goto(`chrome-extension://${ext.extensionId}/history.html`);
    await history.locator('#list[data-state="ready"]').waitFor();
    await history.locator('#site-list[data-state="ready"]').waitFor();
    await history.locator(`tr[data-site="${new URL(copierB.origin).host}"] button`).click();
    await history.locator('.evidence:not([hidden]) li').first().waitFor();
    await history.screenshot({ path: `${OUT}history-${scheme}.png`, fullPage: true });
    console.log(`wrote popup-${scheme}.png and history-${scheme}.png`);
  }
} finally {
  await ext.close();
  for (const site of [almanac, copierA, copierB]) await site.close();
}
