// `npm run bench:scan-scale -- [--documents N] [--seed S] [--dir D] [--keep | --reuse] [--jsonl | --warc | --as-folder] [--on-disk [--memory-limit SIZE]] [--jobs J] [--html-share X] [--write-only]`:
// issue 48's scale benchmark. Writes N synthetic documents with planted copies of every kind
// (bench/scan/scale-data.ts), runs the real `scan` on them, and scores every kind and the false
// pairs of each list against the truth (bench/scan/scale-score.ts), beside the issue's targets,
// with the time, the input's MB/s and the peak memory of scan.
//
// Input: one JSONL file (--jsonl, the default), one gzipped WARC file written by warcio (--warc:
// HTML pages as response records, texts as WET conversion records) or a folder of .txt and .html
// files (--as-folder). scan prints --json, or with --on-disk writes its lists with --out (NDJSON,
// read back a line at a time). The corpus goes to D (default: a new folder in the system's
// temporary folder), removed at the end unless --keep; D then holds the corpus, truth.tsv and
// scan.json (out/ is removed: its lists can be large). --reuse (with --dir) scans the corpus a run
// with the same options kept there (corpus.json says which), and keeps it. --write-only writes the corpus and says how long it took, with the writer's
// peak memory (VmHWM), and runs no scan.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COPY_KINDS, GROUPS, type Group, KIND_GROUP } from './scale-copies';
import { SCALE_OPTIONS, type ScaleFormat, readTruth, writeScaleCorpus } from './scale-data';
import { type KindScore, LISTS, readOutLists, readScanLists, scoreScale } from './scale-score';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TIME = '/usr/bin/time';

const DEFAULT_FORMAT: ScaleFormat = 'jsonl';
const CORPUS_NAME: Record<ScaleFormat, string> = { jsonl: 'docs.jsonl', warc: 'docs.warc.gz', folder: 'docs' };

/** The issue's targets: share of each group's planted copies found. */
const TARGETS: Record<Group, number> = { whole: 0.99, passages: 0.95, rewrites: 0.85 };

interface Args {
  documents: number;
  seed: number;
  dir: string | undefined;
  keep: boolean;
  format: ScaleFormat;
  jobs: number;
  htmlShare: number;
  writeOnly: boolean;
  onDisk: boolean;
  memoryLimit: string | undefined;
  reuse: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { documents: 20_000, seed: 1, dir: undefined, keep: false, format: DEFAULT_FORMAT, jobs: 2, htmlShare: SCALE_OPTIONS.htmlShare, writeOnly: false, onDisk: false, memoryLimit: undefined, reuse: false };
  const integer = (name: string, value: string | undefined, min: number): number => {
    if (value === undefined || !/^\d+$/.test(value.replace(/_/g, '')) || Number(value.replace(/_/g, '')) < min) throw new Error(`${name} needs an integer of at least ${min}: got ${JSON.stringify(value)}`);
    return Number(value.replace(/_/g, ''));
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--documents') args.documents = integer(arg, argv[++i], 20);
    else if (arg === '--seed') args.seed = integer(arg, argv[++i], 0);
    else if (arg === '--jobs') args.jobs = integer(arg, argv[++i], 1);
    else if (arg === '--dir') args.dir = argv[++i];
    else if (arg === '--keep') args.keep = true;
    else if (arg === '--reuse') args.keep = args.reuse = true;
    else if (arg === '--as-folder') args.format = 'folder';
    else if (arg === '--jsonl') args.format = 'jsonl';
    else if (arg === '--warc') args.format = 'warc';
    else if (arg === '--write-only') args.writeOnly = true;
    else if (arg === '--on-disk') args.onDisk = true;
    else if (arg === '--memory-limit') args.memoryLimit = argv[++i];
    else if (arg === '--html-share') {
      args.htmlShare = Number(argv[++i]);
      if (!(args.htmlShare >= 0 && args.htmlShare <= 1)) throw new Error(`--html-share needs a number from 0 to 1: got ${argv[i]}`);
    } else throw new Error(`unknown option ${JSON.stringify(arg)}`);
  }
  if (args.memoryLimit !== undefined && !args.onDisk) throw new Error('--memory-limit is the limit of --on-disk');
  return args;
}

interface Measured {
  seconds: number;
  /** Peak resident memory in KiB and how it was read. */
  peakKiB: number;
  /** User and system CPU seconds (NaN where /usr/bin/time is absent). */
  cpuSeconds: number;
  how: string;
  status: number | null;
  stderr: string;
}

/** The peak resident memory (VmHWM) of a process and its descendants, each read from /proc, summed. */
function treePeakKiB(pid: number, peaks: Map<number, number>): void {
  const visit = (p: number): void => {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      if (hwm) peaks.set(p, Math.max(peaks.get(p) ?? 0, Number(hwm[1])));
      for (const task of readdirSync(`/proc/${p}/task`)) {
        for (const child of readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) visit(Number(child));
      }
    } catch {
      // the process has ended
    }
  };
  visit(pid);
}

/**
 * Runs scan on `input` with `options`, its standard output into `outFile`: under /usr/bin/time when
 * present (scan is one process, its reading threads and DuckDB inside it, so the %M of that process
 * is all of it); else the VmHWM of the process and its children, read from /proc every 100 ms, summed.
 */
function runScan(input: string, outFile: string, options: readonly string[]): Promise<Measured> {
  const scanArgs = ['--import', 'tsx', join(ROOT, 'bin', 'scan.ts'), input, ...options];
  const withTime = existsSync(TIME);
  const [command, args] = withTime ? [TIME, ['-f', 'peak %M KB, cpu %U %S', process.execPath, ...scanArgs]] : [process.execPath, scanArgs];
  const fd = openSync(outFile, 'w');
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const peaks = new Map<number, number>();
  const poll = withTime ? undefined : setInterval(() => treePeakKiB(child.pid!, peaks), 100);
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (status) => {
      if (poll) clearInterval(poll);
      const seconds = (performance.now() - started) / 1000;
      const timed = /peak (\d+) KB, cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      if (withTime && timed) stderr = stderr.slice(0, timed.index);
      const peakKiB = withTime ? Number(timed?.[1] ?? NaN) : [...peaks.values()].reduce((a, b) => a + b, 0);
      const how = withTime ? `${TIME} %M of the scan process (its threads inside it)` : 'VmHWM of scan and its child processes from /proc every 100 ms, summed';
      done({ seconds, peakKiB, cpuSeconds: Number(timed?.[2] ?? NaN) + Number(timed?.[3] ?? NaN), how, status, stderr });
    });
  });
}

const pct = (found: number, total: number): string => (total === 0 ? '-' : `${((100 * found) / total).toFixed(1)}%`);
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const row = (cells: readonly string[], widths: readonly number[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');

function scoreRow(name: string, group: string, s: KindScore): string {
  return row([name, group, String(s.total), `${pct(s.found, s.total)} (${s.found})`, ...LISTS.map((l) => String(s.byList[l]))], [10, 9, 7, 16, 6, 6, 9]);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const dir = args.dir ? resolve(args.dir) : mkdtempSync(join(tmpdir(), 'doppel-scale-'));
  mkdirSync(dir, { recursive: true });
  const corpus = join(dir, CORPUS_NAME[args.format]);
  const truthFile = join(dir, 'truth.tsv');
  const written = join(dir, 'corpus.json');
  const options = { ...SCALE_OPTIONS, documents: args.documents, seed: args.seed, htmlShare: args.htmlShare };
  // --reuse: a corpus kept by an earlier run with the same options is scanned again, not rewritten
  const reuse = args.reuse && existsSync(written) && readFileSync(written, 'utf8') === JSON.stringify({ format: args.format, options });
  if (args.reuse && !reuse && existsSync(corpus)) throw new Error(`${corpus} was written with other options (${written}): give another --dir`);
  if (!reuse && existsSync(corpus)) throw new Error(`${corpus} exists already: give an empty --dir, or --reuse`);
  const outFile = join(dir, args.onDisk ? 'scan.txt' : 'scan.json');
  const outDir = join(dir, 'out');
  try {
    const writeStarted = performance.now();
    const cpuBefore = process.cpuUsage();
    const truth = reuse ? readTruth(truthFile) : await writeScaleCorpus(corpus, options, args.format, truthFile);
    if (!reuse) writeFileSync(written, JSON.stringify({ format: args.format, options }));
    const writeSeconds = (performance.now() - writeStarted) / 1000;
    const writeCpu = process.cpuUsage(cpuBefore);
    const onDisk = args.format === 'folder' ? '' : ` (${mib(statSync(corpus).size)} on disk)`;
    console.log(`bench:scan-scale: ${truth.documents.toLocaleString('en-US')} documents (seed ${args.seed}), ${truth.html} of them HTML, ${mib(truth.bytes)} of content${onDisk}, ${truth.copies.length} planted copies`);
    if (reuse) console.log(`reused: written by an earlier run with the same options (${written})`);
    else console.log(`written as ${{ folder: 'a folder', jsonl: 'JSONL', warc: 'a gzipped WARC' }[args.format]} in ${writeSeconds.toFixed(1)} s, ${((writeCpu.user + writeCpu.system) / 1e6).toFixed(1)} s of CPU (${Math.round(truth.documents / writeSeconds).toLocaleString('en-US')} documents/s)`);

    if (args.writeOnly) {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
      console.log(`the writer's peak memory: ${hwm ? `${(Number(hwm) / 1024).toFixed(0)} MiB (VmHWM of this process)` : 'unknown (no /proc)'}`);
      return 0;
    }
    const scanOptions = [...(args.onDisk ? ['--on-disk', ...(args.memoryLimit ? ['--memory-limit', args.memoryLimit] : []), '--out', outDir] : ['--json']), '--jobs', String(args.jobs), '--timings'];
    const scan = await runScan(corpus, outFile, scanOptions);
    if (scan.status !== 0) {
      console.log(`scan failed (exit ${scan.status}):\n${scan.stderr.slice(-3000)}`);
      return 1;
    }
    const timingsAt = scan.stderr.indexOf('timings (wall clock');
    const timings = timingsAt >= 0 ? scan.stderr.slice(timingsAt).trimEnd() : '';
    const problems = (timingsAt >= 0 ? scan.stderr.slice(0, timingsAt) : scan.stderr).trim().split('\n').filter(Boolean);
    const inputBytes = args.format === 'folder' ? truth.bytes : statSync(corpus).size;
    console.log(`scan ${CORPUS_NAME[args.format]} ${scanOptions.join(' ').replace(outDir, 'DIR')}: ${scan.seconds.toFixed(1)} s (${scan.cpuSeconds.toFixed(1)} s of CPU; ${(inputBytes / 1e6 / scan.seconds).toFixed(2)} MB/s of input, ${(inputBytes / 1e6 / scan.cpuSeconds).toFixed(2)} a CPU second), peak memory ${(scan.peakKiB / 1024).toFixed(0)} MiB (${scan.how})${problems.length ? `; ${problems.length} lines on stderr, the first: ${problems[0]}` : ''}`);
    if (args.onDisk) console.log(`scan said: ${readFileSync(outFile, 'utf8').trim()}`);
    if (timings) console.log(`scan's ${timings}`);
    console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores`);

    const score = scoreScale(truth, args.onDisk ? readOutLists(outDir) : readScanLists(outFile));
    console.log('');
    console.log(row(['kind', 'group', 'trials', 'found (any list)', 'pairs', 'reuse', 'rewrites'], [10, 9, 7, 16, 6, 6, 9]));
    for (const kind of COPY_KINDS) console.log(scoreRow(kind, KIND_GROUP[kind], score.byKind[kind]));
    console.log('');
    console.log(row(['group', 'target', 'found', 'met'], [10, 8, 24, 4]));
    for (const group of GROUPS) {
      const s = score.byGroup[group];
      console.log(row([group, `≥ ${TARGETS[group] * 100}%`, `${pct(s.found, s.total)} (${s.found}/${s.total})`, s.total > 0 && s.found / s.total >= TARGETS[group] ? 'yes' : 'no'], [10, 8, 24, 4]));
    }
    const falseCount = LISTS.reduce((n, l) => n + score.falsePairs[l].length, 0);
    console.log(row(['false', '0', `${falseCount} (${LISTS.map((l) => `${l} ${score.falsePairs[l].length}`).join(', ')})`, falseCount === 0 ? 'yes' : 'no'], [10, 8, 24, 4]));
    for (const l of LISTS) for (const p of score.falsePairs[l].slice(0, 5)) console.log(`  false in ${l}: ${p.a} / ${p.b}`);
    if (score.unknownNames.length) console.log(`names that are no document: ${score.unknownNames.slice(0, 5).join(', ')}`);
    return 0;
  } finally {
    if (!args.keep) rmSync(args.dir ? corpus : dir, { recursive: true, force: true });
    if (!args.keep && args.dir) for (const f of [truthFile, written, outFile, outDir]) rmSync(f, { recursive: true, force: true });
    else rmSync(outDir, { recursive: true, force: true });
    if (args.keep) console.log(`kept: ${dir} (${CORPUS_NAME[args.format]}, truth.tsv${args.writeOnly ? '' : args.onDisk ? ', scan.txt' : ', scan.json'})`);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:scan-scale: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
