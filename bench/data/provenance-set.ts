// The provenance development set: histories of publishers, content farms, partners and a blog,
// written as HTML pages, with the truth of which page is the original of which. It measures the
// rule of lib/report/original.ts and what lib/text/provenance.ts reads of each page (its date in
// the publishers' four ways, canonical links, credit lines in English and Spanish).
//
// Texts come from the rewrite development set (bench/data/rewrite-set.ts): the publishers' originals
// are the corpus articles as Doppel extracts them, the farms copy them (verbatim, edited, excerpted,
// rewritten, translated), the partners republish them with a canonical link or a credit line, and
// the partners' and the blog's own articles are the set's independent texts of articles used
// nowhere else. Everything is seeded (mulberry32): one seed, one set.
//
// This file picks the articles and builds the set; the sites and the shapes of the pages are in
// provenance-sites.ts, and each kind of site's pages are written by provenance-publishers.ts,
// provenance-farms.ts, provenance-partners.ts and provenance-blog.ts (with provenance-html.ts's
// page skeleton and provenance-dates.ts's dates).
//
// `npx tsx bench/data/provenance-set-check.ts` checks that each page says what its `claims` say.
import { existsSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { mulberry32 } from '../../lib/random';
import { extractArticle } from '../../lib/text/extract';
import { CORPUS_DIR } from './republish';
import { loadRewriteSet, type RewriteArticle } from './rewrite-set';
import { blogPage } from './provenance-blog';
import { DAY, HOUR, between, offsetAt, pickOne, shuffled } from './provenance-dates';
import { farmBackdatePage, farmLatePage, farmNodatePage, excerptOf } from './provenance-farms';
import { slugOf } from './provenance-html';
import { partnerCanonCopy, partnerCanonOwn, partnerCreditCopy, partnerCreditOwn } from './provenance-partners';
import { publisherPage } from './provenance-publishers';
import { PUBLISHERS, SITES, type Placed, type ProvenanceCopy, type ProvenancePage, type ProvenanceSet, type Story } from './provenance-sites';

export type { PageKind, ProvenanceCopy, ProvenancePage, ProvenanceSet, SiteRole } from './provenance-sites';

export const PROVENANCE_SEED = 20250304;

// ---------- Articles ----------

const wordCount = (paragraphs: readonly string[]): number => paragraphs.reduce((n, p) => n + p.split(/\s+/).filter(Boolean).length, 0);

/** The first line of a page title without a trailing site or author name ("… | eHow", "… - Breitbart"). */
function cleanTitle(title: string): string {
  const line = (title.split('\n')[0] ?? '').trim();
  const m = /^(.*\S)\s+[|–—-]\s+([^|–—-]+)$/.exec(line);
  if (m !== null && m[2]!.trim().split(/\s+/).length <= 3 && m[1]!.split(/\s+/).length >= 3) return m[1]!;
  return line;
}

/** Paragraphs of a text as Doppel extracts it: separated by blank lines. */
const paragraphsOf = (text: string): string[] => text.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => p !== '');

/** Whether an article's extracted text reads as prose a publisher would print (no list of code lines or captions). */
function isProse(paragraphs: readonly string[]): boolean {
  return wordCount(paragraphs) >= 300 && wordCount(paragraphs) / paragraphs.length >= 10;
}

function titleOf(article: RewriteArticle): string {
  const extraction = extractArticle(parseHTML(article.originalHtml).document);
  const title = extraction.title ? cleanTitle(extraction.title) : '';
  return title !== '' ? title : article.texts.rewrite.title;
}

// ---------- The set ----------

/** Publisher articles: the first 24 articles of prose in slug order; own articles: the next 11 of the rest. */
export const PUBLISHER_ARTICLES = 24;
export const OWN_ARTICLES = { 'partner-canon': 4, 'partner-credit': 3, blog: 4 } as const;

export function buildProvenanceSet(seed = PROVENANCE_SEED): ProvenanceSet {
  if (!existsSync(CORPUS_DIR)) throw new Error(`The provenance set needs the corpus of Readability's test pages at ${CORPUS_DIR} (it comes from ../shared/corpus), and it is absent.`);
  const articles = loadRewriteSet().sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const random = mulberry32(seed);

  const prose = articles.filter((a) => isProse(paragraphsOf(a.originalText)));
  if (prose.length < PUBLISHER_ARTICLES) throw new Error(`The rewrite set has ${prose.length} articles of prose, fewer than ${PUBLISHER_ARTICLES}`);
  const published = prose.slice(0, PUBLISHER_ARTICLES);
  const rest = articles.filter((a) => !published.includes(a));
  const ownCount = OWN_ARTICLES['partner-canon'] + OWN_ARTICLES['partner-credit'] + OWN_ARTICLES.blog;
  if (rest.length < ownCount) throw new Error(`The rewrite set has ${rest.length} articles left for the sites' own, fewer than ${ownCount}`);
  const own = shuffled(rest.slice(0, ownCount), random);

  // the publishers: six articles each, a seeded date in 2025 and an author
  const pages: ProvenancePage[] = [];
  const placed: Placed[] = [];
  const slugs = new Set<string>();
  shuffled(published, random).forEach((source, i) => {
    const publisher = PUBLISHERS[Math.floor(i / (PUBLISHER_ARTICLES / PUBLISHERS.length))]!;
    const title = titleOf(source);
    let slug = slugOf(title);
    while (slugs.has(slug)) slug += '-2';
    slugs.add(slug);
    const story: Story = { id: source.slug, slug, title, paragraphs: paragraphsOf(source.originalText), source };
    // 2 February to 15 November 2025, between 6:00 and 20:55 local time
    const day = Date.UTC(2025, 1, 2) + between(random, 0, 285) * DAY;
    const time = day + between(random, 6, 20) * HOUR + between(random, 0, 11) * 5 * 60_000 - offsetAt(day + 12 * HOUR, publisher.zone) * 60_000;
    const author = pickOne(random, publisher.authors);
    const page = publisherPage(publisher, story, time, author, random);
    pages.push(page);
    placed.push({ story, publisher, time, author, page });
  });
  // sort the placed articles by publisher then date, so that copies spread by a seeded choice read in order
  placed.sort((a, b) => (a.publisher.id < b.publisher.id ? -1 : a.publisher.id > b.publisher.id ? 1 : a.time - b.time));
  pages.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const copies: ProvenanceCopy[] = [];
  const addCopy = (page: ProvenancePage, original: Placed, credited = false, backdated = false): void => {
    pages.push(page);
    copies.push({ copy: page.path, original: original.page.path, kind: page.kind, credited, backdated });
  };
  const excerptable = (p: Placed): boolean => wordCount(excerptOf(p.story.paragraphs, () => 0)) >= 180;
  /** `n` distinct articles, each passing `ok`, seeded. */
  const choose = (n: number, ok: (p: Placed) => boolean = () => true, avoid: ReadonlySet<Placed> = new Set()): Placed[] => {
    const out = shuffled(placed.filter((p) => ok(p) && !avoid.has(p)), random).slice(0, n);
    if (out.length < n) throw new Error(`only ${out.length} articles fit, ${n} needed`);
    return out;
  };

  // farm-late: three verbatim, three edited, three excerpts, each dated 1 to 10 days after its original
  {
    const excerpts = choose(3, excerptable);
    const others = choose(6, () => true, new Set(excerpts));
    others.slice(0, 3).forEach((p) => addCopy(farmLatePage(p, 'verbatim', random), p));
    others.slice(3).forEach((p) => addCopy(farmLatePage(p, 'edited', random), p));
    excerpts.forEach((p) => addCopy(farmLatePage(p, 'excerpt', random), p));
  }
  // farm-nodate: three excerpts, three rewrites, three Spanish translations, no date anywhere
  {
    const excerpts = choose(3, excerptable);
    const others = choose(6, () => true, new Set(excerpts));
    excerpts.forEach((p) => addCopy(farmNodatePage(p, 'excerpt', random), p));
    others.slice(0, 3).forEach((p) => addCopy(farmNodatePage(p, 'rewrite', random), p));
    others.slice(3).forEach((p) => addCopy(farmNodatePage(p, 'translation_es', random), p));
  }
  // farm-backdate: four verbatim copies dated 3 to 30 days before their originals
  choose(4).forEach((p) => addCopy(farmBackdatePage(p, random), p, false, true));
  // the partners: distinct articles (a story has at most one partner)
  const canon = choose(4);
  canon.forEach((p) => addCopy(partnerCanonCopy(p, random), p, true));
  const credit = choose(3, () => true, new Set(canon));
  (['permission', 'spanish', 'source'] as const).forEach((style, i) => addCopy(partnerCreditCopy(credit[i]!, style, random), credit[i]!, true));
  // the partners' and the blog's own articles
  let k = 0;
  for (let i = 0; i < OWN_ARTICLES['partner-canon']; i++) pages.push(partnerCanonOwn(own[k++]!, random));
  for (let i = 0; i < OWN_ARTICLES['partner-credit']; i++) pages.push(partnerCreditOwn(own[k++]!, random));
  for (let i = 0; i < OWN_ARTICLES.blog; i++) {
    const links = choose(i % 2 === 0 ? 1 : 2);
    pages.push(blogPage(own[k++]!, links, i === 1, random));
  }

  return { pages, copies, sites: SITES.map((s) => ({ ...s })) };
}

/** A reading order of the set's pages (paths), seeded: a uniform random permutation. */
export function readingOrder(set: ProvenanceSet, seed: number): string[] {
  return shuffled(
    set.pages.map((p) => p.path),
    mulberry32(seed),
  );
}

/** The order in which every copy is read before its original (the worst case): every copy, then every other page, each in the set's order. */
export function copiesFirstOrder(set: ProvenanceSet): string[] {
  const copies = new Set(set.copies.map((c) => c.copy));
  const paths = set.pages.map((p) => p.path);
  return [...paths.filter((p) => copies.has(p)), ...paths.filter((p) => !copies.has(p))];
}
