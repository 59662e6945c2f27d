// bench:quality's provenance section: which page `scan` and the extension call the original, on
// the development set of bench/data/provenance-set.ts (publishers that state their dates, farms dated
// later, undated or backdated, partners crediting by canonical link or by credit line, a blog
// linking without copying).
//
// 1. `scan --json` over the set's pages: for each planted copy linked to its original (a near-
//    duplicate pair, shared passages or a rewrite), whether the entry names the true original.
// 2. Reading orders: for each of ORDERS seeded random orders of the whole history (and the order
//    in which every copy is read first), every page first seen in that order, and the links scan
//    found standing for the links a visit finds, the standings the extension's rules give
//    (lib/report: groups rooted at their original, passage and rewrite copies of the original of
//    two, the sites' flags): how many honest sites are flagged, how many farms are missed, and the
//    share of planted copies whose original the rule names.
// The backdating farm is the rule's known limit (it claims the earlier date): its copies are
// counted apart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnionFind } from '../../lib/report/clusters';
import { PASSAGE_COPY_SHARE, isCreditedCopy, mayCopy } from '../../lib/report/copies';
import { siteStanding } from '../../lib/report/groups';
import { type Claims, judgeOriginal, originalAmong } from '../../lib/report/original';
import { claimsOf } from '../../lib/scan/original';
import type { ScanReport } from '../../lib/scan/scan';
import { type ProvenanceSet, buildProvenanceSet, copiesFirstOrder, readingOrder } from '../data/provenance-set';
import { runScan, writePages } from './quality-score';

/** Random reading orders tried. */
export const ORDERS = 1000;
/** When the reader starts reading the history (after every page of the set was published), a page a minute. */
const READING_FROM = Date.UTC(2026, 10, 29);

type Link = { a: string; b: string; aShare?: number; bShare?: number };

export interface ProvenanceScore {
  pages: number;
  copies: number;
  /** scan: planted copies linked to their original, and of those, named with the true original (backdated copies apart). */
  scan: { linked: number; right: number; wrongOrNull: string[]; backdatedLinked: number; backdatedRight: number };
  /** Over the reading orders: orders in which some honest site is flagged, farms missed in all, the mean share of copies given their true original. */
  orders: { tried: number; backdatingFlagged: number; honestFlagged: number; honestFlaggedSites: Map<string, number>; farmsMissed: number; farmsMissedSites: Map<string, number>; creditedNotShown: number; rightShare: number; worst: number };
  copiesFirst: { honestFlagged: string[]; farmsMissed: string[]; right: number; total: number };
}

/** The standings and the copies' originals the extension's rules give for one reading order. */
function standingsFor(set: ProvenanceSet, report: ScanReport & { reuse: Link[]; rewrites: Link[] }, order: readonly string[]) {
  const seen = new Map(order.map((path, i) => [path, READING_FROM + i * 60_000]));
  const claims = new Map<string, Claims & { path: string }>(report.documents.map((d) => [d.path, { ...claimsOf(d), firstSeen: seen.get(d.path)! }]));
  const paths = report.documents.map((d) => d.path);
  const index = new Map(paths.map((p, i) => [p, i]));
  // groups: near-duplicates and rewrites, each rooted at its original; passage copies apart
  const sets = new UnionFind(paths.length);
  for (const { a, b } of [...report.pairs, ...report.rewrites]) sets.union(index.get(a)!, index.get(b)!);
  const members = new Map<number, (Claims & { path: string })[]>();
  paths.forEach((p, i) => {
    const root = sets.find(i);
    members.set(root, [...(members.get(root) ?? []), claims.get(p)!]);
  });
  const copy = new Map<string, { copySite: boolean; contentCopy: boolean }>(paths.map((p) => [p, { copySite: false, contentCopy: false }]));
  for (const group of members.values()) {
    if (group.length < 2) continue;
    const root = originalAmong(group);
    for (const m of group) if (m.site !== root.site) copy.get(m.path)!.copySite = true;
  }
  for (const { a, b, aShare, bShare } of report.reuse) {
    const [ca, cb] = [claims.get(a)!, claims.get(b)!];
    if (aShare! >= PASSAGE_COPY_SHARE && mayCopy(ca, cb)) copy.get(a)!.contentCopy = true;
    if (bShare! >= PASSAGE_COPY_SHARE && mayCopy(cb, ca)) copy.get(b)!.contentCopy = true;
  }
  for (const { a, b } of report.rewrites) {
    const [ca, cb] = [claims.get(a)!, claims.get(b)!];
    if (mayCopy(ca, cb)) copy.get(a)!.contentCopy = true;
    if (mayCopy(cb, ca)) copy.get(b)!.contentCopy = true;
  }
  const bySite = new Map<string, { pages: number; copies: number; credited: number }>();
  for (const p of paths) {
    const c = claims.get(p)!;
    const { copySite, contentCopy } = copy.get(p)!;
    const record = { ...(copySite ? { copySite: c.site } : {}), ...(contentCopy ? { contentCopy: true as const } : {}), ...(c.source === undefined ? {} : { source: c.source }) };
    const row = bySite.get(c.site) ?? { pages: 0, copies: 0, credited: 0 };
    row.pages++;
    if (copySite || contentCopy) row.copies++;
    if (isCreditedCopy(record)) row.credited++;
    bySite.set(c.site, row);
  }
  const standings = new Map([...bySite].map(([site, r]) => [site, siteStanding(site, r.pages, r.copies, r.credited, null)]));
  const right = set.copies.filter((c) => !c.backdated && judgeOriginal(claims.get(c.copy)!, claims.get(c.original)!).original.path === c.original).length;
  return { standings, right, total: set.copies.filter((c) => !c.backdated).length };
}

/** Builds the set, scans it, and scores both parts. */
export function scoreProvenance(k: number, seed = 20250304): ProvenanceScore {
  const set = buildProvenanceSet(seed);
  const dir = mkdtempSync(join(tmpdir(), 'doppel-quality-provenance-'));
  let report: ScanReport & { reuse: Link[]; rewrites: Link[] };
  try {
    writePages(set.pages, dir);
    report = runScan(dir, k) as typeof report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // 1. scan's entries
  const entries = [...report.pairs, ...report.reuse, ...report.rewrites] as (Link & { original: string | null })[];
  const entryOf = (x: string, y: string) => entries.find((e) => (e.a === x && e.b === y) || (e.a === y && e.b === x));
  const scan = { linked: 0, right: 0, wrongOrNull: [] as string[], backdatedLinked: 0, backdatedRight: 0 };
  for (const c of set.copies) {
    const entry = entryOf(c.copy, c.original);
    if (entry === undefined) continue;
    if (c.backdated) {
      scan.backdatedLinked++;
      if (entry.original === c.original) scan.backdatedRight++;
      continue;
    }
    scan.linked++;
    if (entry.original === c.original) scan.right++;
    else scan.wrongOrNull.push(`${c.copy} → ${entry.original ?? 'none'}`);
  }
  // 2. reading orders
  const honest = new Set(set.sites.filter((s) => s.honest).map((s) => s.site));
  // the backdating farm wins by its dates (the known limit): counted apart
  const backdating = new Set(set.copies.filter((c) => c.backdated).map((c) => new URL(set.pages.find((p) => p.path === c.copy)!.url).host));
  const farms = set.sites.filter((s) => s.role === 'farm' && !backdating.has(s.site)).map((s) => s.site);
  const credited = set.sites.filter((s) => s.role === 'partner').map((s) => s.site);
  const orders = { tried: ORDERS, backdatingFlagged: 0, honestFlagged: 0, honestFlaggedSites: new Map<string, number>(), farmsMissed: 0, farmsMissedSites: new Map<string, number>(), creditedNotShown: 0, rightShare: 0, worst: 1 };
  const bump = (m: Map<string, number>, site: string): void => void m.set(site, (m.get(site) ?? 0) + 1);
  for (let i = 0; i < ORDERS; i++) {
    const { standings, right, total } = standingsFor(set, report, readingOrder(set, seed + i));
    const flaggedHonest = [...honest].filter((s) => standings.get(s)?.flagged === true);
    if (flaggedHonest.length > 0) orders.honestFlagged++;
    for (const s of flaggedHonest) bump(orders.honestFlaggedSites, s);
    for (const s of farms.filter((f) => standings.get(f)?.flagged !== true)) (orders.farmsMissed++, bump(orders.farmsMissedSites, s));
    orders.creditedNotShown += credited.filter((s) => standings.get(s)?.creditsSources !== true).length;
    orders.backdatingFlagged += [...backdating].filter((s) => standings.get(s)?.flagged === true).length;
    orders.rightShare += right / total / ORDERS;
    orders.worst = Math.min(orders.worst, right / total);
  }
  const first = standingsFor(set, report, copiesFirstOrder(set));
  const copiesFirst = {
    honestFlagged: [...honest].filter((s) => first.standings.get(s)?.flagged === true),
    farmsMissed: farms.filter((f) => first.standings.get(f)?.flagged !== true),
    right: first.right,
    total: first.total,
  };
  return { pages: set.pages.length, copies: set.copies.length, scan, orders, copiesFirst };
}

export function printProvenance(s: ProvenanceScore): void {
  const pc = (n: number, d: number): string => `${((100 * n) / d).toFixed(1)}% (${n}/${d})`;
  const list = (m: Map<string, number>): string => ([...m].map(([site, n]) => `${site} ${n}`).join(', ') || 'none');
  console.log(`\nWhich page is the original (bench/data/provenance-set.ts: ${s.pages} pages, ${s.copies} planted copies; the backdating farm's apart)`);
  console.log(`  scan: copies linked to their original                            ${pc(s.scan.linked, s.copiesFirst.total)}`);
  console.log(`  scan: of those, named with their true original                   ${pc(s.scan.right, s.scan.linked)}`);
  for (const miss of s.scan.wrongOrNull) console.log(`    not named: ${miss}`);
  console.log(`  scan: the backdating farm's copies named with the true original ${pc(s.scan.backdatedRight, s.scan.backdatedLinked)} (the known limit)`);
  console.log(`  ${s.orders.tried} random reading orders (the extension's rules over the links scan found):`);
  console.log(`    orders with an honest site flagged        ${s.orders.honestFlagged} (${list(s.orders.honestFlaggedSites)})`);
  console.log(`    farms not flagged, over all orders        ${s.orders.farmsMissed} (${list(s.orders.farmsMissedSites)})`);
  console.log(`    partners not shown as crediting           ${s.orders.creditedNotShown}`);
  console.log(`    the backdating farm flagged               in ${s.orders.backdatingFlagged} of ${s.orders.tried} orders (the known limit: its dates win)`);
  console.log(`    copies given their true original          ${(100 * s.orders.rightShare).toFixed(1)}% on average, ${(100 * s.orders.worst).toFixed(1)}% in the worst order`);
  console.log(`  every copy read before its original: honest sites flagged ${s.copiesFirst.honestFlagged.length === 0 ? 'none' : s.copiesFirst.honestFlagged.join(', ')}; farms missed ${s.copiesFirst.farmsMissed.length === 0 ? 'none' : s.copiesFirst.farmsMissed.join(', ')}; copies given their true original ${pc(s.copiesFirst.right, s.copiesFirst.total)}`);
  const ok = s.orders.honestFlagged === 0 && s.orders.farmsMissed === 0 && s.scan.right / s.scan.linked >= 0.9 && s.copiesFirst.right / s.copiesFirst.total >= 0.9;
  console.log(`  Targets: 0 honest sites flagged in any order, every farm flagged, ≥ 90% of copies given their true original. ${ok ? 'All met.' : 'NOT met.'}`);
}
