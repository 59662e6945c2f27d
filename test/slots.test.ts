// A page's key (lib/store/slots.ts): a hash of its URL times SLOT_PROBES, plus a probe when other
// URLs share the hash. Real clashes of a 47-bit hash cannot be found in a test, so the probing is
// checked against a fake store whose slots hold whatever records a case puts there.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { SLOT_PROBES, SlotFilter, type SlotReader, readByUrl, readSlots, slotBase, slotRange } from '../lib/store/slots';
import { mulberry32 } from '../lib/random';

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

describe('readByUrl and readSlots', () => {
  const url = 'https://a.example/';
  const base = slotBase(url);
  const other = (probe: number, name = `https://clash${probe}.example/`): Rec => ({ id: base + probe, url: name });

  it('a URL not stored: not found, and the slot\'s first key', async () => {
    const store = fakeStore([]);
    expect(await readByUrl(store, url)).toBeUndefined();
    const { records, keys } = await readSlots(store, [url]);
    expect([records.size, keys.get(url)]).toEqual([0, base]);
  });

  it('a stored URL: its record and its own key, wherever in the slot it is', async () => {
    const mine = { id: base + 2, url };
    const store = fakeStore([other(0), other(1), mine, other(3)]);
    expect(await readByUrl(store, url)).toBe(mine);
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

describe('SlotFilter', () => {
  it('never says no for a slot of which a key was added, whichever key of the slot is asked', () => {
    const filter = new SlotFilter();
    const random = mulberry32(11);
    const added = Array.from({ length: 5_000 }, () => slotBase(`https://site${Math.floor(random() * 1e9)}.example/`) + Math.floor(random() * SLOT_PROBES));
    for (const key of added) filter.add(key);
    for (const key of added) {
      const base = key - (key % SLOT_PROBES);
      expect([filter.mayHold(base), filter.mayHold(base + SLOT_PROBES - 1), filter.mayHold(key)]).toEqual([true, true, true]);
    }
  });

  it('says no for most slots never added: about 5,000 in 2^24 buckets are set', () => {
    const filter = new SlotFilter();
    for (let i = 0; i < 5_000; i++) filter.add(slotBase(`https://stored${i}.example/`));
    let maybe = 0;
    for (let i = 0; i < 10_000; i++) if (filter.mayHold(slotBase(`https://new${i}.example/`))) maybe++;
    expect(maybe).toBeLessThan(10); // expected 10,000 × 5,000 / 2^24 ≈ 3
  });

  it('readSlots skips the slots the filter says are empty, gives them their first key, and lists them as unread', async () => {
    const stored = { id: slotBase('https://kept.example/'), url: 'https://kept.example/' };
    const store = fakeStore([stored]);
    const filter = new SlotFilter();
    filter.add(stored.id);
    const urls = ['https://kept.example/', 'https://new1.example/', 'https://new2.example/'];
    const { records, keys, unread } = await readSlots(store, urls, new Set(), filter);
    expect(store.reads).toBe(1);
    expect([...unread]).toEqual(['https://new1.example/', 'https://new2.example/']);
    expect(records.get('https://kept.example/')).toBe(stored);
    expect(urls.map((u) => keys.get(u))).toEqual(urls.map(slotBase));
  });

  it('an unread URL still takes no key already given in the batch', async () => {
    const url = 'https://new.example/';
    const taken = new Set([slotBase(url)]);
    const { keys, unread } = await readSlots(fakeStore([]), [url], taken, new SlotFilter());
    expect([keys.get(url), [...unread]]).toEqual([slotBase(url) + 1, [url]]);
  });

  it('without a filter every slot is read and none is unread', async () => {
    const store = fakeStore([]);
    const { unread } = await readSlots(store, ['https://a.example/', 'https://b.example/']);
    expect([store.reads, unread.size]).toEqual([2, 0]);
  });
});
