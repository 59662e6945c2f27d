// bench:quality's partial copies: near-duplicate pairs and shared passages (scan's `reuse`) side
// by side, over every copy kind, with the targets of issue 23.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ScanReuse } from '../../lib/scan/reuse';
import type { ScanReport } from '../../lib/scan/scan';
import { type PageSources, type SideBySide, scoreSideBySide } from './quality-score';
import { KIND_GROUP, PARTIAL_KINDS, type PartialPage, type QualitySet } from '../data/republish';

export function writePartialPages(pages: readonly PartialPage[], dir: string): void {
  for (const page of pages) {
    mkdirSync(join(dir, dirname(page.path)), { recursive: true });
    writeFileSync(join(dir, page.path), page.html);
  }
}

/** Targets at k = 3 (found in pairs or reuse), by report row. */
export const PARTIAL_TARGETS: Readonly<Record<string, number>> = {
  verbatim: 0.98,
  'lightly edited': 0.98,
  'excerpt 60%': 0.95,
  'excerpt-30': 0.9,
  stitched: 0.9,
  quote: 0.8,
};

/** The report's rows, in order: the whole-copy groups, then the partial kinds. */
export const PARTIAL_ROWS: readonly string[] = ['verbatim', 'lightly edited', 'excerpt 60%', ...PARTIAL_KINDS];

export interface PartialResult {
  rows: { row: string; total: number; pairs: number; reuse: number; either: number; target: number | null }[];
  falsePairs: SideBySide['falsePairs'];
  falseReuse: SideBySide['falseReuse'];
  met: boolean;
}

/** Every page of the set and of the partial copies, with the articles it is found with (a whole copy's excerpt is "excerpt 60%"). */
export function partialPageSources(set: QualitySet, partial: readonly PartialPage[]): PageSources[] {
  return [
    ...set.pages.map((p) => ({ path: p.path, kind: p.kind === 'original' ? 'original' : KIND_GROUP[p.kind] === 'excerpt' ? 'excerpt 60%' : KIND_GROUP[p.kind], sources: [p.article], related: [] })),
    ...partial.map((p) => ({ path: p.path, kind: p.kind, sources: p.sources, related: p.related })),
  ];
}

type Links = { pairs: readonly { a: string; b: string }[]; reuse: readonly { a: string; b: string }[] };

/**
 * Scores near-duplicate links (`pairs`) and passage links (`reuse`) over pages: a copy is found
 * with a source when `found` links it with that source's original; false links are looked for in
 * `all` (by default the same links). Met when every row with a target reaches it and no link is false.
 */
export function scorePartialLinks(pages: readonly PageSources[], found: Links, all: Links = found, targets: Readonly<Record<string, number>> = PARTIAL_TARGETS): PartialResult {
  const scored = scoreSideBySide(pages, found.pairs, found.reuse);
  const wrong = all === found ? scored : scoreSideBySide(pages, all.pairs, all.reuse);
  const rows = PARTIAL_ROWS.map((row) => ({ row, ...(scored.byKind.get(row) ?? { total: 0, pairs: 0, reuse: 0, either: 0 }), target: targets[row] ?? null }));
  const met = rows.every((r) => r.target === null || (r.total > 0 && r.either / r.total >= r.target)) && wrong.falsePairs.length + wrong.falseReuse.length === 0;
  return { rows, falsePairs: wrong.falsePairs, falseReuse: wrong.falseReuse, met };
}

export function scorePartial(set: QualitySet, partial: readonly PartialPage[], report: ScanReport & { reuse?: ScanReuse[] }): PartialResult {
  return scorePartialLinks(partialPageSources(set, partial), { pairs: report.pairs, reuse: report.reuse ?? [] });
}

export function printPartial(result: PartialResult, partialPages: number): void {
  const pct = (n: number, total: number): string => `${((100 * n) / Math.max(1, total)).toFixed(1)}% (${n}/${total})`;
  console.log(`\nNear-duplicates and passages side by side (${partialPages} partial copies added to the same scan: 3 variants of each partial kind per article)`);
  console.log(`A copy is found with a source when its original is in \`pairs\` (near-duplicates) or \`reuse\` (shared passages of 30 words or more); a stitched page counts once per source.`);
  console.log(`${''.padEnd(28)}${'pairs'.padEnd(28)}${'reuse'.padEnd(28)}${'pairs or reuse'.padEnd(28)}target`);
  for (const r of result.rows) {
    console.log(`${r.row.padEnd(28)}${pct(r.pairs, r.total).padEnd(28)}${pct(r.reuse, r.total).padEnd(28)}${pct(r.either, r.total).padEnd(28)}${r.target === null ? '' : `≥ ${r.target * 100}%`}`);
  }
  console.log(`${'false (different articles)'.padEnd(28)}${String(result.falsePairs.length).padEnd(28)}${String(result.falseReuse.length).padEnd(28)}${String(result.falsePairs.length + result.falseReuse.length).padEnd(28)}0`);
  for (const p of result.falsePairs.slice(0, 10)) console.log(`  false pair: ${p.a} ~ ${p.b}`);
  for (const p of result.falseReuse.slice(0, 10)) console.log(`  false reuse: ${p.a} ~ ${p.b}`);
  console.log(result.met ? 'Partial-copy targets met.' : 'Partial-copy targets NOT met.');
}
