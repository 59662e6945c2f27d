// Which IndexedDB layout could bring Doppel's store to the 300 bytes a page? A prototype
// measure, not the product: the same synthetic pages are written in Debian's Chromium under
// several layouts, each in an origin of its own (its own LevelDB), and for each the write rate and
// navigator.storage.estimate().usage per page are printed, beside the layout Doppel ships
// (schema version 2), in the same run.
//
// Layouts:
// - v2 (shipped): keyPath `url`; indexes `keys` (multiEntry, "t:hhhh" strings), `site`, `lastSeen`.
//   Chromium's index entries carry the primary key, so each of the 6 entries holds the URL again.
// - int-key: an autoIncrement number as the key; a unique `url` index; table keys as numbers
//   (table × 2^32 + key); short field names. Every index entry then carries a small number.
// - int-key-lean: int-key without the `site` index (sites counted from a per-site meta count).
// - bare: one record a page keyed by a number, the fields in an array, no index at all: the floor
//   of any layout that stores a record a page (not a layout Doppel could ship as it is).
// - bare-hashed: bare keyed by a 53-bit hash of the URL instead of a counter: the same records
//   written in random key order, as any key derived from the page is.
// - table-index: bare plus one multiEntry index of the 4 table keys (numbers): what the tables
//   alone cost, as index entries, which land at random places in the key order.
// - lean-hashed: what a schema could ship with the same queries as v2: a counter as the key, short
//   field names, and indexes on a 53-bit hash of the URL (a URL's page is found by its hash, then
//   its URL compared), the 4 table keys as numbers, the site and lastSeen.
// - runs: bare's records (keyed by a counter), and the tables written append-only, as sorted runs:
//   each batch adds, per table, one run of (table key, fingerprint, page) entries sorted by the
//   key; when a level holds 8 runs they are merged into one run of the next level (an LSM tree
//   over IndexedDB; runs are stored in chunks of about --chunk entries (256), keyed [table, level, run,
//   first key, chunk]). A fifth table maps a 32-bit hash of the URL to the page. A query finds,
//   per table and run, its chunk among the chunks' first keys (held in memory here; a schema would
//   keep them in a record a run) and reads it with one get.
// - v5-slot: v2's records and string indexes (`keys`, `site`, `lastSeen`), keyed by a number, `id`:
//   a 47-bit hash of the URL times 64 (plus a probe number on a collision), so a URL's page is
//   found without an index of URLs, and every index entry carries 8 bytes of key, not the URL.
// - v5-counter: the same, keyed by a counter, with an index on a 53-bit hash of the URL instead.
// - v5-slot-read: v5-slot, and before each put a getAll over the page's 64 slots, as Doppel's
//   import read each line's slot to merge with a stored page (schema version 5).
// - v5-runs: v5-slot without the `keys` field and index; the 4 tables as runs (as in runs), whose
//   entries carry the page's 53-bit id in two words. The `site` and `lastSeen` indexes stay.
// - runs-full: every per-page index gone. Records keyed by v5-slot's id, with short field names;
//   runs for the 4 tables, for lastSeen (seconds, id) and for the site (32-bit hash, id), so the
//   history's order and a site's pages are runs too (read back through the record, since a revisit
//   leaves the old lastSeen entry behind).
// - runs-compact: runs-full with the smallest record: an array [url, title, both fingerprints as
//   16 bytes, firstSeen and lastSeen in seconds, visits]; no site (it is the URL's host).
// - runs-lib: runs-compact's records and trees, written and read by lib/index/runs.ts (bundled
//   into the page) instead of this file's prototype: merges run in the batch's own transaction, and
//   the run index is a record in a `meta` store, written beside the runs.
// - v7-inplace: runs-lib's trees, and the record an object { id, p: [runs-compact's array, with
//   dates in milliseconds] } under v5-slot's keyPath `id`, with the sparse `group` and `copySite`
//   indexes (no synthetic page has either): what a version 7 could store in version 6's `pages`
//   store, rewriting each record in place, with no per-page index entry.
// - v6-packed: version 6 as it ships (v5-runs's `site` and `lastSeen` indexes and 4 table trees,
//   written by lib/index/runs.ts), with the record packed: { id, site, lastSeen, p: [url, title,
//   fingerprints as 16 bytes, firstSeen, visits] }. What packing the record alone saves.
// - v6-packed-hash: v6-packed with a 32-bit hash of the site in place of the site, so the `site`
//   index holds a number a page, not the host (which IndexedDB's keys hold as UTF-16).
// - v6-lib: v6-packed with version 6's record as it is (v5-runs's object): the baseline for it.
// - blocks: the pages packed 64 to a record, keyed by the block's number (page id / 64, ids
//   counted up), each page an array [url, title, fingerprints as 16 bytes, firstSeen and lastSeen
//   in seconds, visits]; a batch that starts inside a block reads it and writes it back whole.
//   Trees through lib/index/runs.ts, each entry carrying the page's 32-bit id: the 4 tables
//   [key, simhash high, low, id], lastSeen [seconds, id], site [32-bit hash, id] and url [32-bit
//   hash of the URL, id] (a URL's page is found through it, as the ids say nothing of the URL).
//   What writing 64 pages as one record saves over a record a page (runs-lib).
// - blocks-deflate: blocks with each block's URLs and titles deflated (fflate, bundled into the
//   page): [deflated "url\ntitle\n…" bytes, Uint32Array of 7 words a page (fingerprints, the
//   two dates, visits)]. The fingerprints are random, so they are left out of the deflate. NB the
//   bytes this saves depend on the text: this file's synthetic URLs and titles draw on 30 words,
//   and real ones compress less (the run prints the deflate's ratio on its own text).
// - buckets: bare's records keyed by a 53-bit hash of the URL (so a URL needs no index), a
//   `lastSeen` index, and the tables as buckets: one record per (table, key), a Uint32Array of
//   (page key, fingerprint) entries, read and rewritten once per batch for all its new entries.
//
// --layouts a,b,… picks the layouts, in order (default v2,int-key,int-key-lean); each is compared
// with the first.
//
// Usage: npm run bench:layout [-- --pages N (100000) --batch N (1000) --layouts a,b,… --queries N (200) --chunk N (256)]
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { build } from 'esbuild';
import { median, percentile } from '../shared/stats';
import { queryLayout } from './layout-query';
import { ALL_LAYOUTS, type Layout, writeLayout } from './layout-write';

/** The page script that sets globalThis.doppelRuns to lib/index/runs.ts and idb's wrap. */
async function bundleRuns(): Promise<string> {
  const out = await build({
    stdin: { contents: "export * from '../../lib/index/runs';\nexport { wrap } from 'idb';\nexport { deflateSync, inflateSync } from 'fflate';", resolveDir: import.meta.dirname, loader: 'ts' },
    bundle: true,
    format: 'iife',
    globalName: 'doppelRuns',
    write: false,
    target: 'chrome120',
  });
  return `${out.outputFiles[0]!.text}\nglobalThis.doppelRuns = doppelRuns;`; // an init script runs inside a function of its own
}

const argv = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const PAGES = option('pages', 100_000);
const BATCH = option('batch', 1_000);
/** Layouts whose near-duplicate query is measured after the writes (--queries N, default 200). */
const QUERIED: readonly Layout[] = ['table-index', 'runs', 'v5-runs', 'runs-full', 'runs-compact', 'runs-lib', 'v7-inplace', 'v6-packed', 'v6-lib', 'v6-packed-hash', 'blocks', 'blocks-deflate'];
const QUERIES = option('queries', 200);
/** runs: entries a chunk (16 bytes each). */
const CHUNK = option('chunk', 256);
/** Layouts whose trees lib/index/runs.ts writes and reads, bundled into the page (bundleRuns). */
const VIA_LIB: readonly Layout[] = ['runs-lib', 'v7-inplace', 'v6-packed', 'v6-lib', 'v6-packed-hash', 'blocks', 'blocks-deflate'];
const picked = argv.indexOf('--layouts');
const LAYOUTS: Layout[] = picked >= 0 ? argv[picked + 1]!.split(',').map((l) => {
  if (!(ALL_LAYOUTS as readonly string[]).includes(l)) throw new Error(`--layouts: no layout "${l}" (there are ${ALL_LAYOUTS.join(', ')})`);
  return l as Layout;
}) : ['v2', 'int-key', 'int-key-lean'];

async function main(): Promise<void> {
  // one server per layout: a port of its own is an origin of its own, with its own LevelDB
  const servers = LAYOUTS.map(() => createServer((_, res) => res.end('<!doctype html><title>layout</title>')));
  const ports: number[] = [];
  for (const server of servers) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.push((server.address() as { port: number }).port);
  }
  const dir = mkdtempSync(join(tmpdir(), 'doppel-layout-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  console.log(`IndexedDB layouts in Chromium ${ctx.browser()?.version() ?? ''}: ${PAGES.toLocaleString('en')} synthetic pages each (URLs ~78, titles ~58 characters), ${BATCH} a transaction`);
  const results: { layout: Layout; rate: number; perPage: number; settled: number }[] = [];
  try {
    for (const [n, layout] of LAYOUTS.entries()) {
      const page = await ctx.newPage();
      await page.addInitScript('globalThis.__name = (f) => f'); // tsx's keepNames helper, for writeLayout's inner functions
      const viaLib = VIA_LIB.includes(layout);
      if (viaLib) await page.addInitScript(await bundleRuns());
      page.on('console', (message) => console.log(`    ${message.text()}`));
      await page.goto(`http://127.0.0.1:${ports[n]}/`);
      const { ms, usage, base } = await page.evaluate(writeLayout, { layout, viaLib, pages: PAGES, batch: BATCH, chunk: CHUNK });
      await page.waitForTimeout(10_000); // LevelDB compacts in the background
      const settled = (await page.evaluate(() => navigator.storage.estimate())).usage ?? 0;
      results.push({ layout, rate: PAGES / (ms / 1000), perPage: (usage - base) / PAGES, settled: (settled - base) / PAGES });
      console.log(
        `  ${layout.padEnd(13)} ${Math.round(PAGES / (ms / 1000)).toLocaleString('en').padStart(7)} pages/s   ${((usage - base) / PAGES).toFixed(0).padStart(5)} B/page at the end   ${((settled - base) / PAGES).toFixed(0).padStart(5)} B/page 10 s later`,
      );
      if (QUERIED.includes(layout)) {
        const { times, matches, candidates } = await page.evaluate(queryLayout, { layout, viaLib, queries: QUERIES });
        console.log(`  ${layout.padEnd(13)} ${QUERIES} queries: median ${median(times).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms; ${matches} matches, ${candidates} candidates examined`);
      }
      await page.close();
    }
    const [first, ...rest] = results;
    for (const r of rest) {
      console.log(`  ${r.layout} against ${first!.layout}: ${(r.rate / first!.rate).toFixed(2)}× the write rate, ${(r.settled / first!.settled).toFixed(2)}× the bytes a page`);
    }
  } finally {
    await ctx.close();
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
