// bench:browser, 3. The worker's memory after the import: CDP Runtime.getHeapUsage on the service
// worker's own target (attached through Target.attachToTarget from a page session: worker-cdp.ts),
// before and after a HeapProfiler.collectGarbage; the history page's heap beside it. Again after
// the queries and popups.
import type { Page } from 'playwright-core';
import type { ExtensionSession } from '../../test/e2e/harness';
import { log, mb, results } from './output';
import { withWorkerTarget } from './worker-cdp';

/** Prints the worker's heap and the history page's after the import. */
export async function memoryAfterImport(session: ExtensionSession, historyPage: Page): Promise<void> {
  const heap = await workerHeap(session);
  results['workerHeapAfterImport'] = heap;
  log('');
  log("Worker memory after the import (CDP Runtime.getHeapUsage on the service worker's target)");
  log(`  JS heap used                    ${mb(heap.before.usedSize)} of ${mb(heap.before.totalSize)} allocated; ${mb(heap.afterGc.usedSize)} after HeapProfiler.collectGarbage`);
  const pageHeap = await historyPage.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? NaN);
  // performance.memory counts garbage not yet collected: the heap the import keeps is what is left after a collection
  const pageCdp = await historyPage.context().newCDPSession(historyPage);
  await pageCdp.send('HeapProfiler.collectGarbage');
  const { usedSize: pageHeapAfterGc } = await pageCdp.send('Runtime.getHeapUsage');
  await pageCdp.detach();
  log(`  (the history page, which read the file: its JS heap ${mb(pageHeap)} after the import, performance.memory; ${mb(pageHeapAfterGc)} after a GC, Runtime.getHeapUsage)`);
  results['historyPageHeap'] = pageHeap;
  results['historyPageHeapAfterGc'] = pageHeapAfterGc;
}

/** Prints the worker's heap after the queries and popups. */
export async function memoryAfterQueries(session: ExtensionSession): Promise<void> {
  const heapLater = await workerHeap(session);
  results['workerHeapAfterQueries'] = heapLater;
  log(`  worker JS heap after the queries and popups: ${mb(heapLater.before.usedSize)} used, ${mb(heapLater.afterGc.usedSize)} after a GC`);
}

interface HeapUsage {
  usedSize: number;
  totalSize: number;
}

async function workerHeap(ext: ExtensionSession): Promise<{ before: HeapUsage; afterGc: HeapUsage }> {
  await ext.getWorker(); // started if it was stopped
  return withWorkerTarget(ext.ctx, ext.extensionId, async (send) => {
    const before = (await send('Runtime.getHeapUsage')) as HeapUsage;
    await send('HeapProfiler.collectGarbage');
    const afterGc = (await send('Runtime.getHeapUsage')) as HeapUsage;
    return { before, afterGc };
  });
}
