// Screenshots of Doppel in Debian's Chromium with the built extension, after reading a few articles
// of four sites served on 127.0.0.1 under realistic host names (Chromium's --host-resolver-rules;
// .example is a reserved top-level domain, so no real site is named):
// - docs/store/LANG/1-popup.png, 2-history.png, 3-sites.png, 4-passages.png, 5-rewrites.png:
//   1280×800, for the Chrome Web Store and addons.mozilla.org, in English, Spanish and Chinese
//   (Chromium's --lang). The popup is drawn under a plain toolbar over the page it reports on (in
//   4-passages.png, a page quoting an article read before, its passages marked by "Show on the
//   page"; in 5-rewrites.png, the Spanish translation of samples/'s tide-mill article, read after the
//   article and a reworded copy of it, the names they share marked): headless Chromium shows no
//   browser chrome.
// - docs/screenshots/: the README's popup and history page, light and dark (English run only).
// Run: npm run build && npm run screenshots [-- en|es|zh-CN …]. The Chinese set needs a CJK font
// (Debian: apt-get install fonts-noto-cjk), or Chromium draws empty boxes.
import type { Page } from 'playwright-core';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { badgeText, launchWithExtension, popupUrl, servePages, sleep, tabIdOf, visit, waitForPopupState, type ExtensionSession, type Site } from '../test/e2e/harness';

const PAGES = fileURLToPath(new URL('../test/e2e/pages/', import.meta.url));
const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const ICON = fileURLToPath(new URL('../public/icon/32.png', import.meta.url));
const STORE_SIZE = { width: 1280, height: 800 };

/** Host name → the test site served under it. */
const HOSTS = {
  almanac: 'www.glenmorie-almanac.example',
  courier: 'www.harrowby-courier.example',
  digest: 'wireline-digest.example',
  pulse: 'newspulse-today.example',
} as const;
const SOURCES: Record<keyof typeof HOSTS, string> = { almanac: 'almanac', courier: 'original', digest: 'aggregator', pulse: 'republisher' };
/** samples/' tide-mill article, a reworded copy and its Spanish translation, each on a site of its own. */
const REWRITE_HOSTS = {
  wrenmouth: 'www.wrenmouth-post.example',
  mill: 'todays-heritage-buzz.example',
  noticias: 'noticias-del-estuario.example',
} as const;
const REWRITE_SOURCES: Record<keyof typeof REWRITE_HOSTS, string> = { wrenmouth: 'original-site', mill: 'rewrite-mill', noticias: 'traducciones' };
const REWRITE_READS: [keyof typeof REWRITE_HOSTS, string][] = [
  ['wrenmouth', '/2024/05/wrenmouth-tide-mill-turns-again.html'],
  ['mill', '/2024/05/historic-tide-mill-spins-again.html'],
  ['noticias', '/2024/05/el-molino-de-marea-de-wrenmouth-vuelve-a-girar.html'],
];
const SAMPLES = fileURLToPath(new URL('../samples/', import.meta.url));

/** The articles read, in order: originals first, then their copies on two other sites. */
const READS: [keyof typeof HOSTS, string][] = [
  ['almanac', '/history/lighthouse-logbooks.html'],
  ['almanac', '/nature/winter-bees.html'],
  ['courier', '/news/2024/ferry-returns.html'],
  ['almanac', '/waterways/canal-lock.html'],
  ['courier', '/community/keepers-diaries.html'],
  ['courier', '/culture/repair-cafe.html'],
  ['digest', '/copies/lighthouse-logbooks.html'],
  ['pulse', '/stories/ferry-service-back.html'],
  ['digest', '/copies/winter-bees.html'],
  ['pulse', '/stories/second-hand-bicycle.html'],
  ['pulse', '/stories/skellan-ferry-linnet.html'],
];
/** The page the popup is shown on: an edited copy with two near-duplicates read before. */
const SHOWN: [keyof typeof HOSTS, string] = ['pulse', '/stories/skellan-ferry-linnet.html'];
/** The page whose shared passages are shown: two paragraphs of the almanac's lighthouse article in a story of its own. */
const QUOTING: [keyof typeof HOSTS, string] = ['courier', '/community/keepers-diaries.html'];

const address = (host: keyof typeof HOSTS | keyof typeof REWRITE_HOSTS, path: string): string => `http://${{ ...HOSTS, ...REWRITE_HOSTS }[host]}${path}`;
const dataUrl = (png: Buffer): string => `data:image/png;base64,${png.toString('base64')}`;

async function readArticles(ext: ExtensionSession, popup: Page, reads: readonly [keyof typeof HOSTS | keyof typeof REWRITE_HOSTS, string][] = READS): Promise<void> {
  for (const [host, path] of reads) {
    const tab = await ext.ctx.newPage();
    await visit(tab, address(host, path));
    await waitForPopupState(popup, address(host, path), 'ready');
    await tab.close();
    await sleep(50);
  }
}

/**
 * The page at 1280×800 with the popup open under a toolbar showing its address and Doppel's badge.
 * With `marks`, the popup is the tab's own (`&tab=`) and "Show on the page" is pressed first, so the
 * page is drawn with its shared passages marked.
 */
async function popupOverPage(ext: ExtensionSession, popup: Page, out: string, shown: [keyof typeof HOSTS | keyof typeof REWRITE_HOSTS, string] = SHOWN, { marks = false, toggle = '#show-passages' } = {}): Promise<void> {
  const url = address(...shown);
  const tab = await ext.ctx.newPage();
  const toolbar = 44;
  await tab.setViewportSize({ width: STORE_SIZE.width, height: STORE_SIZE.height - toolbar });
  await visit(tab, url);
  await popup.setViewportSize({ width: 400, height: 600 });
  const worker = await ext.getWorker();
  const tabId = await tabIdOf(worker, tab);
  if (marks) {
    await popup.goto(`${popupUrl(ext.extensionId, url)}&tab=${tabId}`, { waitUntil: 'domcontentloaded' });
    await popup.locator('#report[data-state="ready"]').waitFor();
    await popup.locator(toggle).click();
    await popup.locator(`${toggle}[aria-pressed="true"]`).waitFor();
    await popup.locator(toggle).blur();
    // the first marked passage near the top of the view (the registry of CSS highlights is the document's)
    await tab.evaluate(() => {
      const first = [...CSS.highlights.values()].flatMap((highlight) => [...highlight] as Range[])[0];
      first?.startContainer.parentElement?.scrollIntoView({ block: 'start' });
      window.scrollBy(0, -120);
    });
  } else await waitForPopupState(popup, url, 'ready');
  const badge = await badgeText(worker, tabId);
  const pageShot = await tab.screenshot();
  const popupShot = await popup.locator('main').screenshot();
  const frame = await ext.ctx.newPage();
  await frame.setViewportSize(STORE_SIZE);
  await frame.setContent(`<!doctype html><html><body style="margin:0;font:14px system-ui,sans-serif">
    <div style="height:${toolbar}px;box-sizing:border-box;display:flex;align-items:center;gap:12px;padding:0 14px;background:#dee1e6;border-bottom:1px solid #c4c7cc">
      <div style="flex:1;height:30px;border-radius:15px;background:#fff;display:flex;align-items:center;padding:0 16px;color:#3c4043">${url.replace(/^http:\/\//, '')}</div>
      <div style="position:relative;width:28px;height:28px;display:grid;place-items:center;border-radius:6px;background:#c8ccd2">
        <img src="${dataUrl(readFileSync(ICON))}" width="16" height="16" />
        <span style="position:absolute;right:-4px;bottom:-3px;min-width:14px;padding:0 2px;border-radius:3px;background:#8a4b08;color:#fff;font-size:10px;line-height:14px;text-align:center">${badge}</span>
      </div>
    </div>
    <img src="${dataUrl(pageShot)}" style="display:block" />
    <img src="${dataUrl(popupShot)}" style="position:absolute;top:${toolbar - 4}px;right:10px;width:400px;border-radius:8px;box-shadow:0 6px 24px rgba(0,0,0,.28),0 0 0 1px rgba(0,0,0,.12)" />
  </body></html>`);
  await frame.screenshot({ path: out });
  for (const page of [tab, frame]) await page.close();
}

async function historyShots(ext: ExtensionSession, dir: string): Promise<void> {
  const history = await ext.ctx.newPage();
  await history.setViewportSize(STORE_SIZE);
  await history.goto(`chrome-extension://${ext.extensionId}/history.html`);
  await history.locator('#list[data-state="ready"]').waitFor();
  await history.locator('#site-list[data-state="ready"]').waitFor();
  await history.screenshot({ path: `${dir}2-history.png` });
  await history.locator(`tr[data-site="${HOSTS.pulse}"] button`).click();
  await history.locator('.evidence:not([hidden]) li').first().waitFor();
  await history.locator('#sites').evaluate((section) => section.scrollIntoView());
  await history.screenshot({ path: `${dir}3-sites.png` });
  await history.close();
}

/** The README's screenshots (docs/screenshots/), light and dark. */
async function readmeShots(ext: ExtensionSession, popup: Page): Promise<void> {
  const out = `${DOCS}screenshots/`;
  const history = await ext.ctx.newPage();
  await history.setViewportSize({ width: 900, height: 1100 });
  await popup.setViewportSize({ width: 420, height: 560 });
  for (const scheme of ['light', 'dark'] as const) {
    await popup.emulateMedia({ colorScheme: scheme });
    await waitForPopupState(popup, address(...SHOWN), 'ready');
    await popup.screenshot({ path: `${out}popup-${scheme}.png`, fullPage: true });
    await history.emulateMedia({ colorScheme: scheme });
    await history.goto(`chrome-extension://${ext.extensionId}/history.html`);
    await history.locator('#list[data-state="ready"]').waitFor();
    await history.locator('#site-list[data-state="ready"]').waitFor();
    await history.locator(`tr[data-site="${HOSTS.pulse}"] button`).click();
    await history.locator('.evidence:not([hidden]) li').first().waitFor();
    // the click scrolled the button into view: back to the top, or the sticky selection bar is drawn mid-list
    await history.evaluate(() => window.scrollTo(0, 0));
    await history.screenshot({ path: `${out}history-${scheme}.png`, fullPage: true });
    console.log(`wrote docs/screenshots/popup-${scheme}.png and history-${scheme}.png`);
  }
  await popup.emulateMedia({ colorScheme: 'light' });
  await history.close();
}

const languages = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['en', 'es', 'zh-CN'];
const sites: Record<string, Site> = {};
for (const [name, source] of Object.entries(SOURCES)) sites[name] = await servePages(`${PAGES}${source}`);
for (const [name, source] of Object.entries(REWRITE_SOURCES)) sites[name] = await servePages(`${SAMPLES}${source}`);
const rules = Object.entries({ ...HOSTS, ...REWRITE_HOSTS }).map(([name, host]) => `MAP ${host} 127.0.0.1:${sites[name]!.port}`).join(',');
try {
  for (const lang of languages) {
    const ext = await launchWithExtension(process.env.DOPPEL_EXTENSION_DIR ?? '.output/chrome-mv3', {
      // no HTTPS upgrade of the http:// addresses: the test sites serve plain HTTP
      args: [`--lang=${lang}`, `--host-resolver-rules=${rules}`, '--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable'],
    });
    try {
      const popup = await ext.ctx.newPage();
      await readArticles(ext, popup);
      const dir = `${DOCS}store/${lang}/`;
      mkdirSync(dir, { recursive: true });
      await popupOverPage(ext, popup, `${dir}1-popup.png`);
      await historyShots(ext, dir);
      await popupOverPage(ext, popup, `${dir}4-passages.png`, QUOTING, { marks: true });
      await readArticles(ext, popup, REWRITE_READS);
      await popupOverPage(ext, popup, `${dir}5-rewrites.png`, REWRITE_READS[2], { marks: true, toggle: '#show-rewrites' });
      console.log(`wrote docs/store/${lang}/1-popup.png, 2-history.png, 3-sites.png, 4-passages.png and 5-rewrites.png`);
      if (lang === 'en') await readmeShots(ext, popup);
    } finally {
      await ext.close();
    }
  }
} finally {
  for (const site of Object.values(sites)) await site.close();
}
