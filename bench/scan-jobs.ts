// `npm run bench:scan-jobs [-- --method M] [--rounds N]`: how much faster `scan --jobs 2` is than
// `scan --jobs 1` on the quality benchmark's folder (bench/quality.ts: the real articles of
// Readability's test pages and their republished copies, 1,786 pages), and that both print the
// same output. Runs alternate (1, 2, 1, 2, ...) so a change in the machine's load hits both; the
// ratio is of the fastest run of each.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMethod } from '../lib/scan-methods';
import { writePages } from './quality-score';
import { CORPUS_DIR, buildQualitySet } from './republish';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

function runScan(dir: string, method: string, jobs: number): { stdout: string; seconds: number } {
  const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const started = performance.now();
  const stdout = execFileSync(process.execPath, [tsx, join(ROOT, 'bin', 'scan.ts'), dir, '--json', '--method', method, '--jobs', String(jobs)], {
    maxBuffer: 1024 * 1024 * 1024,
    encoding: 'utf8',
  });
  return { stdout, seconds: (performance.now() - started) / 1000 };
}

function main(): void {
  if (!existsSync(CORPUS_DIR)) {
    console.log(`bench:scan-jobs skipped: the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`);
    return;
  }
  const method = parseMethod(option('--method', 'simhash'));
  const rounds = Number(option('--rounds', '2'));
  const set = buildQualitySet();
  const dir = mkdtempSync(join(tmpdir(), 'doppel-jobs-'));
  try {
    writePages(set.pages, dir);
    console.log(`scan --jobs 1 vs --jobs 2: ${set.pages.length} pages, --method ${method}, ${rounds} rounds, ${availableParallelism()} cores`);
    console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const times: Record<1 | 2, number[]> = { 1: [], 2: [] };
    let reference: string | undefined;
    let identical = true;
    for (let round = 0; round < rounds; round++) {
      for (const jobs of [1, 2] as const) {
        const { stdout, seconds } = runScan(dir, method, jobs);
        reference ??= stdout;
        if (stdout !== reference) identical = false;
        times[jobs].push(seconds);
        console.log(`  round ${round + 1}, --jobs ${jobs}: ${seconds.toFixed(1)} s`);
      }
    }
    const best1 = Math.min(...times[1]);
    const best2 = Math.min(...times[2]);
    console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`fastest --jobs 1: ${best1.toFixed(1)} s; fastest --jobs 2: ${best2.toFixed(1)} s; ratio ${(best1 / best2).toFixed(2)}× (target ≥ 1.6×)`);
    console.log(identical ? 'output identical in every run' : 'OUTPUT DIFFERS between runs');
    if (!identical) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
