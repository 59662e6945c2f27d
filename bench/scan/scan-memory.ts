// `npm run bench:scan-memory [-- --files N] [--method M] [--jobs J] [--format ndjson|json]`:
// the peak memory (resident set, all threads) of `scan --in-memory` on a generated folder of N text files
// (default 100,000), written in 100 subfolders. Each file is 150–300 words drawn from a seeded
// vocabulary; every 100th file is a copy of the one before with a word changed, so there are
// pairs to find. Prints the command, its seconds, its peak RSS (from /usr/bin/time) and the
// number of documents and pairs it printed.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32, pick } from '../../lib/random';
import { detectorNamed } from '../../lib/scan/registry';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TIME = '/usr/bin/time';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

/** N text files under dir, seeded: the same folder every run. */
export function writeFolder(dir: string, files: number, seed = 25): void {
  const random = mulberry32(seed);
  const syllables = ['ka', 'ri', 'mo', 'te', 'lu', 'sa', 'ven', 'dor', 'pi', 'ne', 'shu', 'al', 'ber', 'quo', 'mi', 'zet'];
  const vocabulary = Array.from({ length: 5000 }, () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(random, syllables)).join(''));
  let previous: string[] = [];
  for (let i = 0; i < files; i++) {
    let words: string[];
    if (i % 100 === 99) {
      words = [...previous];
      words[Math.floor(random() * words.length)] = pick(random, vocabulary);
    } else words = Array.from({ length: 150 + Math.floor(random() * 150) }, () => pick(random, vocabulary));
    previous = words;
    const sub = join(dir, String(i % 100).padStart(2, '0'));
    if (i < 100) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `doc-${String(i).padStart(6, '0')}.txt`), `Document ${i}\n\n${words.join(' ')}\n`);
  }
}

function main(): void {
  if (!existsSync(TIME)) {
    console.log(`bench:scan-memory skipped: it reads peak memory from ${TIME}, which is not installed.`);
    return;
  }
  const files = Number(option('--files', '100000'));
  const method = detectorNamed(option('--method', 'simhash')).name;
  const jobs = option('--jobs', '2');
  const format = option('--format', 'ndjson');
  if (format !== 'ndjson' && format !== 'json') throw new RangeError(`--format must be ndjson or json: got ${format}`);
  const dir = mkdtempSync(join(tmpdir(), 'doppel-memory-'));
  try {
    const writeStarted = performance.now();
    writeFolder(dir, files);
    console.log(`${files} files written in ${((performance.now() - writeStarted) / 1000).toFixed(0)} s`);
    const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const args = ['-f', 'peak %M KB, %e s', process.execPath, tsx, join(ROOT, 'bin', 'scan.ts'), dir, `--${format}`, '--in-memory', '--method', method, '--jobs', jobs];
    console.log(`command: ${TIME} -f 'peak %M KB, %e s' npx tsx bin/scan.ts FOLDER --${format} --in-memory --method ${method} --jobs ${jobs}`);
    const out = `${dir}.out`;
    const fd = openSync(out, 'w');
    const run = spawnSync(TIME, args, { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    closeSync(fd);
    const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    rmSync(out, { force: true });
    const measured = run.stderr.trimEnd().split('\n').at(-1);
    if (run.status !== 0) throw new Error(`scan failed (${run.status}): ${run.stderr.slice(-2000)}`);
    const documents = format === 'ndjson' ? lines.filter((l) => l.startsWith('{"document"')).length : (JSON.parse(lines.join('\n')) as { documents: unknown[] }).documents.length;
    const pairs = format === 'ndjson' ? lines.filter((l) => l.startsWith('{"pair"')).length : (JSON.parse(lines.join('\n')) as { pairs: unknown[] }).pairs.length;
    console.log(`${measured}; ${documents} documents, ${pairs} pairs printed`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// run as a script; imported (scripts/scan-on-disk-figures.ts), it only lends writeFolder
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
