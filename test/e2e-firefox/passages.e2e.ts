// Shared passages in Firefox, end to end, through the popup (harness.ts: firefox-esr, the built
// add-on). Two local sites: an original article on one, an excerpt of it (its first four of nine
// paragraphs, 44% of its words, in another template) on the other. The excerpt's popup, opened
// with `&tab=` for the excerpt's tab, lists the original among the pages sharing passages; "Show
// on the page" marks them with CSS highlights, the page's markup byte-identical; forgetting the
// original empties the list; and an export and import round trip keeps the passage fingerprints.
//
// The tests share one browser and run in order: each relies on what the ones before did.
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { base64ToBytes, decodePassageBytes } from '../../lib/fingerprint/passage-codec';
import { mulberry32 } from '../../lib/random';
import { pseudoWords } from '../e2e/generated-pages';
import { marksAgainstRun, servePages, type Site } from '../e2e/harness';
import { type FirefoxSession, clearAll, importFile, launchFirefox, openExtensionPage, readExport, sorted, until } from './harness';

const random = mulberry32(2025);
/** Made-up prose: sentences of 11 words with a comma after the fifth. */
const prose = (sentences: number): string => Array.from({ length: sentences }, () => `${pseudoWords(random, 5)}, ${pseudoWords(random, 6)}.`).join(' ');

/** Nine paragraphs of 55 words: 495 words. The excerpt has the first four (220 words, 44%). */
const PARAGRAPHS = Array.from({ length: 9 }, () => prose(5));
const EXCERPT_PARAGRAPHS = PARAGRAPHS.slice(0, 4);

const ORIGINAL = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${prose(1)}</title></head>
<body>
<header><nav><ul>${Array.from({ length: 6 }, (_, i) => `<li><a href="/section-${i}">${pseudoWords(random, 2)}</a></li>`).join('')}</ul></nav></header>
<main><article>
<h1>${pseudoWords(random, 7)}</h1>
<p class="byline">${pseudoWords(random, 4)}</p>
${PARAGRAPHS.map((p) => `<p>${p}</p>`).join('\n')}
</article></main>
<footer><p>${prose(2)}</p><nav><a href="/about">${pseudoWords(random, 2)}</a> <a href="/contact">${pseudoWords(random, 2)}</a></nav></footer>
</body></html>`;

const EXCERPT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${prose(1)}</title></head>
<body>
<div class="masthead"><a href="/">${pseudoWords(random, 2)}</a> <span class="tagline">${pseudoWords(random, 8)}</span></div>
<div id="content">
<div class="post">
<h2 class="post-title">${pseudoWords(random, 6)}</h2>
<div class="entry">
${EXCERPT_PARAGRAPHS.map((p) => `<p>${p}</p>`).join('\n')}
<p class="more"><a href="/continue">${pseudoWords(random, 3)}</a></p>
</div>
</div>
<aside><h3>${pseudoWords(random, 2)}</h3><ul>${Array.from({ length: 4 }, (_, i) => `<li><a href="/post-${i}">${pseudoWords(random, 5)}</a></li>`).join('')}</ul></aside>
</div>
<div class="bottom">${prose(1)}</div>
</body></html>`;

const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();
/** The excerpt's article text as the page shows it (paragraphs apart by white space). */
const EXCERPT_TEXT = collapse(EXCERPT_PARAGRAPHS.join(' '));

let siteA: Site;
let siteB: Site;
let ff: FirefoxSession;
/** The tab that keeps the excerpt open throughout (the one the popup marks). */
let excerptTab: Page;
/** Its tab id (browser.tabs). */
let excerptTabId: number;

const originalUrl = (): string => siteA.url('/news/2025/harbour-report.html');
const excerptUrl = (): string => siteB.url('/digest/harbour-excerpt.html');

/**
 * The tab id of `page`: brought to the front, then the active tab as the popup page sees it
 * (browser.tabs.query). Firefox gives the extension no http(s) tab's URL or title without the
 * "tabs" permission, so the tab cannot be found by its address.
 */
async function tabIdOf(page: Page): Promise<number> {
  await page.bringToFront();
  const id = await ff.popup.evaluate(async () => {
    const tabs = await (globalThis as unknown as { browser: { tabs: { query(q: object): Promise<{ id?: number }[]> } } }).browser.tabs.query({ active: true, currentWindow: true });
    return tabs.length === 1 ? (tabs[0]!.id ?? null) : null;
  });
  if (id === null) throw new Error('no single active tab');
  return id;
}

interface ListedPassage {
  url: string;
  href: string | null;
  share: number;
}

/** What the popup (left on a report) lists under #passages, and whether the section is shown. */
function listedPassages(): Promise<{ hidden: boolean; entries: ListedPassage[] }> {
  return ff.popup.$eval('#passages-section', (section) => ({
    hidden: (section as HTMLElement).hidden,
    entries: [...section.querySelectorAll<HTMLElement>('#passages li.passage')].map((li) => ({
      url: li.dataset['url'] ?? '',
      href: li.querySelector<HTMLAnchorElement>('a.title[href]')?.href ?? null,
      share: Number(li.dataset['share']),
    })),
  }));
}

/** Opens the excerpt's popup, marking the excerpt's tab, once it is recorded; resolves with its passages. */
async function excerptPopup(): Promise<{ hidden: boolean; entries: ListedPassage[] }> {
  expect(await ff.waitForPopupState(excerptUrl(), 'ready', { tab: excerptTabId })).toEqual([]); // no near-duplicate: only passages
  return listedPassages();
}

/** The excerpt page's highlights: their names, and the text of each range of doppel-passage-0. */
function highlights(): Promise<{ names: string[]; texts: string[] }> {
  return excerptTab.evaluate(() => ({
    names: [...CSS.highlights.keys()],
    texts: [...(CSS.highlights.get('doppel-passage-0') ?? [])].map((range) => (range as Range).toString()),
  }));
}

const html = (): Promise<string> => excerptTab.evaluate(() => document.documentElement.outerHTML);

/** Waits until the popup's #show-passages has aria-pressed `pressed` and the section's data-marks is `marks`. */
async function toggled(pressed: 'true' | 'false', marks: string): Promise<void> {
  await until(`#show-passages[aria-pressed="${pressed}"] in #passages-section[data-marks="${marks}"]`, () =>
    ff.popup.evaluate((p: string, m: string) => document.querySelector(`#passages-section[data-marks="${m}"] #show-passages[aria-pressed="${p}"]`) !== null, pressed, marks),
  );
}

/** Presses "Show on the page" in the popup (brought to the front: a click is real input) and checks that the excerpt is marked, its markup unchanged. */
async function showMarks(): Promise<void> {
  const before = await html();
  await ff.popup.bringToFront();
  await ff.popup.click('#show-passages');
  await toggled('true', 'shown');
  expect(await ff.popup.$eval('#error', (el) => (el as HTMLElement).hidden)).toBe(true);
  const { names, texts } = await highlights();
  expect(names).toEqual(['doppel-passage-0']);
  expect(texts.length).toBeGreaterThanOrEqual(1);
  // the shared run is the excerpt's 220 words: the marks start and end within 5 words of its ends
  // (the word bits extend a match to the run, and past it only while bits agree by chance)
  const run = EXCERPT_TEXT.split(' ');
  const against = marksAgainstRun(texts, run);
  expect(against, texts.join(' | ')).not.toBeNull();
  expect(Math.abs(against!.start)).toBeLessThanOrEqual(5);
  expect(Math.abs(against!.end - run.length)).toBeLessThanOrEqual(5);
  expect(await ff.popup.$eval('#passages li.passage', (li) => Number((li as HTMLElement).dataset['ranges']))).toBe(texts.length);
  expect(await html()).toBe(before);
}

/** Presses the toggle again: the marks are cleared, the markup unchanged. */
async function clearMarks(): Promise<void> {
  const before = await html();
  await ff.popup.bringToFront();
  await ff.popup.click('#show-passages');
  await toggled('false', 'none');
  expect(await highlights()).toEqual({ names: [], texts: [] });
  expect(await html()).toBe(before);
}

beforeAll(async () => {
  siteA = await servePages({ '/news/2025/harbour-report.html': ORIGINAL });
  siteB = await servePages({ '/digest/harbour-excerpt.html': EXCERPT });
  ff = await launchFirefox();
  excerptTab = await ff.newTab();
  // the markup as parsed, before the content script ran (it reads the page at document idle)
  await excerptTab.evaluateOnNewDocument(() => {
    document.addEventListener('DOMContentLoaded', () => {
      (window as unknown as { __parsed: string }).__parsed = document.documentElement.outerHTML;
    });
  });
});

afterAll(async () => {
  await ff?.close();
  await siteA?.close();
  await siteB?.close();
});

describe('shared passages in Firefox', () => {
  test('the excerpt, recorded after the original, lists it among the pages sharing passages, with more than half its words', async () => {
    expect(await ff.record(originalUrl())).toEqual([]);
    expect(await ff.record(excerptUrl(), excerptTab)).toEqual([]);
    excerptTabId = await tabIdOf(excerptTab);

    const { hidden, entries } = await excerptPopup();
    expect(hidden).toBe(false);
    expect(entries.map((e) => [e.url, e.href])).toEqual([[originalUrl(), originalUrl()]]);
    expect(entries[0]!.share).toBeGreaterThan(0.5);
    expect(await ff.popup.$eval('#show-passages', (b) => (b as HTMLElement).hidden)).toBe(false);
    await toggled('false', 'none'); // the tab answered passages/get: nothing marked
  });

  test('"Show on the page" marks the passages with CSS highlights, the markup byte-identical; a second press clears them', async () => {
    expect(await excerptTab.evaluate(() => (window as unknown as { __parsed?: string }).__parsed)).toBe(await html());
    expect(await highlights()).toEqual({ names: [], texts: [] });
    await showMarks();

    // a popup opened while the marks are shown starts pressed (passages/get)
    await excerptPopup();
    await toggled('true', 'shown');
    await clearMarks();
    expect(ff.pageErrors).toEqual([]);
  });

  test('forgetting the original removes its passages: the excerpt lists none', async () => {
    await ff.waitForPopupState(originalUrl(), 'ready');
    await ff.popup.bringToFront();
    await ff.popup.click('#forget');
    await until('the original forgotten', () => ff.popup.evaluate(() => document.querySelector('[data-state="unknown"]') !== null));

    const { hidden, entries } = await excerptPopup();
    expect(entries).toEqual([]);
    expect(hidden).toBe(true);
  });

  test('an export and import round trip keeps the passage fingerprints: the excerpt lists the original again and marks it', async () => {
    expect(await ff.record(originalUrl())).toEqual([]);
    expect((await excerptPopup()).entries.map((e) => e.url)).toEqual([originalUrl()]);

    const history = await ff.browser.newPage();
    await openExtensionPage(history, 'history.html', '#list[data-state="ready"]');
    const exported = await ff.exportHistory(history);
    const { header, pages } = readExport(exported);
    expect(header).toMatchObject({ pages: 2, passages: { k: 5, w: 26, bytes: 2 } });
    expect(sorted(pages.map((p) => p['url'] as string))).toEqual(sorted([originalUrl(), excerptUrl()]));
    for (const page of pages) expect(decodePassageBytes(base64ToBytes(page['passages'] as string)).words, page['url'] as string).toBeGreaterThan(200);

    await clearAll(history);
    expect(await ff.waitForPopupState(excerptUrl(), 'unknown')).toEqual([]);

    expect(await importFile(history, exported)).toMatch(/^2 pages added, 0 merged/);
    const { hidden, entries } = await excerptPopup();
    expect(hidden).toBe(false);
    expect(entries.map((e) => e.url)).toEqual([originalUrl()]);
    expect(entries[0]!.share).toBeGreaterThan(0.5);
    // the imported fingerprints mark the live page as the recorded ones did
    await showMarks();
    await clearMarks();
    await history.close();
    expect(ff.pageErrors).toEqual([]);
    expect(ff.dialogs).toEqual([]);
  });
});
