// `npm run scan -- [PATH...] [--method M] [--threshold T] [--jobs N] [--json | --ndjson] [--explain]`:
// finds near-duplicate pages among the documents of the folders and files given (default: the
// repo's samples/ folder): .html, .htm and .txt files, WARC and WET records, JSONL lines
// (bin/scan-sources.ts), by one of the detectors of lib/scan/registry.ts (simhash by default), and
// the pages that share passages.
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_K } from '../lib/scan/scan';
import { type Detector, type DetectorReport, pairMeasure, parseThreshold } from '../lib/scan/detector';
import { COPY_DETECTORS, DEFAULT_DETECTOR, DETECTORS, detectorNamed } from '../lib/scan/registry';
import { readFiles } from './scan-jobs';
import { InputError, listInputs } from './scan-sources';
import { INPUTS_HELP, listedOf } from './scan-inputs';
import { runCompare } from './scan-compare';
import { estimateInput } from './scan-size';
import { GZIP_RATIO, HTML_TEXT_SHARE, ON_DISK_FROM, type PathChoice, type ScanPath, chooseScanPath } from '../lib/scan/scan-path';
import { MemoryScan, type ScanResult, scanJson } from './scan-lists';
import { OnDiskScan } from './scan-db/scan-on-disk';
import { StreamCutError } from './scan-db/database';
import { ScanState, StateError, diskFullLine } from './scan-db/state';
import { resultLists, writeOutputs } from './scan-db/outputs';
import { writeKeep } from './scan-db/keep';
import { writeFingerprintShards } from './scan-db/shards';
import { ScanProgress } from './scan-progress';
import { originalWords, withOriginals } from '../lib/scan/original';

const USAGE_LINE = `usage: npm run scan -- [PATH...] [--method ${DETECTORS.map((d) => d.name).join('|')}] [--threshold T] [--jobs N] [--json|--ndjson] [--explain] [--on-disk|--in-memory] [--memory-limit SIZE] [--state DIR] [--out DIR] [--keep FILE] [--fingerprints DIR] [--quiet], or npm run scan -- --compare A B`;

/** Each detector's lines of the help text, from the registry. */
const METHOD_HELP = DETECTORS.map((d) =>
  [...d.help, `Default T: ${d.defaultThreshold}.`].map((line, i) => `${' '.repeat(20)}${i === 0 ? d.name.padEnd(10) : ' '.repeat(10)}${line}`).join('\n'),
).join('\n');
const HELP = `${USAGE_LINE}

Finds near-duplicate pages among the documents of the folders and files given.
Each page's article text is fingerprinted; two documents close enough by the chosen method are
reported as a pair, and pairs are joined into clusters.

${INPUTS_HELP}
  --method M      how pages are compared (default ${DEFAULT_DETECTOR.name}):
${METHOD_HELP}
  --threshold T   the method's cut-off (see above)
  --k N           simhash's threshold (the same as --threshold N with simhash)
  --jobs N        read and extract files on N threads (default: the number of cores, here ${availableParallelism()})
  --json          print one JSON object {k | method, threshold, documents, pairs, clusters, reuse, rewrites}
                  (reuse: pairs sharing passages of 30 words or more, not already in pairs;
                  rewrites: pairs that keep the order of their rare words, reworded or translated,
                  in neither list). Every pair names its "original" (a path) and its "evidence"
                  (canonical or credit: the copy names it; published: the dates say), or null
                  where only a reading order could tell; each cluster is {members, original,
                  evidence}. A page's own address is its path's when the path starts with a host
                  (example.com/2024/story.html)
  --ndjson        stream one JSON line per document as it is read, then one per pair, one per
                  cluster and one per rewrite: for folders too big to hold as one JSON value
                  (without reuse, which needs every document's passage fingerprints with a hash
                  of each word)
  --on-disk       keep the fingerprints in a DuckDB database in a temporary folder rather than in
                  memory, and find the pairs by joins in SQL that spill to disk past the memory
                  limit: the same output, in bounded memory, for folders too big to hold
                  (docs/scan-schema.md). Without --on-disk or --in-memory, scan takes this path
                  from ${ON_DISK_FROM.textBytes / 1e6} MB of text expected (HTML counted at ${HTML_TEXT_SHARE * 100}% of its bytes, gzip at
                  ${GZIP_RATIO} times its size) or ${ON_DISK_FROM.files.toLocaleString('en-US')} files, and holds everything in memory below that
                  (docs/scan.md); --ndjson streams only in memory, whatever the size
  --in-memory     hold every document's fingerprints in memory, whatever the input's size
  --memory-limit SIZE
                  on disk: how much memory DuckDB may take (default 768MB; e.g. 2GB)
  --fingerprints DIR
                  on disk, and write the fingerprint tables into DIR as TABLE.parquet, one file
                  each: a shard for a join on several machines (docs/scan-schema.md, docs/scale.md)
  --state DIR     on disk, with the database kept in DIR: a run killed, or stopped by a full disk,
                  goes on where it stopped when started again with the same inputs, options and
                  --state DIR, reading no document twice (docs/scan.md)
  --out DIR       write the pairs, reuse, rewrites and clusters into DIR, each as NAME.ndjson (one
                  entry a line, the fields of --json) and NAME.parquet, and print one summary line
  --keep FILE     write the deduplicated set to FILE, one document name a line (as in the output),
                  in input order: every document in no cluster, and one of each cluster: its
                  original, or its first member where the pages do not say. A document with no
                  comparable text is kept (it is not known to be a copy); a file that cannot be
                  read is no document, and is not listed
  --quiet         no progress line (drawn on stderr when it is a terminal: the stage, documents,
                  documents/s, MB/s read and the time left); notes on bad input are still written
  --explain       print how the method decides (for minhash, the LSH S-curve) and stop
  --timings       say on stderr which path the scan took and why, and where the time went:
                  listing, reading and fingerprinting, each list's pairs, the output
  --compare A B   show the passages files A and B share, side by side
  --help          print this help
`;

const SAMPLES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'samples');

class UsageError extends Error {}

interface Args {
  /** The folders and files to read (default: samples/). */
  inputs: string[];
  method: Detector;
  /** The method's cut-off; undefined for its default. */
  threshold: number | undefined;
  jobs: number;
  json: boolean;
  ndjson: boolean;
  explain: boolean;
  help: boolean;
  timings: boolean;
  /** --on-disk or --in-memory; undefined: chosen by the input's size. */
  path: ScanPath | undefined;
  memoryLimit: string | undefined;
  out: string | undefined;
  keep: string | undefined;
  quiet: boolean;
  state: string | undefined;
  fingerprints: string | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { inputs: [SAMPLES_DIR], method: DEFAULT_DETECTOR, threshold: undefined, jobs: availableParallelism(), json: false, ndjson: false, explain: false, help: false, timings: false, path: undefined, memoryLimit: undefined, out: undefined, keep: undefined, quiet: false, state: undefined, fingerprints: undefined };
  const inputs: string[] = [];
  let k: string | undefined;
  let threshold: string | undefined;
  let onlyPositionals = false;
  const valueOf = (name: string, arg: string, i: number): [string, number] => {
    if (arg.startsWith(`${name}=`)) return [arg.slice(name.length + 1), i];
    const value = argv[i + 1];
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    return [value, i + 1];
  };
  const is = (arg: string, name: string): boolean => arg === name || arg.startsWith(`${name}=`);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (onlyPositionals || !arg.startsWith('-') || arg === '-') {
      inputs.push(arg);
    } else if (arg === '--') onlyPositionals = true;
    else if (arg === '--json') args.json = true;
    else if (arg === '--ndjson') args.ndjson = true;
    else if (arg === '--explain') args.explain = true;
    else if (arg === '--timings') args.timings = true;
    else if (arg === '--on-disk' || arg === '--in-memory') {
      const path = arg === '--on-disk' ? 'disk' : 'memory';
      if (args.path !== undefined && args.path !== path) throw new UsageError('--on-disk and --in-memory: choose one');
      args.path = path;
    }
    else if (is(arg, '--memory-limit')) [args.memoryLimit, i] = valueOf('--memory-limit', arg, i);
    else if (is(arg, '--out')) [args.out, i] = valueOf('--out', arg, i);
    else if (is(arg, '--keep')) [args.keep, i] = valueOf('--keep', arg, i);
    else if (arg === '--quiet' || arg === '-q') args.quiet = true;
    else if (is(arg, '--state')) [args.state, i] = valueOf('--state', arg, i);
    else if (is(arg, '--fingerprints')) [args.fingerprints, i] = valueOf('--fingerprints', arg, i);
    else if (arg === '--help' || arg === '-h') args.help = true;
    else if (arg === '-k' || is(arg, '--k')) [k, i] = valueOf('--k', arg, i);
    else if (is(arg, '--threshold')) [threshold, i] = valueOf('--threshold', arg, i);
    else if (is(arg, '--method')) {
      let value: string;
      [value, i] = valueOf('--method', arg, i);
      try {
        args.method = detectorNamed(value);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    } else if (is(arg, '--jobs') || arg === '-j') {
      let value: string;
      [value, i] = valueOf('--jobs', arg === '-j' ? '--jobs' : arg, i);
      if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) throw new UsageError(`--jobs must be an integer from 1 to 256: got ${JSON.stringify(value)}`);
      args.jobs = Number(value);
    } else throw new UsageError(`unknown option ${JSON.stringify(arg)}`);
  }
  if (inputs.length > 0) args.inputs = inputs;
  if (args.json && args.ndjson) throw new UsageError('--json and --ndjson: choose one');
  if (args.out !== undefined && (args.json || args.ndjson)) throw new UsageError('--out writes the lists as files: without --json or --ndjson');
  if (args.state !== undefined && args.ndjson) throw new UsageError('--state does not stream --ndjson: --out DIR writes each list as NDJSON');
  if (args.state !== undefined && args.path === 'memory') throw new UsageError('--state keeps the on-disk database: not with --in-memory');
  if (args.state !== undefined) args.path = 'disk';
  if (args.fingerprints !== undefined && (args.path === 'memory' || args.ndjson)) throw new UsageError('--fingerprints writes the on-disk tables: not with --in-memory or --ndjson');
  if (args.fingerprints !== undefined) args.path = 'disk';
  if (args.path === 'disk' && args.ndjson) throw new UsageError('--on-disk does not stream --ndjson: --out DIR writes each list as NDJSON');
  if (args.memoryLimit !== undefined && (args.path === 'memory' || args.ndjson)) throw new UsageError('--memory-limit is the limit of the on-disk path: not with --in-memory or --ndjson');
  if (k !== undefined) {
    if (args.method.name !== 'simhash') throw new UsageError(`--k is simhash's threshold: with --method ${args.method.name} use --threshold`);
    if (threshold !== undefined) throw new UsageError('--k and --threshold: give one');
    if (!/^\d+$/.test(k) || Number(k) > MAX_K) throw new UsageError(`--k must be an integer from 0 to ${MAX_K}: got ${JSON.stringify(k)}`);
    args.threshold = Number(k);
  }
  if (threshold !== undefined) {
    try {
      args.threshold = parseThreshold(args.method, threshold);
    } catch (error) {
      throw new UsageError(`--threshold: ${(error as Error).message}`);
    }
  }
  return args;
}

// ---------- Output ----------

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function summaryLine(report: DetectorReport, detector: Detector, threshold: number): string {
  const fingerprinted = report.documents.filter((d) => d.simhash !== null).length;
  return [
    plural(report.documents.length, 'document'),
    `${fingerprinted} fingerprinted`,
    `${plural(report.pairs.length, 'pair')} ${detector.cutOff(threshold)}`,
    plural(report.clusters.length, 'cluster'),
  ].join(', ');
}

function truncate(text: string, max: number): string {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  if (chars.length <= max) return chars.join('');
  return chars.slice(0, Math.max(1, max - 1)).join('').trimEnd() + '…';
}

function formatReport(report: DetectorReport, detector: Detector, threshold: number, columns = 100, originals = withOriginals(report.documents)): string {
  const out: string[] = [];
  const { documents, pairs, clusters } = report;
  const pathWidth = Math.max(4, ...documents.map((d) => d.path.length));
  const wordsWidth = Math.max(5, ...documents.map((d) => String(d.words).length));
  const titleWidth = Math.max(20, columns - (2 + 16 + 2 + wordsWidth + 2 + pathWidth + 2));
  const indexOf = new Map(documents.map((d, i) => [d.path, i + 1]));
  const numberWidth = String(documents.length).length;
  const num = (path: string): string => `#${String(indexOf.get(path)).padStart(numberWidth)}`;

  out.push(`Documents (${documents.length})`);
  if (documents.length) {
    out.push(`  ${' '.repeat(numberWidth + 1)}  ${'simhash'.padEnd(16)}  ${'words'.padStart(wordsWidth)}  ${'path'.padEnd(pathWidth)}  title`);
  }
  for (const d of documents) {
    const row = `  ${num(d.path)}  ${(d.simhash ?? '-').padEnd(16)}  ${String(d.words).padStart(wordsWidth)}  ${d.path.padEnd(pathWidth)}  ${truncate(d.title, titleWidth)}`;
    out.push(row.trimEnd());
    if (d.note) out.push(`  ${' '.repeat(numberWidth + 1)}  ${' '.repeat(16)}  ${' '.repeat(wordsWidth)}  note: ${d.note}`);
    if (d.rewriteNote) out.push(`  ${' '.repeat(numberWidth + 1)}  ${' '.repeat(16)}  ${' '.repeat(wordsWidth)}  rare words: ${d.rewriteNote}`);
  }

  out.push('', `Pairs ${detector.cutOff(threshold)} (${pairs.length})`);
  if (pairs.length) out.push(`  ${detector.measure.padStart(8)}  a${' '.repeat(pathWidth + numberWidth + 3)}b`);
  for (const p of pairs) {
    out.push(`  ${pairMeasure(detector, p).padStart(8)}  ${num(p.a)} ${p.a.padEnd(pathWidth)}  ${num(p.b)} ${p.b.padEnd(pathWidth)}  ${originalWords(originals.pair(p), num)}`);
  }

  out.push('', `Clusters (${clusters.length})`);
  clusters.forEach((cluster, i) => {
    const label = `${i + 1}.`;
    const indent = ' '.repeat(String(clusters.length).length + 1);
    cluster.forEach((path, j) => out.push(`  ${(j === 0 ? label : '').padEnd(indent.length)} ${num(path)} ${path}`));
    out.push(`  ${indent} ${originalWords(originals.cluster(cluster), num)}`);
  });

  out.push('', summaryLine(report, detector, threshold));
  return out.join('\n') + '\n';
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--compare')) return runCompare(argv);
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`scan: ${error.message}. ${USAGE_LINE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const threshold = args.threshold ?? args.method.defaultThreshold;
  if (args.explain) {
    process.stdout.write(args.method.explain(threshold));
    return 0;
  }

  const timings = new Timings();
  let listing;
  try {
    listing = await listInputs(args.inputs);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    process.stderr.write(`scan: ${error.message}\n`);
    return 2;
  }
  const choice = chooseScanPath(estimateInput(listing.files), { forced: args.path, ndjson: args.ndjson });
  timings.lap('list the files');
  timings.path = choice;
  for (const p of listing.problems) process.stderr.write(`${p.path}: ${p.reason}\n`);
  if (choice.path === 'memory' && choice.bySize === 'disk') {
    process.stderr.write(`scan: ${choice.reason} (--out DIR writes each list as NDJSON, on disk)\n`);
  }
  // the progress line on a terminal, unless --ndjson streams its output to that terminal too
  const progress = new ScanProgress(process.stderr, listing.files, process.stderr.isTTY === true && !args.quiet && !(args.ndjson && process.stdout.isTTY === true));
  const note = (line: string): void => progress.note(line);
  let state: ScanState | undefined;
  if (args.state !== undefined) {
    try {
      state = await ScanState.open({ dir: args.state, method: args.method, threshold, inputs: args.inputs, files: listing.files, ...(args.memoryLimit === undefined ? {} : { memoryLimit: args.memoryLimit }) });
    } catch (error) {
      const line = error instanceof StateError ? `scan: ${error.message}` : diskFullLine(error, args.state);
      if (line === null) throw error;
      progress.stop();
      process.stderr.write(`${line}\n`);
      return error instanceof StateError ? 2 : 1;
    }
    const resuming = state.resumeLine();
    if (resuming !== null) note(resuming);
  }
  // a folder of pages: a list, as always; with containers, a stream of their documents
  const { files, count } = state?.readDone ? { files: [], count: () => 0 } : listedOf(listing.files, note, state?.resume, { onStream: progress.onStream });

  const copyDetectors = COPY_DETECTORS.filter((d) => !args.ndjson || d.streams);
  const scan = state
    ? state.scan
    : choice.path === 'disk'
    ? await OnDiskScan.open({ method: args.method, threshold, ...(args.memoryLimit === undefined ? {} : { memoryLimit: args.memoryLimit }) })
    : new MemoryScan(args.method, threshold, copyDetectors, args.ndjson);
  try {
    const writeLine = (value: unknown): void => {
      process.stdout.write(JSON.stringify(value) + '\n');
    };
    if (args.ndjson) writeLine({ method: args.method.name, threshold });
    await state?.startReading();
    const readBy = await readFiles(files, args.method.name, args.jobs, (index, file, result) => {
      if (result.ok) {
        const document = scan.add({ ...result, kind: file.kind });
        if (args.ndjson) writeLine({ document });
      } else note(`${file.path}: ${result.reason}`);
      state?.took(file, result.ok);
      progress.handed(index, file);
    }, { copies: scan instanceof OnDiskScan ? OnDiskScan.copies : copyDetectors.map((d) => d.name) });
    state?.readAll();
    const resumed = state?.readLine();
    if (resumed) note(resumed);
    const threads = readBy.length > 1 ? `: ${readBy.join(' + ')} files, the main thread's first` : '';
    timings.lap(`read and fingerprint ${plural(count(), Array.isArray(files) ? 'file' : 'document')} (${plural(Math.min(args.jobs, Math.max(1, count())), 'job')}${threads})`);

    const lap = (step: string): void => timings.lap(step);
    if (scan instanceof OnDiskScan) await scan.join(lap, state?.joinRecord, progress.begin);
    if (args.fingerprints !== undefined && scan instanceof OnDiskScan) {
      progress.begin('writing the fingerprint shards');
      await writeFingerprintShards(scan.db, args.fingerprints);
      lap(`write the fingerprint tables to ${args.fingerprints}`);
    }
    // in memory the lists are found once, for --keep and the output
    const found = scan instanceof MemoryScan ? await scan.result(lap, progress.begin) : null;
    if (args.keep !== undefined) {
      progress.begin('writing the kept names');
      await writeKeep(args.keep, found ?? (scan as OnDiskScan).db);
      lap(`write the kept names to ${args.keep}`);
    }
    if (args.out !== undefined) {
      progress.begin('writing the lists');
      const summary = await writeOut(found ?? (scan as OnDiskScan), args.out, args.method, threshold);
      lap('write the lists');
      progress.stop();
      process.stdout.write(summary);
      return timings.done(args.timings, scan instanceof OnDiskScan ? scan.db : undefined);
    }
    const result = found ?? (await (scan as OnDiskScan).result());
    progress.stop();
    if (args.ndjson) {
      for (const pair of result.pairs) writeLine({ pair });
      for (const cluster of result.clusters) writeLine({ cluster });
      for (const [key, pairs] of result.lists) {
        const entry = copyDetectors.find((d) => d.key === key)!.entry;
        for (const pair of pairs) writeLine({ [entry]: pair });
      }
    } else printResult(result, args.method, threshold, args.json);
    return timings.done(args.timings, scan instanceof OnDiskScan ? scan.db : undefined);
  } catch (error) {
    const full = error instanceof StreamCutError ? `scan: ${error.message}` : args.state === undefined ? null : diskFullLine(error, args.state);
    if (full === null) throw error;
    progress.stop();
    process.stderr.write(`${full}\n`);
    return 1;
  } finally {
    progress.stop();
    if (scan instanceof OnDiskScan) scan.close();
  }
}

/** --out: writes each list's files into `dir` (from the in-memory result, or streamed from the on-disk scan); the summary line. */
async function writeOut(from: ScanResult | OnDiskScan, dir: string, method: Detector, threshold: number): Promise<string> {
  const written = from instanceof OnDiskScan ? await from.writeOutputs(dir) : await writeOutputs(dir, method.measure, resultLists(from));
  const documents = from instanceof OnDiskScan ? from.documents : from.documents.length;
  const count = (name: string): number => written.find((w) => w.name === name)!.entries;
  return `${plural(documents, 'document')}, ${plural(count('pairs'), 'pair')} ${method.cutOff(threshold)}, ${plural(count('clusters'), 'cluster')}, ${plural(count('reuse'), 'pair')} sharing passages, ${plural(count('rewrites'), 'rewrite')}: ${written.map((w) => w.name).join(', ')} in ${dir} (.ndjson and .parquet)\n`;
}

/** Prints the report: `--json`'s object, or the tables with each copy detector's section before the summary line. */
function printResult(result: ScanResult, method: Detector, threshold: number, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(scanJson(result), null, 2) + '\n');
    return;
  }
  const report: DetectorReport = { ...result.head, documents: result.documents, pairs: result.pairs, clusters: result.clusters.map((c) => c.members) };
  const numbers = new Map(result.documents.map((d, i) => [d.path, `#${i + 1}`]));
  const tables = formatReport(report, method, threshold, process.stdout.isTTY ? process.stdout.columns || 100 : 100, withOriginals(result.documents));
  const summaryAt = tables.lastIndexOf('\n', tables.length - 2) + 1;
  const sections = result.lists.map(([key, pairs]) => COPY_DETECTORS.find((d) => d.key === key)!.section(pairs, (path) => numbers.get(path) ?? '') + '\n').join('');
  process.stdout.write(tables.slice(0, summaryAt) + sections + tables.slice(summaryAt));
}

/** Wall-clock time of each step, for --timings. */
class Timings {
  private readonly started = performance.now();
  private last = this.started;
  private readonly steps: [string, number][] = [];
  /** The path the scan took, and why. */
  path: PathChoice | undefined;

  lap(step: string): void {
    const now = performance.now();
    this.steps.push([step, now - this.last]);
    this.last = now;
  }

  /** Prints the steps and the peak memory on stderr when asked (with DuckDB's, on disk); the exit status (0). */
  done(print: boolean, duckdb?: { peakMemory: number; peakSpilled: number }): number {
    if (!print) return 0;
    this.lap('write the output');
    const total = this.last - this.started;
    const lines = this.steps.map(([step, ms]) => `  ${(ms / 1000).toFixed(2).padStart(8)} s  ${((100 * ms) / total).toFixed(0).padStart(3)}%  ${step}`);
    const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
    // the whole process's high-water mark, its worker threads' and DuckDB's memory included (Linux only)
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '')?.[1];
    const memory = [hwm === undefined ? null : `peak memory ${mib(Number(hwm) * 1024)} (VmHWM)`, duckdb === undefined ? null : `DuckDB at most ${mib(duckdb.peakMemory)} held and ${mib(duckdb.peakSpilled)} spilled (sampled after each step)`];
    const tail = memory.filter((m) => m !== null).join('; ');
    const path = this.path === undefined ? '' : `${this.path.path === 'disk' ? 'on disk' : 'in memory'}: ${this.path.reason}\n`;
    process.stderr.write(`${path}timings (wall clock, ${(total / 1000).toFixed(2)} s after the arguments were read):\n${lines.join('\n')}\n${tail === '' ? '' : `${tail}\n`}`);
    return 0;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`scan: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
