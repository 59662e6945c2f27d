// bench:browser, 7. A burst of tabs: 30 news articles (test/e2e/news-articles.ts) served on
// 127.0.0.1 and opened in 30 tabs at once (test/e2e/burst.ts), each run in a fresh browser and
// profile of its own, first with the worker left running, then with it stopped over CDP once the
// first page is seen stored (while it reads and stores the others). Printed: when every page was
// stored, how many were, and the worker's cost a page from its own User Timing measures
// (lib/background/timing.ts): from the message to the reply, which follows the stored record
// (`doppel:page/html`: the wait for the pages ahead of it included), and its stages (the reader
// document's reading, the fingerprints, the store's transaction), where the build has them.
import { canonicalUrl } from '../../lib/url';
import { burstOfTabs } from '../../test/e2e/burst';
import { type ExtensionSession, type Site, launchWithExtension, servePages } from '../../test/e2e/harness';
import { NEWS_ROUTES, SUBJECTS, newsPath } from '../../test/e2e/news-articles';
import { median, percentile } from '../shared/stats';
import { BURST_RUNS, EXTENSION_DIR } from './options';
import { log, ms, progress, results, s } from './output';

const TABS = 30;
/** The target: every page stored within 30 s of the stop. */
const STOPPED_WITHIN_MS = 30_000;
const MEASURES = ['doppel:page/html', 'doppel:stage/read', 'doppel:stage/fingerprint', 'doppel:stage/store'] as const;

interface BurstRun {
  stop: boolean;
  loadedAt: number;
  stoppedAt: number | null;
  stored: number;
  /** How many were stored when the worker was seen stopped (NaN without a stop). */
  storedByStop: number;
  /** When the last page was stored (ms after the tabs opened); NaN if none was. */
  lastStoredAt: number;
  /** The durations of each measure in the worker (after the stop: the worker that started again). */
  measures: Record<string, number[]>;
}

/** The burst runs, `BURST_RUNS` with the worker running and as many with it stopped, each in a fresh browser. */
export async function measureBursts(sites: Site[]): Promise<void> {
  const site = await servePages(NEWS_ROUTES);
  sites.push(site);
  const urls = SUBJECTS.slice(0, TABS).map((subject) => site.url(newsPath(subject)));
  const runs: BurstRun[] = [];
  for (let run = 1; run <= BURST_RUNS; run++) {
    for (const stop of [false, true]) {
      progress(`Burst of ${TABS} tabs, run ${run} of ${BURST_RUNS}, the worker ${stop ? 'stopped once the first page is stored' : 'left running'} …`);
      runs.push(await burstRun(urls, site, stop));
    }
  }
  results['burst'] = runs;
  const running = runs.filter((r) => !r.stop);
  const stopped = runs.filter((r) => r.stop);
  const seconds = (xs: number[]): string => `${xs.map((x) => (x / 1000).toFixed(1)).join(' / ')} s (median ${s(median(xs) / 1000)})`;
  log('');
  log(`Burst: ${TABS} news articles on 127.0.0.1 opened in ${TABS} tabs at once, ${BURST_RUNS} run(s) each in a fresh browser (test/e2e/burst.ts); times from the opening`);
  log(`  worker left running: tabs loaded at ${seconds(running.map((r) => r.loadedAt))}; all stored at ${seconds(running.map((r) => r.lastStoredAt))}; stored ${running.map((r) => r.stored).join(' / ')} of ${TABS}`);
  const all = (name: string): number[] => running.flatMap((r) => r.measures[name] ?? []);
  for (const name of MEASURES) {
    const xs = all(name);
    if (xs.length > 0) log(`    in the worker, a page's ${name.padEnd(24)} median ${ms(median(xs))}, p99 ${ms(percentile(xs, 99))} (${xs.length} pages)`);
  }
  const store = all('doppel:stage/store');
  const read = all('doppel:stage/read');
  if (store.length > 0) log(`    summed over the burst: reading ${s(read.reduce((a, b) => a + b, 0) / 1000 / BURST_RUNS)}, storing ${s(store.reduce((a, b) => a + b, 0) / 1000 / BURST_RUNS)} a run (each page's wait for its turn included)`);
  log(`  worker stopped once the first page was seen stored: stopped at ${seconds(stopped.map((r) => r.stoppedAt ?? NaN))} with ${stopped.map((r) => r.storedByStop).join(' / ')} stored; stored ${stopped.map((r) => r.stored).join(' / ')} of ${TABS}; the last ${seconds(stopped.map((r) => r.lastStoredAt - (r.stoppedAt ?? NaN)))} after the stop   target ${TABS} of ${TABS} within ${STOPPED_WITHIN_MS / 1000} s: ${stopped.every((r) => r.stored === TABS && r.lastStoredAt - (r.stoppedAt ?? 0) <= STOPPED_WITHIN_MS) ? 'met' : 'MISSED'}`);
  const restarted = stopped.flatMap((r) => r.measures['doppel:page/html'] ?? []);
  if (restarted.length > 0) log(`    the worker started again: a page's doppel:page/html median ${ms(median(restarted))}, p99 ${ms(percentile(restarted, 99))} (${restarted.length} pages)`);
}

async function burstRun(urls: string[], site: Site, stop: boolean): Promise<BurstRun> {
  const ext = await launchWithExtension(EXTENSION_DIR);
  try {
    await ext.ctx.route((url) => (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '127.0.0.1', (route) => route.abort('internetdisconnected'));
    const watcher = await ext.ctx.newPage();
    await watcher.goto(ext.popupUrl(site.url('/')), { waitUntil: 'domcontentloaded' });
    const burst = await burstOfTabs(ext, watcher, urls, { ...(stop ? { stopAfterStored: 1 } : {}), timeoutMs: 120_000 });
    const times = urls.map((url) => burst.storedAt.get(canonicalUrl(url))).filter((t): t is number => t !== undefined);
    const storedByStop = burst.stoppedAt === null ? NaN : times.filter((t) => t <= burst.stoppedAt!).length;
    return { stop, loadedAt: burst.loadedAt, stoppedAt: burst.stoppedAt, stored: times.length, storedByStop, lastStoredAt: times.length ? Math.max(...times) : NaN, measures: await workerMeasures(ext) };
  } finally {
    await ext.close();
  }
}

/** The durations of MEASURES on the worker's timeline, by name. */
async function workerMeasures(ext: ExtensionSession): Promise<Record<string, number[]>> {
  const worker = await ext.getWorker();
  return worker.evaluate((names) => Object.fromEntries(names.map((name) => [name, performance.getEntriesByName(name).map((e) => e.duration)])), [...MEASURES]);
}
