// bench:browser-quality's rewritten and translated copies: bench:quality's rewrite set
// (bench/quality/quality-rewrites.ts buildRewritePages: the articles of bench/data/rewrites/, each with its
// rewrite, Spanish and Chinese translations and an independent article on the same subject, dressed
// as republishers' pages, among the corpus's other originals) written as HTML files in a folder of
// their own, read by the real `scan --json`, and visited in Chromium with the built extension in a
// fresh profile: the originals on one port of 127.0.0.1, each republishing site (the og:site_name of
// the template a text is dressed in) on a port of its own, so that no text is on its original's
// site; the originals first, then the texts, a few tabs at a time. Every page's popup is read once
// all are visited.
//
// A text is found when its own popup links its original in `#matches`, `#passages` or `#rewrites`
// (a page already listed as a near-duplicate or as sharing passages is not repeated in #rewrites;
// an entry's "Also in" line, the pages sharing the same passages, links those pages too);
// an independent article counts as linked when either its popup or its original's links the other
// (a user reading either would see the claim). `scan` finds a pair in `pairs`, `reuse` or `rewrites`
// (bench/quality/quality-rewrites.ts scoreRewrites). False links: links in any popup (pairs in any of scan's
// lists) between pages of different articles. Targets: bench/quality/quality-rewrites.ts REWRITE_TARGETS.
import type { Page } from 'playwright-core';
import type { ScanReport } from '../../lib/scan/scan';
import { type ScanReuse, siteOfHtml } from '../../lib/scan/reuse';
import type { ScanRewrite } from '../../lib/scan/detectors/rewrites';
import { type ExtensionSession, type Site, launchWithExtension, servePages } from '../../test/e2e/harness';
import type { PopupRead } from './popup-read';
import { offline, openTabs, pool, readSettledPopup, visitAndWait, type Visit } from './browser-visit';
import { REWRITE_TARGETS, type RewritePage, SCORED_REWRITE_KINDS, type ScoredRewriteKind, buildRewritePages, scoreRewrites } from '../quality/quality-rewrites';
import { runScan, writePages } from '../quality/quality-score';
import type { QualityPage } from '../data/republish';
import { type Half, REWRITE_KINDS, type RewriteKind, loadRewriteSet } from '../data/rewrite-set';

const LISTS = ['#matches', '#passages', '#rewrites'] as const;
type List = (typeof LISTS)[number];

/** One `#rewrites li.rewrite` of a popup: data-url, data-kind (rewriteOf, translationOf, rewrittenAs, translatedAs), data-share. */
export interface RewriteEntry {
  href: string;
  kind: string;
  share: number | null;
}

/** A link of a popup to a page of the set. */
interface PopupLink {
  path: string;
  list: List;
  /** "#rewrites translationOf (share 0.41)", "#matches (2 bits)", "#passages (share 0.62)". */
  label: string;
  /** A #rewrites entry's data-kind. */
  kind?: string;
}

export interface KindScore {
  total: number;
  /** Found (an independent article: linked), by the rule above. */
  found: number;
  /** Texts whose own popup links the original in each list. */
  byList: Record<List, number>;
  /** The data-kind of the original's entry in the text's #rewrites, counted. */
  asListed: Record<string, number>;
}

export interface BrowserRewrites {
  articles: number;
  pages: number;
  originals: number;
  texts: number;
  /** "originals :port", then each site's name and port. */
  sites: string[];
  tabs: number;
  scan: {
    byKind: Record<ScoredRewriteKind, { total: number; linked: number; byRewrites: number }>;
    byHalf: Record<Half, Record<ScoredRewriteKind, { total: number; linked: number; byRewrites: number }>>;
    falseLinks: { a: string; b: string }[];
    met: boolean;
    seconds: number;
  };
  chromium: {
    byKind: Record<ScoredRewriteKind, KindScore>;
    /** The same, each half of the set alone (bench/data/rewrite-set.ts halfOf). */
    byHalf: Record<Half, Record<ScoredRewriteKind, KindScore>>;
    falseLinks: { a: string; b: string; lists: string }[];
    met: boolean;
    recorded: number;
    notRecorded: { path: string; kind: string; state: string; reason: string }[];
    /** Links shown in one popup only (a → b without b → a). */
    oneWay: string[];
    unknownLinks: string[];
    dialogs: number;
    pageErrors: number;
    seconds: number;
  };
  /** Independent articles linked to their original by either side, and how. */
  independentLinked: { path: string; scan: string; chromium: string }[];
  /** Texts found by one side only. */
  disagreements: { path: string; kind: ScoredRewriteKind; foundBy: 'scan' | 'Chromium'; scan: string; chromium: string }[];
  seconds: number;
}

/** The popup's `#rewrites` entries (none when the section is empty). */
async function readRewriteEntries(popup: Page): Promise<RewriteEntry[]> {
  return popup.evaluate(() =>
    [...document.querySelectorAll('#rewrites li.rewrite')].map((item) => {
      const raw = (item.getAttribute('data-share') ?? '').trim();
      return { href: item.getAttribute('data-url') ?? '', kind: item.getAttribute('data-kind') ?? '', share: /^\d*\.?\d+$/.test(raw) ? Number(raw) : null };
    }),
  );
}

/** Whether found of total meets kind's target. */
export function meetsTarget(kind: RewriteKind, found: number, total: number): boolean {
  const t = REWRITE_TARGETS[kind];
  const rate = found / Math.max(1, total);
  return t.most ? rate <= t.at : rate >= t.at;
}

const key = (a: string, b: string): string => (a < b ? `${a}\n${b}` : `${b}\n${a}`);
const originalOf = (page: RewritePage): string => `${page.article}/original.html`;

/**
 * Writes the rewrite set's pages to dir, runs `scan --json` on them, visits them in Chromium with
 * the extension at extensionDir (a fresh profile), reads every popup and scores both sides.
 */
export async function measureRewritesInBrowser(opts: {
  dir: string;
  extensionDir: string;
  corpusOriginals: readonly QualityPage[];
  tabs: number;
  k: number;
  /** Progress on stderr. */
  progress: boolean;
}): Promise<BrowserRewrites> {
  const started = performance.now();
  const set = loadRewriteSet();
  const pages = buildRewritePages(set, opts.corpusOriginals);
  writePages(pages, opts.dir);

  // scan, on the same files.
  const scanStarted = performance.now();
  const report = runScan(opts.dir, opts.k) as ScanReport & { reuse?: ScanReuse[]; rewrites?: ScanRewrite[] };
  const scanSeconds = (performance.now() - scanStarted) / 1000;
  const scanScore = scoreRewrites(pages, report);

  // The browser: the originals on one origin, each republishing site on its own.
  const browserStarted = performance.now();
  const servers: Site[] = [];
  let ext: ExtensionSession | undefined;
  const reads = new Map<string, { read: PopupRead; rewrites: RewriteEntry[] }>();
  const visits = new Map<string, Visit>();
  let urlOf: (page: RewritePage) => string;
  let sites: string[];
  let dialogs = 0;
  let pageErrors = 0;
  try {
    const originalSite = await servePages(opts.dir);
    servers.push(originalSite);
    const siteNameOf = (page: RewritePage): string => siteOfHtml(page.html) ?? 'copies';
    const copySites = new Map<string, Site>();
    for (const page of pages) {
      if (page.kind === 'original' || copySites.has(siteNameOf(page))) continue;
      const site = await servePages(opts.dir);
      servers.push(site);
      copySites.set(siteNameOf(page), site);
    }
    sites = [`originals :${originalSite.port}`, ...[...copySites].map(([name, site]) => `${name} :${site.port}`)];
    urlOf = (page) => {
      const site = page.kind === 'original' ? originalSite : copySites.get(siteNameOf(page))!;
      return new URL(site.url('/' + page.path.split('/').map(encodeURIComponent).join('/'))).href;
    };

    ext = await launchWithExtension(opts.extensionDir);
    await offline(ext);
    const tabs = await openTabs(ext, opts.tabs);
    const originals = pages.filter((p) => p.kind === 'original');
    const texts = pages.filter((p) => p.kind !== 'original');
    let done = 0;
    for (const batch of [originals, texts]) {
      await pool(batch, tabs, async (page, { tab, popup }) => {
        visits.set(page.path, await visitAndWait(ext!, tab, popup, urlOf(page)));
        if (opts.progress) process.stderr.write(`\r  rewrite set: visited ${++done}/${pages.length}`);
      });
    }
    if (opts.progress) process.stderr.write('\r' + ' '.repeat(48) + '\r');
    await Promise.all(tabs.map(({ tab }) => tab.goto('about:blank').catch(() => {})));
    await pool(pages, tabs, async (page, { popup }) => {
      const { read, more } = await readSettledPopup(ext!, popup, urlOf(page), readRewriteEntries);
      reads.set(page.path, { read, rewrites: more ?? [] });
    });
    dialogs = ext.dialogs.length;
    pageErrors = ext.pageErrors.length;
  } finally {
    await ext?.close();
    for (const site of servers) await site.close();
  }
  const browserSeconds = (performance.now() - browserStarted) / 1000;

  // Each popup's links, as paths.
  const pathOfUrl = new Map(pages.map((p) => [urlOf(p), p.path]));
  const unknownLinks: string[] = [];
  const linksOf = new Map<string, PopupLink[]>();
  for (const [path, { read, rewrites }] of reads) {
    const resolve = (href: string): string | undefined => {
      let other: string | undefined;
      try {
        other = pathOfUrl.get(new URL(href).href);
      } catch {
        other = undefined;
      }
      if (other === undefined) unknownLinks.push(`${path} → ${href}`);
      return other;
    };
    const links: PopupLink[] = [];
    for (const { href, distance } of read.links) {
      const other = resolve(href);
      if (other !== undefined) links.push({ path: other, list: '#matches', label: `#matches (${distance} bits)` });
    }
    for (const { href, share, alsoIn } of read.passages) {
      const other = resolve(href);
      if (other !== undefined) links.push({ path: other, list: '#passages', label: `#passages (share ${share ?? '?'})` });
      // the pages sharing the same passages are folded into the entry's "Also in" line: shown, so linked
      for (const also of alsoIn) {
        const folded = resolve(also);
        if (folded !== undefined) links.push({ path: folded, list: '#passages', label: `#passages, also in ${other ?? href}'s entry (share ${share ?? '?'})` });
      }
    }
    for (const { href, kind, share } of rewrites) {
      const other = resolve(href);
      if (other !== undefined) links.push({ path: other, list: '#rewrites', kind, label: `#rewrites ${kind} (share ${share ?? '?'})` });
    }
    linksOf.set(path, links);
  }
  const linking = (from: string, to: string): PopupLink[] => (linksOf.get(from) ?? []).filter((l) => l.path === to);

  // Found, by kind; and by scan, each pair with how scan has it.
  const scanHas = new Map<string, string>();
  for (const r of report.rewrites ?? []) scanHas.set(key(r.a, r.b), `rewrites (share ${r.share}, ${r.translated ? 'translated' : 'rewritten'})`);
  for (const r of report.reuse ?? []) scanHas.set(key(r.a, r.b), `reuse (shares ${r.aShare} / ${r.bShare})`);
  for (const p of report.pairs) scanHas.set(key(p.a, p.b), `pairs (${p.distance} bits)`);
  const emptyLists = (): Record<List, number> => ({ '#matches': 0, '#passages': 0, '#rewrites': 0 });
  const emptyKinds = (): Record<ScoredRewriteKind, KindScore> => Object.fromEntries(SCORED_REWRITE_KINDS.map((k) => [k, { total: 0, found: 0, byList: emptyLists(), asListed: {} }])) as Record<ScoredRewriteKind, KindScore>;
  const byKind = emptyKinds();
  const byHalf = { tuning: emptyKinds(), test: emptyKinds() };
  const disagreements: BrowserRewrites['disagreements'] = [];
  const independentLinked: BrowserRewrites['independentLinked'] = [];
  for (const page of pages) {
    if (page.kind === 'original') continue;
    const original = originalOf(page);
    const own = linking(page.path, original);
    const back = page.kind === 'independent' ? linking(original, page.path) : [];
    const found = own.length > 0 || back.length > 0;
    for (const s of [byKind[page.kind], byHalf[page.half!][page.kind]]) {
      s.total++;
      if (found) s.found++;
      for (const list of LISTS) if (own.some((l) => l.list === list)) s.byList[list]++;
      for (const l of own) if (l.kind) s.asListed[l.kind] = (s.asListed[l.kind] ?? 0) + 1;
    }
    const scanned = scanHas.get(key(original, page.path));
    const state = (path: string): string => reads.get(path)?.read.state || 'unread';
    const chromium = found ? [...own, ...back.map((l) => ({ ...l, label: `original's ${l.label}` }))].map((l) => l.label).join(', ') : `no link (popups: original ${state(original)}, text ${state(page.path)})`;
    if (page.kind === 'independent' && (scanned || found)) independentLinked.push({ path: page.path, scan: scanned ?? '–', chromium });
    if (!scanned === !found) continue;
    disagreements.push({ path: page.path, kind: page.kind, foundBy: scanned ? 'scan' : 'Chromium', scan: scanned ?? '–', chromium });
  }

  // False links: in any popup, between pages of different articles (distinct pairs).
  const articleOf = new Map(pages.map((p) => [p.path, p.article]));
  const falseLinks = new Map<string, { a: string; b: string; lists: Set<string> }>();
  const directed = new Set<string>();
  for (const [path, links] of linksOf) {
    for (const l of links) {
      directed.add(`${path}\n${l.path}`);
      if (articleOf.get(path) === articleOf.get(l.path)) continue;
      const k = key(path, l.path);
      const entry = falseLinks.get(k) ?? falseLinks.set(k, { a: path < l.path ? path : l.path, b: path < l.path ? l.path : path, lists: new Set() }).get(k)!;
      entry.lists.add(l.kind ? `${l.list} ${l.kind}` : l.list);
    }
  }
  const oneWay = [...directed].filter((d) => {
    const [a, b] = d.split('\n');
    return !directed.has(`${b}\n${a}`);
  });

  const notRecorded = pages
    .map((p) => ({ page: p, read: reads.get(p.path)?.read, visit: visits.get(p.path) }))
    .filter(({ read }) => read?.state !== 'ready')
    .map(({ page, read, visit }) => {
      const base = { path: page.path, kind: page.kind };
      if (read?.state === 'not-article') return { ...base, state: read.state, reason: read.detail || '(no reason)' };
      if (visit && (visit.state === 'timeout' || visit.state === 'load-failed')) return { ...base, state: visit.state, reason: visit.detail };
      if (!read?.state) return { ...base, state: 'popup-unreadable', reason: read?.detail || 'no [data-state]' };
      return { ...base, state: read.state, reason: read.detail };
    });

  const scanFalse = [...new Map(scanScore.falseLinks.map((l) => [key(l.a, l.b), { a: l.a, b: l.b }])).values()];
  const chromiumFalse = [...falseLinks.values()].map(({ a, b, lists }) => ({ a, b, lists: [...lists].join(', ') }));
  return {
    articles: set.length,
    pages: pages.length,
    originals: pages.filter((p) => p.kind === 'original').length,
    texts: pages.filter((p) => p.kind !== 'original').length,
    sites: sites!,
    tabs: opts.tabs,
    scan: {
      byKind: scanScore.byKind,
      byHalf: scanScore.byHalf,
      falseLinks: scanFalse,
      met: REWRITE_KINDS.every((k) => meetsTarget(k, scanScore.byHalf.test[k].linked, scanScore.byHalf.test[k].total)) && scanFalse.length === 0,
      seconds: scanSeconds,
    },
    chromium: {
      byKind,
      byHalf,
      falseLinks: chromiumFalse,
      met: REWRITE_KINDS.every((k) => meetsTarget(k, byHalf.test[k].found, byHalf.test[k].total)) && chromiumFalse.length === 0,
      recorded: pages.length - notRecorded.length,
      notRecorded,
      oneWay: oneWay.map((d) => d.replace('\n', ' → ')),
      unknownLinks,
      dialogs,
      pageErrors,
      seconds: browserSeconds,
    },
    independentLinked,
    disagreements,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The section: each kind's share found by scan and by Chromium, with its target and whether each side meets it. */
export function printBrowserRewrites(r: BrowserRewrites, examples: number): void {
  const pct = (n: number, total: number): string => `${((100 * n) / Math.max(1, total)).toFixed(1)}% (${n}/${total})`;
  const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  console.log(
    `\nRewritten and translated copies in Chromium's popups, in the same run: bench:quality's rewrite set, ${r.pages} pages ` +
      `(${r.articles} articles' originals with their rewrite, Spanish, Chinese, French and German translations and an independent article on the same subject, some with Russian and Japanese translations, ` +
      `dressed as republishers' pages, among ${r.originals - r.articles} other originals of the corpus), written to a folder of their own and read by \`scan --json\`; ` +
      `served on 127.0.0.1 (${r.sites.join(', ')}) and visited in Chromium with a fresh profile, the ${r.originals} originals, then the ${r.texts} texts, ${r.tabs} tabs at a time.`,
  );
  console.log('Found: the text\'s own popup links its original in #matches, #passages or #rewrites (an independent article: linked when either popup links the other);');
  console.log('scan: the pair is in `pairs`, `reuse` or `rewrites`. False: a link in any popup (a pair in scan) between pages of different articles.');
  const table = (scanKinds: BrowserRewrites['scan']['byKind'], chromiumKinds: BrowserRewrites['chromium']['byKind']): void => {
    console.log(`${''.padEnd(28)}${'scan: any list'.padEnd(20)}${'by rewrites'.padEnd(13)}${'Chromium: any list'.padEnd(21)}${'#matches/#passages/#rewrites'.padEnd(30)}target`);
    for (const kind of SCORED_REWRITE_KINDS) {
      const s = scanKinds[kind];
      const c = chromiumKinds[kind];
      const t = (REWRITE_TARGETS as Partial<Record<ScoredRewriteKind, { at: number; most?: boolean; label?: string }>>)[kind];
      const label = kind === 'independent' ? 'independent (linked)' : kind;
      const judged = t === undefined ? 'measured, not targeted' : `${(t.label ?? `${t.most ? '≤' : '≥'} ${100 * t.at}%`).padEnd(7)}  scan ${verdict(meetsTarget(kind as RewriteKind, s.linked, s.total))}, Chromium ${verdict(meetsTarget(kind as RewriteKind, c.found, c.total))}`;
      console.log(`${label.padEnd(28)}${pct(s.linked, s.total).padEnd(20)}${String(s.byRewrites).padEnd(13)}${pct(c.found, c.total).padEnd(21)}${LISTS.map((l) => c.byList[l]).join(' / ').padEnd(30)}${judged}`);
    }
  };
  console.log('The test half (articles never tuned on):');
  table(r.scan.byHalf.test, r.chromium.byHalf.test);
  const scanFalse = r.scan.falseLinks.length;
  const chromiumFalse = r.chromium.falseLinks.length;
  console.log(`${'false (different articles)'.padEnd(28)}${String(scanFalse).padEnd(33)}${String(chromiumFalse).padEnd(51)}${'0'.padEnd(7)}  scan ${verdict(scanFalse === 0)}, Chromium ${verdict(chromiumFalse === 0)}`);
  console.log(`Rewrite targets on the test half (rewrites ≥ 90%, translations es, fr, de ≥ 75%, zh ≥ 65%, independent linked ≤ 2% (1 of 48), 0 false links): scan ${verdict(r.scan.met)}, Chromium ${verdict(r.chromium.met)}.`);
  console.log('The tuning half:');
  table(r.scan.byHalf.tuning, r.chromium.byHalf.tuning);
  console.log('Both halves:');
  table(r.scan.byKind, r.chromium.byKind);
  for (const l of r.scan.falseLinks.slice(0, examples)) console.log(`  scan false link: ${l.a} ~ ${l.b}`);
  for (const l of r.chromium.falseLinks.slice(0, examples)) console.log(`  Chromium false link: ${l.a} ~ ${l.b} (${l.lists})`);
  const listed = REWRITE_KINDS.map((kind) => {
    const counts = Object.entries(r.chromium.byKind[kind].asListed).sort((x, y) => y[1] - x[1]);
    return `${kind}: ${counts.length ? counts.map(([k, n]) => `${k} ${n}`).join(', ') : 'none'}`;
  });
  console.log(`The originals' entries in the texts' #rewrites, by data-kind: ${listed.join('; ')}.`);
  for (const d of r.independentLinked) console.log(`  independent article linked: ${d.path.padEnd(36)} scan: ${d.scan.padEnd(40)} Chromium: ${d.chromium}`);
  console.log(`Recorded in Chromium: ${r.chromium.recorded} of ${r.pages} pages.`);
  if (r.chromium.notRecorded.length) {
    const counts = new Map<string, number>();
    for (const n of r.chromium.notRecorded) counts.set(`${n.state}: ${n.reason}`, (counts.get(`${n.state}: ${n.reason}`) ?? 0) + 1);
    for (const [why, n] of [...counts].sort((x, y) => y[1] - x[1])) console.log(`  ${String(n).padStart(4)}  ${why}`);
    console.log(`  ${r.chromium.notRecorded.slice(0, examples).map((n) => n.path).join(', ')}${r.chromium.notRecorded.length > examples ? ', …' : ''}`);
  }
  if (r.chromium.oneWay.length) console.log(`${r.chromium.oneWay.length} links shown in one popup only (not in the other page's): ${r.chromium.oneWay.slice(0, 5).join('; ')}`);
  if (r.chromium.unknownLinks.length) console.log(`${r.chromium.unknownLinks.length} links to pages outside the set: ${r.chromium.unknownLinks.slice(0, 5).join('; ')}`);
  if (r.disagreements.length) {
    const byKind = REWRITE_KINDS.map((kind) => {
      const d = r.disagreements.filter((x) => x.kind === kind);
      return `${kind} ${d.filter((x) => x.foundBy === 'scan').length} / ${d.filter((x) => x.foundBy === 'Chromium').length}`;
    });
    console.log(`Texts found by one side only (scan only / Chromium only): ${byKind.join(', ')}`);
    for (const d of r.disagreements.slice(0, examples)) console.log(`  ${d.path.padEnd(44)} scan: ${d.scan.padEnd(40)} Chromium: ${d.chromium}`);
    if (r.disagreements.length > examples) console.log(`  … and ${r.disagreements.length - examples} more (--json lists them all)`);
  } else {
    console.log('scan and Chromium agree on every text.');
  }
  if (r.chromium.dialogs || r.chromium.pageErrors) console.log(`Pages showed ${r.chromium.dialogs} dialogs (dismissed) and threw ${r.chromium.pageErrors} uncaught errors.`);
  console.log(`(rewrite set: ${r.seconds.toFixed(0)} s: scan ${r.scan.seconds.toFixed(0)} s, Chromium ${r.chromium.seconds.toFixed(0)} s)`);
}
