// The tables of current figures, rebuilt from the benchmark outputs they cite (docs/bench/, written
// by scripts/record-bench.sh under a header naming the command, date, commit and machine): the
// README's headline rows, every figure in docs/benchmarks.md, and the methods side by side in
// docs/methods.md.
//   npm run figures            rewrites the tables
//   npm run figures -- --check  fails when a document differs from what the outputs say
// test/figures.test.ts runs the check too, so a figure cannot drift from its source.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from '../bench/shared/stats';

/** The markers around a block of the README that `npm run figures` writes. */
export const start = (block: string): string => `<!-- ${block}: made by \`npm run figures\` from the outputs in docs/bench; edit scripts/figures.ts, not this table -->`;
export const end = (block: string): string => `<!-- /${block} -->`;

/** A benchmark output: its header's fields and its lines. */
export interface BenchOutput {
  file: string;
  command: string;
  date: string;
  commit: string;
  machine: string;
  lines: string[];
}

export class FigureError extends Error {
  override name = 'FigureError';
}

export function parseBenchOutput(file: string, text: string): BenchOutput {
  const field = (name: string): string => {
    const match = new RegExp(`^# ${name}: (.+)$`, 'm').exec(text);
    if (match === null) throw new FigureError(`${file}: no "# ${name}:" line in its header (record it with scripts/record-bench.sh)`);
    return match[1]!.trim();
  };
  return { file, command: field('command'), date: field('date'), commit: field('commit'), machine: field('machine'), lines: text.split('\n') };
}

/**
 * The groups of the first line of `output` that matches `pattern`, after the first line that
 * contains `after` when given (outputs repeat labels such as "median" in several sections).
 */
export function find(output: BenchOutput, pattern: RegExp, after?: string): string[] {
  let from = 0;
  if (after !== undefined) {
    from = output.lines.findIndex((line) => line.includes(after));
    if (from < 0) throw new FigureError(`${output.file}: no line contains "${after}"`);
  }
  for (const line of output.lines.slice(from)) {
    const match = pattern.exec(line);
    if (match !== null) return match.slice(1);
  }
  throw new FigureError(`${output.file}: no line matches ${pattern}${after === undefined ? '' : ` after "${after}"`}`);
}

export interface Figure {
  figure: string;
  target: string;
  /** The output's file name in docs/bench. */
  source: string;
  /** A second output the figure compares with (a ratio), cited beside the first. */
  baseline?: string;
  /** Further runs of the source's command (a median of three), cited beside it. */
  repeats?: readonly string[];
  measured(output: BenchOutput, baseline?: BenchOutput, repeats?: readonly BenchOutput[]): string;
}

const PERCENT = String.raw`(\d+(?:\.\d+)?)%`;
const QUALITY = '2026-11-29-quality-held-out.txt';
const NUMBER = String.raw`([\d,]+(?:\.\d+)?)`;
const PEERS = '2026-11-27-peers.txt';
const BROWSER_QUALITY = '2026-11-27-browser-quality.txt';
const MILLION = '2026-11-30-1m-memory.txt';
const BROWSER_REWRITES = '2026-11-29-browser-quality-rewrites-held-out.txt';
const SCALE_100K = '2026-11-30-scan-scale-100k.txt';
const SCALE_1M = '2026-11-30-scan-scale-1m.txt';
const JOIN_10M = '2026-11-29-scan-join-10m.txt';
const MEMORY_1M = '2026-12-02-1m-memory-18.txt';
/** The same command run twice more after MEMORY_1M, the same hour: the figure is their median. */
const MEMORY_1M_REPEATS: readonly string[] = ['2026-12-02-1m-memory-19.txt', '2026-12-02-1m-memory-20.txt'];
const MEMORY_1M_BEFORE = '2026-12-01-1m-memory-before.txt';
const TARGETS_1M = '2026-12-02-1m-targets-9.txt';
const TARGETS_100K = '2026-12-02-100k-targets-7.txt';
const BURST = '2026-11-30-burst.txt';
const BURST_FIRST_RELEASE = '2026-11-30-burst-first-release.txt';

/** bench:browser's burst of 30 tabs: when every page was stored with the worker running (the runs' median), and with it stopped: pages stored in each run, the last after the stop (median). */
const burst = (o: BenchOutput): { running: number; stored: string; last: string } => {
  const [running] = find(o, /^\s+worker left running: .*all stored at [\d./ NaN]+ s \(median ([\d.]+) s\)/);
  const [stored, last] = find(o, /^\s+worker stopped once the first page was seen stored: .*; stored ([\d /]+) of 30(?:; the last [\d./ NaN-]+ s \(median ([\d.]+) s\) after the stop)?/);
  return { running: Number(running), stored: stored!, last: last ?? '' };
};

/** bench:browser's organising after the import's summary, and the extension renderer's most at a 1 s poll. */
const organising = (o: BenchOutput): { seconds: number; polled: number } => ({
  seconds: Number(find(o, /after it, until "done": ([\d.]+) s/)[0]),
  polled: Number(find(o, /^\s+most resident at a poll\s+extension renderer ([\d.]+) MB/)[0]),
});

/** bench:browser's peak of the extension renderer: the most of its VmHWM read at every poll and of its resident memory at the polls (a VmHWM read once at the end can miss the peak: Chromium resets it). Outputs before 807652b have none. */
const peakAtPolls = (o: BenchOutput): number => Number(find(o, /^\s+peak resident at the polls\s+extension renderer ([\d.]+) MB/)[0]);

/** bench:browser's most resident at a poll during each organising step ("resident by step"), by the step's progress text. */
const residentBySteps = (o: BenchOutput): Map<string, number> => {
  const [line] = find(o, /^\s+resident by step \(1 s polls\)\s+(.*)$/);
  return new Map([...line!.matchAll(/"([^"]+)" ([\d.]+) MB/g)].map((m) => [m[1]!, Number(m[2])]));
};

/** bench:targets's medians against the first release: import, organising, popup while organising, memory. */
const againstFirstRelease = (o: BenchOutput): string => {
  const [firstRate, nowRate, rateRatio] = find(o, new RegExp(`^\\s+import rate\\s+${NUMBER} → ${NUMBER} pages/s, ([\\d.]+)×`));
  const [firstS, nowS, sRatio] = find(o, /^\s+organising after the summary\s+([\d.]+) → ([\d.]+) s, ([\d.]+)×/);
  const [firstMedian, nowMedian, medianRatio] = find(o, /^\s+popup ready while organising, median\s+(\d+) → (\d+) ms, ([\d.]+)×/);
  const [firstP99, nowP99, p99Ratio] = find(o, /^\s+popup ready while organising, p99\s+(\d+) → (\d+) ms, ([\d.]+)×/);
  const [firstMb, nowMb] = find(o, /^\s+extension renderer, most at a poll\s+([\d.]+) MB → ([\d.]+) MB/);
  const mb = (value: string): string => `${Number(value).toLocaleString('en-US')} MB`;
  const [firstPeak, nowPeak] = find(o, /^\s+extension renderer, peak\s+([\d.]+) MB → ([\d.]+) MB/);
  const memory = `peak ${mb(nowPeak!)} against ${mb(firstPeak!)}, at a poll ${mb(nowMb!)} against ${mb(firstMb!)}`;
  return (
    `${nowRate} against ${firstRate} pages/s (${rateRatio}×); ${Math.round(Number(nowS))} s against ${Math.round(Number(firstS))} s (${sRatio}×); ` +
    `${nowMedian} / ${nowP99} ms against ${firstMedian} / ${firstP99} ms (${medianRatio}× / ${p99Ratio}×); ${memory}`
  );
};

/** bench:scan-scale's scan: wall seconds, CPU seconds, peak MiB. */
const scaleScan = (o: BenchOutput): { seconds: number; cpu: number; peak: number } => {
  const [seconds, cpu, peak] = find(o, /^scan \S+ .*?: ([\d.]+) s \(([\d.]+) s of CPU;.*peak memory (\d+) MiB/);
  return { seconds: Number(seconds), cpu: Number(cpu), peak: Number(peak) };
};

/** The Chromium column of bench:browser-quality's partial-copy table, for `kind`. */
const chromiumPartial = (o: BenchOutput, kind: string): string =>
  `${find(o, new RegExp(String.raw`^${kind}\s+[\d.]+% \(\d+/\d+\)\s+\d+ \+ \d+\s+${PERCENT}`), 'Partial copies, in the same run')[0]}%`;

/** A "scan ÷ …" ratio of bench:peers at one scale (its section starts with `section`). */
const peerRatio = (o: BenchOutput, section: string, label: string): string =>
  find(o, new RegExp(`^\\s+${label.replace(/[()+÷]/g, (c) => `\\${c}`)}\\s+([\\d.]+) ×`), section)[0]!;

/** The share in the last "pairs or reuse" column of bench:quality's partial-copy table, for `kind`. */
const partial = (output: BenchOutput, kind: string): string => find(output, new RegExp(String.raw`^${kind}\s+.*\s${PERCENT} \(\d+/\d+\)\s+≥`), 'Near-duplicates and passages side by side')[0]! + '%';
const rewriteKind = (output: BenchOutput, kind: string): string => find(output, new RegExp(String.raw`^\s+${kind}\s+${PERCENT}`), 'Rewritten and translated copies')[0]! + '%';

export const FIGURES: Figure[] = [
  {
    figure: 'whole-article copies found (verbatim / lightly edited), false pairs',
    target: '≥ 98% / ≥ 90%, 0',
    source: QUALITY,
    measured: (o) => `${find(o, new RegExp(`^verbatim copies found\\s+${PERCENT}`))[0]}% / ${find(o, new RegExp(`^lightly edited copies found\\s+${PERCENT}`))[0]}%, ${find(o, /^false pairs \(different articles\)\s+(\d+)/)[0]}`,
  },
  {
    figure: 'partial copies found by shared passages (excerpt 30% / stitched / 60-word quote), false',
    target: '≥ 90% / 90% / 80%, 0',
    source: QUALITY,
    measured: (o) => `${partial(o, 'excerpt-30')} / ${partial(o, 'stitched')} / ${partial(o, 'quote')}, ${find(o, /^false \(different articles\)\s+\d+\s+\d+\s+(\d+)/, 'Near-duplicates and passages side by side')[0]}`,
  },
  {
    figure: 'rewritten copies found, on articles never tuned on (the test half: rewrite / Spanish / Chinese / French / German translation), independent articles on the same story linked, false links',
    target: '≥ 90% / 75% / 65% / 75% / 75%, ≤ 2%, 0',
    source: QUALITY,
    measured: (o) =>
      `${['rewrite', 'translation_es', 'translation_zh', 'translation_fr', 'translation_de'].map((k) => rewriteKind(o, k)).join(' / ')}, ${rewriteKind(o, 'independent')}, ${find(o, /^\s+links between different articles\s*(\d+)/, 'Rewritten and translated copies')[0]}`,
  },
  {
    figure: 'which page is the original (bench/data/provenance-set.ts): copies given their true original over 1,000 reading orders, honest sites flagged in any of them, farms missed',
    target: '≥ 90%, 0, 0',
    source: QUALITY,
    measured: (o) => {
      const after = 'Which page is the original';
      const right = find(o, /^\s+copies given their true original\s+([\d.]+)% on average/, after)[0];
      const honest = find(o, /^\s+orders with an honest site flagged\s+(\d+)/, after)[0];
      const farms = find(o, /^\s+farms not flagged, over all orders\s+(\d+)/, after)[0];
      return `${right}%, ${honest}, ${farms}`;
    },
  },
  {
    figure: 'partial copies found in Chromium\'s popups (excerpt 30% / stitched / 60-word quote), false links',
    target: '≥ 90% / 95% / 90%, 0',
    source: BROWSER_QUALITY,
    measured: (o) => `${chromiumPartial(o, 'excerpt-30')} / ${chromiumPartial(o, 'stitched')} / ${chromiumPartial(o, 'quote')}, ${find(o, /^false \(different articles\)\s+\d+\s+\d+ \+ \d+\s+(\d+)/, 'Partial copies, in the same run')[0]}`,
  },
  {
    figure: 'rewritten copies found in Chromium\'s popups, the test half (rewrite / Spanish / Chinese / French / German translation), independent articles linked, false links',
    target: '≥ 90% / 75% / 65% / 75% / 75%, ≤ 2%, 0',
    source: BROWSER_REWRITES,
    measured: (o) => {
      const chromium = (kind: string): string => `${find(o, new RegExp(String.raw`^${kind}\s+[\d.]+% \(\d+/\d+\)\s+\d+\s+${PERCENT}`), 'The test half')[0]}%`;
      return `${['rewrite', 'translation_es', 'translation_zh', 'translation_fr', 'translation_de'].map(chromium).join(' / ')}, ${chromium(String.raw`independent \(linked\)`)}, ${find(o, /^false \(different articles\)\s+\d+\s+(\d+)/, 'Rewritten and translated copies in Chromium')[0]}`;
    },
  },
  {
    figure: 'fingerprinting speed against `simhash-js`',
    target: '≥ 30×',
    source: '2026-11-27-speed.txt',
    measured: (o) => `${find(o, new RegExp(`Doppel / simhash-js\\s+${NUMBER} ×`))[0]}×`,
  },
  {
    figure: 'passage fingerprints, against the simhash',
    target: '≥ 20 MB/s, ≥ 0.5×',
    source: '2026-11-27-speed.txt',
    measured: (o) => `${find(o, new RegExp(`passageFingerprints .*?\\s${NUMBER} MB/s`))[0]} MB/s, ${find(o, new RegExp(`passages / fingerprintText\\s+${NUMBER} ×`))[0]}×`,
  },
  {
    figure: 'rare-word fingerprints (rewrites), against the passages; bytes a page',
    target: '≥ 10 MB/s, ≥ 0.5×; ≤ 120 B',
    source: '2026-11-27-speed.txt',
    measured: (o) =>
      `${find(o, new RegExp(`rewriteFingerprints .*?\\s${NUMBER} MB/s`))[0]} MB/s, ${find(o, new RegExp(`rewrites / passages\\s+${NUMBER} ×`))[0]}×; ${find(o, new RegExp(`rewrite fingerprints, bytes a page\\s+${NUMBER} B`))[0]} B`,
  },
  {
    figure: '`scan --jobs 2` against `--jobs 1`',
    target: '≥ 1.6×',
    source: '2026-11-27-scan-jobs.txt',
    measured: (o) => `${find(o, /ratio ([\d.]+)×/)[0]}×`,
  },
  {
    figure: '`scan` against Dolos\'s winnowing on the same .txt files, seconds (1× / 10× the pages)',
    target: '≤ 1× Dolos',
    source: PEERS,
    measured: (o) => `${peerRatio(o, '1×: ', 'scan ÷ Dolos')}× / ${peerRatio(o, '10×: ', 'scan ÷ Dolos')}×`,
  },
  {
    figure: '`scan` from HTML against Readability plus Dolos, seconds (1× / 10×)',
    target: '< 1×',
    source: PEERS,
    measured: (o) => `${peerRatio(o, '1×: ', 'scan ÷ (Readability + Dolos)')}× / ${peerRatio(o, '10×: ', 'scan ÷ (Readability + Dolos)')}×`,
  },
  {
    figure: '`scan`\'s time for 10× the pages',
    target: '≤ 11×',
    source: PEERS,
    measured: (o) => `${find(o, /scan's time for [\d.]+× the pages: at most ([\d.]+)×/)[0]}×`,
  },
  {
    figure: '`scan` on 100,000 documents (JSONL, `--on-disk`, DuckDB\'s default 768 MB limit): peak memory (VmHWM), wall and CPU time',
    target: '',
    source: SCALE_100K,
    measured: (o) => {
      const { seconds, cpu, peak } = scaleScan(o);
      return `${peak.toLocaleString('en-US')} MiB, ${Math.round(seconds)} s (${Math.round(cpu)} s of CPU)`;
    },
  },
  {
    figure: '`scan` on 1,000,000 documents (JSONL, `--on-disk`): planted copies found (whole / passages / rewrites), false pairs; peak memory (VmHWM); CPU and wall time against 100,000 documents\' (the run before it, same commit)',
    target: '≥ 99% / 95% / 85%, 0; ≤ 2 GB; ≤ 11×',
    source: SCALE_1M,
    baseline: SCALE_100K,
    measured: (o, baseline) => {
      const group = (name: string): string => `${find(o, new RegExp(String.raw`^${name}\s+≥ \d+%\s+${PERCENT}`))[0]}%`;
      const { seconds, cpu, peak } = scaleScan(o);
      const base = scaleScan(baseline!);
      return `${['whole', 'passages', 'rewrites'].map(group).join(' / ')}, ${find(o, /^false\s+0\s+(\d+)/)[0]}; ${peak.toLocaleString('en-US')} MiB; CPU ${(cpu / base.cpu).toFixed(1)}× (${Math.round(cpu).toLocaleString('en-US')} s against ${Math.round(base.cpu)} s), wall ${(seconds / base.seconds).toFixed(1)}× (${Math.round(seconds)} s against ${Math.round(base.seconds)} s)`;
    },
  },
  {
    figure: '10,000,000 documents\' fingerprints joined (`bench:scan-join`, no text): peak memory, time, disk at most; planted simhash / passage / rewrite pairs among the candidates',
    target: '≤ 4 GB',
    source: JOIN_10M,
    measured: (o) => {
      const [peak] = find(o, /^peak memory (\d+) MiB/);
      const [minutes] = find(o, /^total [\d.]+ s \(([\d.]+) min\)/);
      const [disk] = find(o, /the folder at most ([\d.]+) GiB/);
      const planted = ['simhash', 'passage', 'rewrite'].map((k) => find(o, new RegExp(`^planted ${k} copies among the [a-z ]+: ([\\d,]+ of [\\d,]+)`))[0]);
      return `${Number(peak).toLocaleString('en-US')} MiB, ${minutes} min, ${disk} GiB; ${planted.join(' / ')}`;
    },
  },
  {
    figure: 'import, 1,000,000 pages with passages, word bits and rewrite fingerprints',
    target: '≥ 10,000 pages/s',
    source: MILLION,
    measured: (o) => `${find(o, new RegExp(`import rate\\s+${NUMBER} pages/s`))[0]} pages/s`,
  },
  {
    figure: 'planted 60-word quotes found by `report/get`, 1,000,000 pages',
    target: '≥ 25 of 27',
    source: MILLION,
    measured: (o) => {
      const [found, planted] = find(o, /quotes (\d+)\/(\d+)\)/);
      return `${found} of ${planted}`;
    },
  },
  {
    figure: 'planted rewrites found by `report/get`, 1,000,000 pages',
    target: 'all',
    source: MILLION,
    measured: (o) => {
      const [found, planted] = find(o, /^\s+rewrites\s+(\d+)\/(\d+) planted rewrites found/);
      return `${found} of ${planted}`;
    },
  },
  {
    figure: 'planted rewrites in their original\'s group after organising that import (the history page folds them)',
    target: '',
    source: MILLION,
    measured: (o) => {
      const [folded, located] = find(o, new RegExp(`planted rewrites, after organising\\s+${NUMBER} of ${NUMBER} in their original's group`));
      return `${folded} of ${located}`;
    },
  },
  {
    figure: 'organising that import after its summary; the extension renderer\'s peak resident memory (its VmHWM read at every 1 s poll, and its resident memory at the polls: Chromium resets VmHWM now and then); its resident memory at its most at a poll, and in the regroup\'s near-duplicates, its rewrite lookups and the passage index\'s steps; three fresh runs, the same hour; against the build before organising\'s memory was bounded (7b974f2, DOPPEL_EXTENSION_DIR: memory is absolute; its most at a poll)',
    target: '≤ 500 MB',
    source: MEMORY_1M,
    baseline: MEMORY_1M_BEFORE,
    repeats: MEMORY_1M_REPEATS,
    measured: (o, baseline, repeats = []) => {
      const runs = [o, ...repeats];
      const stepsOf = (run: BenchOutput): string => {
        const steps = residentBySteps(run);
        // the copy marking: its parts ('Finding copies… N%'), or in older outputs a share of the passages' steps
        const passages = Math.max(...[...steps].filter(([name]) => name.startsWith('Indexing shared passages') || name.startsWith('Finding copies')).map(([, mb]) => mb));
        // a step of a second or so may end between two polls
        return [steps.get('Finding near-duplicates…'), steps.get('Finding rewrites and translations…'), passages].map((mb) => (mb === undefined ? 'not polled' : `${mb.toLocaleString('en-US')} MB`)).join(', ');
      };
      const of = (pick: (run: ReturnType<typeof organising>) => number): number[] => runs.map((run) => pick(organising(run)));
      const [seconds, polled, peak] = [of((r) => Math.round(r.seconds)), of((r) => r.polled), runs.map(peakAtPolls)];
      const mb = (value: number): string => `${value.toLocaleString('en-US')} MB`;
      const against = `against ${mb(organising(baseline!).polled)}`;
      const each = (values: number[], unit: string): string => `${values.map((v) => v.toLocaleString('en-US')).join(' / ')} ${unit}`;
      return `median of ${runs.length} runs: ${median(seconds)} s (${each(seconds, 's')}); peak ${mb(median(peak))} (${each(peak, 'MB')}); at a poll ${mb(median(polled))} (${each(polled, 'MB')}; the runs' steps ${runs.map(stepsOf).map((steps) => `(${steps})`).join(', ')}); ${against}`;
    },
  },
  {
    figure: 'against the first release (63168aa), on the history both read (passages, no rewrites or provenance): import rate, organising after the summary, the popup ready while organising runs (median / p99), and the extension renderer\'s peak resident memory (its VmHWM read at every 1 s poll, or its resident memory at a poll if more) and its most at a poll; medians of three runs each, alternating',
    target: '≥ 1.0×; ≤ 0.75×; ≤ 1.0× / ≤ 1.0×; ≤ 500 MB',
    source: TARGETS_1M,
    measured: (o) => againstFirstRelease(o),
  },
  {
    figure: 'the same at 100,000 pages, and a plain put loop writing the bytes the import stored (the floor), the import\'s share of it',
    target: '≥ 1.0×; ≤ 0.75×; ≤ 1.0× / ≤ 1.0×; ≤ 200 MB',
    source: TARGETS_100K,
    measured: (o) => {
      const [firstShare, nowShare] = find(o, /^\s+plain put loop of the same bytes\s+.*the import's share of it (\d+)% → (\d+)%/);
      return `${againstFirstRelease(o)}; the import ${nowShare}% of the floor (first release ${firstShare}%)`;
    },
  },
  {
    figure: 'a burst of 30 article tabs against the first release (63168aa, DOPPEL_EXTENSION_DIR, the run after it), three fresh browsers each way: all 30 stored with the worker left running (the median, from the tabs\' opening); with the worker stopped once the first page was seen stored, the pages stored in each run, and the last after the stop (median)',
    target: '≤ 0.75×; 30 of 30 within 30 s',
    source: BURST,
    baseline: BURST_FIRST_RELEASE,
    measured: (o, baseline) => {
      const [now, first] = [burst(o), burst(baseline!)];
      return `${now.running} s against ${first.running} s (${(now.running / first.running).toFixed(2)}×); ${now.stored} of 30${now.last === '' ? '' : `, the last ${now.last} s after the stop`} (the first release ${first.stored})`;
    },
  },
  {
    figure: 'storage per page, all-in with passages, word bits and rewrite fingerprints',
    target: '≤ 950 B',
    source: MILLION,
    measured: (o) => `${find(o, new RegExp(`bytes per page\\s+${NUMBER} B`))[0]} B`,
  },
  {
    figure: 'lookup in the worker (`report/get` with passages and rewrites), median / p99',
    target: '≤ 15 / ≤ 50 ms',
    source: MILLION,
    measured: (o) => `${find(o, new RegExp(`^\\s+median\\s+${NUMBER} ms`), 'in the worker:')[0]} / ${find(o, new RegExp(`^\\s+p99 \\(\\S+ of \\d+\\)\\s+${NUMBER} ms`), 'in the worker:')[0]} ms`,
  },
  {
    figure: 'popup ready (worker running / stopped first)',
    target: '≤ 150 ms (running)',
    source: MILLION,
    measured: (o) => `${find(o, new RegExp(`worker running \\(\\d+ loads\\)\\s+median ${NUMBER} ms`))[0]} / ${find(o, new RegExp(`worker stopped first \\(\\d+ loads\\)\\s+median ${NUMBER} ms`))[0]} ms`,
  },
  {
    figure: 'history page\'s first screen',
    target: '≤ 300 ms',
    source: MILLION,
    measured: (o) => `${find(o, new RegExp(`first screen \\(\\d+ loads\\)\\s+median ${NUMBER} ms`))[0]} ms`,
  },
];

/** The figure of FIGURES whose first words are `start`. */
const figureStarting = (start: string): Figure => {
  const figure = FIGURES.find((f) => f.figure.startsWith(start));
  if (figure === undefined) throw new FigureError(`no figure starts "${start}"`);
  return figure;
};

/** The README's rows: at most eight that matter to a user; docs/benchmarks.md has every figure. */
export const HEADLINES: Figure[] = [
  {
    figure: 'copies found, whole and partial (verbatim / lightly edited / excerpt 30% / stitched / 60-word quote), false near-duplicate pairs / false passage links',
    target: '≥ 98% / 90% / 90% / 90% / 80%, 0 / 0',
    source: QUALITY,
    measured: (o) =>
      `${find(o, new RegExp(`^verbatim copies found\\s+${PERCENT}`))[0]}% / ${find(o, new RegExp(`^lightly edited copies found\\s+${PERCENT}`))[0]}% / ${partial(o, 'excerpt-30')} / ${partial(o, 'stitched')} / ${partial(o, 'quote')}, ${find(o, /^false pairs \(different articles\)\s+(\d+)/)[0]} / ${find(o, /^false \(different articles\)\s+\d+\s+\d+\s+(\d+)/, 'Near-duplicates and passages side by side')[0]}`,
  },
  figureStarting('rewritten copies found, on articles never tuned on'),
  figureStarting('which page is the original'),
  figureStarting('import, 1,000,000 pages'),
  figureStarting('popup ready'),
  figureStarting('storage per page'),
  figureStarting('`scan` on 1,000,000 documents'),
  figureStarting('`scan` from HTML against Readability plus Dolos'),
];

/** "2 × AMD EPYC, v20.20.2, load average 0.13 at the start" → "2 × AMD EPYC". */
const machineName = (machine: string): string => machine.split(',')[0]!.trim();

/** The table's markdown, from the outputs that `read` gives by file name; links relative to `base` (the document's folder: '' for the README, 'docs/' for docs/). */
export function figuresTable(read: (file: string) => string, figures: readonly Figure[] = FIGURES, base = ''): string {
  const outputs = new Map<string, BenchOutput>();
  const output = (file: string): BenchOutput => {
    let parsed = outputs.get(file);
    if (parsed === undefined) outputs.set(file, (parsed = parseBenchOutput(file, read(file))));
    return parsed;
  };
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  const rows = figures.map((f) => {
    const o = output(f.source);
    const baseline = f.baseline === undefined ? undefined : output(f.baseline);
    const repeats = (f.repeats ?? []).map(output);
    const runs = [o, ...repeats].map((run) => citation(run, base)).join('; ');
    const cited = baseline === undefined ? runs : `${runs}; against ${citation(baseline, base)}`;
    return `| ${cell(f.figure)} | ${cell(f.measured(o, baseline, repeats))} | ${cell(f.target)} | ${cell(cited)} |`;
  });
  return ['| figure | measured | target | output: command, date, commit, machine |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** `readme` with the text between the block's markers replaced by `text`. */
export function withBlock(readme: string, block: string, text: string): string {
  const from = readme.indexOf(start(block));
  const to = readme.indexOf(end(block));
  if (from < 0 || to < from) throw new FigureError(`no ${block} block: put ${start(block)} and ${end(block)} where it goes`);
  return `${readme.slice(0, from + start(block).length)}\n${text}\n${readme.slice(to)}`;
}

/** Where an output came from, as a table row or a sentence cites it, linked from a document in `base`. */
const citation = (o: BenchOutput, base = ''): string => `[${o.file.replace(/\.txt$/, '')}](${base === 'docs/' ? '' : 'docs/'}bench/${o.file}): \`${o.command}\`, ${o.date}, ${o.commit}, ${machineName(o.machine)}`;

/** The cells of bench:quality's "Methods side by side" row `label`: simhash, minhash, nilsimsa. */
function methodCells(o: BenchOutput, label: string): string[] {
  const [rest] = find(o, new RegExp(`^${label}\\s+(.*)$`), 'Methods side by side');
  const cells = rest!.split(/\s{2,}/).filter((cell) => cell !== '').map((cell) => cell.replace(/^(\d+)\.0%/, '$1%').replace(/ \(\d+\/\d+\)$/, ''));
  if (cells.length !== 3) throw new FigureError(`${o.file}: the methods row "${label}" has ${cells.length} cells, not 3`);
  return cells;
}

/** docs/methods.md's "Which method?" table: the three methods and the rewrites beside them, from bench:quality. */
export function methodsTable(read: (file: string) => string, source = QUALITY): string {
  const o = parseBenchOutput(source, read(source));
  const [verbatim, edited, excerpts, falsePairs] = ['verbatim copies found', 'lightly edited copies found', 'excerpts found', 'false pairs'].map((label) => methodCells(o, label));
  const names = ['simhash (k ≤ 3)', 'minhash (J ≥ 0.3)', 'nilsimsa (score ≥ 100)'];
  const rewriteLinks = find(o, /^\s+links between different articles\s*(\d+)/, 'Rewritten and translated copies')[0]!;
  return [
    '| method | verbatim copies | lightly edited | excerpts (first 60%) | rewrites / translations (es, zh, fr, de; articles never tuned on) | independent articles linked | false pairs |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...names.map((name, i) => `| ${name} | ${verbatim![i]} | ${edited![i]} | ${excerpts![i]} | | | ${falsePairs![i]} |`),
    `| rare words in order (\`rewrites\`, beside any method) | | | | ${rewriteKind(o, 'rewrite')} / ${['translation_es', 'translation_zh', 'translation_fr', 'translation_de'].map((k) => rewriteKind(o, k)).join(', ')} | ${rewriteKind(o, 'independent')} | ${rewriteLinks} |`,
    '',
    `From ${citation(o, 'docs/')}.`,
  ].join('\n');
}

/** The documents `npm run figures` writes, each with its blocks and what each block holds. */
export const DOCUMENTS: readonly { path: string; blocks: readonly [string, (read: (file: string) => string) => string][] }[] = [
  { path: 'README.md', blocks: [['figures', (read) => figuresTable(read, HEADLINES)]] },
  { path: 'docs/benchmarks.md', blocks: [['figures', (read) => figuresTable(read, FIGURES, 'docs/')]] },
  { path: 'docs/methods.md', blocks: [['methods', (read) => methodsTable(read)]] },
];

/** The document at `path` (one of DOCUMENTS) with every block rebuilt from the outputs. */
export function rebuiltDocument(path: string, text: string, read: (file: string) => string): string {
  const document = DOCUMENTS.find((d) => d.path === path);
  if (document === undefined) throw new FigureError(`${path} has no figures that npm run figures writes`);
  try {
    return document.blocks.reduce((out, [block, make]) => withBlock(out, block, make(read)), text);
  } catch (error) {
    if (error instanceof FigureError && error.message.startsWith('no ')) throw new FigureError(`${path} has ${error.message}`);
    throw error;
  }
}

function main(): void {
  const root = new URL('..', import.meta.url).pathname;
  const read = (file: string): string => readFileSync(join(root, 'docs/bench', file), 'utf8');
  let stale = 0;
  for (const { path } of DOCUMENTS) {
    const text = readFileSync(join(root, path), 'utf8');
    const updated = rebuiltDocument(path, text, read);
    if (updated === text) console.log(`${path}: figures already match their outputs.`);
    else if (process.argv.includes('--check')) {
      console.error(`${path}: its figures differ from their outputs in docs/bench: run \`npm run figures\`.`);
      stale += 1;
    } else {
      writeFileSync(join(root, path), updated);
      console.log(`${path}: figures rebuilt from docs/bench.`);
    }
  }
  if (stale > 0) process.exit(1);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main();
  } catch (error) {
    console.error(error instanceof FigureError ? error.message : error);
    process.exit(1);
  }
}
