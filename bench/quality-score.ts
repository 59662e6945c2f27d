// Scoring shared by the quality benchmarks (bench/quality.ts: `scan`; bench/browser-quality.ts:
// the extension in Chromium): which copies were paired with their original, and which pairs join
// different articles.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScanReport } from '../lib/scan';
import { COPY_KINDS, type CopyKind, KIND_GROUP, type QualityPage } from './republish';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface Score {
  found: number;
  total: number;
}
export interface Result<P extends { a: string; b: string } = { a: string; b: string; distance: number }> {
  byKind: Record<CopyKind, Score>;
  byGroup: Record<string, Score>;
  falsePairs: P[];
}

export function score<P extends { a: string; b: string }>(pages: readonly QualityPage[], pairs: readonly P[]): Result<P> {
  const article = new Map(pages.map((p) => [p.path, p]));
  const paired = new Set(pairs.map(({ a, b }) => `${a}\n${b}`));
  const byKind = Object.fromEntries(COPY_KINDS.map((k) => [k, { found: 0, total: 0 }])) as Record<CopyKind, Score>;
  const byGroup: Record<string, Score> = {};
  for (const page of pages) {
    if (page.kind === 'original') continue;
    const original = `${page.article}/original.html`;
    const found = paired.has(`${original}\n${page.path}`) || paired.has(`${page.path}\n${original}`);
    for (const s of [byKind[page.kind], (byGroup[KIND_GROUP[page.kind]] ??= { found: 0, total: 0 })]) {
      s.total++;
      if (found) s.found++;
    }
  }
  const falsePairs = pairs.filter(({ a, b }) => article.get(a)!.article !== article.get(b)!.article);
  return { byKind, byGroup, falsePairs };
}

export const pct = ({ found, total }: Score): string => `${((100 * found) / total).toFixed(1)}% (${found}/${total})`;

/** Writes every page as an HTML file under dir, at its relative path. */
export function writePages(pages: readonly QualityPage[], dir: string): void {
  for (const page of pages) {
    mkdirSync(join(dir, dirname(page.path)), { recursive: true });
    writeFileSync(join(dir, page.path), page.html);
  }
}

/** Runs the real `scan` command on dir with --json. */
export function runScan(dir: string, k: number): ScanReport {
  const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const stdout = execFileSync(process.execPath, [tsx, join(ROOT, 'bin', 'scan.ts'), dir, '--k', String(k), '--json'], {
    maxBuffer: 256 * 1024 * 1024,
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as ScanReport;
}
