// bench:browser, 1. Import. A synthetic export of N pages (bench/data/synthetic-history.ts: 1,000,000
// by default, realistic URLs and titles, 1% planted near-duplicates; each page's passage
// fingerprints, those of a synthetic article of about 700 words, and 1% planted partial copies:
// excerpts and quotes of an earlier page on another host) is written to a temporary folder and
// imported through the real history page (history.html: #import-file, then #import). A
// MutationObserver in the page timestamps every change of #import-form's data-state and of the
// summary line, from the click. Import rate = pages / (click → data-state leaves "importing");
// the time to "done" is printed too, and, inside it, the moment the summary line appears (the
// lines are all written) and what comes after it (today: the table-design migration). CPU time
// of each Chromium process over the import comes from /proc, and the history page's script
// time from CDP Performance.getMetrics, to show where the time goes.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { type ExtensionSession, sleep } from '../../test/e2e/harness';
import { type SyntheticHistory, writeSyntheticHistory } from '../data/synthetic-history';
import { FIRST_RELEASE_HISTORY, IMPORT_CPU_PROFILE, PAGES, POPUPS_WHILE_ORGANISING, POPUP_WHILE_ORGANISING_S, PROFILE_ORGANISING, PASSAGES, PROVENANCE, REWRITES, SEED, TARGETS } from './options';
import { atLeast, cpuList, int, log, mb, ms, progress, results, s } from './output';
import { type PopupLoad, popupLoad } from './popup';
import { median, percentile } from '../shared/stats';
import { chromiumProcesses, chromiumThreads, cpuBetween, extensionPeak, extensionResidentSplit, machineBusy, ownCpu, peakResident, threadCpuBetween } from './processes';
import { rewriteFolding } from './rewrite-folding';
import { profiledInWorker, withWorkerTarget } from './worker-cdp';

/** Writes the synthetic history into `dir` and prints what it holds. */
export async function writeHistory(dir: string): Promise<SyntheticHistory> {
  const t0 = performance.now();
  const history = await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: PAGES, seed: SEED, passages: PASSAGES, rewrites: REWRITES, provenance: PROVENANCE, firstRelease: FIRST_RELEASE_HISTORY });
  const seconds = (performance.now() - t0) / 1000;
  const { partial } = history;
  const excerpts = partial.filter((p) => p.kind === 'excerpt').length;
  const meanShare = partial.reduce((sum, p) => sum + p.share, 0) / partial.length;
  results['synthetic'] = {
    pages: history.pages,
    bytes: history.bytes,
    bytesPerLine: history.bytes / history.pages,
    hosts: history.hosts,
    planted: history.planted.length,
    meanUrlChars: history.meanUrlChars,
    meanTitleChars: history.meanTitleChars,
    passages: history.passages,
    partial: { count: partial.length, excerpts, quotes: partial.length - excerpts, meanShare },
    meanWords: history.meanWords,
    meanFingerprints: history.meanFingerprints,
    passageBytesPerLine: history.passageBytes / history.pages,
    seconds,
  };
  log(
    `Synthetic history (seed ${SEED}): ${int(history.pages)} pages on ${int(history.hosts)} hosts, ${int(history.planted.length)} of them planted near-duplicates ` +
      `of an earlier page on another host (simhash 0–3 bits, check 0–6 bits away); URLs ${history.meanUrlChars.toFixed(1)} and titles ` +
      `${history.meanTitleChars.toFixed(1)} characters on average; NDJSON ${mb(history.bytes)} (${(history.bytes / history.pages).toFixed(0)} bytes a line), written in ${s(seconds)}.`,
  );
  if (history.passages) {
    log(
      `  passages (header "passages":${JSON.stringify(history.passages)}): each page the fingerprints of a synthetic article, mean ${history.meanWords.toFixed(0)} words (300–1,500), ` +
        `${history.meanFingerprints.toFixed(1)} fingerprints a page (${((history.meanFingerprints / history.meanWords) * 100).toFixed(2)} per 100 words), ` +
        `${(history.passageBytes / history.pages).toFixed(0)} of the bytes a line; ${int(partial.length)} planted partial copies of an earlier page on another host ` +
        `(${int(excerpts)} excerpts: its first 30–60% and 20–60 words of their own; ${int(partial.length - excerpts)} 60-word quotes in an article of their own; ` +
        `the copied words' share of the copy: mean ${(meanShare * 100).toFixed(1)}%).`,
    );
  } else {
    log('  no passage fingerprints and no partial copies (--no-passages): the history as it was before passages.');
  }
  if (REWRITES) {
    log(
      `  rewrites (header "rewrites":{"scheme":1,"bits":20,"cap":64}): each page 0.12 pairs of rare words a word, sampled to at most 64 hashes (${history.meanRewriteHashes.toFixed(1)} a page), ` +
        `${(history.rewriteBytes / history.pages).toFixed(0)} of the bytes a line; ${int(history.rewrites.length)} planted rewrites of an earlier page on another host (70% of its pairs kept, its own otherwise).`,
    );
  }
  if (FIRST_RELEASE_HISTORY) log("  as the first release (63168aa) reads it (--first-release-history): passages in version 1 of their bytes (a varint gap and 4 bytes a fingerprint, no word bits), no rewrites or provenance.");
  log(
    PROVENANCE
      ? `  provenance: half the pages state a publication time (0–7 days before first seen), a fifth of the planted copies name their original by canonical link or credit line, 1% of the others another site's page; ${(history.provenanceBytes / history.pages).toFixed(1)} of the bytes a line.`
      : `  no published, source or sourceBy (${FIRST_RELEASE_HISTORY ? '--first-release-history' : '--no-provenance'}): the history as it was before them.`,
  );
  return history;
}

/** Imports `history` through history.html and prints the import's figures; returns them (its finalState and error say whether it finished). */
export async function measureImport(session: ExtensionSession, historyPage: Page, history: SyntheticHistory): Promise<Record<string, unknown>> {
  progress(`Importing ${int(history.pages)} pages through history.html …`);
  // --popups-while-organising: the popup of a stored page (the sample's, in turn) every few seconds while organising runs
  const popups: (PopupLoad & { step: string })[] = [];
  let lastPopup = -Infinity;
  const whileOrganising = POPUPS_WHILE_ORGANISING
    ? async (step: string): Promise<void> => {
        if (performance.now() - lastPopup < POPUP_WHILE_ORGANISING_S * 1000) return;
        lastPopup = performance.now();
        popups.push({ ...(await popupLoad(session, history.sample[popups.length % history.sample.length]!)), step });
      }
    : undefined;
  const imp =
    IMPORT_CPU_PROFILE === undefined
      ? await importThroughHistoryPage(historyPage, history.file, history.pages, undefined, whileOrganising)
      : PROFILE_ORGANISING
        ? await profiledInWorker(session, IMPORT_CPU_PROFILE, 'the import and its organising', () => importThroughHistoryPage(historyPage, history.file, history.pages, undefined, whileOrganising))
        : await profiledInWorker(session, IMPORT_CPU_PROFILE, "the import's saving of the lines", (stopProfile) => importThroughHistoryPage(historyPage, history.file, history.pages, stopProfile, whileOrganising));
  if (POPUPS_WHILE_ORGANISING) {
    const ready = popups.filter((p) => p.state === 'ready').map((p) => p.ms);
    imp['popupsWhileOrganising'] = { opened: popups.length, ready: ready.length, median: median(ready), p99: percentile(ready, 99), states: popups.map((p) => p.state), byStep: popups.map((p) => [p.step, p.ms]) };
  }
  results['import'] = imp;
  log('');
  log('Import (history.html: #import-file, #import; times from the click, taken in the page)');
  const rate = imp['rate'] as number;
  log(`  import rate                     ${int(rate)} pages/s   (${int(history.pages)} pages, click → data-state leaves "importing" after ${s(imp['leftImportingS'] as number)})   target ≥ ${int(TARGETS.importRate)} pages/s: ${atLeast(rate, TARGETS.importRate, (n) => `${int(n)} pages/s`)}`);
  log(`  total, to data-state "${imp['finalState'] as string}"        ${s(imp['doneS'] as number)}`);
  if (POPUPS_WHILE_ORGANISING) {
    const p = imp['popupsWhileOrganising'] as { opened: number; ready: number; median: number; p99: number; states: string[] };
    const others = p.states.filter((state) => state !== 'ready');
    const byStep = new Map<string, number[]>();
    for (const [step, time] of (imp['popupsWhileOrganising'] as { byStep: [string, number][] }).byStep) byStep.set(step, [...(byStep.get(step) ?? []), time]);
    log(`  popup ready while organising    median ${ms(p.median)}, p99 ${ms(p.p99)}  (${p.ready} of ${p.opened} popups ready, one every ${POPUP_WHILE_ORGANISING_S} s from the summary to "done": popup.html?url=<a stored page>, navigation start → data-state="ready"${others.length ? `; the others: ${others.join(', ')}` : ''})`);
    log(`  popup ready by organising step  ${[...byStep].map(([step, times]) => `"${step}" ${times.map((t) => t.toFixed(0)).join(', ')} ms`).join('; ')}`);
  }
  log(`  data-state sequence             ${(imp['states'] as [string, number][]).map(([st, t]) => `"${st}" at ${s(t)}`).join(' → ')}`);
  const summaryS = imp['summaryS'] as number;
  log(`  summary line shown at           ${s(summaryS)} (${int(history.pages / summaryS)} pages/s: every line read and written); after it, until "done": ${s((imp['doneS'] as number) - summaryS)} (organising: the table design if the size calls for another, the groups, the trees merged; lib/organise/regroup.ts organise)`);
  const steps = imp['organising'] as ReturnType<typeof organisingSteps>;
  log(`  organising by step              ${steps.map((o) => `"${o.step}" ${s(o.seconds)}`).join('; ')}  (the history page's progress texts, from each step's first to the next's)`);
  log(`  summary                         ${JSON.stringify(imp['summary'])}${imp['error'] ? `; error: ${JSON.stringify(imp['error'])}` : ''}`);
  log(`  CPU over the import (/proc)     ${cpuList(imp['cpu'] as [string, number][])}  (wall ${s(imp['wallSeconds'] as number)}, ${cpus().length} cores)`);
  log(`  of it, saving the lines          ${cpuList(imp['cpuSaving'] as [string, number][])}  (wall ${s(imp['savingWall'] as number)}, to the first poll after "importing")`);
  log(`  the same by thread (≥ 0.5 s)    ${cpuList(imp['threadsSaving'] as [string, number][])}`);
  log(`  the rest of the machine         ${s(imp['otherCpu'] as number)} of CPU in other processes over the import; mean load average ${(imp['meanLoad'] as number).toFixed(1)}`);
  log(`  history page's main thread      script ${s(imp['historyScriptS'] as number)}, all tasks ${s(imp['historyTaskS'] as number)} (CDP Performance.getMetrics ScriptDuration, TaskDuration)`);
  const split = imp['residentSplitBefore'] as { anon: number; file: number; shmem: number };
  log(`  resident before the import      extension renderer ${mb(imp['residentBefore'] as number)}: allocated ${mb(split.anon)}, mapped files ${mb(split.file)}, shared memory ${mb(split.shmem)}  (RssAnon, RssFile, RssShmem; the history page open, the file chosen, the worker started)`);
  log(`  resident by step (1 s polls)    ${(imp['residentByStep'] as [string, number][]).map(([step, bytes]) => `"${step}" ${mb(bytes)}`).join('; ')}  (the extension renderer's most at a poll during each step: data-state, or the progress text while organising)`);
  log(`  peak (VmHWM) by step            ${(imp['peakByStep'] as [string, number][]).map(([step, bytes]) => `"${step}" ${mb(bytes)}`).join('; ')}  (the extension renderer's VmHWM read at each poll, the most in each step: its peak since Chromium last reset it, which it does now and then)`);
  log(`  worker JS heap by step          ${(imp['workerHeapByStep'] as [string, number, number, number][]).map(([step, used, total, buffers]) => `"${step}" ${mb(used)} of ${mb(total)}, ArrayBuffers ${mb(buffers)}`).join('; ')}  (the most used and allocated, and the most held in ArrayBuffers outside the heap, at a poll: Runtime.getHeapUsage on the worker's target, usedSize, totalSize, backingStorageSize)`);
  log(`  history page JS heap by step    ${(imp['pageHeapByStep'] as [string, number][]).map(([step, used]) => `"${step}" ${mb(used)}`).join('; ')}  (the most used at a poll, performance.memory: it reads the file)`);
  const peaks = peakResident();
  results['peakResident'] = peaks;
  // Linux updates VmHWM lazily (at unmaps and exits): a renderer seen at more in a poll reported less
  const polled = Math.max(...(imp['residentByStep'] as [string, number][]).map(([, bytes]) => bytes));
  results['mostResidentAtPoll'] = polled;
  const atMost = imp['residentSplitAtMost'] as { anon: number; file: number; shmem: number };
  log(`  most resident at a poll         extension renderer ${mb(polled)}: allocated ${mb(atMost.anon)}, mapped files ${mb(atMost.file)}, shared memory ${mb(atMost.shmem)}  (the largest of the 1 s polls above)`);
  const peakAtPolls = Math.max(polled, ...(imp['peakByStep'] as [string, number][]).map(([, bytes]) => bytes));
  results['peakAtPolls'] = peakAtPolls;
  log(`  peak resident at the polls      extension renderer ${mb(peakAtPolls)}  (the most of its VmHWM read at each poll and of its resident memory at the polls: the import and organising)`);
  log(`  peak resident memory (VmHWM)    ${peaks.map(([kind, bytes]) => `${kind} ${mb(bytes)}`).join('; ')}  (each process's VmHWM read at the end: its most since Chromium last reset it, which it does now and then; the extension renderer's read at each poll is above)`);
  if (REWRITES && imp['finalState'] === 'done') {
    const folding = await rewriteFolding(historyPage, history.rewrites);
    results['rewriteFolding'] = folding;
    log(`  planted rewrites, after organising  ${int(folding.folded)} of ${int(folding.located)} in their original's group (the history page folds them); the later-seen page of ${int(folding.laterMarkedCopy)} marked a copy (Sites that copy); ${int(folding.planted)} planted, ${int(folding.located)} found in the store at their lines' ids`);
  }
  return imp;
}

interface ImportTimes {
  /** data-state changes of #import-form, ms after the click. */
  states: [string, number][];
  /** The summary line's texts, ms after the click. */
  summaries: [string, number][];
  /** Where the click happened, performance.now() in the page. */
  clickAt: number;
  /** The progress bar's aria-valuetext (the organising step and its share, as the worker reports them), ms after the click. */
  steps: [string, number][];
}

/** The history page's English words for organising's phases (public/_locales/en/messages.json organise*): the passage index's and the copy marking's shares are steps of their own. */
const PHASE_WORDS = JSON.parse(readFileSync(new URL('../../public/_locales/en/messages.json', import.meta.url), 'utf8')) as Record<string, { message: string }>;

/**
 * Organising's steps from the progress texts: each phase from its first text to the next's; the
 * passage index's shares each a step (a pass's reading, its writing, the marks, the pending list:
 * lib/organise/passage-organise.ts), and so are the copy marking's four parts. Texts of no phase (the lines read) are left out.
 */
function organisingSteps(texts: readonly [string, number][], end: number): { step: string; from: number; seconds: number }[] {
  const out: { step: string; from: number; seconds: number }[] = [];
  for (const [text, t] of texts) {
    const step = stepOf(text);
    if (step === undefined) continue;
    if (out.at(-1)?.step !== step) out.push({ step, from: t, seconds: 0 });
  }
  out.forEach((o, i) => (o.seconds = (out[i + 1]?.from ?? end) - o.from));
  return out;
}

/** The organising step a progress text names (as organisingSteps names them), or undefined. */
function stepOf(text: string): string | undefined {
  const words = ['organiseDesign', 'organiseReading', 'organiseComparing', 'organiseRewrites', 'organiseWriting', 'organisePassages', 'organiseCopies'].map((key) => PHASE_WORDS[key]!.message);
  const phase = words.find((w) => text.startsWith(w));
  if (phase === undefined) return undefined;
  // the passage index's shares, and the copy marking's parts, are steps of their own
  return phase === PHASE_WORDS['organisePassages']!.message || phase === PHASE_WORDS['organiseCopies']!.message ? text : phase;
}

/** The most of each step's samples, in the order the steps first came. */
function mostByStep(samples: readonly [string, number][]): [string, number][] {
  const most = new Map<string, number>();
  for (const [step, bytes] of samples) most.set(step, Math.max(most.get(step) ?? 0, bytes));
  return [...most];
}

const extensionResident = (): number => chromiumProcesses().filter((p) => p.kind.startsWith('extension renderer')).reduce((sum, p) => sum + p.rssBytes, 0);

async function importThroughHistoryPage(history: Page, file: string, pages: number, onSaved?: () => Promise<void>, whileOrganising?: (step: string) => Promise<void>): Promise<Record<string, unknown>> {
  await history.evaluate(() => {
    const w = window as unknown as { __bench: ImportTimes };
    w.__bench = { states: [], summaries: [], clickAt: NaN, steps: [] };
    const form = document.getElementById('import-form')!;
    const bar = document.getElementById('import-progress')!;
    new MutationObserver(() => {
      const text = bar.getAttribute('aria-valuetext') ?? '';
      if (form.dataset['state'] === 'organising' && text !== w.__bench.steps.at(-1)?.[0]) w.__bench.steps.push([text, performance.now()]);
    }).observe(bar, { attributes: true, attributeFilter: ['aria-valuetext'] });
    const summary = document.getElementById('import-summary')!;
    document.getElementById('import')!.addEventListener('click', () => (w.__bench.clickAt = performance.now()), { capture: true });
    new MutationObserver(() => w.__bench.states.push([form.dataset['state'] ?? '', performance.now()])).observe(form, { attributes: true, attributeFilter: ['data-state'] });
    new MutationObserver(() => w.__bench.summaries.push([summary.textContent ?? '', performance.now()])).observe(summary, { childList: true, characterData: true, subtree: true });
  });
  await history.locator('#import-file').setInputFiles(file);
  await history.waitForFunction(() => !(document.getElementById('import') as HTMLButtonElement).disabled);

  const cdp = await history.context().newCDPSession(history);
  await cdp.send('Performance.enable');
  const metrics = async (): Promise<Map<string, number>> => new Map((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const metricsBefore = await metrics();
  const procsBefore = chromiumProcesses();
  const threadsBefore = chromiumThreads();
  let threadsSaving: [string, number][] = [];
  let procsSaving: [string, number][] = [];
  let savingWall = NaN;
  const busyBefore = machineBusy();
  const ownBefore = ownCpu();
  const loads: number[] = [];
  // what the extension renderer holds before the import (the history page open, the file chosen, the worker started): the floor of the figures below
  const residentBefore = extensionResident();
  const residentSplitBefore = extensionResidentSplit();
  let residentSplitAtMost = residentSplitBefore;
  let mostResident = 0;
  const wallStart = performance.now();
  await history.locator('#import').click();

  // the extension renderer's resident memory at each poll, under the step the progress bar names
  const residentSamples: [string, number][] = [];
  // and its peak (VmHWM), read at each poll: Chromium resets a process's VmHWM now and then (seen
  // falling between two polls), so read once at the end it can miss the peak; a peak between two
  // polls is still caught by the next, unless a reset comes first
  const peakSamples: [string, number][] = [];
  // and the worker's JS heap (used, allocated) and ArrayBuffers, through CDP on its target
  const heapSamples: [string, number, number, number][] = [];
  const pageHeapSamples: [string, number][] = [];
  const extensionId = new URL(history.url()).host;
  let lastReport = performance.now();
  await withWorkerTarget(history.context(), extensionId, async (send) => {
  for (;;) {
    await sleep(1000);
    const { state, value, max: total, text, pageHeap } = await history.evaluate(() => {
      const form = document.getElementById('import-form')!;
      const bar = document.getElementById('import-progress') as HTMLProgressElement;
      const heap = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? NaN;
      return { state: form.dataset['state'] ?? '', value: bar.value, max: bar.max, text: bar.getAttribute('aria-valuetext') ?? '', pageHeap: heap };
    });
    loads.push(loadavg()[0]!);
    const step = state === 'organising' ? (stepOf(text) ?? state) : state;
    const resident = extensionResident();
    residentSamples.push([step, resident]);
    peakSamples.push([step, extensionPeak()]);
    if (resident >= mostResident) {
      mostResident = resident;
      residentSplitAtMost = extensionResidentSplit();
    }
    const heap = (await send('Runtime.getHeapUsage').catch(() => undefined)) as { usedSize: number; totalSize: number; backingStorageSize?: number } | undefined;
    if (heap !== undefined) heapSamples.push([step, heap.usedSize, heap.totalSize, heap.backingStorageSize ?? NaN]);
    pageHeapSamples.push([step, pageHeap]);
    if (state !== 'importing' && Number.isNaN(savingWall)) {
      // every line saved (to within the 1 s poll): the CPU of that phase alone, before organising
      savingWall = (performance.now() - wallStart) / 1000;
      procsSaving = cpuBetween(procsBefore, chromiumProcesses());
      threadsSaving = threadCpuBetween(threadsBefore, chromiumThreads());
      await onSaved?.();
    }
    if (state === 'done' || state === 'failed') break;
    if (state === 'organising') await whileOrganising?.(step);
    if (performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      progress(`  importing: ${((value / Math.max(total, 1)) * 100).toFixed(0)}% of the file read, data-state "${state}", ${s((performance.now() - wallStart) / 1000)}; extension renderer resident ${mb(residentSamples.at(-1)![1])}`);
    }
    if (performance.now() - wallStart > 4 * 3600_000) throw new Error('the import did not finish within 4 hours');
  }
  });
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const procsAfter = chromiumProcesses();
  const busy = machineBusy() - busyBefore;
  const own = ownCpu() - ownBefore;
  const metricsAfter = await metrics();
  await cdp.detach().catch(() => {});
  const times = await history.evaluate(() => (window as unknown as { __bench: ImportTimes }).__bench);
  const rel = (t: number): number => (t - times.clickAt) / 1000;
  const states = times.states.map(([state, t]) => [state, rel(t)] as [string, number]);
  const left = states.find(([state]) => state !== 'importing' && states.some(([x]) => x === 'importing'));
  const done = states.find(([state]) => state === 'done' || state === 'failed');
  const finalSummary = times.summaries.filter(([text]) => text !== '' && !text.startsWith('Importing')).at(0);
  const error = await history.locator('#import-error').textContent();
  const metric = (name: string): number => (metricsAfter.get(name) ?? 0) - (metricsBefore.get(name) ?? 0);
  return {
    states,
    leftImportingS: left?.[1] ?? NaN,
    doneS: done?.[1] ?? NaN,
    finalState: done?.[0] ?? 'none',
    summary: finalSummary?.[0] ?? '',
    summaryS: finalSummary ? rel(finalSummary[1]) : NaN,
    error: error ?? '',
    rate: pages / (left?.[1] ?? NaN),
    wallSeconds,
    cpu: cpuBetween(procsBefore, procsAfter),
    savingWall,
    cpuSaving: procsSaving,
    threadsSaving,
    /** CPU seconds of everything else on the machine (not Chromium, not this process) over the import. */
    otherCpu: busy - own - cpuBetween(procsBefore, procsAfter).reduce((sum, [, c]) => sum + c, 0),
    meanLoad: loads.reduce((a, b) => a + b, 0) / Math.max(loads.length, 1),
    historyScriptS: metric('ScriptDuration'),
    historyTaskS: metric('TaskDuration'),
    residentBefore,
    residentSplitBefore,
    residentSplitAtMost,
    residentByStep: mostByStep(residentSamples),
    peakByStep: mostByStep(peakSamples),
    pageHeapByStep: mostByStep(pageHeapSamples),
    workerHeapByStep: mostByStep(heapSamples.map(([step, used]) => [step, used])).map(([step, used]) => [
      step,
      used,
      mostByStep(heapSamples.map(([st, , total]) => [st, total])).find(([st]) => st === step)![1],
      mostByStep(heapSamples.map(([st, , , buffers]) => [st, buffers])).find(([st]) => st === step)![1],
    ]),
    organising: organisingSteps(
      times.steps.map(([text, t]) => [text, rel(t)]),
      done?.[1] ?? NaN,
    ),
  };
}
