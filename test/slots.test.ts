// A page's key (lib/store/slots.ts): a hash of its URL times SLOT_PROBES, plus a probe when other
// URLs share the hash. Real clashes of a 47-bit hash cannot be found in a test, so the probing is
// checked against a fake store whose slots hold whatever records a case puts there.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { SLOT_PROBES, type SlotReader, readSlots, slotBase, slotRange } from '../lib/store/slots';

type Rec = { id: number; url: string };

/** A store of `records` answering getAll over a key range, in key order, and counting reads. */
function fakeStore(records: Rec[]): SlotReader<Rec> & { reads: number } {
  const store = {
    reads: 0,
    async getAll(query: IDBKeyRange): Promise<Rec[]> {
      store.reads++;
      return records.filter((r) => query.includes(r.id)).sort((x, y) => x.id - y.id);
    },
  };
  return store;
}

describe('slotBase', () => {
  it.each(['https://a.example/', 'https://b.example/story?id=7', 'https://例え.jp/記事', ''])('%j: a multiple of SLOT_PROBES, an exact number, the same every time', (url) => {
    const base = slotBase(url);
    expect(base % SLOT_PROBES).toBe(0);
    expect(Number.isSafeInteger(base + SLOT_PROBES - 1)).toBe(true);
    expect(base).toBeGreaterThanOrEqual(0);
    expect(slotBase(url)).toBe(base);
  });

  it('spreads 100,000 URLs over distinct slots', () => {
    const bases = new Set(Array.from({ length: 100_000 }, (_, i) => slotBase(`https://site${i % 97}.example/article/${i}`)));
    expect(bases.size).toBe(100_000);
  });

  it('slotRange covers exactly the slot', () => {
    const url = 'https://a.example/';
    const range = slotRange(url);
    expect([range.lower, range.upper, range.lowerOpen, range.upperOpen]).toEqual([slotBase(url), slotBase(url) + SLOT_PROBES - 1, false, false]);
  });
});

describe('readSlots', () => {
  const url = 'https://a.example/';
  const base = slotBase(url);
  const other = (probe: number, name = `https://clash${probe}.example/`): Rec => ({ id: base + probe, url: name });

  it('a URL not stored: not found, and the slot\'s first key', async () => {
    const store = fakeStore([]);
    const { records, keys } = await readSlots(store, [url]);
    expect([records.size, keys.get(url)]).toEqual([0, base]);
  });

  it('a stored URL: its record and its own key, wherever in the slot it is', async () => {
    const mine = { id: base + 2, url };
    const store = fakeStore([other(0), other(1), mine, other(3)]);
    const { records, keys } = await readSlots(store, [url]);
    expect([records.get(url), keys.get(url)]).toEqual([mine, base + 2]);
  });

  it('a new URL whose slot holds other URLs takes the first free probe, also a gap left by a forgotten page', async () => {
    expect((await readSlots(fakeStore([other(0)]), [url])).keys.get(url)).toBe(base + 1);
    expect((await readSlots(fakeStore([other(0), other(2)]), [url])).keys.get(url)).toBe(base + 1);
    expect((await readSlots(fakeStore([other(1)]), [url])).keys.get(url)).toBe(base);
  });

  it('never gives one key twice in a batch: keys in `taken` are skipped, and the keys given are added to it', async () => {
    const taken = new Set([base]);
    const { keys } = await readSlots(fakeStore([other(1)]), [url], taken);
    expect(keys.get(url)).toBe(base + 2);
    expect([...taken].sort()).toEqual([base, base + 2]);
  });

  it('reads each URL once, and records of a neighbouring slot are not taken for this one', async () => {
    const neighbour = { id: base + SLOT_PROBES, url: 'https://next.example/' };
    const store = fakeStore([neighbour]);
    const { keys } = await readSlots(store, [url, url, url]);
    expect([store.reads, keys.get(url)]).toEqual([1, base]);
  });

  it('a full slot is a clear error, not an overwrite', async () => {
    const full = fakeStore(Array.from({ length: SLOT_PROBES }, (_, probe) => other(probe)));
    await expect(readSlots(full, [url])).rejects.toThrow(`Doppel cannot store ${url}: ${SLOT_PROBES} other pages already have its address's hash`);
  });
});
