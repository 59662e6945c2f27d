// Which page of a story is the original, in Firefox, end to end (harness.ts: firefox-esr, the
// built add-on); the smaller twin of test/e2e/provenance.e2e.ts. Two honest publishers (pubA,
// pubB) with two articles each, every one stating when it was published
// (article:published_time, JSON-LD NewsArticle datePublished, or a byline <time datetime>), weeks
// before the run; two content farms copying all four: farmLate (verbatim or lightly edited, each
// claiming a date 2–5 days after the original's) and farmNoDate (a promo paragraph added, no date
// anywhere), each farm page naming itself as canonical; a partner republishing two of them with a
// canonical link to the publisher's page and a date the same day. For three of the four articles
// a copy is read before the original, so the order of sight would name the wrong page.
//
// Checked: "Sites that copy" flags both farms, not the publishers, and marks the partner as
// republishing with credit; under "Show copies" each copy stands beside its true original, by
// 'published' (the farms) or 'canonical' (the partner); the popups of the copies read first name
// their original and tag its entry, the originals say they are the original, and the farms' and
// the partner's popups carry their site's flag.
//
// The tests share one browser and run in order.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { servePages, type Site } from '../e2e/harness';
import { type Article, type Copy, type Form, type Publisher, copyPage, copyPath, popupsAgainstExpected, type PopupView, originalPage, storyArticles } from '../e2e/provenance-pages';
import { type FirefoxSession, launchFirefox, openExtensionPage, until } from './harness';

const NOW = Date.now();
const STORIES: [string, string, Form][] = [
  ['Harbour council approves the new ferry timetable', 'ferry-timetable', 'meta'],
  ['Volunteers count the winter birds of the marsh', 'winter-birds', 'json-ld'],
  ['Storm damage closes the coastal path for a month', 'coastal-path', 'byline'],
  ['School choir wins the regional festival again', 'school-choir', 'json-ld'],
];

/** Four articles of about 700 words each, published 40 to 22 days before the run; farmLate claims 2–5 days later. */
const ARTICLES: Article[] = storyArticles(STORIES, NOW, 2000, (i) => 40 - 6 * i);
const article = (key: string): Article => ARTICLES.find((a) => a.key === key)!;
const PARTNERED = ['A0', 'B1'];
/** The reading order ("A0 late": farmLate's copy of A0; "A0": the original): a copy first for A0, B0 and B1. */
const READING = ['A1', 'A0 late', 'A0 nodate', 'A0 partner', 'B0 nodate', 'B0 late', 'A0', 'A1 late', 'A1 nodate', 'B1 late', 'B1 partner', 'B1 nodate', 'B0', 'B1'];
const COPY_FIRST = ['A0', 'B0', 'B1'];

let sites: Record<Publisher | Copy, Site>;
let ff: FirefoxSession;

const originalUrl = (a: Article): string => sites[a.pub].url(`/news/2025/${a.slug}.html`);
const copyUrl = (a: Article, kind: Copy): string => sites[kind].url(copyPath(kind, a, ARTICLES.indexOf(a)));
const host = (url: string): string => new URL(url).host;
const urlOf = (entry: string): string => {
  const [key, kind] = entry.split(' ');
  return kind === undefined ? originalUrl(article(key!)) : copyUrl(article(key!), kind as Copy);
};


/** The popup's report for `address`: its original line, its near-duplicates (with the evidence of a .tag-original), its site flag. */
async function popupView(address: string): Promise<PopupView> {
  await ff.waitForPopupState(address, 'ready');
  return ff.popup.evaluate(() => {
    const line = document.getElementById('original-line')!;
    const flag = document.getElementById('site-flag')!;
    return {
      line: { visible: !line.hidden && line.checkVisibility(), self: line.dataset['self'] ?? null, evidence: line.dataset['evidence'] ?? null, text: line.textContent ?? '' },
      matches: [...document.querySelectorAll('#matches li.match')].map((li) => ({ url: li.querySelector('a')!.href, tag: (li.querySelector('.tag-original') as HTMLElement | null)?.dataset['evidence'] ?? null })),
      flag: flag.hidden ? null : (flag.dataset['flag'] ?? null),
    };
  });
}

beforeAll(async () => {
  const served = {} as Record<Publisher | Copy, Site>;
  for (const pub of ['pubA', 'pubB'] as const) {
    served[pub] = await servePages(Object.fromEntries(ARTICLES.filter((a) => a.pub === pub).map((a) => [`/news/2025/${a.slug}.html`, originalPage(a, `/news/2025/${a.slug}.html`)])));
  }
  sites = served;
  // the copies name the publishers' pages by their absolute addresses: served once those are known
  for (const kind of ['late', 'nodate', 'partner'] as const) {
    const copied = kind === 'partner' ? PARTNERED.map(article) : ARTICLES;
    const pathOf = (a: Article): string => copyPath(kind, a, ARTICLES.indexOf(a));
    served[kind] = await servePages(Object.fromEntries(copied.map((a) => [pathOf(a), copyPage(a, kind, pathOf(a), originalUrl(a))])));
  }
  ff = await launchFirefox();
  for (const entry of READING) await ff.record(urlOf(entry));
});

afterAll(async () => {
  await ff?.close();
  for (const site of Object.values(sites ?? {})) await site.close();
});

describe('the original of a story in Firefox, by what the pages claim', () => {
  test('"Sites that copy" flags both farms, not the publishers, and marks the partner; each copy stands beside its true original', async () => {
    const history = await ff.browser.newPage();
    await openExtensionPage(history, 'history.html#sites', '#site-list[data-state="ready"]');
    const rows = await history.$$eval('#site-list tr[data-site]', (trs) =>
      trs.map((tr) => ({ site: (tr as HTMLElement).dataset['site']!, flag: (tr as HTMLElement).dataset['flag'] ?? null, counts: [...tr.querySelectorAll('td.num')].slice(0, 3).map((td) => td.textContent), copies: !(tr.querySelector('button') as HTMLButtonElement).disabled })),
    );
    const row = (site: Site) => rows.find((r) => r.site === host(site.origin));
    expect(row(sites.late)).toMatchObject({ flag: 'copies', counts: ['4', '4', '100%'] });
    expect(row(sites.nodate)).toMatchObject({ flag: 'copies', counts: ['4', '4', '100%'] });
    expect(row(sites.partner)).toMatchObject({ flag: 'credited', counts: ['2', '2', '100%'] });
    for (const pub of [sites.pubA, sites.pubB]) expect(row(pub)?.flag ?? null, pub.origin).toBeNull();

    const shown: string[][] = [];
    for (const { site } of rows.filter((r) => r.copies)) {
      const tr = `#site-list tr[data-site="${site}"]`;
      await history.$eval(`${tr} button`, (button) => (button as HTMLButtonElement).click());
      const cell = `${tr} + tr.evidence td`;
      await until(`the evidence of ${site}`, () => history.$eval(cell, (td) => td.textContent !== '' && td.textContent !== 'Loading…'));
      shown.push(...(await history.$$eval(`${cell} li[data-copy]`, (items) => items.map((li) => ['copy', 'original', 'evidence'].map((k) => (li as HTMLElement).dataset[k] ?? '')))));
    }
    const expected = ARTICLES.flatMap((a) => [
      [copyUrl(a, 'late'), originalUrl(a), 'published'],
      [copyUrl(a, 'nodate'), originalUrl(a), 'published'],
      ...(PARTNERED.includes(a.key) ? [[copyUrl(a, 'partner'), originalUrl(a), 'canonical']] : []),
    ]);
    expect(shown.sort()).toEqual(expected.sort());
    await history.close();
  });

  test('the popups: a copy read before its original names it and tags its entry; an original says it is one; the farms and the partner carry their flags', async () => {
    const { seen, expected } = await popupsAgainstExpected(ARTICLES, COPY_FIRST, PARTNERED, { original: originalUrl, copy: copyUrl }, popupView);
    expect(seen).toEqual(expected);
  });
});
