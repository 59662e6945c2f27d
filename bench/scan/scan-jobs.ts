// `npm run bench:scan-jobs [-- --method M] [--rounds N]`: how much faster `scan --jobs 2` is than
// `scan --jobs 1` on the quality benchmark's folder (bench/quality/quality.ts: the real articles of
// Readability's test pages and their republished copies, 1,786 pages), and that both print the
// same output. Runs alternate (1, 2, 1, 2, ...) so a change in the machine's load hits both; the
// ratio is of the fastest run of each.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectorNamed } from '../../lib/scan/registry';
import { writePages } from '../quality/quality-score';
import { CORPUS_DIR, buildQualitySet } from '../data/republish';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const TIME = '/usr/bin/time';

/** One run: its output, wall-clock seconds and, when /usr/bin/time is there, CPU seconds (all threads). */
function runScan(dir: string, method: string, jobs: number): { stdout: string; seconds: number; cpu: number | null } {
  const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const command = [process.execPath, tsx, join(ROOT, 'bin', 'scan.ts'), dir, '--json', '--method', method, '--jobs', String(jobs)];
  const timed = existsSync(TIME);
  const started = performance.now();
  const run = spawnSync(timed ? TIME : command[0]!, timed ? ['-f', 'cpu %U %S', ...command] : command.slice(1), { maxBuffer: 1024 * 1024 * 1024, encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`scan --jobs ${jobs} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const cpuLine = timed ? /cpu ([\d.]+) ([\d.]+)\s*$/.exec(run.stderr) : null;
  return { stdout: run.stdout, seconds, cpu: cpuLine ? Number(cpuLine[1]) + Number(cpuLine[2]) : null };
}

function main(): void {
  if (!existsSync(CORPUS_DIR)) {
    console.log(`bench:scan-jobs skipped: the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`);
    return;
  }
  const method = detectorNamed(option('--method', 'simhash')).name;
  const rounds = Number(option('--rounds', '2'));
  const set = buildQualitySet();
  const dir = mkdtempSync(join(tmpdir(), 'doppel-jobs-'));
  try {
    writePages(set.pages, dir);
    console.log(`scan --jobs 1 vs --jobs 2: ${set.pages.length} pages, --method ${method}, ${rounds} rounds, ${availableParallelism()} cores`);
    console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const times: Record<1 | 2, number[]> = { 1: [], 2: [] };
    const cpus: Record<1 | 2, number[]> = { 1: [], 2: [] };
    let reference: string | undefined;
    let identical = true;
    for (let round = 0; round < rounds; round++) {
      for (const jobs of [1, 2] as const) {
        const { stdout, seconds, cpu } = runScan(dir, method, jobs);
        reference ??= stdout;
        if (stdout !== reference) identical = false;
        times[jobs].push(seconds);
        if (cpu !== null) cpus[jobs].push(cpu);
        console.log(`  round ${round + 1}, --jobs ${jobs}: ${seconds.toFixed(1)} s${cpu === null ? '' : ` (${cpu.toFixed(1)} CPU s)`}`);
      }
    }
    const best1 = Math.min(...times[1]);
    const best2 = Math.min(...times[2]);
    console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`fastest --jobs 1: ${best1.toFixed(1)} s; fastest --jobs 2: ${best2.toFixed(1)} s; ratio ${(best1 / best2).toFixed(2)}× (target ≥ 1.6×)`);
    if (cpus[1].length && cpus[2].length) {
      const cpu1 = Math.min(...cpus[1]);
      const cpu2 = Math.min(...cpus[2]);
      console.log(`least CPU time: --jobs 1 ${cpu1.toFixed(1)} s, --jobs 2 ${cpu2.toFixed(1)} s (${((100 * (cpu2 - cpu1)) / cpu1).toFixed(0)}% more work on two threads)`);
    }
    console.log(identical ? 'output identical in every run' : 'OUTPUT DIFFERS between runs');
    if (!identical) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
