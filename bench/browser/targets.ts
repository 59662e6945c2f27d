// `npm run bench:targets -- --first-release DIR [--pages N] [--runs N]`: the import and organising
// of a whole history against the first release (issue 49's targets: a timing is a ratio to the
// first release's build on the same machine in the same hour, each the median of fresh runs).
// Runs bench:browser with --first-release-history (one synthetic history both builds read:
// passages in version 1 of their bytes, no rewrites or provenance), --import-only --skip-content
// --skip-burst --popups-while-organising --put-floor, N times each (3), alternately the first
// release's build (DIR, through DOPPEL_EXTENSION_DIR; `bash scripts/build-at.sh 63168aa DIR`
// builds it) and this tree's (.output/chrome-mv3: `npm run build` first), each in a fresh browser.
// Prints every run (import rate, organising after the summary, the popup's time to ready while
// organising runs, median and p99, the extension renderer's most at a 1 s poll and its peak (VmHWM read at every poll), the
// plain put loop's rate, the summary line), then the medians and their ratios.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { median } from '../shared/stats';
import { ROOT } from './options';
import { int, mb } from './output';

const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
};
const firstRelease = option('--first-release');
const pages = Number(option('--pages') ?? 1_000_000);
const runs = Number(option('--runs') ?? 3);
if (firstRelease === undefined || !Number.isInteger(pages) || pages < 1000 || !Number.isInteger(runs) || runs < 1) {
  console.error('usage: npm run bench:targets -- --first-release DIR [--pages N (1000000)] [--runs N (3)]   (DIR: the first release built, `bash scripts/build-at.sh 63168aa DIR`; `npm run build` first)');
  process.exit(2);
}
const builds = [
  { name: 'first release', dir: resolve(firstRelease) },
  { name: 'this build', dir: join(ROOT, '.output/chrome-mv3') },
];
for (const { name, dir } of builds) {
  if (!existsSync(join(dir, 'manifest.json'))) {
    console.error(`bench:targets: no built extension for ${name} at ${dir}`);
    process.exit(2);
  }
}

interface Run {
  rate: number;
  organisingS: number;
  popupMedian: number;
  popupP99: number;
  popups: string;
  polled: number;
  /** The extension renderer's peak: its VmHWM read at every poll (Chromium resets VmHWM now and then), or its resident memory at a poll if more. */
  peak: number;
  floorRate: number;
  summary: string;
  finalState: string;
}

function runOnce(dir: string): Run {
  const args = ['tsx', 'bench/browser/browser.ts', '--json', '--pages', String(pages), '--first-release-history', '--import-only', '--skip-content', '--skip-burst', '--popups-while-organising', '--put-floor'];
  const child = spawnSync('npx', args, { cwd: ROOT, env: { ...process.env, DOPPEL_EXTENSION_DIR: dir }, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'inherit'] });
  if (child.status !== 0) throw new Error(`bench:browser failed (status ${child.status}) with ${dir}`);
  const results = JSON.parse(child.stdout.trim().split('\n').pop()!) as { import: Record<string, unknown>; mostResidentAtPoll: number; peakAtPolls: number; putFloor: { rate: number } };
  const imp = results.import;
  const popups = imp['popupsWhileOrganising'] as { opened: number; ready: number; median: number; p99: number };
  return {
    rate: imp['rate'] as number,
    organisingS: (imp['doneS'] as number) - (imp['summaryS'] as number),
    popupMedian: popups.median,
    popupP99: popups.p99,
    popups: `${popups.ready} of ${popups.opened} ready`,
    polled: results.mostResidentAtPoll,
    peak: results.peakAtPolls,
    floorRate: results.putFloor.rate,
    summary: String(imp['summary']),
    finalState: String(imp['finalState']),
  };
}

console.log(`Targets against the first release: ${int(pages)} pages (bench:browser --first-release-history: passages in version 1 of their bytes, no rewrites or provenance), ${runs} runs a build, alternately, each in a fresh browser`);
console.log(`  first release: ${builds[0]!.dir}; this build: ${builds[1]!.dir}`);
const byBuild: Run[][] = [[], []];
for (let r = 0; r < runs; r++) {
  builds.forEach(({ name, dir }, b) => {
    const t0 = Date.now();
    const run = runOnce(dir);
    byBuild[b]!.push(run);
    console.log(
      `  run ${r + 1}, ${name.padEnd(13)}  import ${int(run.rate)} pages/s; organising after the summary ${run.organisingS.toFixed(1)} s; popup while organising median ${run.popupMedian.toFixed(0)} ms, p99 ${run.popupP99.toFixed(0)} ms (${run.popups}); renderer most at a poll ${mb(run.polled)} (peak ${mb(run.peak)}); plain put loop ${int(run.floorRate)} pages/s; ` +
        `data-state "${run.finalState}"; summary ${JSON.stringify(run.summary)}  (${((Date.now() - t0) / 1000).toFixed(0)} s, ${new Date().toISOString().slice(11, 16)} UTC)`,
    );
  });
}
interface Medians {
  rate: number;
  organisingS: number;
  popupMedian: number;
  popupP99: number;
  polled: number;
  peak: number;
  floorRate: number;
}
const [first, now] = byBuild.map((list) => ({
  rate: median(list.map((run) => run.rate)),
  organisingS: median(list.map((run) => run.organisingS)),
  popupMedian: median(list.map((run) => run.popupMedian)),
  popupP99: median(list.map((run) => run.popupP99)),
  polled: median(list.map((run) => run.polled)),
  peak: median(list.map((run) => run.peak)),
  floorRate: median(list.map((run) => run.floorRate)),
})) as [Medians, Medians];
console.log('');
console.log(`Medians of ${runs} (first release → this build, ratio)`);
console.log(`  import rate                          ${int(first.rate)} → ${int(now.rate)} pages/s, ${(now.rate / first.rate).toFixed(2)}×   target ≥ 1.00×: ${now.rate >= first.rate ? 'met' : 'missed'}`);
console.log(`  organising after the summary         ${first.organisingS.toFixed(1)} → ${now.organisingS.toFixed(1)} s, ${(now.organisingS / first.organisingS).toFixed(2)}×   target ≤ 0.75×: ${now.organisingS <= 0.75 * first.organisingS ? 'met' : 'missed'}`);
for (const [name, key] of [['popup ready while organising, median', 'popupMedian'], ['popup ready while organising, p99   ', 'popupP99']] as const) {
  console.log(`  ${name} ${first[key].toFixed(0)} → ${now[key].toFixed(0)} ms, ${(now[key] / first[key]).toFixed(2)}×   target ≤ 1.00×: ${now[key] <= first[key] ? 'met' : 'missed'}`);
}
console.log(`  extension renderer, most at a poll   ${mb(first.polled)} → ${mb(now.polled)}`);
console.log(`  extension renderer, peak             ${mb(first.peak)} → ${mb(now.peak)}   target ≤ ${pages >= 1_000_000 ? 500 : 200} MB: ${now.peak <= (pages >= 1_000_000 ? 500e6 : 200e6) ? 'met' : 'missed'}   (VmHWM read at every poll, or the resident memory at a poll if more)`);
console.log(`  plain put loop of the same bytes     ${int(first.floorRate)} and ${int(now.floorRate)} pages/s in the two builds' runs; the import's share of it ${((first.rate / first.floorRate) * 100).toFixed(0)}% → ${((now.rate / now.floorRate) * 100).toFixed(0)}%   (the floor: bench/browser/put-floor.ts)`);
