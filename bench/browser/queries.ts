// bench:browser, 4. Near-duplicate queries: 200 `report/get` messages (what the popup sends; the
// worker answers through lib/background/recorder.ts: PageStore.getWithNear) sent one after another
// from an extension page with chrome.runtime.sendMessage. Each is timed twice: in the worker, from
// its listener's call to the reply (the User Timing measures of lib/background/timing.ts, read from
// the worker afterwards: the issue's "in the worker"), and in the page, from send to reply (the
// round trip a popup waits). The round trip of `settings/get` (which does no store work) is printed
// as the messaging floor, and the CPU of each Chromium process over the queries shows what else is
// busy. The 200 pages are a seeded choice of imported URLs, 50 of them planted near-duplicates,
// whose originals must be in the reply's `matches`, and (with passages) 50 planted partial copies,
// whose originals must be in its `passages`, and (with rewrites) 25 planted rewrites, whose
// originals must be in its `rewrites` (taken from the other pages: 75 of them then).
import { cpus } from 'node:os';
import type { Page } from 'playwright-core';
import { mulberry32 } from '../../lib/random';
import type { ExtensionSession } from '../../test/e2e/harness';
import type { SyntheticHistory } from '../data/synthetic-history';
import { max, median, percentile } from '../shared/stats';
import { CPU_PROFILE, PASSAGES, QUERIES, REWRITES, SEED, TARGETS } from './options';
import { atMost, cpuList, log, ms, results, s } from './output';
import { chromiumProcesses, cpuBetween } from './processes';
import { profiledInWorker } from './worker-cdp';

/** The imported pages the queries and the popups ask for, each list in a seeded order; `random` goes on to order the queries, then the popups. */
export interface Draws {
  random: () => number;
  /** The planted near-duplicates: the queries take the first ones, the popups the next. */
  planted: SyntheticHistory['planted'];
  /** Pages that are not planted copies. */
  others: string[];
  /** The planted partial copies (none without passages). */
  partial: SyntheticHistory['partial'];
}

export function drawPages(history: SyntheticHistory): Draws {
  const random = mulberry32(SEED + 1);
  const planted = shuffle(random, [...history.planted]);
  const others = shuffle(random, [...history.sample]);
  const partial = shuffle(random, [...history.partial]); // none without passages: the draws after it are as before
  return { random, planted, others, partial };
}

/** Sends the queries and prints their times and answers; returns how many planted near-duplicates they asked for. */
export async function measureQueries(session: ExtensionSession, historyPage: Page, history: SyntheticHistory, { random, planted, others, partial }: Draws): Promise<number> {
  const plantedCount = Math.min(Math.round(QUERIES / 4), planted.length);
  const partialCount = Math.min(Math.round(QUERIES / 4), partial.length);
  const rewritten = shuffle(mulberry32(SEED + 2), [...history.rewrites]); // its own draws: the others are as before rewrites
  const rewriteCount = Math.min(Math.round(QUERIES / 8), rewritten.length);
  const othersCount = QUERIES - plantedCount - partialCount - rewriteCount;
  const queries = shuffle(random, [...planted.slice(0, plantedCount).map((p) => p.copy), ...partial.slice(0, partialCount).map((p) => p.copy), ...others.slice(0, othersCount), ...rewritten.slice(0, rewriteCount).map((r) => r.copy)]);
  const warmups = others.slice(othersCount, othersCount + 5);
  const worker = await session.getWorker();
  // the worker's own time for each message (lib/background/timing.ts): its measures, cleared first
  await worker.evaluate(() => performance.clearMeasures());
  const procsBefore = chromiumProcesses();
  const wallStart = performance.now();
  const warm = await sendTimed(historyPage, 'report/get', warmups);
  const replies = CPU_PROFILE === undefined ? await sendTimed(historyPage, 'report/get', queries) : await profiledInWorker(session, CPU_PROFILE, 'the queries', () => sendTimed(historyPage, 'report/get', queries));
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const cpu = cpuBetween(procsBefore, chromiumProcesses());
  const floor = await sendTimed(historyPage, 'settings/get', Array.from({ length: QUERIES }, () => null));
  const handled = await worker.evaluate(() => ({
    report: performance.getEntriesByName('doppel:report/get').map((e) => e.duration),
    settings: performance.getEntriesByName('doppel:settings/get').map((e) => e.duration),
  }));
  if (handled.report.length !== warmups.length + queries.length || handled.settings.length !== QUERIES) {
    throw new Error(`the worker measured ${handled.report.length} report/get and ${handled.settings.length} settings/get messages, not ${warmups.length + queries.length} and ${QUERIES}`);
  }
  const inWorker = handled.report.slice(warmups.length);
  const times = replies.map((r) => r.ms);
  const failed = replies.filter((r) => !r.ok || r.state !== 'recorded');
  const originalOf = new Map(planted.map((p) => [p.copy, p.original]));
  const plantedQueries = queries.filter((q) => originalOf.has(q));
  const foundOriginal = plantedQueries.filter((q) => replies[queries.indexOf(q)]!.matches.includes(originalOf.get(q)!)).length;
  const matchCounts = replies.map((r) => r.matches.length);
  // planted partial copies: is the original among the pages sharing passages, and with what share of the copy
  const partialFound = partial.slice(0, partialCount).map((p) => ({ ...p, reported: replies[queries.indexOf(p.copy)]!.passages.find((m) => m.url === p.original) }));
  const found = partialFound.filter((p) => p.reported !== undefined);
  const foundOf = (kind: string): string => `${found.filter((p) => p.kind === kind).length}/${partialFound.filter((p) => p.kind === kind).length}`;
  const passageCounts = replies.map((r) => r.passages.length);
  const passages = {
    planted: partialFound.length,
    found: found.length,
    excerpts: foundOf('excerpt'),
    quotes: foundOf('quote'),
    /** Reported share of the copy in its original's passages ÷ the planted share (from fingerprints alone a passage may start up to w − 1 words late and end early). */
    shareRatio: found.reduce((sum, p) => sum + p.reported!.share / p.share, 0) / found.length,
    listedMean: passageCounts.reduce((a, b) => a + b, 0) / passageCounts.length,
  };
  const q = { inWorker: { median: median(inWorker), p99: percentile(inWorker, 99), max: max(inWorker), settingsMedian: median(handled.settings) }, cpu, wallSeconds, count: times.length, median: median(times), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length, max: max(times), floorMedian: median(floor.map((r) => r.ms)), floorP99: percentile(floor.map((r) => r.ms), 99), warmups: warm.map((r) => r.ms), failed: failed.length, planted: plantedQueries.length, foundOriginal, matchesMean: matchCounts.reduce((a, b) => a + b, 0) / matchCounts.length, passages: PASSAGES ? passages : null };
  results['queries'] = q;
  const withPassages = PASSAGES ? ' with passages' : '';
  log('');
  log(
    PASSAGES
      ? `report/get with passages: ${q.count} messages (${plantedCount} planted near-duplicates, ${partialCount} planted partial copies, ${othersCount} other pages), one after another, sent with chrome.runtime.sendMessage from an extension page`
      : `Near-duplicate queries: ${q.count} report/get messages, one after another, sent with chrome.runtime.sendMessage from an extension page`,
  );
  log(`  in the worker: the listener's call to its reply (lib/background/timing.ts measures, read from the worker), the issue's measure`);
  log(`    median                        ${ms(q.inWorker.median)}   target ≤ ${TARGETS.queryMedianMs} ms${withPassages}: ${atMost(q.inWorker.median, TARGETS.queryMedianMs, ms)}`);
  log(`    p99 (${Math.ceil(0.99 * q.count)}th of ${q.count})`.padEnd(34) + `${ms(q.inWorker.p99)}   target ≤ ${TARGETS.queryP99Ms} ms${withPassages}: ${atMost(q.inWorker.p99, TARGETS.queryP99Ms, ms)}`);
  log(`    max                           ${ms(q.inWorker.max)}; settings/get in the worker (no store work): median ${ms(q.inWorker.settingsMedian)}`);
  log(`  round trip: sendMessage to its reply, timed in the page (what the popup waits)`);
  log(`    median                        ${ms(q.median)}   (against the same ${TARGETS.queryMedianMs} ms: ${atMost(q.median, TARGETS.queryMedianMs, ms)})`);
  log(`    p99 (${Math.ceil(0.99 * q.count)}th of ${q.count})`.padEnd(34) + `${ms(q.p99)}   (against the same ${TARGETS.queryP99Ms} ms: ${atMost(q.p99, TARGETS.queryP99Ms, ms)})`);
  log(`    mean, max                     ${ms(q.mean)}, ${ms(q.max)}; the first 5 (warm-up, not counted): ${q.warmups.map((x) => x.toFixed(1)).join(', ')} ms`);
  log(`    messaging floor               settings/get round trip (no store work): median ${ms(q.floorMedian)}, p99 ${ms(q.floorP99)}`);
  log(`  CPU over the ${q.count + q.warmups.length} queries (/proc)  ${cpuList(q.cpu)}  (wall ${s(q.wallSeconds)}, ${cpus().length} cores)`);
  log(`  answers                         ${q.count - q.failed} of ${q.count} recorded; planted copies whose original was listed: ${q.foundOriginal}/${q.planted}; ${q.matchesMean.toFixed(2)} matches per query on average`);
  if (PASSAGES) {
    log(
      `  passages                        ${passages.found}/${passages.planted} planted partial copies found (their original in report.passages: excerpts ${passages.excerpts}, quotes ${passages.quotes})` +
        `${found.length ? `; reported share ÷ planted share, mean ${passages.shareRatio.toFixed(2)}` : ''}; ${passages.listedMean.toFixed(2)} pages in report.passages per query on average` +
        `${passageCounts.every((n) => n === 0) ? ' (no reply listed any: either the worker does not look passages up yet, and the times above hold no such work, or it found none)' : ''}`,
    );
  }
  if (REWRITES) {
    const rewriteFound = rewritten.slice(0, rewriteCount).filter((r) => replies[queries.indexOf(r.copy)]!.rewrites.includes(r.original)).length;
    const rewriteCounts = replies.map((r) => r.rewrites.length);
    results['rewrites'] = { planted: rewriteCount, found: rewriteFound, listedMean: rewriteCounts.reduce((a, b) => a + b, 0) / rewriteCounts.length };
    log(`  rewrites                        ${rewriteFound}/${rewriteCount} planted rewrites found (their original in report.rewrites); ${(rewriteCounts.reduce((a, b) => a + b, 0) / rewriteCounts.length).toFixed(2)} pages in report.rewrites per query on average`);
  }
  if (failed.length) log(`  not recorded                    ${failed.length}; the first: ${JSON.stringify({ state: failed[0]!.state, error: failed[0]!.error })}`);
  return plantedCount;
}

interface QueryResult {
  ms: number;
  ok: boolean;
  state: string;
  matches: string[];
  /** report.passages: the pages sharing passages with this one, and this page's share in them. */
  passages: { url: string; share: number }[];
  /** report.rewrites: the pages this one rewrites or that rewrite it. */
  rewrites: string[];
  error: string;
}

export async function sendTimed(page: Page, type: string, urls: readonly (string | null)[]): Promise<QueryResult[]> {
  return page.evaluate(
    async ({ type, urls }) => {
      type Reply = { ok: boolean; value?: { state?: string; matches?: { url: string }[]; passages?: { url: string; share: number }[]; rewrites?: { url: string }[] }; error?: string } | undefined;
      const { chrome } = globalThis as unknown as { chrome: { runtime: { sendMessage(message: unknown): Promise<Reply> } } };
      const out: QueryResult[] = [];
      for (const url of urls) {
        const started = performance.now();
        const reply = await chrome.runtime.sendMessage({ type, payload: url === null ? {} : { url } });
        const ms = performance.now() - started;
        const passages = (reply?.value?.passages ?? []).map((m) => ({ url: m.url, share: m.share }));
        out.push({ ms, ok: reply?.ok === true, state: reply?.value?.state ?? '', matches: (reply?.value?.matches ?? []).map((m) => m.url), passages, rewrites: (reply?.value?.rewrites ?? []).map((m) => m.url), error: reply?.error ?? '' });
      }
      return out;
    },
    { type, urls },
  );
}

/** Shuffles `items` in place with `random` (Fisher–Yates); returns them. */
export function shuffle<T>(random: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
