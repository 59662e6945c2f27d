// Passages in the browser, end to end in Chromium with the built extension: an article on one
// site, an excerpt of it and a page quoting it on another, visited in that order. The excerpt's
// popup lists the article in #passages and its badge counts it; "Show on the page" marks the
// passage on the live excerpt with CSS highlights, the page's markup byte-identical; the sites
// that copy count the excerpt (half its words shared with an earlier page of another site) and not
// the quote; forgetting the article removes its passages; an export and import brings them back.
import type { Page } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeBucket } from '../../lib/index/postings';
import { badgeText, badgeTitle, type ExtensionSession, marksAgainstRun, pollFor, popupUrl, seededProse, type Session, type Site, sleep, startSession, tabIdOf, visit, waitForPopupState } from './harness';


const words = seededProse(21);
const paragraphs = Array.from({ length: 8 }, () => words(70));
const own = seededProse(22);

function page(title: string, body: string[][], site: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body>
<header><nav><a href="/">${site} home</a> · <a href="/news/">News</a> · <a href="/about/">About</a></nav></header>
<main><article>
<h1>${title}</h1>
${body.map((p) => `<p>${p.join(' ')}</p>`).join('\n')}
</article></main>
<footer><p>${site}: ${own(20).join(' ')}</p></footer>
</body></html>`;
}

const ARTICLE = page('The harbour reopens', paragraphs, 'Harbour Ledger');
// the first three paragraphs of the article and a line of the republisher's own
const EXCERPT = page('Harbour reopens (excerpt)', [...paragraphs.slice(0, 3), own(25)], 'Coast Digest');
// 60 words of the article's fifth paragraph inside a page of its own words
const QUOTE = page('On harbours', [own(80), own(80), paragraphs[4]!.slice(5, 65), own(80), own(80)], 'Coast Digest');

let session: Session<'ledger' | 'digest'>;
let ledger: Site;
let digest: Site;
let ext: ExtensionSession;
let dir: string;

const url = {
  article: () => ledger.url('/news/harbour-reopens.html'),
  excerpt: () => digest.url('/2026/harbour-excerpt.html'),
  quote: () => digest.url('/essays/on-harbours.html'),
};

beforeAll(async () => {
  session = await startSession({ ledger: { '/news/harbour-reopens.html': ARTICLE }, digest: { '/2026/harbour-excerpt.html': EXCERPT, '/essays/on-harbours.html': QUOTE } });
  ({ ledger, digest } = session.sites);
  ext = session.ext!;
  dir = mkdtempSync(join(tmpdir(), 'doppel-passages-'));
});

afterAll(async () => {
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Listed {
  url: string;
  share: number;
  text: string;
}

/** The popup's #passages entries, once it is ready. */
async function passagesIn(popup: Page): Promise<Listed[]> {
  return popup.locator('#passages li.passage').evaluateAll((items) =>
    items.map((li) => ({ url: (li.querySelector('a[href]') as HTMLAnchorElement).href, share: Number((li as HTMLElement).dataset['share']), text: li.textContent ?? '' })),
  );
}

/** Opens the popup for `address` (with `tab`, the tab to mark) until it is ready and lists `count` pages sharing passages. */
async function popupListing(popup: Page, address: string, count: number, tab?: number): Promise<Listed[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await waitForPopupState(popup, address, 'ready');
    if (tab !== undefined) await popup.goto(`${popupUrl(ext.extensionId, address)}&tab=${tab}`, { waitUntil: 'domcontentloaded' });
    await popup.waitForSelector('#report[data-state="ready"]');
    const listed = await passagesIn(popup);
    if (listed.length === count || Date.now() > deadline) return listed;
    await sleep(250);
  }
}

function highlightOf(tab: Page): Promise<{ names: string[]; texts: string[] }> {
  return tab.evaluate(() => ({
    names: [...CSS.highlights.keys()],
    texts: [...CSS.highlights.values()].flatMap((h) => [...h].map((r) => (r as Range).toString().replace(/\s+/g, ' ').trim())),
  }));
}

/** Every page id in the postings, read from the extension's IndexedDB in an extension page. */
async function postedIds(popup: Page): Promise<Set<number>> {
  const values = await popup.evaluate(
    () =>
      new Promise<number[][]>((resolve, reject) => {
        const open = indexedDB.open('doppel');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const request = open.result.transaction('postings').objectStore('postings').getAll();
          request.onsuccess = () => {
            resolve((request.result as Uint8Array[]).map((bytes) => [...bytes]));
            open.result.close();
          };
          request.onerror = () => reject(request.error);
        };
      }),
  );
  const ids = new Set<number>();
  for (const bytes of values) for (const id of decodeBucket(Uint8Array.from(bytes)).ids) ids.add(id);
  return ids;
}

describe('passages in the popup and on the page', () => {
  let excerptTab: Page;
  let popup: Page;

  test('the excerpt\'s popup lists the article, the article\'s lists both its excerpt and the quote; the badge counts them', async () => {
    popup = await ext.ctx.newPage();
    const tab = await ext.ctx.newPage();
    await visit(tab, url.article());
    await waitForPopupState(popup, url.article(), 'ready');
    excerptTab = await ext.ctx.newPage();
    await visit(excerptTab, url.excerpt());
    await waitForPopupState(popup, url.excerpt(), 'ready');
    await visit(tab, url.quote());
    await waitForPopupState(popup, url.quote(), 'ready');

    const excerpt = await popupListing(popup, url.excerpt(), 1);
    expect(excerpt.map((p) => p.url)).toEqual([url.article()]);
    expect(excerpt[0]!.share).toBeGreaterThan(0.7); // most of the excerpt is the article's
    expect(excerpt[0]!.text).toContain('The harbour reopens');
    expect(await popup.locator('#matches-section').isHidden()).toBe(true); // no near-duplicate
    expect(await popup.locator('#passages-section').isVisible()).toBe(true);

    const article = await popupListing(popup, url.article(), 2);
    expect(article.map((p) => p.url).sort()).toEqual([url.excerpt(), url.quote()].sort());
    const quoted = article.find((p) => p.url === url.quote())!;
    expect(quoted.share).toBeGreaterThan(0.04);
    expect(quoted.share).toBeLessThan(0.12); // about 60 of the article's 560 words

    const worker = await ext.getWorker();
    const excerptTabId = await tabIdOf(worker, excerptTab);
    expect(await pollFor(() => badgeText(worker, excerptTabId), '1')).toBe('1');
    expect(await badgeTitle(worker, excerptTabId)).toMatch(/shares passages/);
  });

  test('"Show on the page" marks the passage on the live page with the markup unchanged; a second press clears it', async () => {
    const before = await excerptTab.evaluate(() => document.documentElement.outerHTML);
    const tabId = await tabIdOf(await ext.getWorker(), excerptTab);
    await popupListing(popup, url.excerpt(), 1, tabId);
    const button = popup.locator('#show-passages');
    await expect.poll(() => popup.locator('#passages-section').getAttribute('data-marks')).toBe('none');
    expect(await button.getAttribute('aria-pressed')).toBe('false');
    await button.focus();
    await popup.keyboard.press('Enter');
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('true');
    const marked = await highlightOf(excerptTab);
    expect(marked.names).toEqual(['doppel-passage-0']);
    // the marks start and end within 5 words of the shared run's ends: the article's first three paragraphs
    const run = paragraphs.slice(0, 3).flat();
    const against = marksAgainstRun(marked.texts, run);
    expect(against, marked.texts.join(' | ')).not.toBeNull();
    expect(Math.abs(against!.start)).toBeLessThanOrEqual(5);
    expect(Math.abs(against!.end - run.length)).toBeLessThanOrEqual(5);
    expect(await excerptTab.evaluate(() => document.documentElement.outerHTML)).toBe(before);

    // a popup opened while the marks are shown starts pressed
    const second = await ext.ctx.newPage();
    await second.goto(`${popupUrl(ext.extensionId, url.excerpt())}&tab=${tabId}`, { waitUntil: 'domcontentloaded' });
    await expect.poll(() => second.locator('#show-passages').getAttribute('aria-pressed')).toBe('true');
    await second.locator('#show-passages').click();
    await expect.poll(() => second.locator('#show-passages').getAttribute('aria-pressed')).toBe('false');
    expect(await highlightOf(excerptTab)).toEqual({ names: [], texts: [] });
    expect(await excerptTab.evaluate(() => document.documentElement.outerHTML)).toBe(before);
    await second.close();
  });

  test('the sites that copy count the excerpt, not the quote, and show it beside the article', async () => {
    const history = await ext.ctx.newPage();
    await history.goto(`chrome-extension://${ext.extensionId}/history.html#sites`, { waitUntil: 'domcontentloaded' });
    const row = history.locator(`#site-list tr[data-site="${new URL(digest.origin).host}"]`);
    await row.waitFor();
    // pages, copies, their share: the excerpt is a copy, the quote (a tenth of its words) is not
    expect((await row.locator('td.num').allTextContents()).slice(0, 3)).toEqual(['2', '1', '50%']);
    expect(await history.locator('#site-rule').textContent()).toMatch(/at least half of its words are in passages/);
    await row.locator('button').first().click();
    const evidence = history.locator('li[data-copy]');
    await evidence.first().waitFor();
    expect(await evidence.evaluateAll((items) => items.map((li) => [(li as HTMLElement).dataset['copy'], (li as HTMLElement).dataset['original']]))).toEqual([[url.excerpt(), url.article()]]);
    await history.close();
  });

  test('forgetting the article removes its passages: the excerpt lists none, and no posting names it', async () => {
    await waitForPopupState(popup, url.article(), 'ready');
    const before = await postedIds(popup);
    await popup.locator('#forget').click();
    await waitForPopupState(popup, url.article(), 'unknown');
    const after = await postedIds(popup);
    expect(after.size).toBe(before.size - 1); // the article's id is gone, the two others stay
    expect(await popupListing(popup, url.excerpt(), 0)).toEqual([]);
    expect(await popup.locator('#passages-section').isHidden()).toBe(true);
  });

  test('an export carries the passages; cleared and imported again, the excerpt lists the article again', async () => {
    const tab = await ext.ctx.newPage();
    await visit(tab, url.article());
    await popupListing(popup, url.excerpt(), 1);
    const history = await ext.ctx.newPage();
    await history.goto(`chrome-extension://${ext.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
    const [download] = await Promise.all([history.waitForEvent('download'), history.locator('#export').click()]);
    const file = join(dir, 'export.ndjson');
    await download.saveAs(file);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!).passages).toEqual({ k: 5, w: 26, bytes: 2 });
    expect(lines.slice(1).map((l) => typeof JSON.parse(l).passages)).toEqual(['string', 'string', 'string']);
    expect(lines.join('\n')).not.toContain(paragraphs[0]![0]); // fingerprints, never words

    await history.locator('#clear-all').click();
    await history.locator('#clear-confirm').click();
    await waitForPopupState(popup, url.excerpt(), 'unknown');
    expect((await postedIds(popup)).size).toBe(0);

    await history.locator('#import-file').setInputFiles(file);
    await expect.poll(() => history.locator('#import').isEnabled()).toBe(true);
    await history.locator('#import').click();
    await history.waitForFunction(() => document.getElementById('import-form')?.dataset['state'] === 'done', undefined, { timeout: 30_000 });
    const listed = await popupListing(popup, url.excerpt(), 1);
    expect(listed.map((p) => p.url)).toEqual([url.article()]);
    expect(ext.pageErrors).toEqual([]);
  });
});
