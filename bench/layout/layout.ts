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
import type { IDBPTransaction, wrap } from 'idb';
import type { deflateSync, inflateSync } from 'fflate';
import type * as Runs from '../../lib/index/runs';
import { median, percentile } from '../shared/stats';

/** lib/index/runs.ts and idb's wrap, bundled into the page for runs-lib (see bundleRuns). */
type RunsBundle = typeof Runs & { wrap: typeof wrap; deflateSync: typeof deflateSync; inflateSync: typeof inflateSync };

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
const ALL_LAYOUTS = ['v2', 'int-key', 'int-key-lean', 'bare', 'bare-hashed', 'table-index', 'lean-hashed', 'buckets', 'runs', 'v5-slot', 'v5-counter', 'v5-runs', 'runs-full', 'runs-compact', 'runs-lib', 'v5-slot-read', 'v7-inplace', 'v6-packed', 'v6-lib', 'v6-packed-hash', 'blocks', 'blocks-deflate'] as const;
/** Layouts whose near-duplicate query is measured after the writes (--queries N, default 200). */
const QUERIED: readonly Layout[] = ['table-index', 'runs', 'v5-runs', 'runs-full', 'runs-compact', 'runs-lib', 'v7-inplace', 'v6-packed', 'v6-lib', 'v6-packed-hash', 'blocks', 'blocks-deflate'];
const QUERIES = option('queries', 200);
/** runs: entries a chunk (16 bytes each). */
const CHUNK = option('chunk', 256);
type Layout = (typeof ALL_LAYOUTS)[number];
/** Layouts whose trees lib/index/runs.ts writes and reads, bundled into the page (bundleRuns). */
const VIA_LIB: readonly Layout[] = ['runs-lib', 'v7-inplace', 'v6-packed', 'v6-lib', 'v6-packed-hash', 'blocks', 'blocks-deflate'];
const picked = argv.indexOf('--layouts');
const LAYOUTS: Layout[] = picked >= 0 ? argv[picked + 1]!.split(',').map((l) => {
  if (!(ALL_LAYOUTS as readonly string[]).includes(l)) throw new Error(`--layouts: no layout "${l}" (there are ${ALL_LAYOUTS.join(', ')})`);
  return l as Layout;
}) : ['v2', 'int-key', 'int-key-lean'];

/** What writeLayout leaves in the page for queryLayout (page functions see no module scope). */
interface LayoutState {
  /** The prototype runs' index: the run ids of each `${table}:${level}`. */
  runIndex: Map<string, number[]>;
  /** The first key of each chunk of each run, by `${table}:${run}`. */
  chunkKeys: Map<string, number[]>;
  /** Stored simhashes [high, low] to query near. */
  sample: [number, number][];
  /** blocks: page `id` from its block's stored value, and the block that holds it. */
  readBlockPage: (value: unknown, id: number) => unknown;
  blockOf: (id: number) => number;
}

/** Runs in the page: creates the layout's database and writes PAGES seeded synthetic pages. */
async function writeLayout({ layout, viaLib, pages, batch, chunk }: { layout: Layout; viaLib: boolean; pages: number; batch: number; chunk: number }): Promise<{ ms: number; usage: number; base: number }> {
  let seed = 4;
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const words = 'harbour river council budget school vote winter summer market price energy grid train ferry bridge museum library garden forest coast island storm flood drought harvest farmer bakery festival concert election minister court judge'.split(' ');
  const word = (): string => words[Math.floor(random() * words.length)]!;
  const hex = (): string => Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0') + Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
  const base = (await navigator.storage.estimate()).usage ?? 0;
  const db: IDBDatabase = await new Promise((resolve, reject) => {
    const open = indexedDB.open(layout, 1);
    open.onupgradeneeded = () => {
      const d = open.result;
      if (layout === 'bare' || layout === 'bare-hashed') {
        d.createObjectStore('pages');
      } else if (layout === 'runs' || layout === 'runs-full' || layout === 'runs-compact' || layout === 'runs-lib' || layout === 'blocks' || layout === 'blocks-deflate') {
        d.createObjectStore('pages');
        d.createObjectStore('runs');
        if (layout !== 'runs' && layout !== 'runs-full' && layout !== 'runs-compact') d.createObjectStore('meta');
      } else if (layout === 'v7-inplace' || layout === 'v6-packed' || layout === 'v6-lib' || layout === 'v6-packed-hash') {
        const s = d.createObjectStore('pages', { keyPath: 'id' });
        if (layout !== 'v7-inplace') {
          s.createIndex('site', 'site');
          s.createIndex('lastSeen', 'lastSeen');
        }
        s.createIndex('group', 'group');
        s.createIndex('copySite', 'copySite');
        d.createObjectStore('runs');
        d.createObjectStore('meta');
      } else if (layout === 'v5-runs') {
        const s = d.createObjectStore('pages', { keyPath: 'id' });
        s.createIndex('site', 'site');
        s.createIndex('lastSeen', 'lastSeen');
        d.createObjectStore('runs');
      } else if (layout === 'lean-hashed') {
        const s = d.createObjectStore('pages', { keyPath: 'i' });
        s.createIndex('url', 'x');
        s.createIndex('keys', 'k', { multiEntry: true });
        s.createIndex('site', 's');
        s.createIndex('lastSeen', 'l');
      } else if (layout === 'table-index') {
        d.createObjectStore('pages', { keyPath: 'i' }).createIndex('keys', 'k', { multiEntry: true });
      } else if (layout === 'buckets') {
        const s = d.createObjectStore('pages');
        s.createIndex('lastSeen', 'l');
        d.createObjectStore('buckets');
      } else if (layout === 'v5-slot' || layout === 'v5-counter' || layout === 'v5-slot-read') {
        const s = d.createObjectStore('pages', { keyPath: 'id' });
        if (layout === 'v5-counter') s.createIndex('url', 'urlHash');
        s.createIndex('keys', 'keys', { multiEntry: true });
        s.createIndex('site', 'site');
        s.createIndex('lastSeen', 'lastSeen');
      } else if (layout === 'v2') {
        const s = d.createObjectStore('pages', { keyPath: 'url' });
        s.createIndex('keys', 'keys', { multiEntry: true });
        s.createIndex('site', 'site');
        s.createIndex('lastSeen', 'lastSeen');
      } else {
        const s = d.createObjectStore('pages', { keyPath: 'id', autoIncrement: true });
        s.createIndex('url', 'u', { unique: true });
        s.createIndex('keys', 'k', { multiEntry: true });
        if (layout === 'int-key') s.createIndex('site', 's');
        s.createIndex('lastSeen', 'l');
      }
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  // FNV-1a over the URL, twice with different offsets: a 53-bit number (21 + 32 bits)
  const urlKey = (url: string): number => {
    let a = 0x811c9dc5;
    let b = 0x01000193 ^ 0x5bd1e995;
    for (let c = 0; c < url.length; c++) {
      a = Math.imul(a ^ url.charCodeAt(c), 0x01000193);
      b = Math.imul(b ^ url.charCodeAt(c), 0x01000193);
    }
    return (a >>> 11) * 2 ** 32 + (b >>> 0);
  };
  // runs: the run ids of each table's levels (a real schema would keep them in a meta record)
  const MERGE_AT = 8;
  const CHUNK_ENTRIES = chunk;
  const runIndex = new Map<string, number[]>();
  const levelRuns = (t: number, level: number): number[] => {
    const key = `${t}:${level}`;
    if (!runIndex.has(key)) runIndex.set(key, []);
    return runIndex.get(key)!;
  };
  let nextRun = 0;
  /** The first key of each chunk of each run, by `${table}:${run}`: a query finds its chunk here and reads it with one get. */
  const chunkKeys = new Map<string, number[]>();
  /**
   * The words an entry of tree t takes: runs: 4 (key, fingerprint high, low, page); v5-runs and
   * runs-full: 5 for a table (the page's id in two words), 3 for lastSeen and site (key, id).
   */
  const blocks = layout === 'blocks' || layout === 'blocks-deflate';
  const strideOf = (t: number): number => (blocks ? (t < 4 ? 4 : 2) : layout === 'runs' ? 4 : t < 4 ? 5 : 3);
  /** The trees of runs the layout writes: 4 tables, then runs' URL hash, or runs-full's lastSeen and site (and blocks' URL hash). */
  const trees = blocks ? 8 : layout === 'runs' ? 5 : layout === 'runs-full' || layout === 'runs-compact' || layout === 'runs-lib' || layout === 'v7-inplace' ? 7 : 4; // v6-packed: 4
  /** blocks: pages a record. */
  const BLOCK = 64;
  const lib = viaLib ? (globalThis as unknown as { doppelRuns: RunsBundle }).doppelRuns : undefined;
  /** blocks-deflate: bytes of text before and after the deflate, for the ratio printed at the end. */
  const deflated = { text: 0, bytes: 0 };
  /** A block's value from its pages' rows [url, title, fingerprints, firstSeen, lastSeen, visits]. */
  const encodeBlock = (rows: unknown[][]): unknown => {
    if (layout === 'blocks') return rows;
    const text = new TextEncoder().encode(rows.map((r) => `${r[0] as string}\n${r[1] as string}`).join('\n'));
    const packed = lib!.deflateSync(text, { level: 6 });
    deflated.text += text.length;
    deflated.bytes += packed.length;
    const numbers = new Uint32Array(rows.length * 7);
    rows.forEach((r, n) => {
      numbers.set(new Uint32Array((r[2] as Uint8Array).slice().buffer), n * 7);
      numbers.set([r[3] as number, r[4] as number, r[5] as number], n * 7 + 4);
    });
    return [packed, numbers];
  };
  const decodeBlock = (value: unknown): unknown[][] => {
    if (layout === 'blocks') return value as unknown[][];
    const [packed, numbers] = value as [Uint8Array, Uint32Array];
    const lines = new TextDecoder().decode(lib!.inflateSync(packed)).split('\n');
    const rows: unknown[][] = [];
    for (let n = 0; n < numbers.length / 7; n++) rows.push([lines[n * 2], lines[n * 2 + 1], new Uint8Array(numbers.slice(n * 7, n * 7 + 4).buffer), numbers[n * 7 + 4], numbers[n * 7 + 5], numbers[n * 7 + 6]]);
    return rows;
  };
  /** The simhash then the check, 16 bytes, from their hex. */
  const fingerprintBytes = (simhash: string, check: string): Uint8Array => {
    const bytes = new Uint8Array(16);
    for (let b = 0; b < 8; b++) {
      bytes[b] = parseInt(simhash.slice(b * 2, b * 2 + 2), 16);
      bytes[8 + b] = parseInt(check.slice(b * 2, b * 2 + 2), 16);
    }
    return bytes;
  };
  /** Entries (stride words each, the key first) sorted by key. */
  const sortEntries = (entries: Uint32Array, stride: number): Uint32Array => {
    const n = entries.length / stride;
    const order = new Float64Array(n);
    for (let e = 0; e < n; e++) order[e] = entries[e * stride]! * 2 ** 21 + e;
    order.sort();
    const sorted = new Uint32Array(entries.length);
    for (let e = 0; e < n; e++) sorted.set(entries.subarray((order[e]! % 2 ** 21) * stride, (order[e]! % 2 ** 21) * stride + stride), e * stride);
    return sorted;
  };
  /** Writes a sorted run in chunks of about CHUNK_ENTRIES, never splitting equal keys. */
  const writeRun = (runs: IDBObjectStore, t: number, level: number, id: number, sorted: Uint32Array): void => {
    const stride = strideOf(t);
    const n = sorted.length / stride;
    const firsts: number[] = [];
    let start = 0;
    for (let chunk = 0; start < n; chunk++) {
      let end = Math.min(n, start + CHUNK_ENTRIES);
      while (end < n && sorted[end * stride] === sorted[(end - 1) * stride]) end++;
      runs.put(sorted.slice(start * stride, end * stride), [t, level, id, sorted[start * stride]!, chunk]);
      firsts.push(sorted[start * stride]!);
      start = end;
    }
    chunkKeys.set(`${t}:${id}`, firsts);
  };
  const siteHash = (site: string): number => {
    let a = 0x811c9dc5;
    for (let c = 0; c < site.length; c++) a = Math.imul(a ^ site.charCodeAt(c), 0x01000193);
    return a >>> 0;
  };
  const sample: [number, number][] = [];
  (globalThis as unknown as { layoutState: LayoutState }).layoutState = { runIndex, chunkKeys, sample, readBlockPage: (value, id) => decodeBlock(value)[id % BLOCK], blockOf: (id) => Math.floor(id / BLOCK) };
  const started = performance.now();
  for (let from = 0; from < pages; from += batch) {
    const withRuns = layout === 'runs' || layout === 'v5-runs' || layout === 'runs-full' || layout === 'runs-compact' || viaLib;
    const tx = db.transaction(layout === 'buckets' ? ['pages', 'buckets'] : viaLib ? ['pages', 'runs', 'meta'] : withRuns ? ['pages', 'runs'] : 'pages', 'readwrite');
    const runEntries: number[][] = [[], [], [], [], [], [], [], []];
    const store = tx.objectStore('pages');
    const additions = new Map<number, number[]>();
    /** blocks: the batch's pages' rows, in id order (the id is the page's number, i). */
    const blockRows: unknown[][] = [];
    for (let i = from; i < Math.min(pages, from + batch); i++) {
      const host = `www.${word()}-${word()}${Math.floor(random() * 3000)}.com`;
      let slug = '';
      while (slug.length < 30 + random() * 30) slug += `${word()}-`;
      const url = `https://${host}/${word()}/2025/${String(1 + Math.floor(random() * 12)).padStart(2, '0')}/${slug}${i.toString(36)}`;
      let title = '';
      while (title.length < 40 + random() * 40) title += `${word()} `;
      const simhash = hex();
      const check = hex();
      const lastSeen = 1.7e12 + Math.floor(random() * 6e10);
      const tableKeys = [0, 1, 2, 3].map((t) => parseInt(simhash.slice(t * 4, t * 4 + 4), 16));
      const hi = parseInt(simhash.slice(0, 8), 16);
      const lo = parseInt(simhash.slice(8), 16);
      if (i % Math.max(1, Math.floor(pages / 200)) === 0) sample.push([hi, lo]);
      if (layout === 'bare') {
        store.put([url, title, host, simhash, check, lastSeen, lastSeen, 1], i);
      } else if (layout === 'runs') {
        store.put([url, title, host, simhash, check, lastSeen, lastSeen, 1], i);
        tableKeys.forEach((k, t) => runEntries[t]!.push(k, hi, lo, i));
        runEntries[4]!.push(urlKey(url) >>> 0, 0, 0, i);
      } else if (layout === 'bare-hashed') {
        store.put([url, title, host, simhash, check, lastSeen, lastSeen, 1], urlKey(url));
      } else if (layout === 'lean-hashed') {
        store.put({ i, x: urlKey(url), u: url, t: title, s: host, h: simhash, c: check, f: lastSeen, l: lastSeen, v: 1, k: tableKeys.map((k, t) => t * 65536 + k) });
      } else if (layout === 'table-index') {
        store.put({ i, u: url, t: title, h: simhash, c: check, f: lastSeen, l: lastSeen, v: 1, k: tableKeys.map((k, t) => t * 65536 + k) });
      } else if (blocks) {
        const seconds = Math.floor(lastSeen / 1000);
        blockRows.push([url, title, fingerprintBytes(simhash, check), seconds, seconds, 1]);
        tableKeys.forEach((k, t) => runEntries[t]!.push(k, hi, lo, i));
        runEntries[4]!.push(seconds, i);
        runEntries[5]!.push(siteHash(host), i);
        runEntries[6]!.push(urlKey(url) >>> 0, i);
      } else if (layout === 'buckets') {
        const key = urlKey(url);
        store.put({ u: url, t: title, h: simhash, c: check, f: lastSeen, l: lastSeen, v: 1 }, key);
        tableKeys.forEach((k, t) => {
          const bucket = t * 65536 + k;
          const list = additions.get(bucket) ?? [];
          list.push(Math.floor(key / 2 ** 32), key >>> 0, hi, lo);
          additions.set(bucket, list);
        });
      } else if (layout === 'v5-runs' || layout === 'runs-full' || layout === 'runs-compact' || viaLib) {
        const id = Math.floor(urlKey(url) / 64) * 64;
        const idHi = Math.floor(id / 2 ** 32);
        const idLo = id >>> 0;
        if (layout === 'v5-runs') store.put({ id, url, title, site: host, simhash, check, firstSeen: lastSeen, lastSeen, visits: 1 });
        else if (layout === 'runs-full') store.put({ u: url, t: title, s: host, h: simhash, c: check, f: lastSeen, l: lastSeen, v: 1 }, id);
        else {
          const fingerprints = fingerprintBytes(simhash, check);
          if (layout === 'v7-inplace') store.put({ id, p: [url, title, fingerprints, lastSeen, lastSeen, 1] });
          else if (layout === 'v6-lib') store.put({ id, url, title, site: host, simhash, check, firstSeen: lastSeen, lastSeen, visits: 1 });
          else if (layout === 'v6-packed') store.put({ id, site: host, lastSeen, p: [url, title, fingerprints, lastSeen, 1] });
          else if (layout === 'v6-packed-hash') store.put({ id, site: siteHash(host), lastSeen, p: [url, title, fingerprints, lastSeen, 1] });
          else store.put([url, title, fingerprints, Math.floor(lastSeen / 1000), Math.floor(lastSeen / 1000), 1], id);
        }
        tableKeys.forEach((k, t) => runEntries[t]!.push(k, hi, lo, idHi, idLo));
        if (layout !== 'v5-runs' && layout !== 'v6-packed' && layout !== 'v6-lib' && layout !== 'v6-packed-hash') {
          runEntries[5]!.push(Math.floor(lastSeen / 1000), idHi, idLo);
          runEntries[6]!.push(siteHash(host), idHi, idLo);
        }
      } else if (layout === 'v5-slot' || layout === 'v5-counter' || layout === 'v5-slot-read') {
        const keys = tableKeys.map((k, t) => `${t}:${k.toString(16).padStart(4, '0')}`);
        const fields = { url, title, site: host, simhash, check, firstSeen: lastSeen, lastSeen, visits: 1, keys };
        if (layout === 'v5-slot') store.put({ id: Math.floor(urlKey(url) / 64) * 64, ...fields });
        else if (layout === 'v5-slot-read') {
          const id = Math.floor(urlKey(url) / 64) * 64;
          const read = store.getAll(IDBKeyRange.bound(id, id + 63));
          read.onsuccess = () => store.put({ id: id + read.result.length, ...fields });
        }
        else store.put({ id: i, urlHash: urlKey(url), ...fields });
      } else if (layout === 'v2') {
        store.put({ url, title, site: host, simhash, check, firstSeen: lastSeen, lastSeen, visits: 1, keys: tableKeys.map((k, t) => `${t}:${k.toString(16).padStart(4, '0')}`) });
      } else {
        store.put({ u: url, t: title, s: host, h: simhash, c: check, f: lastSeen, l: lastSeen, v: 1, k: tableKeys.map((k, t) => t * 2 ** 32 + k) });
      }
    }
    if (blocks) {
      // the batch's pages into blocks of BLOCK; the first block may hold pages of the last batch
      let rows = blockRows;
      let firstBlock = Math.floor(from / BLOCK);
      if (from % BLOCK !== 0) {
        const stored = await new Promise<unknown>((resolve, reject) => {
          const get = store.get(firstBlock);
          get.onsuccess = () => resolve(get.result);
          get.onerror = () => reject(get.error);
        });
        rows = [...decodeBlock(stored), ...blockRows];
      }
      for (let at = 0; at < rows.length; at += BLOCK) store.put(encodeBlock(rows.slice(at, at + BLOCK)), firstBlock++);
    }
    if (lib) {
      // lib/index/runs.ts, as a schema would call it: append and merge, then the index, in this transaction
      const wrapped = lib.wrap(tx) as unknown as IDBPTransaction<unknown, string[], 'readwrite'>;
      const runs = wrapped.objectStore('runs');
      const meta = wrapped.objectStore('meta');
      let index = lib.parseRunIndex((await meta.get('runs')) ?? lib.EMPTY_RUN_INDEX);
      for (let t = 0; t < trees; t++) {
        const spec = { tree: t, stride: strideOf(t), chunkEntries: CHUNK_ENTRIES };
        index = await lib.appendRun(runs, index, spec, Uint32Array.from(runEntries[t]!));
        index = await lib.mergeDue(runs, index, spec);
      }
      await meta.put(index, 'runs');
    } else if (withRuns) {
      const runs = tx.objectStore('runs');
      runEntries.forEach((list, t) => {
        if (list.length === 0) return;
        const id = nextRun++;
        writeRun(runs, t, 0, id, sortEntries(new Uint32Array(list), strideOf(t)));
        levelRuns(t, 0).push(id);
      });
    }
    if (layout === 'buckets') {
      const buckets = tx.objectStore('buckets');
      for (const [bucket, list] of additions) {
        const get = buckets.get(bucket);
        get.onsuccess = () => {
          const old = (get.result as Uint32Array | undefined) ?? new Uint32Array(0);
          const next = new Uint32Array(old.length + list.length);
          next.set(old);
          next.set(list, old.length);
          buckets.put(next, bucket);
        };
      }
    }
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(tx.error);
    });
    if (withRuns && !viaLib) {
      // merge every level that holds MERGE_AT runs into one run of the next, in a transaction of its own
      for (let t = 0; t < trees; t++) {
        for (let level = 0; levelRuns(t, level).length >= MERGE_AT; level++) {
          const mtx = db.transaction('runs', 'readwrite');
          const runs = mtx.objectStore('runs');
          const range = IDBKeyRange.bound([t, level], [t, level, Infinity]);
          const chunks = await new Promise<Uint32Array[]>((resolve, reject) => {
            const all = runs.getAll(range);
            all.onsuccess = () => resolve(all.result as Uint32Array[]);
            all.onerror = () => reject(all.error);
          });
          const merged = new Uint32Array(chunks.reduce((n, c) => n + c.length, 0));
          let at = 0;
          for (const c of chunks) {
            merged.set(c, at);
            at += c.length;
          }
          runs.delete(range);
          const id = nextRun++;
          writeRun(runs, t, level + 1, id, sortEntries(merged, strideOf(t)));
          for (const old of levelRuns(t, level)) chunkKeys.delete(`${t}:${old}`);
          runIndex.set(`${t}:${level}`, []);
          levelRuns(t, level + 1).push(id);
          await new Promise<void>((resolve, reject) => {
            mtx.oncomplete = () => resolve();
            mtx.onabort = () => reject(mtx.error);
          });
        }
      }
    }
    const done = Math.min(pages, from + batch);
    if (done % (pages / 10) < batch) console.log(`${layout}: ${done} pages, ${Math.round(done / ((performance.now() - started) / 1000))} pages/s so far`);
  }
  const ms = performance.now() - started;
  db.close();
  if (deflated.text > 0) console.log(`${layout}: the deflate took the URLs and titles from ${deflated.text} to ${deflated.bytes} bytes (${(deflated.bytes / deflated.text).toFixed(2)}×)`);
  return { ms, usage: (await navigator.storage.estimate()).usage ?? 0, base };
}

/**
 * Runs in the page, after writeLayout: `queries` near-duplicate queries (within 3 bits over the 4
 * tables) for stored fingerprints with 0–3 bits flipped, each in a readonly transaction of its
 * own, fetching the matching pages. Returns the time of each, and the matches found (the same
 * for every layout, since the pages are: a check of the prototype).
 */
async function queryLayout({ layout, viaLib, queries }: { layout: Layout; viaLib: boolean; queries: number }): Promise<{ times: number[]; matches: number; candidates: number }> {
  const { runIndex, chunkKeys, sample, readBlockPage, blockOf } = (globalThis as unknown as { layoutState: LayoutState }).layoutState;
  const popcount = (x: number): number => {
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
  };
  const db: IDBDatabase = await new Promise((resolve, reject) => {
    const open = indexedDB.open(layout, 1);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  const request = <T>(r: IDBRequest): Promise<T> => new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result as T);
    r.onerror = () => reject(r.error);
  });
  const times: number[] = [];
  let matches = 0;
  let candidates = 0;
  for (let q = 0; q < queries; q++) {
    const [baseHi, baseLo] = sample[q % sample.length]!;
    // flip q % 4 bits, spread over the blocks
    const flips = [5, 27, 44].slice(0, q % 4);
    let hi = baseHi;
    let lo = baseLo;
    for (const bit of flips) {
      if (bit < 32) hi = (hi ^ (1 << (31 - bit))) >>> 0;
      else lo = (lo ^ (1 << (63 - bit))) >>> 0;
    }
    const blocks = [hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff];
    const started = performance.now();
    const found = new Set<number>();
    if (viaLib) {
      const lib = (globalThis as unknown as { doppelRuns: RunsBundle }).doppelRuns;
      const tx = lib.wrap(db.transaction(['runs', 'pages', 'meta'], 'readonly'));
      const index = lib.parseRunIndex(await tx.objectStore('meta').get('runs'));
      const runs = tx.objectStore('runs');
      const packed = layout === 'blocks' || layout === 'blocks-deflate';
      const lists = await Promise.all(blocks.map((key, t) => lib.lookup(runs, index, { tree: t, stride: packed ? 4 : 5, chunkEntries: 0 }, key)));
      for (const entry of lists.flat()) {
        candidates++;
        if (popcount(entry[1]! ^ hi) + popcount(entry[2]! ^ lo) <= 3) found.add(packed ? entry[3]! : entry[3]! * 2 ** 32 + entry[4]!);
      }
      const pages = tx.objectStore('pages');
      if (packed) await Promise.all([...found].map(async (id) => readBlockPage(await pages.get(blockOf(id)), id)));
      else await Promise.all([...found].map((id) => pages.get(id)));
    } else if (layout === 'runs' || layout === 'v5-runs' || layout === 'runs-full' || layout === 'runs-compact') {
      const stride = layout === 'runs' ? 4 : 5;
      const tx = db.transaction(['runs', 'pages'], 'readonly');
      const runs = tx.objectStore('runs');
      const reads: Promise<void>[] = [];
      blocks.forEach((key, t) => {
        for (const [where, ids] of runIndex) {
          const [table, level] = where.split(':').map(Number) as [number, number];
          if (table !== t) continue;
          for (const id of ids) {
            // the last chunk whose first key is at most the key: equal keys are never split
            const firsts = chunkKeys.get(`${t}:${id}`)!;
            let low = 0;
            let high = firsts.length - 1;
            if (firsts[0]! > key) continue;
            while (low < high) {
              const mid = (low + high + 1) >> 1;
              if (firsts[mid]! <= key) low = mid;
              else high = mid - 1;
            }
            reads.push(
              request<Uint32Array | undefined>(runs.get([t, level, id, firsts[low]!, low])).then((chunk) => {
                if (!chunk) return;
                for (let e = 0; e < chunk.length; e += stride) {
                  if (chunk[e] !== key) continue;
                  candidates++;
                  if (popcount(chunk[e + 1]! ^ hi) + popcount(chunk[e + 2]! ^ lo) <= 3) found.add(stride === 4 ? chunk[e + 3]! : chunk[e + 3]! * 2 ** 32 + chunk[e + 4]!);
                }
              }),
            );
          }
        }
      });
      await Promise.all(reads);
      const pages = tx.objectStore('pages');
      await Promise.all([...found].map((id) => request(pages.get(id))));
    } else {
      const tx = db.transaction('pages', 'readonly');
      const keys = tx.objectStore('pages').index('keys');
      await Promise.all(
        blocks.map((key, t) =>
          request<{ i: number; h: string }[]>(keys.getAll(IDBKeyRange.only(t * 65536 + key))).then((records) => {
            for (const r of records) {
              candidates++;
              if (popcount(parseInt(r.h.slice(0, 8), 16) ^ hi) + popcount(parseInt(r.h.slice(8), 16) ^ lo) <= 3) found.add(r.i);
            }
          }),
        ),
      );
    }
    times.push(performance.now() - started);
    matches += found.size;
  }
  db.close();
  return { times, matches, candidates };
}

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
