// The page side of bench:layout's writes (bench/layout/layout.ts, whose header says what each layout
// is): the layouts' names, and writeLayout, which creates a layout's database in Chromium and writes
// the seeded synthetic pages into it. It is handed to page.evaluate as its source, so it sees no
// module scope: it draws its own pages and builds every layout itself (lib/index/runs.ts comes
// bundled into the page by layout.ts's bundleRuns). What it leaves for the lookups is LayoutState.
import type { IDBPTransaction, wrap } from 'idb';
import type { deflateSync, inflateSync } from 'fflate';
import type * as Runs from '../../lib/index/runs';

export const ALL_LAYOUTS = ['v2', 'int-key', 'int-key-lean', 'bare', 'bare-hashed', 'table-index', 'lean-hashed', 'buckets', 'runs', 'v5-slot', 'v5-counter', 'v5-runs', 'runs-full', 'runs-compact', 'runs-lib', 'v5-slot-read', 'v7-inplace', 'v6-packed', 'v6-lib', 'v6-packed-hash', 'blocks', 'blocks-deflate'] as const;
export type Layout = (typeof ALL_LAYOUTS)[number];

/** lib/index/runs.ts and idb's wrap, bundled into the page for runs-lib (see bundleRuns in layout.ts). */
export type RunsBundle = typeof Runs & { wrap: typeof wrap; deflateSync: typeof deflateSync; inflateSync: typeof inflateSync };

/** What writeLayout leaves in the page for queryLayout (page functions see no module scope). */
export interface LayoutState {
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

/** Runs in the page: creates the layout's database and writes `pages` (--pages) seeded synthetic pages. */
export async function writeLayout({ layout, viaLib, pages, batch, chunk }: { layout: Layout; viaLib: boolean; pages: number; batch: number; chunk: number }): Promise<{ ms: number; usage: number; base: number }> {
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
