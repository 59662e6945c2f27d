// `npx tsx scripts/scan-on-disk-figures.ts [--files 10000,100000] [--appender]`: the figures of
// docs/scan-schema.md. For each N, writes bench/scan/scan-memory.ts's folder of N small text files (the
// same recipe and seed: 150–300 words a file, every 100th a copy of the one before with a word
// changed), then runs `scan --out` in memory and `scan --on-disk --out` at two memory limits, each
// under /usr/bin/time with --timings (2 jobs), and says whether the two paths' NDJSON files are the
// same bytes. With --appender, first times DuckDB's appender against batched INSERTs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { uint32s } from '../lib/random';
import { writeFolder } from '../bench/scan/scan-memory';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

/** Rows of (hash, doc) through one appender, and through INSERT … VALUES statements of 10,000 rows. */
async function appenderFigures(rows = 2_000_000): Promise<void> {
  const next = uint32s(1);
  const hashes = Uint32Array.from({ length: rows }, () => next());
  const dir = mkdtempSync(join(tmpdir(), 'doppel-append-'));
  const instance = await DuckDBInstance.create(join(dir, 'append.duckdb'), { memory_limit: '1GB' });
  const c = await instance.connect();
  const time = async (label: string, run: () => Promise<void>): Promise<void> => {
    await c.run('CREATE OR REPLACE TABLE t (hash UINTEGER, doc UINTEGER)');
    const started = performance.now();
    await run();
    console.log(`${label}: ${((performance.now() - started) / 1000).toFixed(2)} s for ${rows} rows`);
  };
  await time('appender, a row at a time', async () => {
    const app = await c.createAppender('t');
    for (let i = 0; i < rows; i++) {
      app.appendUInteger(hashes[i]!);
      app.appendUInteger(i >> 4);
      app.endRow();
      if (i % 100_000 === 99_999) app.flushSync();
    }
    app.closeSync();
  });
  await time('INSERT … VALUES of 10,000 rows', async () => {
    for (let from = 0; from < rows; from += 10_000) {
      const values: string[] = [];
      for (let i = from; i < Math.min(rows, from + 10_000); i++) values.push(`(${hashes[i]}, ${i >> 4})`);
      await c.run(`INSERT INTO t VALUES ${values.join(', ')}`);
    }
  });
  c.closeSync();
  instance.closeSync();
  rmSync(dir, { recursive: true, force: true });
}

function scan(folder: string, out: string, extra: string[]): string {
  const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const args = ['-f', 'time: peak %M KB, %e s wall', process.execPath, tsx, join(ROOT, 'bin', 'scan.ts'), folder, '--jobs', '2', '--timings', '--out', out, ...extra];
  const run = spawnSync('/usr/bin/time', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`scan failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const lines = run.stderr.trimEnd().split('\n');
  return [run.stdout.trim(), ...lines.filter((l) => /^(peak memory|time:)/.test(l) || /pairs$|clusters$|read and fingerprint/.test(l))].join('\n    ');
}

async function main(): Promise<void> {
  if (process.argv.includes('--appender')) await appenderFigures();
  for (const files of option('--files', '10000,100000').split(',').map(Number)) {
    const dir = mkdtempSync(join(tmpdir(), 'doppel-on-disk-figures-'));
    try {
      writeFolder(join(dir, 'in'), files);
      console.log(`\n${files} files; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
      const runs: [string, string[]][] = [['in memory', ['--in-memory']], ['on disk, 1GB', ['--on-disk']], ['on disk, 256MB', ['--on-disk', '--memory-limit', '256MB']]];
      for (const [i, [label, extra]] of runs.entries()) console.log(`  ${label}: ${scan(join(dir, 'in'), join(dir, `out${i}`), extra)}`);
      const same = readdirSync(join(dir, 'out0')).filter((f) => f.endsWith('.ndjson')).every((f) => [1, 2].every((i) => readFileSync(join(dir, `out${i}`, f)).equals(readFileSync(join(dir, 'out0', f)))));
      console.log(`  the NDJSON files of the three runs are ${same ? 'the same bytes' : 'DIFFERENT'}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();
