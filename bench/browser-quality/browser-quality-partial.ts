// bench:browser-quality's partial copies: the extension's popups (`#matches` and `#passages`)
// beside `scan`'s `pairs` and `reuse` on the same pages, scored with bench:quality's rules
// (bench/quality/quality-partial.ts) against the bar of the issue "Passages, part 2".
import type { ScanPair } from '../../lib/scan/scan';
import type { ScanReuse } from '../../lib/scan/reuse';
import { PARTIAL_TARGETS, type PartialResult, scorePartialLinks } from '../quality/quality-partial';
import type { PageSources } from '../quality/quality-score';
import { PARTIAL_KINDS } from '../data/republish';

/** The rows the bar names (excerpt 60%, excerpt-30, stitched, quote), with bench:quality's targets. */
export const BAR_ROWS: readonly string[] = ['excerpt 60%', ...PARTIAL_KINDS];
const BAR_TARGETS: Record<string, number> = Object.fromEntries(BAR_ROWS.map((row) => [row, PARTIAL_TARGETS[row]!]));

/** One page's popup as read: its state, its near-duplicates (`#matches`) and the pages sharing passages with it (`#passages`), as paths. */
export interface PopupLinks {
  path: string;
  state: string;
  matches: string[];
  passages: { path: string; share: number | null }[];
}

export interface Disagreement {
  row: string;
  copy: string;
  original: string;
  foundBy: 'scan' | 'Chromium';
  /** How scan has the pair: "pairs (2 bits)", "reuse (shares 0.31 / 0.22)" or "–". */
  scan: string;
  /** How the copy's popup has it: "#matches", "#passages (share 0.62)" or "no link (popup ready)". */
  chromium: string;
}

export interface PartialSideBySide {
  scan: PartialResult & { falseLinks: number };
  chromium: PartialResult & { falseLinks: number; popupsWithPassages: number };
  disagreements: Disagreement[];
  /** False links counted by the kinds of their two pages ("promo ~ promo"). */
  falseByKinds: { scan: [string, number][]; chromium: [string, number][] };
}

const key = (a: string, b: string): string => (a < b ? `${a}\n${b}` : `${b}\n${a}`);

/** Distinct unordered pairs among the false links of both lists. */
const distinctFalse = (r: PartialResult): { a: string; b: string }[] => [...new Map([...r.falsePairs, ...r.falseReuse].map((p) => [key(p.a, p.b), p])).values()];

function countByKinds(links: readonly { a: string; b: string }[], kindOf: (path: string) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const { a, b } of links) {
    const kinds = [kindOf(a), kindOf(b)].sort().join(' ~ ');
    counts.set(kinds, (counts.get(kinds) ?? 0) + 1);
  }
  return [...counts].sort((x, y) => y[1] - x[1]);
}

/**
 * Scores scan's pairs and reuse and the popups' links on the same pages. A copy is found by
 * Chromium when its own popup links the source's original (an original's popup credits no copy);
 * false links are looked for in every popup.
 */
export function scorePartialSideBySide(
  pages: readonly PageSources[],
  kindOf: (path: string) => string,
  report: { pairs: readonly ScanPair[]; reuse?: readonly ScanReuse[] },
  popups: readonly PopupLinks[],
): PartialSideBySide {
  const scanLinks = { pairs: report.pairs, reuse: report.reuse ?? [] };
  const scan = scorePartialLinks(pages, scanLinks, scanLinks, BAR_TARGETS);

  const isOriginal = new Set(pages.filter((p) => p.kind === 'original').map((p) => p.path));
  const linksOf = (from: readonly PopupLinks[]) => ({
    pairs: from.flatMap((p) => p.matches.map((b) => ({ a: p.path, b }))),
    reuse: from.flatMap((p) => p.passages.map(({ path: b }) => ({ a: p.path, b }))),
  });
  const chromium = scorePartialLinks(pages, linksOf(popups.filter((p) => !isOriginal.has(p.path))), linksOf(popups), BAR_TARGETS);

  // Trials of the bar's rows found by one side only.
  const scanPair = new Map(report.pairs.map((p) => [key(p.a, p.b), `pairs (${p.distance} bits)`]));
  const scanReuse = new Map((report.reuse ?? []).map((r) => [key(r.a, r.b), `reuse (shares ${r.aShare} / ${r.bShare})`]));
  const popupOf = new Map(popups.map((p) => [p.path, p]));
  const disagreements: Disagreement[] = [];
  for (const page of pages) {
    if (!BAR_ROWS.includes(page.kind)) continue;
    const popup = popupOf.get(page.path);
    for (const source of page.sources) {
      const original = `${source}/original.html`;
      const scanHas = scanPair.get(key(page.path, original)) ?? scanReuse.get(key(page.path, original));
      const passage = popup?.passages.find((p) => p.path === original);
      const chromiumHas = popup?.matches.includes(original) ? '#matches' : passage ? `#passages (share ${passage.share ?? '?'})` : undefined;
      if (!scanHas === !chromiumHas) continue;
      disagreements.push({
        row: page.kind,
        copy: page.path,
        original,
        foundBy: scanHas ? 'scan' : 'Chromium',
        scan: scanHas ?? '–',
        chromium: chromiumHas ?? `no link (popup ${popup?.state || 'unread'})`,
      });
    }
  }
  const scanFalse = distinctFalse(scan);
  const chromiumFalse = distinctFalse(chromium);
  return {
    scan: { ...scan, falseLinks: scanFalse.length },
    chromium: { ...chromium, falseLinks: chromiumFalse.length, popupsWithPassages: popups.filter((p) => p.passages.length > 0).length },
    disagreements,
    falseByKinds: { scan: countByKinds(scanFalse, kindOf), chromium: countByKinds(chromiumFalse, kindOf) },
  };
}

/** The table: each row's share found by scan and by Chromium, with the bar's target and whether each side meets it. */
export function printPartialSideBySide(r: PartialSideBySide, { partialPages, variants, popups, examples }: { partialPages: number; variants: number; popups: number; examples: number }): void {
  const pct = (n: number, total: number): string => `${((100 * n) / Math.max(1, total)).toFixed(1)}% (${n}/${total})`;
  const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  console.log(
    `\nPartial copies, in the same run: ${partialPages} pages (${variants} variant${variants === 1 ? '' : 's'} of excerpt-30, stitched and quote per article), ` +
      'visited after the whole copies; "excerpt 60%" is the whole copies\' excerpt.',
  );
  console.log('Found: the copy\'s own popup links its source\'s original, in #matches or #passages (a stitched page counts once per source);');
  console.log('scan: the pair is in `pairs` or `reuse`. False: a link in any popup (a pair in scan) between pages with no article in common');
  console.log('(a quote\'s host article is in common with it).');
  console.log(`${''.padEnd(28)}${'scan: pairs or reuse'.padEnd(22)}${'pairs + reuse'.padEnd(15)}${'Chromium: either list'.padEnd(23)}${'#matches + #passages'.padEnd(22)}target`);
  r.scan.rows.forEach((s, i) => {
    const c = r.chromium.rows[i]!;
    const target = s.target === null ? '(reported)' : `≥ ${s.target * 100}%`.padEnd(7) + `  scan ${verdict(s.either / Math.max(1, s.total) >= s.target)}, Chromium ${verdict(c.either / Math.max(1, c.total) >= s.target)}`;
    console.log(`${s.row.padEnd(28)}${pct(s.either, s.total).padEnd(22)}${`${s.pairs} + ${s.reuse}`.padEnd(15)}${pct(c.either, c.total).padEnd(23)}${`${c.pairs} + ${c.reuse}`.padEnd(22)}${target}`);
  });
  console.log(
    `${'false (different articles)'.padEnd(28)}${String(r.scan.falseLinks).padEnd(22)}${`${r.scan.falsePairs.length} + ${r.scan.falseReuse.length}`.padEnd(15)}` +
      `${String(r.chromium.falseLinks).padEnd(23)}${`${r.chromium.falsePairs.length} + ${r.chromium.falseReuse.length}`.padEnd(22)}` +
      `${'0'.padEnd(7)}  scan ${verdict(r.scan.falseLinks === 0)}, Chromium ${verdict(r.chromium.falseLinks === 0)}`,
  );
  console.log(`Bar (excerpt 60% ≥ 95%, excerpt-30 ≥ 90%, stitched ≥ 90%, quote ≥ 80%, 0 false links): scan ${verdict(r.scan.met)}, Chromium ${verdict(r.chromium.met)}.`);
  const kinds = (counts: [string, number][]): string => (counts.length ? counts.map(([k, n]) => `${k} ${n}`).join(', ') : 'none');
  if (r.scan.falseLinks || r.chromium.falseLinks) {
    console.log(`False links by the kinds of their pages: scan: ${kinds(r.falseByKinds.scan)}; Chromium: ${kinds(r.falseByKinds.chromium)}.`);
    const show = (label: string, links: readonly { a: string; b: string }[]): void => {
      for (const p of links.slice(0, examples)) console.log(`  ${label}: ${p.a} ~ ${p.b}`);
    };
    show('scan false pair', r.scan.falsePairs);
    show('scan false reuse', r.scan.falseReuse);
    show('Chromium false #matches link', r.chromium.falsePairs);
    show('Chromium false #passages link', r.chromium.falseReuse);
  }
  if (r.chromium.popupsWithPassages === 0) console.log(`No popup of the ${popups} listed a page in #passages (li[data-share] with a link).`);
  else console.log(`${r.chromium.popupsWithPassages} of the ${popups} popups listed pages in #passages.`);
  if (r.disagreements.length) {
    const byRow = BAR_ROWS.map((row) => {
      const d = r.disagreements.filter((x) => x.row === row);
      return `${row} ${d.filter((x) => x.foundBy === 'scan').length} / ${d.filter((x) => x.foundBy === 'Chromium').length}`;
    });
    console.log(`Partial copies found by one side only (scan only / Chromium only): ${byRow.join(', ')}`);
    for (const d of r.disagreements.slice(0, examples)) {
      console.log(`  ${d.row.padEnd(12)}${`${d.copy} ~ ${d.original}`.padEnd(72)} scan: ${d.scan.padEnd(34)} Chromium: ${d.chromium}`);
    }
    if (r.disagreements.length > examples) console.log(`  … and ${r.disagreements.length - examples} more (--json lists them all)`);
  } else {
    console.log('scan and Chromium agree on every partial copy.');
  }
}
