// `npm run bench:peers`: scan against its peers on the same pages, in the same run.
//
// The pages: the quality benchmark's originals and partial copies (excerpts, stitched pages,
// quotes), written as HTML and as the .txt of their articles (Readability's text); at a larger
// scale, disguised copies of every page that match nothing (bench/peers/peers-data.ts). Each tool runs
// as a process of its own, timed from its start to its exit:
//   - `scan --json` over the .txt files, and over the HTML files (all cores: its default);
//   - Dolos's winnowing (@dodona/dolos-core, words as tokens: bench/peers/peers-dolos.ts) over the .txt;
//   - Readability over the HTML (bench/peers/peers-readability.ts, one thread), which with Dolos is
//     the peers' pipeline from HTML.
// Quality: a copy is found when a tool links it with its source's original (scan: any of its
// lists); a link between different articles, or with a disguise, is false.
//   npm run bench:peers [-- --scales 1,10] [--jobs N] [--profile]
// --profile adds a CPU profile of `scan --jobs 1` over the .txt at each scale, summed by stage.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PartialResult, scorePartialLinks } from '../quality/quality-partial';
import { CORPUS_DIR, PARTIAL_KINDS } from '../data/republish';
import { type PeerSet, buildPeerSet, writePeerSet } from './peers-data';
import { profileByStage } from './cpu-profile';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
};
const SCALES = (option('--scales') ?? '1,10').split(',').map(Number);
const JOBS = Number(option('--jobs') ?? availableParallelism());
const PROFILE = argv.includes('--profile');

type Link = { a: string; b: string };

interface Timed<T> {
  seconds: number;
  value: T;
  stderr: string;
}

/**
 * Runs a TypeScript entry under tsx as a process of its own; its wall-clock seconds and its JSON
 * output. With Node options (a CPU profile), tsx is loaded with --import: its command line runs
 * the entry in a child process, which the options would not reach.
 */
function runTs<T>(entry: string, args: string[], nodeArgs: string[] = []): Timed<T> {
  const started = performance.now();
  const command = nodeArgs.length === 0 ? [TSX, entry, ...args] : [...nodeArgs, '--import', 'tsx', entry, ...args];
  const run = spawnSync(process.execPath, command, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`${entry} ${args.join(' ')} failed (status ${run.status}): ${run.stderr}`);
  return { seconds, value: JSON.parse(run.stdout) as T, stderr: run.stderr };
}

interface ScanJson {
  pairs: Link[];
  reuse?: Link[];
  rewrites?: Link[];
}

/** The links a tool made, with .txt paths named as their HTML pages. */
const asPages = (links: readonly Link[]): Link[] => links.map(({ a, b }) => ({ a: a.replace(/\.txt$/, ''), b: b.replace(/\.txt$/, '') }));

const scanLinks = (report: ScanJson): Link[] => asPages([...report.pairs, ...(report.reuse ?? []), ...(report.rewrites ?? [])]);

function scoreLinks(set: PeerSet, links: readonly Link[]): PartialResult {
  return scorePartialLinks(set.sources, { pairs: [], reuse: links });
}

const pct = (n: number, total: number): string => `${((100 * n) / Math.max(1, total)).toFixed(1)}%`;
const s = (seconds: number): string => `${seconds.toFixed(1)} s`;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`;

/** scan's rewrites list alone: how many links, and how many between different articles (issue 47: none at 10×). */
function rewriteLine(set: PeerSet, report: ScanJson): string {
  const rewrites = asPages(report.rewrites ?? []);
  const wrong = scoreLinks(set, rewrites).falseReuse;
  const examples = wrong.slice(0, 3).map(({ a, b }) => `${a} ~ ${b}`);
  return `rewrites listed ${rewrites.length}, between different articles ${wrong.length}${examples.length ? ` (${examples.join(', ')}${wrong.length > 3 ? ', …' : ''})` : ''}`;
}

function qualityLine(result: PartialResult): string {
  const rows = result.rows.filter((r) => (PARTIAL_KINDS as readonly string[]).includes(r.row));
  const examples = result.falseReuse.slice(0, 3).map(({ a, b }) => `${a} ~ ${b}`);
  return `${rows.map((r) => `${r.row} ${pct(r.either, r.total)} (${r.either}/${r.total})`).join(', ')}; false links ${result.falseReuse.length}${examples.length ? ` (${examples.join(', ')}${result.falseReuse.length > 3 ? ', …' : ''})` : ''}`;
}

interface ScaleRun {
  scale: number;
  pages: number;
  htmlBytes: number;
  textBytes: number;
  scanText: number;
  scanHtml: number;
  dolos: number;
  readability: number;
}

function runScale(scale: number, dir: string): ScaleRun {
  const t0 = performance.now();
  const set = buildPeerSet(scale);
  const { htmlBytes, textBytes } = writePeerSet(set, dir);
  console.log(`\n${scale}×: ${set.pages.length} pages (${set.basePages} originals and partial copies${scale > 1 ? `, ${scale - 1} disguises of each` : ''}), ${mb(htmlBytes)} of HTML, ${mb(textBytes)} of article text; made in ${s((performance.now() - t0) / 1000)}, not timed. Load average ${loadavg()[0]!.toFixed(2)}.`);

  const scan = (folder: string): Timed<ScanJson> => runTs<ScanJson>(join(ROOT, 'bin', 'scan.ts'), [join(dir, folder), '--json', '--jobs', String(JOBS), '--timings']);
  const scanText = scan('txt');
  const dolos = runTs<{ pairs: Link[]; candidates: number }>(join(ROOT, 'bench', 'peers', 'peers-dolos.ts'), [join(dir, 'txt')]);
  const scanHtml = scan('html');
  const readability = runTs<{ files: number; articles: number }>(join(ROOT, 'bench', 'peers', 'peers-readability.ts'), [join(dir, 'html')]);

  console.log(`  from the same .txt files`);
  console.log(`    scan --json --jobs ${JOBS}       ${s(scanText.seconds).padStart(8)}   ${qualityLine(scoreLinks(set, scanLinks(scanText.value)))}`);
  console.log(`    Dolos (winnowing, 1 thread)  ${s(dolos.seconds).padStart(8)}   ${qualityLine(scoreLinks(set, asPages(dolos.value.pairs)))}  (${dolos.value.candidates} candidate pairs)`);
  console.log(`    scan's rewrites                          ${rewriteLine(set, scanText.value)}`);
  console.log(`    scan ÷ Dolos                 ${(scanText.seconds / dolos.seconds).toFixed(2).padStart(6)} ×   target ≤ 1: ${scanText.seconds <= dolos.seconds ? 'met' : 'MISSED'}`);
  console.log(`  from the HTML files`);
  console.log(`    scan --json --jobs ${JOBS}       ${s(scanHtml.seconds).padStart(8)}   ${qualityLine(scoreLinks(set, scanLinks(scanHtml.value)))}`);
  console.log(`    scan's rewrites                          ${rewriteLine(set, scanHtml.value)}`);
  console.log(`    Readability (1 thread)       ${s(readability.seconds).padStart(8)}   (${readability.value.articles} articles of ${readability.value.files} files)`);
  console.log(`    Readability + Dolos          ${s(readability.seconds + dolos.seconds).padStart(8)}`);
  console.log(`    scan ÷ (Readability + Dolos) ${(scanHtml.seconds / (readability.seconds + dolos.seconds)).toFixed(2).padStart(6)} ×   target < 1: ${scanHtml.seconds < readability.seconds + dolos.seconds ? 'met' : 'MISSED'}`);
  console.log(`  where scan's time went (--timings), .txt:\n${indent(scanText.stderr)}  HTML:\n${indent(scanHtml.stderr)}`);
  if (PROFILE) {
    const profileDir = join(dir, 'profile');
    rmSync(profileDir, { recursive: true, force: true });
    runTs(join(ROOT, 'bin', 'scan.ts'), [join(dir, 'txt'), '--json', '--jobs', '1'], ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
    const profiles = readdirSync(profileDir).map((f) => JSON.parse(readFileSync(join(profileDir, f), 'utf8')));
    console.log(`  CPU profile of scan --json --jobs 1 over the .txt, self time by stage (idle time left out):`);
    for (const { stage, ms, share } of profileByStage(profiles)) console.log(`    ${(ms / 1000).toFixed(2).padStart(7)} s  ${(share * 100).toFixed(0).padStart(3)}%  ${stage}`);
  }
  return { scale, pages: set.pages.length, htmlBytes, textBytes, scanText: scanText.seconds, scanHtml: scanHtml.seconds, dolos: dolos.seconds, readability: readability.seconds };
}

function indent(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `    ${line.trim()}`)
    .join('\n') + '\n';
}

function main(): void {
  if (!existsSync(CORPUS_DIR)) {
    console.log(`bench:peers skipped: the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`);
    return;
  }
  console.log(`scan against its peers: npm run bench:peers -- --scales ${SCALES.join(',')} --jobs ${JOBS}${PROFILE ? ' --profile' : ''}`);
  console.log(`${availableParallelism()} cores; Node ${process.version}; each tool a process of its own under tsx, timed start to exit, one run each`);
  const runs: ScaleRun[] = [];
  for (const scale of SCALES) {
    const dir = mkdtempSync(join(tmpdir(), `doppel-peers-${scale}-`));
    try {
      runs.push(runScale(scale, dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const base = runs[0]!;
  for (const run of runs.slice(1)) {
    const grow = (key: 'scanText' | 'scanHtml' | 'dolos' | 'readability'): string => `${(run[key] / base[key]).toFixed(1)}×`;
    const input = run.pages / base.pages;
    console.log(`\n${run.scale}× against ${base.scale}× (${input.toFixed(1)}× the pages): scan over .txt ${grow('scanText')}, over HTML ${grow('scanHtml')}; Dolos ${grow('dolos')}; Readability ${grow('readability')}.`);
    const worst = Math.max(run.scanText / base.scanText, run.scanHtml / base.scanHtml);
    console.log(`  scan's time for ${input.toFixed(1)}× the pages: at most ${(worst).toFixed(1)}×, target ≤ ${(input * 1.1).toFixed(1)}×: ${worst <= input * 1.1 ? 'met' : 'MISSED'}`);
  }
}

main();
