// Which IndexedDB layout of the passage index ("Passages, part 2") could meet its bars at a
// million pages: all-in storage ≤ 800 B a page, a lookup within report/get's 15 ms median and
// 50 ms p99, an import of ≥ 10,000 pages/s? A prototype measure, not the product, as
// bench/layout/layout.ts was for the store: IndexedDB layouts written raw in Debian's Chromium, each in an
// origin of its own (its own LevelDB), with the store as it ships written beside them in the
// same transactions through lib/store, so that "all-in" is measured and not added by hand.
//
// The pages are seeded and synthetic (bench/layout/passage-layout-page.ts): the store's records as
// bench:layout draws them, and for each page 52 distinct uniform random 32-bit hashes at
// increasing word positions over about 700 words (gaps of 1 to 26); 1% of pages share a run of
// 10–30 of an earlier page's hashes, so that lookups find real candidates. Written in batches of
// --batch (2,000) pages, one readwrite transaction a batch, as an import writes them.
//
// Layouts (none stores text):
// - baseline: the store without passages: blocks of 64 pages (lib/rows/blocks.ts's encodeBlock),
//   the table trees (addToTables, the design designFor(--pages) gives), the url, site and lastSeen
//   trees, and meta `runs`, all through lib/index/runs.ts.
// - raw: baseline, plus per page its fingerprints in a record per 64 pages beside the blocks
//   (`passagePages`: hashes a slot as u8, the hashes as u32, the positions as u16), and a postings
//   tree of [hash, page id] entries through lib/index/runs.ts as it is: Uint32Array chunks of
//   --raw-chunk (256) entries, its run index (every chunk's first key) in meta `runs` with the
//   store's trees, read and rewritten by every transaction.
// - packed: raw, with the postings tree's chunks delta + varint coded (hash differences, ids as
//   varints; encodePostings) in chunks of --packed-chunk (1,024) entries, and its run index out of
//   meta: meta `passageRuns` lists the runs, and each run's chunk first keys are a Uint32Array
//   record of their own (`passageFirsts`). Merges as lib/index/runs.ts's (MERGE_AT, levels).
// - packed-pos: packed with postings [hash, page id, position], and per page only the hashes
//   (needed to delete its postings), no positions.
// - packed-prefix: packed's postings, and per page only the high 16 bits of each hash (u16) and
//   each position's gap from the one before (u8; winnowing keeps one k-gram in every w = 26). The
//   prefix finds the chunks that can hold the page's postings (usually one a hash: a range of 2^16
//   hashes holds about one posting at a million pages), whose page id picks out its own: they give
//   its whole hashes for a lookup, and are what forgetting it would remove. Not one of the issue's
//   three: added to see what the per-page hashes, the largest part after the postings, cost.
//
// After the batches, every tree is merged into one run, a transaction a tree, as the import's
// organise step does (PageStore.compactTables). Bytes a page are storage.estimate().usage after −
// before, over --pages: after the batches, after the final merge, 10 s later, and after the
// browser is closed and opened again on the same profile (LevelDB reclaims deleted runs lazily).
//
// Queries (--queries, 200): for seeded stored pages, every other one a planted page, each in a
// readonly transaction of its own, timed in the page: read the page's fingerprints and the
// passage tree's run index (uncached, as in a worker that has just started), then the one chunk a
// run that can hold each of its hashes, counting the hashes each other page shares. Run again
// after the restart.
//
// Usage: npm run bench:passage-layout [-- --pages N (100000) --layouts a,b,… (baseline,raw,packed,packed-pos,packed-prefix)
//   --queries N (200) --batch N (2000) --raw-chunk N (256) --packed-chunk N (1024)]
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { build } from 'esbuild';
import type * as PageSide from './passage-layout-page';
import { median, percentile } from '../shared/stats';

type Layout = (typeof PageSide.LAYOUTS)[number];
const ALL_LAYOUTS: readonly Layout[] = ['baseline', 'raw', 'packed', 'packed-pos', 'packed-prefix'];

const argv = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`--${name} takes a whole number of at least 1: got ${argv[i + 1]}`);
  return value;
};
const PAGES = option('pages', 100_000);
const BATCH = option('batch', 2_000);
const QUERIES = option('queries', 200);
const RAW_CHUNK = option('raw-chunk', 256);
const PACKED_CHUNK = option('packed-chunk', 1_024);
const picked = argv.indexOf('--layouts');
const LAYOUTS: Layout[] = picked >= 0
  ? argv[picked + 1]!.split(',').map((l) => {
      if (!(ALL_LAYOUTS as readonly string[]).includes(l)) throw new Error(`--layouts: no layout "${l}" (there are ${ALL_LAYOUTS.join(', ')})`);
      return l as Layout;
    })
  : [...ALL_LAYOUTS];
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** bench/layout/passage-layout-page.ts and what it imports, as a script that sets globalThis.passageBench. */
async function bundlePage(): Promise<string> {
  const out = await build({
    entryPoints: [join(import.meta.dirname, 'passage-layout-page.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'passageBench',
    write: false,
    target: 'chrome120',
  });
  return `${out.outputFiles[0]!.text}\nglobalThis.passageBench = passageBench;`;
}

type Bench = typeof PageSide;
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const perPage = (bytes: number): string => (bytes / PAGES).toFixed(0);
const ms = (x: number): string => x.toFixed(2);

interface Row {
  layout: Layout;
  write?: PageSide.WriteResult;
  settled?: number;
  reopened?: number;
}

async function launch(dir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(dir, { executablePath: '/usr/bin/chromium', headless: true, args: ARGS });
}

function printQueries(layout: Layout, when: string, q: PageSide.QueryResult): void {
  const mean = q.candidates.reduce((a, b) => a + b, 0) / q.candidates.length;
  console.log(
    `  ${layout.padEnd(13)} ${when}: ${q.times.length} lookups, median ${ms(median(q.times))} ms, p99 ${ms(percentile(q.times, 99))} ms ` +
      `(of which the run index: median ${ms(median(q.indexTimes))}, p99 ${ms(percentile(q.indexTimes, 99))} ms); ` +
      `${mean.toFixed(2)} candidate pages a lookup; planted source found ${q.plantedFound}/${q.plantedQueried}` +
      (layout === 'packed-prefix' ? `; own hashes not all found again in ${q.ownHashesMissing}` : '') +
      `   [load ${load()}]`,
  );
}

async function main(): Promise<void> {
  const bundle = await bundlePage();
  const servers = LAYOUTS.map(() => createServer((_, res) => res.end('<!doctype html><title>passage layout</title>')));
  const ports: number[] = [];
  for (const server of servers) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.push((server.address() as { port: number }).port);
  }
  const dir = mkdtempSync(join(tmpdir(), 'doppel-passage-layout-'));
  const options = { pages: PAGES, batch: BATCH, rawChunk: RAW_CHUNK, packedChunk: PACKED_CHUNK };
  const rows: Row[] = LAYOUTS.map((layout) => ({ layout }));
  let ctx = await launch(dir);
  try {
    console.log(
      `Passage index layouts in Chromium ${ctx.browser()?.version() ?? ''}: ${PAGES.toLocaleString('en')} synthetic pages, 52 fingerprints each, ` +
        `${BATCH} a transaction; raw chunks ${RAW_CHUNK} entries, packed chunks ${PACKED_CHUNK}; load average ${load()}`,
    );
    for (const [n, row] of rows.entries()) {
      try {
        const page = await ctx.newPage();
        await page.addInitScript(bundle);
        page.on('console', (message) => console.log(`    ${message.text()}`));
        await page.goto(`http://127.0.0.1:${ports[n]}/`);
        const w = await page.evaluate((o) => (globalThis as unknown as { passageBench: Bench }).passageBench.write(o), { layout: row.layout, ...options });
        row.write = w;
        await page.waitForTimeout(10_000); // LevelDB compacts in the background
        row.settled = await page.evaluate(() => (globalThis as unknown as { passageBench: Bench }).passageBench.usage());
        const rate = PAGES / (w.batchesMs / 1000);
        const rateAll = PAGES / ((w.batchesMs + w.finalMergeMs) / 1000);
        console.log(
          `  ${row.layout.padEnd(13)} write: ${Math.round(rate).toLocaleString('en')} pages/s over the batches (${(w.batchesMs / 1000).toFixed(1)} s), ` +
            `${Math.round(rateAll).toLocaleString('en')} pages/s with the final merge (${(w.finalMergeMs / 1000).toFixed(1)} s)   [load ${load()}]`,
        );
        console.log(
          `  ${row.layout.padEnd(13)} bytes a page: ${perPage(w.usageBatches - w.usageBefore)} after the batches, ${perPage(w.usageEnd - w.usageBefore)} after the final merge, ` +
            `${perPage(row.settled - w.usageBefore)} 10 s later`,
        );
        console.log(
          `  ${row.layout.padEnd(13)} largest meta value: ${w.largestMeta.key} ${w.largestMeta.bytes.toLocaleString('en')} B (JSON); largest passageFirsts record ${w.largestFirsts.toLocaleString('en')} B; ` +
            `passage tree: ${w.passageRuns} run(s), ${w.passageChunks.toLocaleString('en')} chunks, ${w.postings.toLocaleString('en')} postings in ${perPage(w.postingBytes)} B a page of chunk values ` +
            `(${w.postings > 0 ? (w.postingBytes / w.postings).toFixed(2) : '-'} B a posting); per-page records ${perPage(w.pageRecordBytes)} B a page of values; ${w.planted} planted pages`,
        );
        if (row.layout !== 'baseline' && row.layout !== 'raw') {
          console.log(`  ${row.layout.padEnd(13)} JS time of the postings in the writes: sort ${(w.cpu.sort / 1000).toFixed(1)} s, merge ${(w.cpu.merge / 1000).toFixed(1)} s, codec ${(w.cpu.code / 1000).toFixed(1)} s`);
        }
        if (row.layout !== 'baseline') {
          const q = await page.evaluate((o) => (globalThis as unknown as { passageBench: Bench }).passageBench.query(o), { layout: row.layout, ...options, queries: QUERIES });
          printQueries(row.layout, 'lookups', q);
        }
        await page.close();
      } catch (error) {
        console.log(`  ${row.layout.padEnd(13)} FAILED: ${String(error).slice(0, 500)}`);
      }
    }
    // the browser closed and opened again on the same profile: what LevelDB holds once it has reopened each database
    await ctx.close();
    ctx = await launch(dir);
    console.log(`After a restart of the browser on the same profile:`);
    for (const [n, row] of rows.entries()) {
      if (row.write === undefined) continue;
      try {
        const page = await ctx.newPage();
        await page.addInitScript(bundle);
        await page.goto(`http://127.0.0.1:${ports[n]}/`);
        await page.evaluate((layout) => (globalThis as unknown as { passageBench: Bench }).passageBench.reopen(layout), row.layout);
        await page.waitForTimeout(10_000);
        row.reopened = await page.evaluate(() => (globalThis as unknown as { passageBench: Bench }).passageBench.usage());
        console.log(`  ${row.layout.padEnd(13)} bytes a page after the restart: ${perPage(row.reopened - row.write!.usageBefore)}`);
        if (row.layout !== 'baseline') {
          const q = await page.evaluate((o) => (globalThis as unknown as { passageBench: Bench }).passageBench.query(o), { layout: row.layout, ...options, queries: QUERIES });
          printQueries(row.layout, 'lookups after the restart', q);
        }
        await page.close();
      } catch (error) {
        console.log(`  ${row.layout.padEnd(13)} FAILED after the restart: ${String(error).slice(0, 500)}`);
      }
    }
    // the summary: all-in bytes, and the passage index's share over the baseline measured in this run
    const base = rows.find((r) => r.layout === 'baseline');
    console.log(`Summary (${PAGES.toLocaleString('en')} pages; B a page: after the final merge / 10 s later / after a restart):`);
    for (const r of rows) {
      if (r.write === undefined || r.settled === undefined || r.reopened === undefined) continue;
      const w = r.write;
      const all = [w.usageEnd, r.settled, r.reopened].map((u) => (u - w.usageBefore) / PAGES);
      const over = base?.write && base.settled !== undefined && base.reopened !== undefined ? [base.write.usageEnd, base.settled!, base.reopened!].map((u, i) => all[i]! - (u - base.write!.usageBefore) / PAGES) : undefined;
      console.log(
        `  ${r.layout.padEnd(13)} all-in ${all.map((x) => x.toFixed(0)).join(' / ')}` +
          (over && r.layout !== 'baseline' ? `; passages over the baseline ${over.map((x) => x.toFixed(0)).join(' / ')}` : '') +
          `; ${Math.round(PAGES / (w.batchesMs / 1000)).toLocaleString('en')} pages/s`,
      );
    }
  } finally {
    await ctx.close();
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
