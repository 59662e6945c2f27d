// `npm run scan -- [PATH...] [--method M] [--threshold T] [--jobs N] [--json | --ndjson] [--explain]`:
// finds near-duplicate pages among the documents of the folders and files given (default: the
// repo's samples/ folder): .html, .htm and .txt files, WARC and WET records, JSONL lines
// (bin/scan-sources.ts), by one of the detectors of lib/scan/registry.ts (simhash by default), and
// the pages that share passages.
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FingerprintedDocument, MAX_K } from '../lib/scan/scan';
import { type Detector, type DetectorCode, type DetectorReport, buildDetectorReport, pairMeasure, parseThreshold } from '../lib/scan/detector';
import { COPY_DETECTORS, DEFAULT_DETECTOR, DETECTORS, detectorNamed } from '../lib/scan/registry';
import type { CopyDocument, CopyPair } from '../lib/scan/detector';
import { readFiles } from './scan-jobs';
import { InputError, listInputs } from './scan-sources';
import { INPUTS_HELP, listedOf } from './scan-inputs';
import { runCompare } from './scan-compare';
import { type OriginalOf, type ScanCluster, originalWords, withOriginals } from '../lib/scan/original';

const USAGE_LINE = `usage: npm run scan -- [PATH...] [--method ${DETECTORS.map((d) => d.name).join('|')}] [--threshold T] [--jobs N] [--json|--ndjson] [--explain], or npm run scan -- --compare A B`;

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
  --explain       print how the method decides (for minhash, the LSH S-curve) and stop
  --timings       say on stderr where the time went: listing, reading and fingerprinting, each
                  list's pairs, the output
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
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { inputs: [SAMPLES_DIR], method: DEFAULT_DETECTOR, threshold: undefined, jobs: availableParallelism(), json: false, ndjson: false, explain: false, help: false, timings: false };
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

/** A one-line progress bar on a TTY, redrawn in place and cleared at the end. */
class ProgressBar {
  private lastDraw = 0;
  constructor(private readonly stream: NodeJS.WriteStream, private readonly total: number) {}

  update(done: number, path: string): void {
    const now = Date.now();
    if (done < this.total && now - this.lastDraw < 50) return;
    this.lastDraw = now;
    const columns = this.stream.columns || 80;
    const width = 24;
    const filled = Math.round((done / this.total) * width);
    const head = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${this.total} `;
    const room = columns - head.length - 1;
    const tail = room > 4 ? truncate(path, room) : '';
    this.stream.write(`\r${head}${tail}\x1b[K`);
  }

  clear(): void {
    this.stream.write('\r\x1b[K');
  }
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
  timings.lap('list the files');
  for (const p of listing.problems) process.stderr.write(`${p.path}: ${p.reason}\n`);
  // a folder of pages: a list, as always; with containers, a stream of their documents
  const { files, count } = listedOf(listing.files, (line) => process.stderr.write(`${line}\n`));

  const bar = process.stderr.isTTY && Array.isArray(files) && files.length > 20 ? new ProgressBar(process.stderr, files.length) : null;
  const fingerprinted: FingerprintedDocument[] = [];
  const codes: (DetectorCode | null)[] = [];
  const copyDetectors = COPY_DETECTORS.filter((d) => !args.ndjson || d.streams);
  const copyDocuments: CopyDocument[][] = copyDetectors.map(() => []);
  const writeLine = (value: unknown): void => {
    process.stdout.write(JSON.stringify(value) + '\n');
  };
  if (args.ndjson) writeLine({ method: args.method.name, threshold });
  const readBy = await readFiles(files, args.method.name, args.jobs, (index, file, result) => {
    if (result.ok) {
      const { document } = result.fingerprinted;
      copyDetectors.forEach((d, i) => {
        const code = result.copies[d.name] ?? null;
        copyDocuments[i]!.push({ path: document.path, code });
        const note = document.simhash === null ? undefined : d.noteOf?.(code);
        if (note !== undefined && d.noteKey !== undefined) Object.assign(document, { [d.noteKey]: note });
      });
      if (args.ndjson) {
        writeLine({ document });
        // Streamed: keep only what pairing needs, not the title.
        // kept to the end: what the originals need, not the title
        const { path, simhash, words, url, address, published, source, sourceBy } = document;
        fingerprinted.push({ document: { path, title: '', simhash, words, url, address, published, source, sourceBy }, fingerprints: result.fingerprinted.fingerprints });
      } else fingerprinted.push(result.fingerprinted);
      codes.push(result.code);
    } else {
      bar?.clear();
      process.stderr.write(`${file.path}: ${result.reason}\n`);
    }
    bar?.update(index + 1, file.path);
  }, { copies: copyDetectors.map((d) => d.name) });
  bar?.clear();
  const threads = readBy.length > 1 ? `: ${readBy.join(' + ')} files, the main thread's first` : '';
  timings.lap(`read and fingerprint ${plural(count(), Array.isArray(files) ? 'file' : 'document')} (${plural(Math.min(args.jobs, Math.max(1, count())), 'job')}${threads})`);

  const report = buildDetectorReport(args.method, fingerprinted, codes, threshold);
  timings.lap(`${args.method.name} pairs`);
  // each pair's and cluster's original, by what the pages say (lib/scan/original.ts)
  const originals = withOriginals(report.documents);
  if (args.ndjson) {
    for (const pair of report.pairs) writeLine({ pair: originals.pair(pair) });
    for (const cluster of report.clusters) writeLine({ cluster: originals.cluster(cluster) });
  }
  // each copy detector's list, without the pairs listed before it (near-duplicates by any method first)
  const reported = new Set<string>();
  const markReported = (pairs: readonly { a: string; b: string }[]): void => {
    for (const { a, b } of pairs) reported.add(`${a}\n${b}`).add(`${b}\n${a}`);
  };
  markReported(report.pairs);
  const lists: [string, CopyPair[]][] = [];
  for (const [i, detector] of copyDetectors.entries()) {
    const pairs = (await detector.find(copyDocuments[i]!, (a, b) => reported.has(`${a}\n${b}`))).map(originals.pair);
    timings.lap(`${detector.name} pairs`);
    markReported(pairs);
    lists.push([detector.key, pairs]);
    if (args.ndjson) for (const pair of pairs) writeLine({ [detector.entry]: pair });
  }
  if (args.ndjson) return timings.done(args.timings);
  if (args.json) {
    const clusters: ScanCluster[] = report.clusters.map(originals.cluster);
    const pairs: OriginalOf[] = report.pairs.map(originals.pair);
    process.stdout.write(JSON.stringify({ ...report, pairs, clusters, ...Object.fromEntries(lists) }, null, 2) + '\n');
  } else {
    const numbers = new Map(report.documents.map((d, i) => [d.path, `#${i + 1}`]));
    // The copy detectors' sections go before the summary line, which stays last.
    const tables = formatReport(report, args.method, threshold, process.stdout.isTTY ? process.stdout.columns || 100 : 100, originals);
    const summaryAt = tables.lastIndexOf('\n', tables.length - 2) + 1;
    const sections = copyDetectors.map((d, i) => d.section(lists[i]![1], (path) => numbers.get(path) ?? '') + '\n').join('');
    process.stdout.write(tables.slice(0, summaryAt) + sections + tables.slice(summaryAt));
  }
  return timings.done(args.timings);
}

/** Wall-clock time of each step, for --timings. */
class Timings {
  private readonly started = performance.now();
  private last = this.started;
  private readonly steps: [string, number][] = [];

  lap(step: string): void {
    const now = performance.now();
    this.steps.push([step, now - this.last]);
    this.last = now;
  }

  /** Prints the steps on stderr when asked; the exit status (0). */
  done(print: boolean): number {
    if (!print) return 0;
    this.lap('write the output');
    const total = this.last - this.started;
    const lines = this.steps.map(([step, ms]) => `  ${(ms / 1000).toFixed(2).padStart(8)} s  ${((100 * ms) / total).toFixed(0).padStart(3)}%  ${step}`);
    process.stderr.write(`timings (wall clock, ${(total / 1000).toFixed(2)} s after the arguments were read):\n${lines.join('\n')}\n`);
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
