// bench:browser's command line (browser.ts's header says what each option does), where the
// extension and the pages it visits are, and the targets of issue 4 its figures are printed beside.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const EXTENSION_DIR = resolve(ROOT, process.env.DOPPEL_EXTENSION_DIR ?? '.output/chrome-mv3');
export const CORPUS_DIR = resolve(ROOT, '../shared/corpus/readability-test-pages');
export const HOSTILE_DIR = resolve(ROOT, 'test/e2e/pages/hostile');

const argv = process.argv.slice(2);
if (argv.includes('--help')) {
  // the options as browser.ts's header describes them, so that the two cannot drift apart
  const lines = readFileSync(join(ROOT, 'bench/browser/browser.ts'), 'utf8').split('\n');
  const header = lines.slice(0, lines.findIndex((line) => !line.startsWith('//'))).map((line) => line.replace(/^\/\/ ?/, ''));
  const from = header.findIndex((line) => line.startsWith('Options:'));
  console.log(`usage: npm run bench:browser -- [options]   (npm run build first)\n\n${header.slice(from).join('\n')}`);
  process.exit(0);
}
export const json = argv.includes('--json');
function intOption(name: string, fallback: number, min = 1): number {
  const at = argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < min) {
    console.error(`${name} takes a whole number from ${min}`);
    process.exit(2);
  }
  return value;
}
export const PAGES = intOption('--pages', 1_000_000, 1000);
export const QUERIES = intOption('--queries', 200);
export const POPUPS = intOption('--popups', 20);
export const SEED = intOption('--seed', 4, 0);
/** Seconds to wait, at the end of the history's measurements, before storage is measured again. */
export const SETTLE_SECONDS = intOption('--settle-seconds', 0, 0);
export const SKIP_IMPORT = argv.includes('--skip-import');
export const SKIP_CONTENT = argv.includes('--skip-content');
export const SKIP_BURST = argv.includes('--skip-burst');
/** How many times the burst of 30 tabs runs each way (the worker running, then stopped). */
export const BURST_RUNS = intOption('--burst-runs', 1);
export const HISTORY_ONLY = argv.includes('--history-only');
export const IMPORT_ONLY = argv.includes('--import-only');
/** --popups-while-organising: after the import's summary, a popup opened every POPUP_WHILE_ORGANISING_S seconds until organising is done, its time to ready printed (median, p99). */
export const POPUPS_WHILE_ORGANISING = argv.includes('--popups-while-organising');
export const POPUP_WHILE_ORGANISING_S = 5;
/** --put-floor: after the import, a plain put loop writes the bytes it stored into a scratch database (bench/browser/put-floor.ts): the floor the import works toward. */
export const PUT_FLOOR = argv.includes('--put-floor');
/** --store-bytes: at the end, the bytes of every object store's values, read in history.html. */
export const STORE_BYTES = argv.includes('--store-bytes');
/** --cpu-profile FILE: the worker's V8 CPU profile over the report/get queries, written to FILE (a .cpuprofile), its top functions by self time printed. */
export const CPU_PROFILE = fileOption('--cpu-profile', 'report-get.cpuprofile');
/** --import-cpu-profile FILE: the worker's V8 CPU profile while the import saves the lines (to the first poll after "importing"), its top functions printed. */
export const IMPORT_CPU_PROFILE = fileOption('--import-cpu-profile', 'import.cpuprofile');
/** --profile-organising (with --import-cpu-profile): the profile runs on until organising is done, rather than stopping at the import's summary. */
export const PROFILE_ORGANISING = argv.includes('--profile-organising');
/** The file an option names (resolved), `fallback` when the option has none; undefined without the option. */
function fileOption(name: string, fallback: string): string | undefined {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : resolve(argv[at + 1] ?? fallback);
}
export const KEEP_PROFILE = ((): string | undefined => {
  const at = argv.indexOf('--keep-profile');
  if (at === -1) return undefined;
  const value = argv[at + 1];
  if (value === undefined || value.startsWith('--')) {
    console.error('--keep-profile takes a folder');
    process.exit(2);
  }
  return resolve(value);
})();
export const COMMAND = `npm run bench:browser${argv.length ? ' -- ' + argv.join(' ') : ''}`;
/** Passage fingerprints in the history, and the targets of "Passages, part 2"; --no-passages: the history and targets before it. */
export const PASSAGES = !argv.includes('--no-passages');
/** --first-release-history: the history as the first release (63168aa) reads it (bench/data/synthetic-history.ts firstRelease), for a build of it through DOPPEL_EXTENSION_DIR and this build alike. */
export const FIRST_RELEASE_HISTORY = PASSAGES && argv.includes('--first-release-history');
/** Rewrite fingerprints in the history (with passages), and the storage target of "Rewrites, part 2"; --no-rewrites: as before them. */
export const REWRITES = PASSAGES && !FIRST_RELEASE_HISTORY && !argv.includes('--no-rewrites');
/** What the pages say of where they come from (bench/data/synthetic-history.ts provenanceOf); --no-provenance: the history as before it. */
export const PROVENANCE = PASSAGES && !FIRST_RELEASE_HISTORY && !argv.includes('--no-provenance');

export const TARGETS = {
  importRate: 10_000, // pages/s, at least
  queryMedianMs: PASSAGES ? 15 : 10, // report/get with passages : without
  queryP99Ms: PASSAGES ? 50 : 40,
  popupReadyMs: 150,
  bytesPerPage: REWRITES ? 950 : PASSAGES ? 800 : 300, // all-in, the rewrite and passage indexes included : the passage index : the store alone
  contentMedianMs: 15,
  contentP95Ms: 60,
  longestTaskMs: 200,
  historyFirstScreenMs: 300,
  historyTaskMs: 50,
};
