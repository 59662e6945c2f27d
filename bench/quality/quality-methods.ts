// The methods side by side for `npm run bench:quality`: `scan --method M` for every detector of
// lib/scan/registry.ts, run on the same folder of pages, each scored at its default threshold, and
// each one's trade-off curve (recall and false pairs at stricter and looser cut-offs).
//
// Each curve comes from one run at the curve's loosest cut-off, its pairs counted at each point.
// For a nested detector (simhash, nilsimsa: a run finds every pair within its cut-off) that is
// exactly what a run at the point would report, so its default row is read off the same run.
// MinHash's banding depends on the threshold, so its default row is its own run at the default,
// and its curve shows the signatures' verdict with the loosest banding (a stricter banding can
// only miss more).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Detector } from '../../lib/scan/detector';
import { DETECTORS } from '../../lib/scan/registry';
import { type Result, type Score, pct, score } from './quality-score';
import type { QualityPage } from '../data/republish';

/** A pair with its method's measure. */
export interface MeasuredPair {
  a: string;
  b: string;
  measure: number;
}

export interface MethodRow {
  method: Detector;
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
  curves: Map<Detector, CurvePoint[]>;
}

/** Runs `scan DIR --json --method M --threshold T` and returns its pairs with their measure. */
export function scanPairs(root: string, dir: string, method: Detector, threshold: number, extra: string[] = []): { pairs: MeasuredPair[]; seconds: number } {
  const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const started = performance.now();
  const stdout = execFileSync(process.execPath, [tsx, join(root, 'bin', 'scan.ts'), dir, '--json', '--method', method.name, '--threshold', String(threshold), ...extra], {
    maxBuffer: 1024 * 1024 * 1024,
    encoding: 'utf8',
  });
  const seconds = (performance.now() - started) / 1000;
  const report = JSON.parse(stdout) as { pairs: Record<string, string | number>[] };
  return { pairs: report.pairs.map((p) => ({ a: p['a'] as string, b: p['b'] as string, measure: p[method.measure] as number })), seconds };
}

export function compareMethods(root: string, dir: string, pages: readonly QualityPage[]): MethodsComparison {
  const rows: MethodRow[] = [];
  const curves = new Map<Detector, CurvePoint[]>();
  for (const method of DETECTORS) {
    const threshold = method.defaultThreshold;
    const loose = scanPairs(root, dir, method, method.curve[0]!);
    const at = (t: number): MeasuredPair[] => loose.pairs.filter((p) => method.passes(p.measure, t));
    curves.set(method, method.curve.map((t) => ({ threshold: t, result: score(pages, at(t)) })));
    if (method.nested) rows.push({ method, threshold, result: score(pages, at(threshold)), seconds: loose.seconds });
    else {
      const run = scanPairs(root, dir, method, threshold);
      rows.push({ method, threshold, result: score(pages, run.pairs), seconds: run.seconds });
    }
  }
  return { jobs: 'cores', rows, curves };
}

const share = (s: Score): number => s.found / s.total;

/** The bars of the issue that added the methods: minhash ≥ 98% verbatim and ≥ 90% lightly edited, nilsimsa ≥ 95% verbatim, both 0 false pairs. */
export function barsMet(rows: readonly MethodRow[]): { method: string; ok: boolean; says: string }[] {
  const row = (name: string): Result<MeasuredPair> | undefined => rows.find((r) => r.method.name === name)?.result;
  const minhash = row('minhash');
  const nilsimsa = row('nilsimsa');
  const bars: { method: string; ok: boolean; says: string }[] = [];
  if (minhash) {
    bars.push({
      method: 'minhash',
      ok: share(minhash.byGroup['verbatim']!) >= 0.98 && share(minhash.byGroup['lightly edited']!) >= 0.9 && minhash.falsePairs.length === 0,
      says: 'minhash: verbatim ≥ 98%, lightly edited ≥ 90%, 0 false pairs',
    });
  }
  if (nilsimsa) bars.push({ method: 'nilsimsa', ok: share(nilsimsa.byGroup['verbatim']!) >= 0.95 && nilsimsa.falsePairs.length === 0, says: 'nilsimsa: verbatim ≥ 95%, 0 false pairs' });
  return bars;
}

/**
 * Where each method comes first (ties shared), from the rows. Speed counts only for the fastest
 * run: one run each, so a difference of a few percent may be noise, and is not called a win.
 */
export function whereEachWins(rows: readonly MethodRow[]): string[] {
  const criteria: [string, (r: MethodRow) => number, 'high' | 'low'][] = [
    ['verbatim recall', (r) => share(r.result.byGroup['verbatim']!), 'high'],
    ['lightly edited recall', (r) => share(r.result.byGroup['lightly edited']!), 'high'],
    ['excerpt recall', (r) => share(r.result.byGroup['excerpt']!), 'high'],
    ['fewest false pairs', (r) => r.result.falsePairs.length, 'low'],
    ['speed (one run each)', (r) => r.seconds, 'low'],
  ];
  return rows.map((r) => {
    const wins = criteria.filter(([, value, better]) => {
      const values = rows.map(value);
      const best = better === 'high' ? Math.max(...values) : Math.min(...values);
      return value(r) === best;
    });
    const list = wins.map(([name]) => name);
    return `  ${r.method.name}: ${list.length ? `best or tied on ${list.join(', ')}` : 'first on nothing here'}; ${r.method.about}.`;
  });
}

export function printComparison(comparison: MethodsComparison, pageCount: number): void {
  const { rows, curves } = comparison;
  console.log(`\nMethods side by side: \`scan --json --method M\` on the same ${pageCount} pages, each at its default threshold (--jobs: all cores)`);
  const width = 24;
  console.log(`${''.padEnd(34)}${rows.map((r) => `${r.method.name} (${r.method.cutOff(r.threshold)})`.padEnd(width)).join('')}`);
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
  for (const method of DETECTORS) {
    console.log(`  ${method.name}${method.nested ? '' : ' (the verdict with the loosest cut-off\'s candidates)'}`);
    console.log(`    ${'cut-off'.padEnd(22)}${'verbatim'.padEnd(10)}${'edited'.padEnd(10)}${'excerpt'.padEnd(10)}false pairs`);
    for (const { threshold, result } of curves.get(method)!) {
      const mark = threshold === method.defaultThreshold ? '  ← default' : '';
      const p = (s: Score): string => `${((100 * s.found) / s.total).toFixed(1)}%`.padEnd(10);
      console.log(`    ${method.cutOff(threshold).padEnd(22)}${p(result.byGroup['verbatim']!)}${p(result.byGroup['lightly edited']!)}${p(result.byGroup['excerpt']!)}${result.falsePairs.length}${mark}`);
    }
  }
}
