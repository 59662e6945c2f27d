// Which page of a story is the original, end to end in Chromium with the built extension, over a
// realistic history: two honest publishers (pubA, pubB) with four articles each, every one stating
// when it was published (article:published_time, JSON-LD NewsArticle datePublished, or a byline
// <time datetime>), weeks before the run; two content farms copying all eight: farmLate (verbatim
// or lightly edited, each claiming a date 2–5 days after the original's) and farmNoDate (a promo
// paragraph added, no date anywhere), each farm page naming itself as canonical; and a partner
// republishing three articles with a canonical link to the publisher's page and a date the same
// day. For six of the eight articles a copy is read before the original (lib/report/original.ts
// must not fall back on the order of sight), and one original is read last of all.
//
// Checked: the farm copies of the last story take the farm claiming a date as their original
// until the real one is read, and name it at once after; "Sites that copy" flags both farms, not
// the publishers, and marks the partner as republishing with credit; under "Show copies" every
// copy stands beside its true original, by 'published' (the farms) or 'canonical' (the partner),
// and no original is listed as a copy; the popups of the copies read first name their original
// and tag its entry, the originals say they are the original, and the farm's and the partner's
// popups carry their site's flag. The Firefox twin is test/e2e-firefox/provenance.e2e.ts.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ExtensionSession, type Session, recordInTab, startSession, waitForPopupState } from './harness';
import { type Article, type Copy, type Form, type Publisher, copyPage, copyPath, popupsAgainstExpected, type PopupView, lateTitle, originalPage, storyArticles } from './provenance-pages';

const NOW = Date.now();
const STORIES: [string, string, Form][] = [
  ['Harbour council approves the new ferry timetable', 'ferry-timetable', 'meta'],
  ['Volunteers count the winter birds of the marsh', 'winter-birds', 'json-ld'],
  ['The old mill reopens as a workshop for boat builders', 'mill-workshop', 'byline'],
  ['Library extends its opening hours through the summer', 'library-hours', 'json-ld'],
  ['Storm damage closes the coastal path for a month', 'coastal-path', 'byline'],
  ['School choir wins the regional festival again', 'school-choir', 'meta'],
  ['Fishermen report a record season for brown crab', 'brown-crab', 'json-ld'],
  ['A forgotten lighthouse logbook goes on display', 'lighthouse-logbook', 'byline'],
];

/** Eight articles of about 700 words each, published 45 to 17 days before the run; farmLate claims 2–5 days later. */
const ARTICLES: Article[] = storyArticles(STORIES, NOW, 1000, (i) => 45 - 4 * i);
const article = (key: string): Article => ARTICLES.find((a) => a.key === key)!;
const PARTNERED = ['A0', 'A2', 'B3'];
const LAST = 'B1';
/** The reading order ("A0 late": farmLate's copy of A0; "A0": the original). The original of LAST is read last, in the tests. */
const READING = [
  'A3', 'A0 late', 'A0 nodate', 'A0 partner', 'A1 nodate', 'A1 late', 'B0 late', 'B0 nodate', 'A0',
  'A2 late', 'A2 partner', 'A2 nodate', 'B3', 'B1 nodate', 'B1 late', 'A3 late', 'A3 nodate', 'A1', 'B0',
  'B2 nodate', 'B2 late', 'A2', 'B2', 'B3 late', 'B3 nodate', 'B3 partner',
];

const COPY_SITES = { late: 'farmLate', nodate: 'farmNoDate', partner: 'partner' } as const;

let publishers: Session<Publisher>;
let session: Session<'farmLate' | 'farmNoDate' | 'partner'>;
let ext: ExtensionSession;
let popup: Page;

const originalUrl = (a: Article): string => publishers.sites[a.pub].url(`/news/2025/${a.slug}.html`);
const copyUrl = (a: Article, kind: Copy): string => session.sites[COPY_SITES[kind]].url(copyPath(kind, a, ARTICLES.indexOf(a)));
const host = (url: string): string => new URL(url).host;
/** "A0 late" → farmLate's copy of A0; "A0" → the original. */
const urlOf = (entry: string): string => {
  const [key, kind] = entry.split(' ');
  return kind === undefined ? originalUrl(article(key!)) : copyUrl(article(key!), kind as Copy);
};

/** Records `address` (in a tab of its own), after every page recorded before it. */
const record = (address: string): Promise<void> => recordInTab(ext.ctx, popup, address);


/** The popup's report for `address`: its original line, its near-duplicates (with the evidence of a .tag-original), its site flag. */
async function popupView(address: string): Promise<PopupView> {
  await waitForPopupState(popup, address, 'ready');
  const view = await popup.evaluate(() => {
    const line = document.getElementById('original-line')!;
    const flag = document.getElementById('site-flag')!;
    return {
      line: { self: line.dataset['self'], evidence: line.dataset['evidence'], text: line.textContent ?? '' },
      matches: [...document.querySelectorAll('#matches li.match')].map((li) => ({ url: li.querySelector('a')!.href, tag: (li.querySelector('.tag-original') as HTMLElement | null)?.dataset['evidence'] ?? null })),
      flag: flag.hidden ? null : (flag.dataset['flag'] ?? null),
    };
  });
  return { ...view, line: { ...view.line, visible: await popup.locator('#original-line').isVisible() } };
}

beforeAll(async () => {
  const routes = (pub: Publisher) => Object.fromEntries(ARTICLES.filter((a) => a.pub === pub).map((a) => [`/news/2025/${a.slug}.html`, originalPage(a, `/news/2025/${a.slug}.html`)]));
  publishers = await startSession({ pubA: routes('pubA'), pubB: routes('pubB') }, { launch: false });
  // the copies name the publishers' pages by their absolute addresses: served once those are known
  const pathOf = (kind: Copy, a: Article): string => copyPath(kind, a, ARTICLES.indexOf(a));
  const copies = (kind: Copy, only = ARTICLES) => Object.fromEntries(only.map((a) => [pathOf(kind, a), copyPage(a, kind, pathOf(kind, a), originalUrl(a))]));
  session = await startSession({ farmLate: copies('late'), farmNoDate: copies('nodate'), partner: copies('partner', PARTNERED.map(article)) });
  ext = session.ext!;
  popup = await ext.ctx.newPage();
  for (const entry of READING) await record(urlOf(entry));
});

afterAll(async () => {
  await session?.close();
  await publishers?.close();
});

/** Opens history.html at "Sites that copy" and waits for its table. */
async function openSites(): Promise<Page> {
  const history = await ext.ctx.newPage();
  await history.goto(`chrome-extension://${ext.extensionId}/history.html#sites`, { waitUntil: 'domcontentloaded' });
  await history.locator('#site-list[data-state="ready"]').waitFor({ timeout: 15_000 });
  return history;
}

/** Presses a site's "Show copies" and reads its evidence: [copy, original, evidence] of each li[data-copy]. */
async function showCopies(history: Page, site: string): Promise<string[][]> {
  await history.locator(`#site-list tr[data-site="${site}"] button`).click();
  const cell = history.locator(`#site-list tr[data-site="${site}"] + tr.evidence td`);
  await expect.poll(() => cell.textContent(), { timeout: 10_000 }).not.toBe('Loading…');
  return cell.locator('li[data-copy]').evaluateAll((items) => items.map((li) => ['copy', 'original', 'evidence'].map((k) => (li as HTMLElement).dataset[k] ?? '')));
}

const copyFirst = (): string[] =>
  ARTICLES.map((a) => a.key).filter((key) => {
    const first = [...READING, LAST].find((entry) => entry.startsWith(key));
    return first !== key;
  });

describe('the original of a story, by what the pages claim', () => {
  test('the reading order reads a copy before the original for six of the eight articles', () => {
    expect(copyFirst()).toEqual(['A0', 'A1', 'A2', 'B0', 'B1', 'B2']);
  });

  test('before the last original is read, its farm copies take the copy claiming a date as their original', async () => {
    const a = article(LAST);
    const noDate = await popupView(copyUrl(a, 'nodate'));
    expect(noDate.line).toEqual({ visible: true, self: 'false', evidence: 'published', text: expect.stringContaining(`“${lateTitle(a)}” (${host(copyUrl(a, 'late'))})`) });
    expect(noDate.matches).toEqual([{ url: copyUrl(a, 'late'), tag: 'published' }]);
    const late = await popupView(copyUrl(a, 'late'));
    expect(late.line).toMatchObject({ visible: true, self: 'true' });
    expect(late.matches).toEqual([{ url: copyUrl(a, 'nodate'), tag: null }]);
  });

  test('read after its copies, the original is their original at once', async () => {
    const a = article(LAST);
    await record(originalUrl(a));
    const expected = { visible: true, self: 'false', evidence: 'published', text: expect.stringContaining(`“${a.title}” (${host(originalUrl(a))})`) };
    const late = await popupView(copyUrl(a, 'late'));
    expect(late.line).toEqual({ ...expected, text: expect.stringMatching(new RegExp(`“${a.title}” \\(${host(originalUrl(a)).replace(/\./g, '\\.')}\\).*published ${a.lateDays} days earlier`)) });
    expect(late.matches).toContainEqual({ url: originalUrl(a), tag: 'published' });
    const noDate = await popupView(copyUrl(a, 'nodate'));
    expect(noDate.line).toEqual(expected);
    const byUrl = (x: { url: string }, y: { url: string }) => x.url.localeCompare(y.url);
    expect(noDate.matches.sort(byUrl)).toEqual([{ url: originalUrl(a), tag: 'published' }, { url: copyUrl(a, 'late'), tag: null }].sort(byUrl));
    expect((await popupView(originalUrl(a))).line).toMatchObject({ visible: true, self: 'true' });
  });

  test('"Sites that copy" flags both farms, not the publishers, and marks the partner as republishing with credit', async () => {
    const history = await openSites();
    const rows = await history.locator('#site-list tr[data-site]').evaluateAll((trs) =>
      Object.fromEntries(trs.map((tr) => [(tr as HTMLElement).dataset['site'], { flag: (tr as HTMLElement).dataset['flag'] ?? null, counts: [...tr.querySelectorAll('td.num')].slice(0, 3).map((td) => td.textContent) }])),
    );
    const site = (name: keyof typeof session.sites | Publisher): string => host((name === 'pubA' || name === 'pubB' ? publishers.sites[name] : session.sites[name]).origin);
    expect(rows[site('farmLate')]).toEqual({ flag: 'copies', counts: ['8', '8', '100%'] });
    expect(rows[site('farmNoDate')]).toEqual({ flag: 'copies', counts: ['8', '8', '100%'] });
    expect(rows[site('partner')]).toEqual({ flag: 'credited', counts: ['3', '3', '100%'] });
    for (const pub of ['pubA', 'pubB'] as const) expect(rows[site(pub)]?.flag ?? null, pub).toBeNull();
    await history.close();
  });

  test('under "Show copies" each copy stands beside its true original, by the date it claims or its canonical link; no original is a copy', async () => {
    const history = await openSites();
    const sites = await history.locator('#site-list tr[data-site]:has(button:enabled)').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset['site']!));
    const shown: string[][] = [];
    for (const site of sites) shown.push(...(await showCopies(history, site)));
    const expected = ARTICLES.flatMap((a) => [
      [copyUrl(a, 'late'), originalUrl(a), 'published'],
      [copyUrl(a, 'nodate'), originalUrl(a), 'published'],
      ...(PARTNERED.includes(a.key) ? [[copyUrl(a, 'partner'), originalUrl(a), 'canonical']] : []),
    ]);
    expect(shown.sort()).toEqual(expected.sort());
    const originals = new Set(ARTICLES.map(originalUrl));
    expect(shown.filter(([copy]) => originals.has(copy!))).toEqual([]);
    await history.close();
  });

  test('the popups: a copy read before its original names it and tags its entry; an original says it is one; the farm and the partner carry their flags', async () => {
    const { seen, expected } = await popupsAgainstExpected(ARTICLES, copyFirst(), PARTNERED, { original: originalUrl, copy: copyUrl }, popupView);
    expect(seen).toEqual(expected);
  });
});
