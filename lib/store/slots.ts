// A page's key (schema version 5): a number derived from its URL, so that a URL's record is found
// without an index of URLs, and every index entry carries 8 bytes of key instead of the URL again.
// (Chromium's index entries hold the record's primary key, twice: with the URL as the key, the 6
// entries of a page held it 12 times. bench:layout measured the change at 100,000 pages: 0.42×
// the bytes and 1.8× the write rate, docs/bench/2026-11-23-layout-100k-v5.txt.)
//
// The key is slotBase(url) + probe: a 47-bit hash of the URL times SLOT_PROBES, plus the first
// probe (0 … SLOT_PROBES − 1) not taken by another URL with the same hash. A URL's record is
// looked up with one getAll over its slot's whole range, so a probe never depends on which other
// pages exist or were deleted. Two URLs share a 47-bit hash with probability about n² / 2^48 over
// a store of n pages (1 in 280 at a million): rare, and handled, never a lost page.
//
// Schema version 7 gives a page an id by its block instead (lib/store/page-rows.ts). These keys
// remain for the `pages` store of versions 5 and 6: version 5's move fills it (lib/store/move.ts),
// and version 7's move empties it into blocks (lib/store/build.ts).
import { hash64 } from '../hash';

/** Keys per slot: how many URLs with one 47-bit hash a store can hold. */
export const SLOT_PROBES = 64;

/** The first key of `url`'s slot: a 47-bit hash times SLOT_PROBES (at most 2^53 − SLOT_PROBES, an exact number). */
export function slotBase(url: string): number {
  const { hi, lo } = hash64(url);
  return (hi >>> 17) * 2 ** 32 * SLOT_PROBES + lo * SLOT_PROBES;
}

/** The keys of `url`'s slot, for one getAll. */
export function slotRange(url: string): IDBKeyRange {
  const base = slotBase(url);
  return IDBKeyRange.bound(base, base + SLOT_PROBES - 1);
}

/** What reading a page by URL needs of the `pages` store (any transaction, any mode). */
export interface SlotReader<T extends { id: number; url: string }> {
  getAll(query: IDBKeyRange): Promise<T[]>;
}

/**
 * The records of `urls` (absent ones are not in the map), and a key for each URL: its record's, or
 * a free one for a new page. `taken` holds keys given out earlier in the same transaction (two new
 * URLs of one slot in one batch get different keys); the keys given here are added to it. Used by
 * version 5's move (lib/store/move.ts), which fills the `pages` store of versions 5 and 6.
 */
export async function readSlots<T extends { id: number; url: string }>(
  pages: SlotReader<T>,
  urls: readonly string[],
  taken: Set<number> = new Set(),
): Promise<{ records: Map<string, T>; keys: Map<string, number> }> {
  const unique = [...new Set(urls)];
  const slotOf = new Map<string, T[]>();
  (await Promise.all(unique.map((url) => pages.getAll(slotRange(url))))).forEach((slot, i) => slotOf.set(unique[i]!, slot));
  const records = new Map<string, T>();
  const keys = new Map<string, number>();
  unique.forEach((url) => {
    const slot = slotOf.get(url) ?? [];
    const found = slot.find((record) => record.url === url);
    if (found !== undefined) {
      records.set(url, found);
      keys.set(url, found.id);
      return;
    }
    const used = new Set(slot.map((record) => record.id));
    const base = slotBase(url);
    for (let probe = 0; probe < SLOT_PROBES; probe++) {
      const key = base + probe;
      if (!used.has(key) && !taken.has(key)) {
        taken.add(key);
        keys.set(url, key);
        return;
      }
    }
    throw new Error(`Doppel cannot store ${url}: ${SLOT_PROBES} other pages already have its address's hash`);
  });
  return { records, keys };
}
