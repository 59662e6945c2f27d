// bench:browser, 6. The content script: the 130 pages of
// ../shared/corpus/readability-test-pages/*/source.html served on 127.0.0.1 and visited one by one,
// each in a trace (CDP Tracing) until the worker has its outcome; bench/browser/main-thread.ts
// counts the page main-thread tasks that ran content script code. Then a few pages at and past the
// caps (elements, depth, text length).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CDPSession, Page, Worker } from 'playwright-core';
import { MAX_DEPTH, MAX_ELEMS_TO_PARSE, MAX_READABILITY_WORK, MAX_TEXT_CHARS } from '../../lib/content/page-reader';
import { BLOCK_PAGES } from '../../lib/rows/blocks';
import { FIELD_TREES, textKey } from '../../lib/rows/page-rows';
import { deeperThanSelector, readabilityWork } from '../../lib/text/reading';
import { canonicalUrl } from '../../lib/url';
import { hugeTextPage, manyElementsPage } from '../../test/e2e/generated-pages';
import { type ExtensionSession, type Site, servePages, sleep } from '../../test/e2e/harness';
import { max, median, percentile } from '../shared/stats';
import { type ScriptTasks, type TraceEvent, TRACE_CATEGORIES, contentScriptTasks } from './main-thread';
import { CORPUS_DIR, HOSTILE_DIR, TARGETS } from './options';
import { atMost, log, ms, progress, results } from './output';
import type { RawSession } from './worker-cdp';

/** Visits the corpus pages, then the pages at and past the caps, and prints the content script's main-thread time; the servers it starts are added to `sites` (closed by the caller). */
export async function measureContentScript(session: ExtensionSession, sites: Site[]): Promise<void> {
  log('');
  if (!existsSync(CORPUS_DIR)) {
    log(`Content script: skipped, the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`);
  } else {
    const names = readdirSync(CORPUS_DIR).filter((n) => existsSync(join(CORPUS_DIR, n, 'source.html'))).sort();
    const corpusSite = await servePages(CORPUS_DIR);
    sites.push(corpusSite);
    const tab = await session.ctx.newPage();
    const cdp = await session.ctx.newCDPSession(tab);
    const visits: TracedVisit[] = [];
    progress(`Visiting ${names.length} corpus pages with tracing …`);
    for (const name of names) visits.push(await traceVisit(cdp, session, tab, name, corpusSite.url(`/${encodeURIComponent(name)}/source.html`), 20_000));
    const ran = visits.filter((v) => v.tasks.ran);
    const totals = ran.map((v) => v.tasks.totalMs);
    const longest = ran.reduce<TracedVisit | undefined>((m, v) => (!m || v.tasks.longestMs > m.tasks.longestMs ? v : m), undefined);
    const outcomes = new Map<string, number>();
    for (const v of visits) outcomes.set(v.outcome, (outcomes.get(v.outcome) ?? 0) + 1);
    const c = {
      pages: visits.length,
      ran: ran.length,
      median: median(totals),
      p95: percentile(totals, 95),
      max: max(totals),
      longestTask: longest?.tasks.longestMs ?? NaN,
      longestTaskPage: longest?.name ?? '',
      sampledMedian: median(ran.map((v) => v.tasks.sampledMs)),
      injectionMedian: median(ran.map((v) => v.tasks.tasks[0] ?? 0)),
      longestTaskMedian: median(ran.map((v) => v.tasks.longestMs)),
      tasksPerPage: median(ran.map((v) => v.tasks.tasks.length)),
      outcomes: [...outcomes].sort((a, b) => b[1] - a[1]),
      slowest: [...ran].sort((a, b) => b.tasks.totalMs - a.tasks.totalMs).slice(0, 5).map((v) => ({ name: v.name, totalMs: v.tasks.totalMs, longestMs: v.tasks.longestMs, outcome: v.outcome })),
      simpleReading: ran.filter((v) => v.pastCaps).map((v) => v.name),
      perPage: visits.map((v) => ({ name: v.name, outcome: v.outcome, totalMs: v.tasks.totalMs, longestMs: v.tasks.longestMs, sampledMs: v.tasks.sampledMs, tasks: v.tasks.tasks.length })),
    };
    results['contentScript'] = c;
    log(`Content script: ${c.pages} corpus pages (${CORPUS_DIR}) served on 127.0.0.1, each visited in a CDP trace until the worker had its outcome (+0.3 s);`);
    log('  per page, the main-thread tasks that ran content-script code (bench/browser/main-thread.ts), summed');
    log(`  median                          ${ms(c.median)}   target ≤ ${TARGETS.contentMedianMs} ms: ${atMost(c.median, TARGETS.contentMedianMs, ms)}`);
    log(`  p95                             ${ms(c.p95)}   target ≤ ${TARGETS.contentP95Ms} ms: ${atMost(c.p95, TARGETS.contentP95Ms, ms)}`);
    log(`  max                             ${ms(c.max)}`);
    log(`  longest single task             ${ms(c.longestTask)} (${c.longestTaskPage})   target ≤ ${TARGETS.longestTaskMs} ms: ${atMost(c.longestTask, TARGETS.longestTaskMs, ms)}`);
    log(`  tasks per page (median)         ${c.tasksPerPage}: injection (compile and run the bundle) median ${ms(c.injectionMedian)}; the page's longest task median ${ms(c.longestTaskMedian)} (the capture: the caps' checks and the page's HTML, or the simple reading past the caps, then the message; builds before d3410d6 ran Readability on a clone here)`);
    log(`  CPU-profile time in content-script frames: median ${ms(c.sampledMedian)} per page`);
    log(`  content script ran on           ${c.ran} of ${c.pages} pages; outcomes: ${c.outcomes.map(([o, n]) => `${n} ${o}`).join('; ')}`);
    log(`  past the caps (simple reading)  ${c.simpleReading.length} of ${c.ran}${c.simpleReading.length ? `: ${c.simpleReading.join(', ')}` : ''}`);
    log(`  slowest pages                   ${c.slowest.map((v) => `${v.name} ${ms(v.totalMs)} (longest task ${ms(v.longestMs)})`).join('; ')}`);

    // Pages at and past the caps.
    const capSite = await servePages({
      '/elements-19000.html': manyElementsPage(19_000),
      '/elements-200000.html': manyElementsPage(200_000),
      '/text-20mb.html': hugeTextPage(20_000_000),
      '/text-450k.html': hugeTextPage(450_000),
      '/text-2mb.html': hugeTextPage(2_000_000),
      '/deep.html': readFileSync(join(HOSTILE_DIR, 'deep.html'), 'utf8'),
    });
    sites.push(capSite);
    const caps: [string, string][] = [
      [`19,000 elements (under the ${MAX_ELEMS_TO_PARSE.toLocaleString('en')}-element cap: Readability)`, '/elements-19000.html'],
      ['200,000 elements (past it: the simple reading)', '/elements-200000.html'],
      [`450 kB of text (under the work cap of ${MAX_READABILITY_WORK.toLocaleString('en')}: Readability)`, '/text-450k.html'],
      [`2 MB of text (past it: the simple reading, text cut at ${MAX_TEXT_CHARS.toLocaleString('en')})`, '/text-2mb.html'],
      ['20 MB of text (past it: the simple reading, cut)', '/text-20mb.html'],
      [`190 levels deep (under the ${MAX_DEPTH}-level cap: Readability)`, '/deep.html?levels=190&rendered'],
      ['500 levels deep (past it, laid out: the simple reading)', '/deep.html?levels=500&rendered'],
      ['5,000 levels deep (past it, not laid out: the simple reading)', '/deep.html?levels=5000'],
    ];
    const capVisits: TracedVisit[] = [];
    progress('Visiting the pages at and past the caps …');
    for (const [name, path] of caps) capVisits.push(await traceVisit(cdp, session, tab, name, capSite.url(path), 60_000));
    results['caps'] = capVisits.map((v) => ({ name: v.name, outcome: v.outcome, totalMs: v.tasks.totalMs, longestMs: v.tasks.longestMs, tasks: v.tasks.tasks }));
    log('');
    log('Pages at and past the caps (not in the figures above): outcome; content-script main-thread time; longest task');
    for (const v of capVisits) log(`  ${v.name.padEnd(66)} ${v.outcome}; ${ms(v.tasks.totalMs)}; longest ${ms(v.tasks.longestMs)}`);
    await cdp.detach().catch(() => {});
  }
}

interface TracedVisit {
  name: string;
  url: string;
  outcome: string;
  tasks: ScriptTasks;
  /** Whether the page is past the content script's caps (so it got the simple reading), judged after the visit. */
  pastCaps: boolean;
}

/** Visits `url` in `tab` in a trace until the worker has handled it (or `timeout` ms pass); the content script's main-thread tasks there. */
async function traceVisit(cdp: CDPSession, ext: ExtensionSession, tab: Page, name: string, url: string, timeout: number): Promise<TracedVisit> {
  const raw = cdp as unknown as RawSession;
  await tab.goto('about:blank');
  const events: TraceEvent[] = [];
  const collect = (e: { value: TraceEvent[] }): void => {
    for (const event of e.value) events.push(event);
  };
  raw.on('Tracing.dataCollected', collect);
  let completed = (): void => {};
  const complete = new Promise<void>((ok) => (completed = ok));
  const onComplete = (): void => completed();
  raw.on('Tracing.tracingComplete', onComplete);
  await raw.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: TRACE_CATEGORIES, excludedCategories: ['*'] } });
  let outcome = '';
  let pastCaps = false;
  try {
    await tab.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    const handled = await waitHandled(ext, canonicalUrl(url), timeout);
    outcome = handled === null ? `not handled within ${timeout / 1000} s` : handled.state === 'recorded' ? 'recorded' : `${handled.state}: ${(handled as { reason: string }).reason}`;
    await sleep(300);
    // The caps of lib/content/page-reader.ts, judged the way lib/text/extract.ts does, on the page as it is now.
    const size = await tab.evaluate(
      (tooDeep) => ({
        elements: document.querySelectorAll('*').length,
        chars: document.body?.textContent?.length ?? 0,
        deep: document.querySelector(tooDeep) !== null,
      }),
      deeperThanSelector(MAX_DEPTH),
    );
    pastCaps = size.elements > MAX_ELEMS_TO_PARSE || readabilityWork(size.elements, size.chars) > MAX_READABILITY_WORK || size.deep;
  } catch (error) {
    outcome = `load failed: ${(error as Error).message.split('\n')[0]}`;
  }
  await raw.send('Tracing.end');
  await complete;
  raw.off('Tracing.dataCollected', collect);
  raw.off('Tracing.tracingComplete', onComplete);
  const scriptUrl = `chrome-extension://${ext.extensionId}/content-scripts/content.js`;
  return { name, url, outcome, pastCaps, tasks: contentScriptTasks(events, scriptUrl) };
}

// ---------------------------------------------------------------------------------------------
// In the worker: whether a page has been handled (recorded, or a not-article outcome).

type Handled = { state: 'recorded' } | { state: string; reason: string } | null;

async function handledInWorker(worker: Worker, url: string): Promise<Handled> {
  // Version 7 keeps a page in a block of 64 (lib/rows/blocks.ts), found through the url tree of
  // sorted runs (lib/rows/page-rows.ts): a lookup of the URL's hash in each run of the tree gives
  // candidate ids, and each candidate's block is read and its slot's URL compared. lib/ is not
  // importable in the worker: the hash is taken here, the rest is lib/index/runs.ts's `lookup`
  // written out (a key's entries in a run are all in the last chunk whose first key is at most it).
  const key = textKey(url);
  const spec = { tree: FIELD_TREES.url.tree, stride: FIELD_TREES.url.stride, blockPages: BLOCK_PAGES };
  return worker.evaluate(
    async ({ address, key, spec }) => {
      // (no named functions in here: tsx, which runs this file, would wrap them in a helper the worker lacks)
      type ChromeLike = { chrome: { storage: { session: { get(key: string): Promise<Record<string, { state: string; reason: string } | undefined>> } } } };
      type Run = { tree: number; level: number; run: number; firsts: number[] };
      const { chrome } = globalThis as unknown as ChromeLike;
      // Never open (and so create) the database if it is not there yet.
      if ((await indexedDB.databases()).some((d) => d.name === 'doppel')) {
        const db = await new Promise<IDBDatabase>((ok, fail) => {
          const open = indexedDB.open('doppel');
          open.onsuccess = () => ok(open.result);
          open.onerror = () => fail(open.error);
        });
        try {
          if (db.objectStoreNames.contains('blocks')) {
            // the run index, then the chunk of each run of the url tree that can hold the key, then the
            // candidates' blocks, in one readonly transaction (each step is started from the last one's
            // success event); the inflating after it
            const candidates = await new Promise<{ slot: number; value: unknown }[]>((ok, fail) => {
              const tx = db.transaction(['meta', 'runs', 'blocks'], 'readonly');
              const reads: { slot: number; request: IDBRequest }[] = [];
              tx.oncomplete = () => ok(reads.map(({ slot, request }) => ({ slot, value: request.result as unknown })));
              tx.onerror = () => fail(tx.error);
              const index = tx.objectStore('meta').get('runs');
              index.onsuccess = () => {
                for (const run of ((index.result as { runs?: Run[] } | undefined)?.runs ?? []).filter((r) => r.tree === spec.tree)) {
                  let c = -1;
                  while (c + 1 < run.firsts.length && run.firsts[c + 1]! <= key) c++;
                  if (c < 0) continue;
                  const chunk = tx.objectStore('runs').get([run.tree, run.level, run.run, c]);
                  chunk.onsuccess = () => {
                    // the chunk's bytes (lib/index/run-chunks.ts, for the url tree's entries of 2 words): varint
                    // entries · byte stride · 4 bytes first key · byte k · 4 bytes smallest id · byte width ·
                    // Rice(k) key gaps · ids as width-bit offsets, read a bit at a time
                    const b = (chunk.result as Uint8Array | undefined) ?? Uint8Array.from([0, 2]);
                    let at = 0;
                    let entries = 0;
                    for (let scale = 1; ; scale *= 0x80) {
                      const byte = b[at++]!;
                      entries += (byte & 0x7f) * scale;
                      if (byte < 0x80) break;
                    }
                    if (entries === 0) return;
                    at++; // the stride: 2
                    let k0 = (((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0);
                    const k = b[at + 4]!;
                    const smallest = ((b[at + 5]! << 24) | (b[at + 6]! << 16) | (b[at + 7]! << 8) | b[at + 8]!) >>> 0;
                    const width = b[at + 9]!;
                    let bit = (at + 10) * 8;
                    const keys = [k0];
                    for (let e = 1; e < entries; e++) {
                      let q = 0;
                      while ((b[bit >> 3]! >> (7 - (bit & 7))) & 1) (q++, bit++);
                      bit++;
                      let r = 0;
                      for (let i = 0; i < k; i++, bit++) r = r * 2 + ((b[bit >> 3]! >> (7 - (bit & 7))) & 1);
                      k0 += q * 2 ** k + r;
                      keys.push(k0);
                    }
                    for (let e = 0; e < entries; e++) {
                      let offset = 0;
                      for (let i = 0; i < width; i++, bit++) offset = offset * 2 + ((b[bit >> 3]! >> (7 - (bit & 7))) & 1);
                      if (keys[e] !== key) continue;
                      const id = smallest + offset;
                      reads.push({ slot: id % spec.blockPages, request: tx.objectStore('blocks').get(Math.floor(id / spec.blockPages)) });
                    }
                  };
                }
              };
            });
            for (const { slot, value } of candidates) {
              if (!Array.isArray(value) || !(value[1] instanceof Uint8Array)) continue;
              // [format, raw deflate of the slots' JSON, fingerprints, marks]: a slot's entry starts with its URL
              const text = await new Response(new Blob([value[1] as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).text();
              const entry = (JSON.parse(text) as unknown[])[slot];
              if (Array.isArray(entry) && entry[0] === address) return { state: 'recorded' };
            }
          }
        } finally {
          db.close();
        }
      }
      const outcomeKey = `outcome:${address}`;
      const outcome = (await chrome.storage.session.get(outcomeKey))[outcomeKey];
      return outcome ? { state: outcome.state, reason: outcome.reason } : null;
    },
    { address: url, key, spec },
  );
}

/** Polls the worker until `url` is handled or `timeout` ms pass. */
async function waitHandled(ext: ExtensionSession, url: string, timeout: number): Promise<Handled> {
  const deadline = Date.now() + timeout;
  let worker = ext.worker;
  for (;;) {
    const read = await Promise.race([handledInWorker(worker, url).catch(() => undefined), sleep(3000).then(() => undefined)]);
    if (read === undefined) worker = await ext.getWorker();
    else if (read !== null) return read;
    if (Date.now() > deadline) return null;
    await sleep(50);
  }
}
