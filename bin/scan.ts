// `npm run scan -- [DIR] [--k N] [--json]`: finds near-duplicate pages among the .html, .htm and
// .txt files under DIR (default: the repo's samples/ folder).
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';
import {
  DEFAULT_K,
  type FingerprintedDocument,
  MAX_K,
  type ScanKind,
  type ScanReport,
  buildReport,
  fingerprintDocument,
} from '../lib/scan';
import { type ReuseDocument, findScanReuse, formatReuse, siteOfHtml } from '../lib/scan-reuse';
import { runCompare } from './scan-compare';

const USAGE_LINE = `usage: npm run scan -- [DIR] [--k N] [--json]   (N: integer 0..${MAX_K}, default ${DEFAULT_K}), or npm run scan -- --compare A B`;
const HELP = `${USAGE_LINE}

Finds near-duplicate pages among the .html, .htm and .txt files under DIR (recursively).
Each page's article text is fingerprinted with a 64-bit simhash; two documents whose
fingerprints differ in at most N bits are reported as a pair, and pairs are joined into clusters.

  DIR       folder to scan (default: the repo's samples/ folder)
  --k N     maximum Hamming distance of a pair (default ${DEFAULT_K})
  --json    print one JSON object {k, documents, pairs, clusters, reuse} instead of tables
            (reuse: pairs sharing passages of 30 words or more, not already in pairs)
  --compare A B   show the passages files A and B share, side by side
  --help    print this help
`;

const SAMPLES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'samples');

class UsageError extends Error {}

interface Args {
  dir: string;
  k: number;
  json: boolean;
  help: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { dir: SAMPLES_DIR, k: DEFAULT_K, json: false, help: false };
  let dir: string | undefined;
  let onlyPositionals = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (onlyPositionals || !arg.startsWith('-') || arg === '-') {
      if (dir !== undefined) throw new UsageError(`one folder only: got ${JSON.stringify(dir)} and ${JSON.stringify(arg)}`);
      dir = arg;
    } else if (arg === '--') onlyPositionals = true;
    else if (arg === '--json') args.json = true;
    else if (arg === '--help' || arg === '-h') args.help = true;
    else if (arg === '--k' || arg === '-k' || arg.startsWith('--k=')) {
      const value = arg.startsWith('--k=') ? arg.slice(4) : argv[++i];
      if (value === undefined) throw new UsageError('--k needs a value');
      if (!/^\d+$/.test(value) || Number(value) > MAX_K) throw new UsageError(`--k must be an integer from 0 to ${MAX_K}: got ${JSON.stringify(value)}`);
      args.k = Number(value);
    } else throw new UsageError(`unknown option ${JSON.stringify(arg)}`);
  }
  if (dir !== undefined) args.dir = dir;
  return args;
}

function kindOf(name: string): ScanKind | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.html') || lower.endsWith('.htm')) return 'html';
  if (lower.endsWith('.txt')) return 'text';
  return null;
}

interface Listed {
  /** Relative to the scanned folder, with `/`. */
  path: string;
  absolute: string;
  kind: ScanKind;
}

interface Listing {
  files: Listed[];
  problems: { path: string; reason: string }[];
}

function reasonOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'not found';
    case 'ENOTDIR':
      return 'not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    default:
      return e instanceof Error ? e.message : String(error);
  }
}

/** Every .html/.htm/.txt file under root, sorted by relative path; symlinked folders are followed once. */
async function listFiles(root: string): Promise<Listing> {
  const files: Listed[] = [];
  const problems: Listing['problems'] = [];
  const seenDirs = new Set<string>();
  const toRelative = (absolute: string): string => relative(root, absolute).split(sep).join('/');

  const walk = async (dir: string): Promise<void> => {
    let real: string;
    try {
      real = await realpath(dir);
    } catch (error) {
      problems.push({ path: toRelative(dir), reason: reasonOf(error) });
      return;
    }
    if (seenDirs.has(real)) return;
    seenDirs.add(real);
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      problems.push({ path: toRelative(dir) || '.', reason: reasonOf(error) });
      return;
    }
    for (const entry of entries) {
      const absolute = join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const target = await stat(absolute);
          isDir = target.isDirectory();
          isFile = target.isFile();
        } catch (error) {
          // A broken link with a scanned name is a file we were meant to read.
          const code = (error as NodeJS.ErrnoException).code;
          const reason = code === 'ENOENT' ? 'broken symbolic link (its target does not exist)' : reasonOf(error);
          if (kindOf(entry.name)) problems.push({ path: toRelative(absolute), reason });
          continue;
        }
      }
      if (isDir) await walk(absolute);
      else if (isFile) {
        const kind = kindOf(entry.name);
        if (kind) files.push({ path: toRelative(absolute), absolute, kind });
      }
    }
  };
  await walk(root);
  const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  files.sort(byPath);
  problems.sort(byPath);
  return { files, problems };
}

/**
 * UTF-16 with a BOM; else UTF-8 when the bytes are valid UTF-8 (pages saved to disk are often
 * re-encoded as UTF-8 but keep their old <meta charset>: three of Readability's test pages do,
 * and legacy-encoded text with non-ASCII bytes is almost never valid UTF-8); else the encoding an
 * early <meta charset> names; else UTF-8 with U+FFFD for bad bytes.
 */
function decode(bytes: Uint8Array, kind: ScanKind): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // Not UTF-8: look for a declared encoding.
  }
  if (kind === 'html') {
    const head = Buffer.from(bytes.subarray(0, 2048)).toString('latin1');
    const label = /<meta[^>]*?\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
    if (label && !/^(utf-?8|utf-?16.*|unicode.*)$/.test(label)) {
      try {
        return new TextDecoder(label).decode(bytes);
      } catch {
        // Unknown label: fall through to UTF-8.
      }
    }
  }
  return new TextDecoder('utf-8').decode(bytes); // strips a UTF-8 BOM; bad bytes become U+FFFD
}

function parseHtml(html: string): Document {
  return parseHTML(html).document as unknown as Document;
}

// ---------- Output ----------

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function summaryLine(report: ScanReport): string {
  const fingerprinted = report.documents.filter((d) => d.simhash !== null).length;
  return [
    plural(report.documents.length, 'document'),
    `${fingerprinted} fingerprinted`,
    `${plural(report.pairs.length, 'pair')} within ${plural(report.k, 'bit')}`,
    plural(report.clusters.length, 'cluster'),
  ].join(', ');
}

function truncate(text: string, max: number): string {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  if (chars.length <= max) return chars.join('');
  return chars.slice(0, Math.max(1, max - 1)).join('').trimEnd() + '…';
}

function formatReport(report: ScanReport, columns = 100): string {
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
  }

  out.push('', `Pairs within ${plural(report.k, 'bit')} (${pairs.length})`);
  if (pairs.length) out.push(`  distance  a${' '.repeat(pathWidth + numberWidth + 3)}b`);
  for (const p of pairs) {
    out.push(`  ${String(p.distance).padStart(8)}  ${num(p.a)} ${p.a.padEnd(pathWidth)}  ${num(p.b)} ${p.b}`);
  }

  out.push('', `Clusters (${clusters.length})`);
  clusters.forEach((cluster, i) => {
    const label = `${i + 1}.`;
    cluster.forEach((path, j) => out.push(`  ${(j === 0 ? label : '').padEnd(String(clusters.length).length + 1)} ${num(path)} ${path}`));
  });

  out.push('', summaryLine(report));
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

  const root = resolve(args.dir);
  try {
    if (!(await stat(root)).isDirectory()) {
      process.stderr.write(`scan: not a directory: ${args.dir}\n`);
      return 2;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code === 'ENOENT' ? 'no such folder' : code === 'ENOTDIR' ? 'not a directory' : `cannot open folder (${reasonOf(error)})`;
    process.stderr.write(`scan: ${problem}: ${args.dir}\n`);
    return 2;
  }

  const { files, problems } = await listFiles(root);
  for (const p of problems) process.stderr.write(`${p.path}: ${p.reason}\n`);

  const bar = process.stderr.isTTY && files.length > 20 ? new ProgressBar(process.stderr, files.length) : null;
  const fingerprinted: FingerprintedDocument[] = [];
  const forReuse: ReuseDocument[] = [];
  let done = 0;
  for (const file of files) {
    let bytes: Buffer | null = null;
    try {
      bytes = await readFile(file.absolute);
    } catch (error) {
      if (bar) bar.clear();
      process.stderr.write(`${file.path}: ${reasonOf(error)}\n`);
    }
    if (bytes) {
      const content = decode(bytes, file.kind);
      let text: string | null = null;
      fingerprinted.push(fingerprintDocument({ path: file.path, kind: file.kind, content }, parseHtml, {}, (t) => (text = t)));
      forReuse.push({ path: file.path, text, site: file.kind === 'html' ? siteOfHtml(content) : null });
    }
    bar?.update(++done, file.path);
  }
  bar?.clear();

  const report = buildReport(fingerprinted, args.k);
  const reuse = findScanReuse(forReuse, report.pairs);
  if (args.json) process.stdout.write(JSON.stringify({ ...report, reuse }, null, 2) + '\n');
  else {
    const numbers = new Map(report.documents.map((d, i) => [d.path, `#${i + 1}`]));
    // The reuse section goes before the summary line, which stays last.
    const tables = formatReport(report, process.stdout.isTTY ? process.stdout.columns || 100 : 100);
    const summaryAt = tables.lastIndexOf('\n', tables.length - 2) + 1;
    process.stdout.write(tables.slice(0, summaryAt) + formatReuse(reuse, (path) => numbers.get(path) ?? '') + '\n' + tables.slice(summaryAt));
  }
  return 0;
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
