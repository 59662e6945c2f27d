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
import { type ExtensionSession, type Session, englishLikeProse, sleep, startSession, visit, waitForPopupState } from './harness';

const DAY = 86_400_000;
const NOW = Date.now();
type Publisher = 'pubA' | 'pubB';
type Form = 'meta' | 'json-ld' | 'byline';
type Copy = 'late' | 'nodate' | 'partner';
interface Article { key: string; pub: Publisher; slug: string; title: string; published: number; form: Form; paragraphs: string[]; lateDays: number }

const STORIES = [
  ['Harbour council approves the new ferry timetable', 'ferry-timetable'],
  ['Volunteers count the winter birds of the marsh', 'winter-birds'],
  ['The old mill reopens as a workshop for boat builders', 'mill-workshop'],
  ['Library extends its opening hours through the summer', 'library-hours'],
  ['Storm damage closes the coastal path for a month', 'coastal-path'],
  ['School choir wins the regional festival again', 'school-choir'],
  ['Fishermen report a record season for brown crab', 'brown-crab'],
  ['A forgotten lighthouse logbook goes on display', 'lighthouse-logbook'],
] as const;
const FORMS: Form[] = ['meta', 'json-ld', 'byline', 'json-ld', 'byline', 'meta', 'json-ld', 'byline'];

/** Eight articles of about 700 words each, published 45 to 17 days before the run; farmLate claims 2–5 days later. */
const ARTICLES: Article[] = STORIES.map(([title, slug], i) => {
  const words = englishLikeProse(1000 + i);
  return {
    key: `${i < 4 ? 'A' : 'B'}${i % 4}`,
    pub: i < 4 ? 'pubA' : 'pubB',
    slug,
    title,
    published: NOW - (45 - 4 * i) * DAY - (i + 1) * 3_600_000,
    form: FORMS[i]!,
    paragraphs: Array.from({ length: 8 }, (_, p) => words(70 + 5 * p).join(' ')),
    lateDays: 2 + (i % 4),
  };
});
const article = (key: string): Article => ARTICLES.find((a) => a.key === key)!;
const PARTNERED = ['A0', 'A2', 'B3'];
const LAST = 'B1';
/** The reading order ("A0 late": farmLate's copy of A0; "A0": the original). The original of LAST is read last, in the tests. */
const READING = [
  'A3', 'A0 late', 'A0 nodate', 'A0 partner', 'A1 nodate', 'A1 late', 'B0 late', 'B0 nodate', 'A0',
  'A2 late', 'A2 partner', 'A2 nodate', 'B3', 'B1 nodate', 'B1 late', 'A3 late', 'A3 nodate', 'A1', 'B0',
  'B2 nodate', 'B2 late', 'A2', 'B2', 'B3 late', 'B3 nodate', 'B3 partner',
];

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const iso = (t: number): string => new Date(t).toISOString();
const lateTitle = (a: Article): string => `${a.title} and what it means for you`;
const noDateTitle = (a: Article): string => `Everyone is talking about this ${a.title.toLowerCase()}`;

function page(title: string, head: string[], masthead: string, article: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
${head.join('\n')}
</head><body>
<header class="site-header"><a href="/">${masthead}</a><nav><a href="/news/">News</a> <a href="/about.html">About</a></nav></header>
<main><article><h1>${esc(title)}</h1>
${article}
</article></main>
<footer><p>© ${masthead}</p></footer>
</body></html>`;
}

const paras = (ps: string[]): string => ps.map((p) => `<p>${p}</p>`).join('\n');

function originalPage(a: Article, path: string): string {
  const date = iso(a.published);
  const head = [`<link rel="canonical" href="${path}">`];
  if (a.form === 'meta') head.push(`<meta property="article:published_time" content="${date}">`);
  if (a.form === 'json-ld') head.push(`<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: a.title, datePublished: date, dateModified: iso(a.published + DAY), author: { '@type': 'Person', name: 'Morag Ellis' } })}</script>`);
  const byline = a.form === 'byline' ? `By Morag Ellis · <time datetime="${date}">${new Date(a.published).toUTCString().slice(5, 16)}</time>` : 'By Morag Ellis';
  return page(a.title, head, a.pub === 'pubA' ? 'The Harrow Gazette' : 'Coastline Weekly', `<p class="byline">${byline}</p>\n${paras(a.paragraphs)}`);
}

function copyPage(a: Article, kind: Copy, path: string, originalUrl: string): string {
  if (kind === 'partner') {
    const head = [`<link rel="canonical" href="${originalUrl}">`, `<meta property="article:published_time" content="${iso(a.published + 2 * 3_600_000)}">`];
    return page(a.title, head, 'Shoreline Partners', `<p class="byline">By Morag Ellis</p>\n${paras(a.paragraphs)}`);
  }
  if (kind === 'late') {
    // the odd articles lightly edited: a word changed in two paragraphs
    const edited = a.paragraphs.map((p, i) => (a.key.endsWith('1') || a.key.endsWith('3')) && (i === 2 || i === 5) ? p.replace(/ \S+ /, ' indeed ') : p);
    const head = [`<link rel="canonical" href="${path}">`, `<meta property="article:published_time" content="${iso(a.published + a.lateDays * DAY)}">`];
    return page(lateTitle(a), head, 'Buzz Daily', `<p class="byline">By Staff Writer</p>\n${paras(edited)}`);
  }
  const promo = 'Enjoying this story? Share it with your friends and sign up for the ClickHub newsletter to never miss what everyone is talking about.';
  return page(noDateTitle(a), [`<link rel="canonical" href="${path}">`], 'ClickHub', paras([...a.paragraphs.slice(0, 4), promo, ...a.paragraphs.slice(4)]));
}

const COPY_PATHS: Record<Copy, (a: Article) => string> = {
  late: (a) => `/viral/${a.slug}.html`,
  nodate: (a) => `/p/${1000 + ARTICLES.indexOf(a)}.html`,
  partner: (a) => `/partners/${a.slug}.html`,
};
const COPY_SITES = { late: 'farmLate', nodate: 'farmNoDate', partner: 'partner' } as const;

let publishers: Session<Publisher>;
let session: Session<'farmLate' | 'farmNoDate' | 'partner'>;
let ext: ExtensionSession;
let popup: Page;

const originalUrl = (a: Article): string => publishers.sites[a.pub].url(`/news/2025/${a.slug}.html`);
const copyUrl = (a: Article, kind: Copy): string => session.sites[COPY_SITES[kind]].url(COPY_PATHS[kind](a));
const host = (url: string): string => new URL(url).host;
/** "A0 late" → farmLate's copy of A0; "A0" → the original. */
const urlOf = (entry: string): string => {
  const [key, kind] = entry.split(' ');
  return kind === undefined ? originalUrl(article(key!)) : copyUrl(article(key!), kind as Copy);
};

async function record(address: string): Promise<void> {
  const tab = await ext.ctx.newPage();
  await visit(tab, address);
  await waitForPopupState(popup, address, 'ready');
  await tab.close();
  await sleep(20); // distinct first-seen times, in this order
}

interface PopupView { line: { visible: boolean; self?: string; evidence?: string; text: string }; matches: { url: string; tag: string | null }[]; flag: string | null }

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
  const copies = (kind: Copy, only = ARTICLES) => Object.fromEntries(only.map((a) => [COPY_PATHS[kind](a), copyPage(a, kind, COPY_PATHS[kind](a), originalUrl(a))]));
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
    const seen: object[] = [];
    const expected: object[] = [];
    for (const key of copyFirst()) {
      const a = article(key);
      for (const kind of ['late', 'nodate', ...(PARTNERED.includes(key) ? ['partner'] : [])] as Copy[]) {
        const view = await popupView(copyUrl(a, kind));
        seen.push({ page: `${key} ${kind}`, ...view.line, text: view.line.text.includes(`“${a.title}” (${host(originalUrl(a))})`), tag: view.matches.find((m) => m.url === originalUrl(a))?.tag ?? 'no entry', flag: view.flag });
        const evidence = kind === 'partner' ? 'canonical' : 'published';
        expected.push({ page: `${key} ${kind}`, visible: true, self: 'false', evidence, text: true, tag: evidence, flag: kind === 'partner' ? 'credited' : 'copies' });
      }
    }
    for (const a of ARTICLES) {
      const view = await popupView(originalUrl(a));
      seen.push({ page: a.key, ...view.line, text: undefined, tagged: view.matches.filter((m) => m.tag !== null), flag: view.flag });
      expected.push({ page: a.key, visible: true, self: 'true', evidence: 'published', text: undefined, tagged: [], flag: null });
    }
    expect(seen).toEqual(expected);
  });
});
