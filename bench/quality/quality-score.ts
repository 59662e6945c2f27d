// Scoring shared by the quality benchmarks (bench/quality/quality.ts: `scan`; bench/browser-quality/browser-quality.ts:
// the extension in Chromium): which copies were paired with their original, and which pairs join
// different articles.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScanReport } from '../../lib/scan/scan';
import { COPY_KINDS, type CopyKind, KIND_GROUP, type QualityPage } from '../data/republish';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

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
export function writePages(pages: readonly { path: string; html: string }[], dir: string): void {
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

// ---------- Near-duplicates and passages side by side ----------

/** What a scanned page is made of: articles it must be found with, and others it may pair with. */
export interface PageSources {
  path: string;
  /** Kind name for the report ("original" pages are not scored). */
  kind: string;
  sources: string[];
  related: string[];
}

export interface SideBySide {
  /** Per kind: trials (page, source), found by pairs, by reuse, by either. */
  byKind: Map<string, { total: number; pairs: number; reuse: number; either: number }>;
  falsePairs: { a: string; b: string }[];
  falseReuse: { a: string; b: string }[];
}

/** Scores pairs and reuse: a copy is found with a source when it is paired with that source's original. */
export function scoreSideBySide(pages: readonly PageSources[], pairs: readonly { a: string; b: string }[], reuse: readonly { a: string; b: string }[]): SideBySide {
  const key = (a: string, b: string): string => (a < b ? `${a}\n${b}` : `${b}\n${a}`);
  const paired = new Set(pairs.map(({ a, b }) => key(a, b)));
  const reused = new Set(reuse.map(({ a, b }) => key(a, b)));
  const byKind: SideBySide['byKind'] = new Map();
  for (const page of pages) {
    if (page.kind === 'original') continue;
    const s = byKind.get(page.kind) ?? byKind.set(page.kind, { total: 0, pairs: 0, reuse: 0, either: 0 }).get(page.kind)!;
    for (const source of page.sources) {
      const k = key(`${source}/original.html`, page.path);
      s.total++;
      if (paired.has(k)) s.pairs++;
      if (reused.has(k)) s.reuse++;
      if (paired.has(k) || reused.has(k)) s.either++;
    }
  }
  const articles = new Map(pages.map((p) => [p.path, new Set([...p.sources, ...p.related])]));
  const unrelated = ({ a, b }: { a: string; b: string }): boolean => {
    const x = articles.get(a);
    const y = articles.get(b);
    return !x || !y || ![...x].some((article) => y.has(article));
  };
  return { byKind, falsePairs: pairs.filter(unrelated), falseReuse: reuse.filter(unrelated) };
}
