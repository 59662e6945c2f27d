// bench:browser, 5. The popup: popup.html?url=<a stored page> opened in a new tab; time from
// navigation start (performance.timeOrigin) to data-state="ready", taken in the page by a
// MutationObserver installed before the popup's own script runs. With the worker running, then with
// the worker stopped first over CDP (as Chrome stops an idle worker after 30 s); for those, the
// steps on the way, placed on the popup's clock by the two time origins: the popup's script, the
// worker's start, its marks doppel:worker-main and doppel:worker-listening, its report/get measure.
import { type ExtensionSession, sleep, stopServiceWorker } from '../../test/e2e/harness';
import { max, median } from '../shared/stats';
import { POPUPS, QUERIES, TARGETS } from './options';
import { atMost, log, ms, results } from './output';
import { type Draws, shuffle } from './queries';

/** Opens popups for pages the queries did not ask for (the planted near-duplicates after the first `plantedCount`) and prints their times. */
export async function measurePopups(session: ExtensionSession, { random, planted, others }: Draws, plantedCount: number): Promise<void> {
  const popupUrls = shuffle(random, [...planted.slice(plantedCount, plantedCount + POPUPS).map((p) => p.copy), ...others.slice(QUERIES, QUERIES + POPUPS)]).slice(0, POPUPS + Math.ceil(POPUPS / 4));
  const warmPopups: PopupLoad[] = [];
  for (const url of popupUrls.slice(0, POPUPS)) warmPopups.push(await popupLoad(session, url));
  const coldPopups: PopupLoad[] = [];
  // Where a stopped-first load's time goes, from the popup's navigation start: its script runs;
  // the worker starts (its time origin), its bundle's modules are evaluated and its main runs
  // (the marks doppel:worker-main and doppel:worker-listening); its listener gets report/get
  // and replies (the doppel:report/get measure); the popup is ready.
  const coldSteps: { script: number; workerStart: number; workerMain: number; workerListening: number; received: number; replied: number; ready: number }[] = [];
  for (const url of popupUrls.slice(POPUPS)) {
    await stopServiceWorker(session.ctx, session.extensionId);
    const load = await popupLoad(session, url);
    coldPopups.push(load);
    const seen = await (await session.getWorker()).evaluate(() => {
      const measures = performance.getEntriesByName('doppel:report/get', 'measure');
      const first = measures[0];
      const [main, listening] = ['doppel:worker-main', 'doppel:worker-listening'].map((name) => performance.getEntriesByName(name, 'mark')[0]?.startTime ?? NaN);
      return { origin: performance.timeOrigin, start: first?.startTime ?? NaN, duration: first?.duration ?? NaN, main: main!, listening: listening! };
    });
    const workerStart = seen.origin - load.origin;
    coldSteps.push({
      script: load.scriptAt,
      workerStart,
      workerMain: workerStart + seen.main,
      workerListening: workerStart + seen.listening,
      received: workerStart + seen.start,
      replied: workerStart + seen.start + seen.duration,
      ready: load.ms,
    });
  }
  await session.getWorker();
  const warmMs = warmPopups.filter((p) => p.state === 'ready').map((p) => p.ms);
  const coldMs = coldPopups.filter((p) => p.state === 'ready').map((p) => p.ms);
  const popup = { warm: warmPopups, cold: coldPopups, warmMedian: median(warmMs), warmMax: max(warmMs), coldMedian: median(coldMs), coldMax: max(coldMs) };
  results['popup'] = popup;
  const notReady = [...warmPopups, ...coldPopups].filter((p) => p.state !== 'ready');
  log('');
  log('Popup: popup.html?url=<a stored page> in a new tab, navigation start → data-state="ready" (MutationObserver in the page)');
  log(`  worker running (${warmMs.length} loads)       median ${ms(popup.warmMedian)}, max ${ms(popup.warmMax)}   target ≤ ${TARGETS.popupReadyMs} ms (median): ${atMost(popup.warmMedian, TARGETS.popupReadyMs, ms)}`);
  log(`  worker stopped first (${coldMs.length} loads)  median ${ms(popup.coldMedian)}, max ${ms(popup.coldMax)}   (Chrome stops an idle worker after 30 s: the usual case for a click on the icon)`);
  const step = (key: keyof (typeof coldSteps)[number]): string => ms(median(coldSteps.map((c) => c[key]).filter(Number.isFinite)));
  log(`    on the way (median, from the popup's navigation start): popup script ${step('script')} → worker started ${step('workerStart')} → its script's main ${step('workerMain')} → listening ${step('workerListening')} → report/get received ${step('received')} → replied ${step('replied')} → ready ${step('ready')}`);
  if (notReady.length) log(`  not ready: ${notReady.map((p) => p.state).join(', ')}`);
}

/** A popup load: its first settled state and when (ms from navigation start), its time origin, and when its script ran (the navigation's domInteractive). */
export interface PopupLoad {
  state: string;
  ms: number;
  origin: number;
  scriptAt: number;
}

/** Opens popup.html?url= in a new tab; ms from navigation start to the first settled data-state. */
export async function popupLoad(ext: ExtensionSession, url: string): Promise<PopupLoad> {
  const page = await ext.ctx.newPage();
  try {
    await page.addInitScript(() => {
      const w = window as unknown as { __states: [string, number][] };
      w.__states = [];
      new MutationObserver((records) => {
        for (const r of records) w.__states.push([(r.target as Element).getAttribute('data-state') ?? '', performance.now()]);
      }).observe(document, { attributes: true, attributeFilter: ['data-state'], subtree: true });
    });
    await page.goto(ext.popupUrl(url), { waitUntil: 'domcontentloaded' });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { states, origin, scriptAt } = await page.evaluate(() => ({
        states: (window as unknown as { __states: [string, number][] }).__states,
        origin: performance.timeOrigin,
        scriptAt: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.domInteractive ?? NaN,
      }));
      const settled = states.find(([state]) => state !== 'loading');
      if (settled) return { state: settled[0], ms: settled[1], origin, scriptAt };
      if (Date.now() > deadline) return { state: 'timeout', ms: NaN, origin, scriptAt };
      await sleep(10);
    }
  } finally {
    await page.close();
  }
}
