// The methods side by side for `npm run bench:quality`: `scan --method simhash|minhash|nilsimsa`
// run on the same folder of pages, each scored at its default threshold, and each method's
// trade-off curve (recall and false pairs at stricter and looser cut-offs).
//
// Each curve comes from one run at the curve's loosest cut-off, its pairs counted at each point.
// For simhash and nilsimsa that is exactly what a run at the point would report (both find every
// pair within the cut-off), so their default row is read off the same run. MinHash's banding
// depends on the threshold, so its default row is its own run at the default, and its curve shows
// the signatures' verdict with the loosest banding (a stricter banding can only miss more).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_THRESHOLDS, SCAN_METHODS, type ScanMethod } from '../lib/scan/methods';
import { type Result, type Score, pct, score } from './quality-score';
import type { QualityPage } from './republish';

/** A pair with its method's measure. */
export interface MeasuredPair {
  a: string;
  b: string;
  measure: number;
}

interface Curve {
  /** Cut-offs, loosest first. */
  points: number[];
  /** Whether a pair at measure m passes cut-off t. */
  passes: (m: number, t: number) => boolean;
  label: (t: number) => string;
}

const CURVES: Record<ScanMethod, Curve> = {
  simhash: { points: [8, 7, 6, 5, 4, 3, 2, 1, 0], passes: (m, t) => m <= t, label: (t) => `k ≤ ${t}` },
  minhash: { points: [0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9], passes: (m, t) => m >= t, label: (t) => `J ≥ ${t}` },
  nilsimsa: { points: [90, 94, 96, 97, 98, 99, 100, 102, 104, 106, 108, 110, 115, 120], passes: (m, t) => m >= t, label: (t) => `score ≥ ${t}` },
};

export interface MethodRow {
  method: ScanMethod;
  threshold: number;
  result: Result<MeasuredPair>;
  /** Wall-clock seconds of the `scan` run the row comes from. */
  seconds: number;
}

export interface CurvePoint {
  threshold: number;
  result: Result<MeasuredPair>;
}

export interface MethodsComparison {
  jobs: number | 'cores';
  rows: MethodRow[];
  curves: Record<ScanMethod, CurvePoint[]>;
}

/** Runs `scan DIR --json --method M --threshold T` and returns its pairs with their measure. */
export function scanPairs(root: string, dir: string, method: ScanMethod, threshold: number, extra: string[] = []): { pairs: MeasuredPair[]; seconds: number } {
  const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const started = performance.now();
  const stdout = execFileSync(process.execPath, [tsx, join(root, 'bin', 'scan.ts'), dir, '--json', '--method', method, '--threshold', String(threshold), ...extra], {
    maxBuffer: 1024 * 1024 * 1024,
    encoding: 'utf8',
  });
  const seconds = (performance.now() - started) / 1000;
  const report = JSON.parse(stdout) as { pairs: Record<string, string | number>[] };
  const field = method === 'simhash' ? 'distance' : method === 'minhash' ? 'jaccard' : 'score';
  return { pairs: report.pairs.map((p) => ({ a: p['a'] as string, b: p['b'] as string, measure: p[field] as number })), seconds };
}

export function compareMethods(root: string, dir: string, pages: readonly QualityPage[]): MethodsComparison {
  const rows: MethodRow[] = [];
  const curves = {} as Record<ScanMethod, CurvePoint[]>;
  for (const method of SCAN_METHODS) {
    const curve = CURVES[method];
    const threshold = DEFAULT_THRESHOLDS[method];
    const loose = scanPairs(root, dir, method, curve.points[0]!);
    const at = (t: number): MeasuredPair[] => loose.pairs.filter((p) => curve.passes(p.measure, t));
    curves[method] = curve.points.map((t) => ({ threshold: t, result: score(pages, at(t)) }));
    if (method === 'minhash') {
      const run = scanPairs(root, dir, method, threshold);
      rows.push({ method, threshold, result: score(pages, run.pairs), seconds: run.seconds });
    } else rows.push({ method, threshold, result: score(pages, at(threshold)), seconds: loose.seconds });
  }
  return { jobs: 'cores', rows, curves };
}

const share = (s: Score): number => s.found / s.total;

/** The issue's bars: minhash ≥ 98% verbatim and ≥ 90% lightly edited, nilsimsa ≥ 95% verbatim, both 0 false pairs. */
export function barsMet(rows: readonly MethodRow[]): { method: ScanMethod; ok: boolean; says: string }[] {
  const row = (m: ScanMethod): MethodRow => rows.find((r) => r.method === m)!;
  const minhash = row('minhash').result;
  const nilsimsa = row('nilsimsa').result;
  return [
    {
      method: 'minhash',
      ok: share(minhash.byGroup['verbatim']!) >= 0.98 && share(minhash.byGroup['lightly edited']!) >= 0.9 && minhash.falsePairs.length === 0,
      says: 'minhash: verbatim ≥ 98%, lightly edited ≥ 90%, 0 false pairs',
    },
    { method: 'nilsimsa', ok: share(nilsimsa.byGroup['verbatim']!) >= 0.95 && nilsimsa.falsePairs.length === 0, says: 'nilsimsa: verbatim ≥ 95%, 0 false pairs' },
  ];
}

const thresholdLabel = (method: ScanMethod, t: number): string => CURVES[method].label(t);

/** Where each method comes first (ties shared), from the rows. */
export function whereEachWins(rows: readonly MethodRow[]): string[] {
  const criteria: [string, (r: MethodRow) => number, 'high' | 'low'][] = [
    ['verbatim recall', (r) => share(r.result.byGroup['verbatim']!), 'high'],
    ['lightly edited recall', (r) => share(r.result.byGroup['lightly edited']!), 'high'],
    ['excerpt recall', (r) => share(r.result.byGroup['excerpt']!), 'high'],
    ['fewest false pairs', (r) => r.result.falsePairs.length, 'low'],
  ];
  const facts: Record<ScanMethod, string> = {
    simhash: '8 bytes a page and an exact index (permuted-block tables) instead of comparing every pair; the extension uses it',
    minhash: '512 bytes a page; LSH banding finds candidates without comparing every pair, and the Jaccard it reports is easy to read',
    nilsimsa: '32 bytes a page, but every pair is compared (n²/2), and unrelated long articles score about 48 ± 16, so its margin is thin',
  };
  return rows.map((r) => {
    const wins = criteria.filter(([, value, better]) => {
      const values = rows.map(value);
      const best = better === 'high' ? Math.max(...values) : Math.min(...values);
      return value(r) === best;
    });
    const fastest = Math.min(...rows.map((x) => x.seconds));
    const list = [...wins.map(([name]) => name), ...(r.seconds <= fastest * 1.05 ? ['speed'] : [])];
    return `  ${r.method}: ${list.length ? `best or tied on ${list.join(', ')}` : 'first on nothing here'}; ${facts[r.method]}.`;
  });
}

export function printComparison(comparison: MethodsComparison, pageCount: number): void {
  const { rows, curves } = comparison;
  console.log(`\nMethods side by side: \`scan --json --method M\` on the same ${pageCount} pages, each at its default threshold (--jobs: all cores)`);
  const width = 24;
  console.log(`${''.padEnd(34)}${rows.map((r) => `${r.method} (${thresholdLabel(r.method, r.threshold)})`.padEnd(width)).join('')}`);
  const lines: [string, (r: MethodRow) => string][] = [
    ['verbatim copies found', (r) => pct(r.result.byGroup['verbatim']!)],
    ['lightly edited copies found', (r) => pct(r.result.byGroup['lightly edited']!)],
    ['excerpts found', (r) => pct(r.result.byGroup['excerpt']!)],
    ['false pairs', (r) => String(r.result.falsePairs.length)],
    ['seconds (one scan run)', (r) => r.seconds.toFixed(1)],
  ];
  for (const [label, cell] of lines) console.log(`${label.padEnd(34)}${rows.map((r) => cell(r).padEnd(width)).join('')}`);
  console.log('\nWhere each wins:');
  for (const line of whereEachWins(rows)) console.log(line);
  console.log('\nBars:');
  for (const bar of barsMet(rows)) console.log(`  ${bar.says}: ${bar.ok ? 'met' : 'NOT met'}`);

  console.log('\nTrade-off curves (one run at the loosest cut-off, its pairs counted at each):');
  for (const method of SCAN_METHODS) {
    console.log(`  ${method}${method === 'minhash' ? ' (the signatures\' verdict with the loosest banding)' : ''}`);
    console.log(`    ${'cut-off'.padEnd(14)}${'verbatim'.padEnd(10)}${'edited'.padEnd(10)}${'excerpt'.padEnd(10)}false pairs`);
    for (const { threshold, result } of curves[method]) {
      const mark = threshold === rows.find((r) => r.method === method)!.threshold ? '  ← default' : '';
      const p = (s: Score): string => `${((100 * s.found) / s.total).toFixed(1)}%`.padEnd(10);
      console.log(`    ${thresholdLabel(method, threshold).padEnd(14)}${p(result.byGroup['verbatim']!)}${p(result.byGroup['lightly edited']!)}${p(result.byGroup['excerpt']!)}${result.falsePairs.length}${mark}`);
    }
  }
}
