// Checks the provenance development set (bench/data/provenance-set.ts) mechanically: every page is an
// article to Doppel's reader and says what its claims say (lib/text/provenance.ts reads back its
// date, its canonical link or credit line), paths and addresses are unique, every copy's original
// is a publisher's original; then prints the counts. Exits 1 on any failure.
//
//   npx tsx bench/data/provenance-set-check.ts
//
// Last, for information only (never a failure): how often the rule of lib/report/original.ts
// finds each copy's true original when every copy is read first, and in a random order.
import { parseHTML } from 'linkedom';
import { judgeOriginal, type Claims } from '../../lib/report/original';
import { extractArticle } from '../../lib/text/extract';
import { publishedTimeOf } from '../../lib/text/provenance';
import { buildProvenanceSet, copiesFirstOrder, readingOrder, type PageKind, type ProvenancePage, type ProvenanceSet } from './provenance-set';

const NOW = Date.UTC(2026, 10, 29);
const DAY = 86_400_000;
const MIN_WORDS = 150;
const KINDS: readonly PageKind[] = ['original', 'verbatim', 'edited', 'excerpt', 'rewrite', 'translation_es', 'republished', 'linking'];

let failures: string[] = [];
const fail = (path: string, message: string): void => {
  failures.push(`${path}: ${message}`);
};

const iso = (ms: number | undefined): string => (ms === undefined ? 'none' : new Date(ms).toISOString());

/** Tags open and close in order (void elements aside), outside scripts and comments; no stray "&". */
function wellFormed(html: string): string | null {
  if (!/^<!doctype html>\n<html lang="(?:en|es)">\n<head>\n<meta charset="utf-8">\n<title>[^<]+<\/title>/.test(html)) return 'does not open with <!doctype html><html lang><head><meta charset><title>';
  const bare = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '<script></script>').replace(/<!--[\s\S]*?-->/g, '');
  const VOID = new Set(['meta', 'link', 'br', 'img', 'input', 'hr', 'source', 'wbr']);
  const stack: string[] = [];
  for (const m of bare.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*>|<(?!!doctype)/gi)) {
    if (m[2] === undefined) return `a stray "<" at ${m.index}`;
    const tag = m[2].toLowerCase();
    if (VOID.has(tag)) continue;
    if (m[1] === '') stack.push(tag);
    else if (stack.pop() !== tag) return `</${tag}> closes something else at ${m.index}`;
  }
  if (stack.length > 0) return `unclosed: ${stack.join(' ')}`;
  const amp = /&(?!(?:amp|lt|gt|quot|#\d+);)/.exec(bare);
  if (amp !== null) return `a stray "&" at ${amp.index}`;
  return null;
}

function checkPage(page: ProvenancePage, set: ProvenanceSet, byPath: Map<string, ProvenancePage>): { words: number } | null {
  const problem = wellFormed(page.html);
  if (problem !== null) fail(page.path, `HTML: ${problem}`);
  const { document } = parseHTML(page.html);
  for (const selector of ['header.site-header', 'main article h1', 'main article p.byline', 'footer']) {
    if (document.querySelector(selector) === null) fail(page.path, `no ${selector}`);
  }
  const result = extractArticle(document, {}, { url: page.url, now: NOW });
  if (!result.ok) {
    fail(page.path, `not an article: ${result.message}`);
    return null;
  }
  const words = result.text.split(/\s+/).filter(Boolean).length;
  if (words < MIN_WORDS) fail(page.path, `${words} words read, fewer than ${MIN_WORDS}`);
  const got = result.provenance ?? {};
  const expected = page.claims.published === undefined ? undefined : Date.parse(page.claims.published);
  if (page.claims.published !== undefined && Number.isNaN(expected)) fail(page.path, `claims an unreadable date ${page.claims.published}`);
  if (got.published !== expected) fail(page.path, `published read ${iso(got.published)}, claimed ${page.claims.published ?? 'none'}`);

  const copy = set.copies.find((c) => c.copy === page.path);
  const original = copy === undefined ? undefined : byPath.get(copy.original);
  let source: string | undefined;
  let sourceBy: string | undefined;
  if (page.site === 'partner-canon.example' && copy !== undefined) [source, sourceBy] = [original?.url, 'canonical'];
  if (page.site === 'partner-credit.example' && copy !== undefined) [source, sourceBy] = [original?.url, 'credit'];
  const norm = (u: string | undefined): string | undefined => (u === undefined ? undefined : new URL(u).href);
  if (norm(got.source) !== norm(source) || got.sourceBy !== sourceBy) {
    fail(page.path, `source read ${got.source ?? 'none'} (${got.sourceBy ?? '-'}), expected ${source ?? 'none'} (${sourceBy ?? '-'})`);
  }
  // the claims say the same as the expectation
  if ((page.claims.canonical !== undefined && page.claims.canonical !== page.url) !== (sourceBy === 'canonical')) fail(page.path, 'claims.canonical disagrees with the expected source');
  if ((page.claims.creditLink !== undefined) !== (sourceBy === 'credit')) fail(page.path, 'claims.creditLink disagrees with the expected source');

  // The Civic Times' trap: without its <meta name="date">, the byline's <time> is read, never the site header's "today"
  if (page.site === 'pub-d.example') {
    const { document: bare } = parseHTML(page.html);
    const header = bare.querySelector('header.site-header time[datetime]');
    if (header === null) fail(page.path, 'pub-d has no date in its site header');
    bare.querySelector('meta[name="date"]')?.remove();
    const time = publishedTimeOf(bare, NOW);
    if (time !== expected) fail(page.path, `without <meta name="date">, published read ${iso(time)}, the byline says ${page.claims.published}`);
  }
  return { words };
}

/** Checks a set and prints the summary; returns the failures (none when all pass). */
export function checkSet(set: ProvenanceSet, again?: ProvenanceSet): string[] {
  failures = [];
  const t0 = performance.now();
  if (again !== undefined && JSON.stringify(again) !== JSON.stringify(set)) fail('(set)', 'two builds with the same seed differ');
  const byPath = new Map(set.pages.map((p) => [p.path, p]));
  const siteOf = new Map(set.sites.map((s) => [s.site, s]));

  // 2. unique paths and URLs; copies' originals are publishers' originals; every copy is listed once
  for (const [what, values] of [['path', set.pages.map((p) => p.path)], ['url', set.pages.map((p) => p.url)]] as const) {
    const seen = new Set<string>();
    for (const v of values) {
      if (seen.has(v)) fail(v, `${what} appears twice`);
      seen.add(v);
    }
  }
  for (const page of set.pages) {
    if (new URL(page.url).host !== page.site) fail(page.path, `site ${page.site} is not the URL's host`);
    if (!page.path.startsWith(`${page.site}/`)) fail(page.path, 'the path is not in its site\'s folder');
    if (siteOf.get(page.site)?.role !== page.role) fail(page.path, `role ${page.role} is not its site's`);
    const listed = set.copies.filter((c) => c.copy === page.path).length;
    const isCopy = page.kind !== 'original' && page.kind !== 'linking';
    if (listed !== (isCopy ? 1 : 0)) fail(page.path, `a ${page.kind} page listed ${listed} times as a copy`);
  }
  for (const c of set.copies) {
    const copy = byPath.get(c.copy);
    const original = byPath.get(c.original);
    if (copy === undefined || original === undefined) {
      fail(c.copy, `copy or original ${c.original} missing`);
      continue;
    }
    if (original.role !== 'publisher' || original.kind !== 'original') fail(c.copy, `its original ${c.original} is not a publisher's original`);
    if (copy.article !== original.article) fail(c.copy, `article ${copy.article} is not its original's ${original.article}`);
    if (c.kind !== copy.kind) fail(c.copy, `kind ${c.kind} is not the page's ${copy.kind}`);
    if (c.credited !== (copy.role === 'partner')) fail(c.copy, `credited ${c.credited}`);
    if (c.backdated !== (copy.site === 'farm-backdate.example') || c.backdated !== (copy.claims.backdated === true)) fail(c.copy, `backdated ${c.backdated}`);
    // the dates relate to the original's as the set says (farm-late: 1 to 10 days after the original's
    // time, and up to a day more after a publisher that states only the day, midnight UTC)
    const days = copy.claims.published === undefined ? null : (Date.parse(copy.claims.published) - Date.parse(original.claims.published!)) / DAY;
    const want: Record<string, [number, number] | null> = { 'farm-late.example': [1, 11], 'farm-backdate.example': [-30, -3], 'partner-canon.example': [0, 2], 'partner-credit.example': [0, 2], 'farm-nodate.example': null };
    const range = want[copy.site];
    if (range === null ? days !== null : days === null || days < range![0] || days > range![1]) fail(c.copy, `dated ${days?.toFixed(2) ?? 'never'} days from its original`);
  }
  // the same story has at most one partner; no two sites share a page of their own
  const partnersOf = new Map<string, Set<string>>();
  for (const c of set.copies) {
    const copy = byPath.get(c.copy)!;
    if (copy.role === 'partner') partnersOf.set(copy.article, new Set([...(partnersOf.get(copy.article) ?? []), copy.site]));
  }
  for (const [article, partners] of partnersOf) if (partners.size > 1) fail(article, `republished by ${[...partners].join(' and ')}`);
  const ownTitles = new Map<string, string>();
  for (const page of set.pages.filter((p) => p.kind === 'original' || p.kind === 'linking')) {
    const title = parseHTML(page.html).document.querySelector('h1')?.textContent ?? '';
    if (ownTitles.has(title)) fail(page.path, `the same article as ${ownTitles.get(title)}`);
    ownTitles.set(title, page.path);
  }
  // the blog's links name publishers' originals
  for (const page of set.pages.filter((p) => p.role === 'blog')) {
    const { document } = parseHTML(page.html);
    const links = [...document.querySelectorAll('article a[href^="https://"]')].map((a) => a.getAttribute('href')!);
    const originals = links.filter((href) => set.pages.some((p) => p.url === href && p.role === 'publisher'));
    if (originals.length < 1 || originals.length > 2) fail(page.path, `links ${originals.length} publishers' articles`);
  }

  // 1. what Doppel reads of each page
  const words: number[] = [];
  for (const page of set.pages) {
    const r = checkPage(page, set, byPath);
    if (r !== null) words.push(r.words);
  }

  // 3. counts
  const sites = set.sites.map((s) => s.site);
  const count = (site: string, kind: PageKind): number => set.pages.filter((p) => p.site === site && p.kind === kind).length;
  const used = KINDS.filter((k) => set.pages.some((p) => p.kind === k));
  const w = 22;
  console.log(`Provenance set: ${set.pages.length} pages on ${sites.length} sites, ${set.copies.length} copies of ${new Set(set.copies.map((c) => c.original)).size} originals, ${new Set(set.pages.map((p) => p.article).filter(Boolean)).size} articles of the rewrite set.`);
  console.log();
  console.log(['site'.padEnd(w), 'role'.padEnd(9), ...used.map((k) => k.padStart(k.length)), 'total'.padStart(6)].join(' '));
  for (const s of set.sites) {
    console.log([s.site.padEnd(w), `${s.role}${s.honest ? '' : '*'}`.padEnd(9), ...used.map((k) => String(count(s.site, k) || '..').padStart(k.length)), String(set.pages.filter((p) => p.site === s.site).length).padStart(6)].join(' '));
  }
  console.log([`all`.padEnd(w), ''.padEnd(9), ...used.map((k) => String(set.pages.filter((p) => p.kind === k).length).padStart(k.length)), String(set.pages.length).padStart(6)].join(' '));
  console.log('(* not honest)');
  console.log();
  const copyKinds = KINDS.filter((k) => set.copies.some((c) => c.kind === k));
  console.log(`Copies by kind: ${copyKinds.map((k) => `${k} ${set.copies.filter((c) => c.kind === k).length}`).join(', ')}; credited ${set.copies.filter((c) => c.credited).length}, backdated ${set.copies.filter((c) => c.backdated).length}.`);
  const perOriginal = new Map<string, number>();
  for (const c of set.copies) perOriginal.set(c.original, (perOriginal.get(c.original) ?? 0) + 1);
  const histogram = new Map<number, number>();
  for (const page of set.pages.filter((p) => p.role === 'publisher')) {
    const n = perOriginal.get(page.path) ?? 0;
    histogram.set(n, (histogram.get(n) ?? 0) + 1);
  }
  console.log(`Publishers' originals by number of copies: ${[...histogram].sort((a, b) => a[0] - b[0]).map(([n, k]) => `${n} copies: ${k}`).join(', ')}.`);
  console.log(`Copies by publisher: ${set.sites.filter((s) => s.role === 'publisher').map((s) => `${s.site} ${set.copies.filter((c) => c.original.startsWith(`${s.site}/`)).length}`).join(', ')}.`);
  const dated = set.pages.filter((p) => p.claims.published !== undefined).length;
  console.log(`Claims: ${dated} pages dated, ${set.pages.length - dated} undated; ${set.pages.filter((p) => p.claims.canonical !== undefined && p.claims.canonical !== p.url).length} canonical links elsewhere; ${set.pages.filter((p) => p.claims.creditLink !== undefined).length} credit lines.`);
  words.sort((a, b) => a - b);
  console.log(`Words read by Readability per page: min ${words[0]}, median ${words[Math.floor(words.length / 2)]}, max ${words.at(-1)}.`);

  // for information: the rule's verdict on each copy against its original
  console.log();
  console.log('For information (not checked): copies whose true original the rule of lib/report/original.ts finds, pages read one a minute from 2026-11-29:');
  const claimsOf = new Map<string, Claims>();
  for (const page of set.pages) {
    const result = extractArticle(parseHTML(page.html).document, {}, { url: page.url, now: NOW });
    const provenance = result.ok ? (result.provenance ?? {}) : {};
    claimsOf.set(page.path, { url: page.url, site: page.site, firstSeen: 0, ...provenance });
  }
  const orders: [string, string[]][] = [['copies first', copiesFirstOrder(set)], ['random (seed 1)', readingOrder(set, 1)], ['random (seed 2)', readingOrder(set, 2)]];
  for (const [name, order] of orders) {
    const seen = new Map(order.map((path, i) => [path, NOW + i * 60_000]));
    const right = new Map<string, [number, number]>();
    for (const c of set.copies) {
      const copy = { ...claimsOf.get(c.copy)!, firstSeen: seen.get(c.copy)! };
      const original = { ...claimsOf.get(c.original)!, firstSeen: seen.get(c.original)! };
      const site = byPath.get(c.copy)!.site;
      const [ok, all] = right.get(site) ?? [0, 0];
      right.set(site, [ok + (judgeOriginal(copy, original).original === original ? 1 : 0), all + 1]);
    }
    const total = [...right.values()].reduce((a, [ok, all]) => [a[0] + ok, a[1] + all], [0, 0]);
    console.log(`  ${name.padEnd(16)} ${total[0]}/${total[1]}: ${[...right].map(([site, [ok, all]]) => `${site.replace('.example', '')} ${ok}/${all}`).join(', ')}`);
  }

  console.log();
  if (failures.length > 0) {
    for (const f of failures) console.log(`FAIL ${f}`);
    console.log(`${failures.length} failures (${((performance.now() - t0) / 1000).toFixed(1)} s).`);
  } else {
    console.log(`All checks pass: ${set.pages.length} pages read back as claimed (${((performance.now() - t0) / 1000).toFixed(1)} s).`);
  }
  return failures;
}

function main(): void {
  try {
    if (checkSet(buildProvenanceSet(), buildProvenanceSet()).length > 0) process.exitCode = 1;
  } catch (error) {
    console.log(`FAIL ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) main();
