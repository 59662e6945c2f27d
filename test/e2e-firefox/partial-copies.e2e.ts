// Quotes and stitched pages in Firefox's popups, on real articles (Readability's test pages in
// ../shared/corpus; skipped with a message where they are absent). Twelve articles: each original
// on one local site, then on another site a page quoting 60 of its words inside another article
// and a page stitching its first half to the second half of another article (bench:quality's
// partial copies, bench/data/republish.ts, without the republishing site's own box: twelve pages of one
// site are too few for the boilerplate rule, and the box is not what is measured here). Each
// copy's own popup must link its sources' originals, in #matches or #passages: quotes ≥ 90%,
// stitched ≥ 95% (a stitched page has two sources), and no popup may link pages that have no
// article in common.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CORPUS_DIR, type PartialPage, buildPartialCopies, buildQualitySet } from '../../bench/data/republish';
import { servePages, type Site } from '../e2e/harness';
import { type FirefoxSession, launchFirefox } from './harness';

const ARTICLES = 12;
const HAS_CORPUS = existsSync(CORPUS_DIR);
if (!HAS_CORPUS) console.warn(`partial-copies.e2e.ts skipped: the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`);

/**
 * A page as served: without its scripts and refresh tags, which on these saved pages load from
 * sites that are not there or navigate away (Firefox rejects the address), and without the
 * republishing site's own box (see above).
 */
const served = (html: string): string =>
  html
    .replace(/<script\b[\s\S]*?<\/script>/gi, '')
    .replace(/<meta[^>]+http-equiv=["']?refresh[^>]*>/gi, '')
    .replace(/<p>A version of this story appears in the weekend print edition of [^<]*<\/p>/, '');

/** Path of an article's original page. */
const originalOf = (article: string): string => `${article}/original.html`;

let originals: Site;
let copies: Site;
let ff: FirefoxSession;
let partial: PartialPage[] = [];
/** Articles each page holds (a quote's host article too): a link between pages with none in common is false. */
const articlesOf = new Map<string, Set<string>>();

beforeAll(async () => {
  if (!HAS_CORPUS) return;
  const set = buildQualitySet(CORPUS_DIR, 1);
  const chosen = set.articles.slice(0, ARTICLES);
  partial = buildPartialCopies(set, CORPUS_DIR, 1).filter((p) => chosen.some((a) => p.path.startsWith(`${a}/`)) && p.kind !== 'excerpt-30');
  const needed = new Set(partial.flatMap((p) => [...p.sources, ...p.related]));
  const originalPages = Object.fromEntries(set.pages.filter((p) => p.kind === 'original' && needed.has(p.article)).map((p) => [`/${p.path}`, served(p.html)]));
  for (const article of needed) articlesOf.set(originalOf(article), new Set([article]));
  for (const p of partial) articlesOf.set(p.path, new Set([...p.sources, ...p.related]));
  originals = await servePages(originalPages);
  copies = await servePages(Object.fromEntries(partial.map((p) => [`/${p.path}`, served(p.html)])));
  ff = await launchFirefox();
}, 600_000);

afterAll(async () => {
  await ff?.close();
  await originals?.close();
  await copies?.close();
});

/** The paths (as served) of the pages a popup links in #matches and #passages. */
async function linkedPaths(): Promise<string[]> {
  const hrefs = await ff.popup.$$eval('#matches a[href], #passages li.passage a.title[href]', (els) => els.map((el) => (el as HTMLAnchorElement).href));
  return hrefs.map((href) => new URL(href).pathname.slice(1));
}

describe.skipIf(!HAS_CORPUS)('quotes and stitched pages on real articles, in Firefox', () => {
  test('each copy\'s popup links its sources\' originals: quotes ≥ 90%, stitched ≥ 95%, no false link', async () => {
    const needed = [...articlesOf.keys()].filter((path) => path.endsWith('/original.html'));
    for (const path of needed) await ff.record(originals.url(`/${path}`));
    const found = new Map<string, { found: number; total: number }>();
    const missed: string[] = [];
    const falseLinks: string[] = [];
    for (const page of partial) {
      const address = copies.url(`/${page.path}`);
      await ff.tab.goto(address, { waitUntil: 'load' });
      // recording is asynchronous, and Firefox can take seconds under load: wait for the report
      await ff.waitForPopupState(address, 'ready', { timeout: 60_000 });
      const linked = await linkedPaths();
      const score = found.get(page.kind) ?? found.set(page.kind, { found: 0, total: 0 }).get(page.kind)!;
      for (const source of page.sources) {
        score.total++;
        if (linked.includes(originalOf(source))) score.found++;
        else missed.push(`${page.path} does not link ${originalOf(source)}`);
      }
      const own = articlesOf.get(page.path)!;
      for (const path of linked) {
        const theirs = articlesOf.get(path);
        if (theirs === undefined || ![...theirs].some((a) => own.has(a))) falseLinks.push(`${page.path} ~ ${path}`);
      }
    }
    const quote = found.get('quote')!;
    const stitched = found.get('stitched')!;
    console.log(`Firefox popups, ${ARTICLES} real articles: quotes ${quote.found}/${quote.total}, stitched ${stitched.found}/${stitched.total}, false links ${falseLinks.length}${missed.length ? `; missed: ${missed.join('; ')}` : ''}`);
    expect(quote.total).toBe(ARTICLES);
    expect(stitched.total).toBe(2 * ARTICLES);
    expect(falseLinks).toEqual([]);
    expect(quote.found / quote.total, missed.join('\n')).toBeGreaterThanOrEqual(0.9);
    expect(stitched.found / stitched.total, missed.join('\n')).toBeGreaterThanOrEqual(0.95);
    expect(ff.dialogs).toEqual([]);
  }, 900_000);
});
