// The page side of bench:layout's lookups (bench/layout/layout.ts): queryLayout, run in Chromium
// after writeLayout (bench/layout/layout-write.ts) on the layouts whose near-duplicate query is
// measured. Like writeLayout it is handed to page.evaluate as its source and sees no module scope:
// it reads what writeLayout left in the page (LayoutState).
import type { Layout, LayoutState, RunsBundle } from './layout-write';

/**
 * Runs in the page, after writeLayout: `queries` near-duplicate queries (within 3 bits over the 4
 * tables) for stored fingerprints with 0–3 bits flipped, each in a readonly transaction of its
 * own, fetching the matching pages. Returns the time of each, and the matches found (the same
 * for every layout, since the pages are: a check of the prototype).
 */
export async function queryLayout({ layout, viaLib, queries }: { layout: Layout; viaLib: boolean; queries: number }): Promise<{ times: number[]; matches: number; candidates: number }> {
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
