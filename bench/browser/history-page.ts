// bench:browser, 5b. The history page: history.html opened five times; navigation start → the
// performance mark "doppel:history-first-screen" (the first chunk of entries drawn). Then 20
// scrolls to the end of the list, each timed until the next chunk is drawn, with a longtask observer.
import type { ExtensionSession } from '../../test/e2e/harness';
import { max, median } from '../shared/stats';
import { TARGETS } from './options';
import { atMost, int, log, ms, results } from './output';

/** Opens history.html five times, scrolls the last, and prints the times. */
export async function measureHistoryPage(session: ExtensionSession): Promise<void> {
  const HISTORY_LOADS = 5;
  const firstScreens: number[] = [];
  const phases: Record<string, number[]> = {}; // the page's own marks on the way to its first screen
  let scroll: { chunkMs: number[]; longestTask: number; entries: number } | undefined;
  let afterFirst: Record<string, number> = {};
  let longTasks: [number, number][] = []; // [start, duration] of every task over 50 ms in the last load
  for (let i = 0; i < HISTORY_LOADS; i++) {
    const tab = await session.ctx.newPage();
    await tab.addInitScript(() => {
      const w = window as unknown as { __longest: number; __longTasks: [number, number][] };
      w.__longest = 0;
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          w.__longest = Math.max(w.__longest, entry.duration);
          w.__longTasks.push([entry.startTime, entry.duration]);
        }
      }).observe({ type: 'longtask', buffered: true });
    });
    await tab.goto(`chrome-extension://${session.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
    await tab.locator('#list[data-state="ready"]').waitFor({ state: 'attached', timeout: 60_000 });
    firstScreens.push(await tab.evaluate(() => performance.getEntriesByName('doppel:history-first-screen')[0]?.startTime ?? NaN));
    const marks = await tab.evaluate(() => performance.getEntriesByType('mark').filter((m) => m.name.startsWith('doppel:history-')).map((m) => [m.name, m.startTime] as [string, number]));
    for (const [name, at] of marks) (phases[name] ??= []).push(at);
    if (i === HISTORY_LOADS - 1) {
      await tab.evaluate(() => ((window as unknown as { __longest: number }).__longest = 0));
      const chunkMs: number[] = [];
      for (let c = 0; c < 20; c++) {
        const before = await tab.locator('#list .chunk').count();
        const started = Date.now();
        await tab.locator('#list-end').scrollIntoViewIfNeeded();
        await tab.waitForFunction((n) => document.querySelectorAll('#list .chunk').length > n, before, { timeout: 30_000 });
        chunkMs.push(Date.now() - started);
      }
      scroll = {
        chunkMs,
        longestTask: await tab.evaluate(() => (window as unknown as { __longest: number }).__longest),
        entries: await tab.locator('#list .entry').count(),
      };
      // what the page reads after its first screen: the counts and the sites table
      await tab.waitForFunction(() => ['doppel:history-overview', 'doppel:history-sites'].every((n) => performance.getEntriesByName(n).length > 0), null, { timeout: 120_000 }).catch(() => {});
      longTasks = await tab.evaluate(() => (window as unknown as { __longTasks: [number, number][] }).__longTasks);
      afterFirst = await tab.evaluate(() => Object.fromEntries(['doppel:history-overview', 'doppel:history-sites'].map((n) => [n.slice('doppel:history-'.length), performance.getEntriesByName(n)[0]?.startTime ?? NaN])));
    }
    await tab.close();
  }
  results['historyPage'] = { firstScreens, phases, scroll, afterFirst, longTasks };
  log('');
  log('History page: history.html in a new tab, navigation start → first screen drawn (performance mark "doppel:history-first-screen")');
  log(`  first screen (${HISTORY_LOADS} loads)            median ${ms(median(firstScreens))}, max ${ms(max(firstScreens))} (in order: ${firstScreens.map((x) => x.toFixed(0)).join(', ')} ms)   target ≤ ${TARGETS.historyFirstScreenMs} ms: ${atMost(median(firstScreens), TARGETS.historyFirstScreenMs, ms)}`);
  log(`  on the way (marks, median)      ${Object.entries(phases).sort((a, b) => median(a[1]) - median(b[1])).map(([name, at]) => `${name.slice('doppel:history-'.length)} ${ms(median(at))}`).join(' → ')}`);
  if (scroll) {
    log(`  scrolling: 20 chunks of 40 entries, scroll → next chunk drawn: median ${ms(median(scroll.chunkMs))}, max ${ms(max(scroll.chunkMs))}; ${int(scroll.entries)} entries drawn`);
    log(`  longest main-thread task while scrolling (longtask observer; 0 = none over 50 ms): ${ms(scroll.longestTask)}   target ≤ ${TARGETS.historyTaskMs} ms: ${atMost(scroll.longestTask, TARGETS.historyTaskMs, ms)}`);
    log(`  after the first screen (last load, from navigation start): counts shown at ${ms(afterFirst['overview'] ?? NaN)}, sites table at ${ms(afterFirst['sites'] ?? NaN)}`);
    log(`  tasks over 50 ms in the last load (start: duration) ${longTasks.length ? longTasks.map(([at, d]) => `${ms(at)}: ${ms(d)}`).join(', ') : 'none'}`);
  }
}
