// Pages packed 64 to a value (lib/rows/blocks.ts): every page back as it went in, in its slot;
// a damaged block refused with the block and the fault named; and the bytes it saves.
import 'fake-indexeddb/auto';
import { serialize } from 'node:v8';
import { openDB } from 'idb';
import { deflateSync, inflateSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BLOCK_FORMAT, BLOCK_FORMAT_1, BLOCK_PAGES, BlockCache, type BlockStore, type SlotSummary, blockOf, decodeBlock, encodeBlock, openBlock } from '../lib/rows/blocks';
import type { StoredBlock } from '../lib/store/schema';
import { type PageValue, encodePage } from '../lib/rows/codec';
import { asFingerprint, fingerprintToHex } from '../lib/fingerprint/bits';
import { mulberry32, splitmix64 } from '../lib/random';
import { absentFrom } from '../lib/index/slots';

const page = (id: number, fields: Partial<PageValue> = {}): PageValue => ({
  id,
  url: `https://www.harbour-council.example/news/2025/03/the-tide-mill-reopens-${id}`,
  title: `The tide mill reopens — «ouverture» 潮汐磨坊 ${id}`,
  site: 'www.harbour-council.example',
  simhash: '0123456789abcdef',
  check: 'fedcba9876543210',
  firstSeen: 1_700_000_123_456 + id,
  lastSeen: 1_700_000_223_457 + id,
  visits: 3,
  ...fields,
});

/** A block's pages from (slot, page fields) pairs: undefined elsewhere. */
const slots = (block: number, filled: [number, Partial<PageValue>][], length = BLOCK_PAGES): (PageValue | undefined)[] => {
  const pages: (PageValue | undefined)[] = Array.from({ length }, () => undefined);
  for (const [slot, fields] of filled) pages[slot] = page(block * BLOCK_PAGES + slot, fields);
  return pages;
};

/** A block as the first release wrote it (format 1, a reference written out here): each entry holds its group fields, and there are no marks. */
const format1 = (all: readonly (PageValue | undefined)[]): unknown[] => {
  let used = all.length;
  while (used > 0 && all[used - 1] === undefined) used--; // no slots past the last page, as it wrote them
  const pages = all.slice(0, used);
  const fingerprints = new Uint8Array(pages.length * 16);
  const entries = pages.map((p, slot) => {
    if (p === undefined) return null;
    const entry: unknown[] = encodePage(p);
    if (entry[2] instanceof Uint8Array) {
      fingerprints.set(entry[2], slot * 16);
      entry[2] = entry[2].length;
    }
    return entry;
  });
  return [BLOCK_FORMAT_1, deflateSync(strToU8(JSON.stringify(entries)), { level: 6 }), fingerprints];
};

describe('blockOf', () => {
  it.each([
    [0, 0, 0],
    [63, 0, 63],
    [64, 1, 0],
    [1_000_000, 15_625, 0],
    [2 ** 40 + 5, 2 ** 34, 5],
  ])('page %i is in block %i, slot %i', (id, block, slot) => {
    expect(blockOf(id)).toEqual({ block, slot });
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 53])('refuses the id %s', (id) => {
    expect(() => blockOf(id)).toThrow(`a page id is a whole number of at least 0: got ${id}`);
  });
});

describe('encodeBlock and decodeBlock', () => {
  it.each([
    { name: 'a full block', block: 3, pages: slots(3, Array.from({ length: BLOCK_PAGES }, (_, s) => [s, {}] as [number, Partial<PageValue>])) },
    { name: 'one page in slot 0', block: 0, pages: slots(0, [[0, {}]]) },
    { name: 'holes: pages forgotten in between', block: 9, pages: slots(9, [[1, {}], [5, {}], [63, {}]]) },
    { name: 'an unknown check (8 bytes kept)', block: 1, pages: slots(1, [[2, { check: '' }]]) },
    { name: 'a simhash that is not hex, kept as text', block: 1, pages: slots(1, [[0, { simhash: 'not a fingerprint', check: '' }], [1, {}]]) },
    { name: 'group and copySite', block: 2, pages: slots(2, [[0, { group: 'g-00af' }], [1, { group: 'g-00af', copySite: 'news.example' }], [2, { copySite: 'c.example' }]]) },
    { name: 'all-zero and all-one fingerprints, an empty title, no visits, time 0', block: 4, pages: slots(4, [[0, { simhash: '0000000000000000', check: 'ffffffffffffffff', title: '', visits: 0, firstSeen: 0 }]]) },
    { name: 'a title with newlines, quotes and a lone surrogate (kept: JSON escapes it)', block: 5, pages: slots(5, [[7, { title: 'a\nb "c" \\ \u2028 \ud800' }]]) },
  ])('give back $name exactly, each page in its slot', ({ block, pages }) => {
    const stored = structuredClone(encodeBlock(block, pages));
    const decoded = decodeBlock(block, stored);
    let used = pages.length;
    while (used > 0 && pages[used - 1] === undefined) used--;
    expect(decoded).toEqual(pages.slice(0, used)); // a lone surrogate too: JSON.stringify escapes it
  });

  it('store no slots past the last page, and an empty block as no slots', () => {
    expect(decodeBlock(7, encodeBlock(7, slots(7, [[2, {}]])))).toHaveLength(3);
    const empty = encodeBlock(7, []);
    expect(empty[2]).toHaveLength(0);
    expect(decodeBlock(7, empty)).toEqual([]);
    expect(decodeBlock(7, encodeBlock(7, slots(7, [])))).toEqual([]);
  });

  it('give back seeded random pages exactly', () => {
    const random = mulberry32(7);
    const fingerprints = splitmix64(7n);
    const hex = (): string => fingerprintToHex(asFingerprint(fingerprints()));
    for (let block = 0; block < 40; block++) {
      const pages = Array.from({ length: BLOCK_PAGES }, (_, slot): PageValue | undefined => {
        if (random() < 0.2) return undefined;
        const host = `site${Math.floor(random() * 50)}.example`;
        const fields: Partial<PageValue> = { url: `https://${host}/${hex()}`, site: host, title: hex().repeat(Math.floor(random() * 5)), simhash: hex(), check: random() < 0.1 ? '' : hex(), visits: Math.floor(random() * 9) };
        if (random() < 0.1) fields.group = hex();
        if (random() < 0.05) fields.copySite = host;
        return page(block * BLOCK_PAGES + slot, fields);
      });
      let used = pages.length;
      while (used > 0 && pages[used - 1] === undefined) used--;
      expect(decodeBlock(block, structuredClone(encodeBlock(block, pages)))).toEqual(pages.slice(0, used));
    }
  });

  it('give back blocks whose text inflates past the buffer reused for inflating (256 kB): deflated, and stored as it is', () => {
    const long = (id: number, title: string): PageValue => page(id, { title });
    const random = mulberry32(11);
    const noise = (length: number): string => Array.from({ length }, () => String.fromCharCode(0x4e00 + Math.floor(random() * 0x5200))).join('');
    for (const pages of [
      Array.from({ length: BLOCK_PAGES }, (_, s) => long(s, `${s} `.repeat(2_500))), // compressible: 64 × 10 kB of text
      Array.from({ length: BLOCK_PAGES }, (_, s) => long(s, noise(1_500))), // 64 × 4.5 kB of UTF-8 that deflates little
    ]) {
      const stored = encodeBlock(0, pages);
      expect(inflateSync(stored[1]).length).toBeGreaterThan(1 << 18);
      expect(decodeBlock(0, structuredClone(stored))).toEqual(pages);
      const uncompressed: StoredBlock = [stored[0], deflateSync(inflateSync(stored[1]), { level: 0 }), stored[2], stored[3]];
      expect(decodeBlock(0, uncompressed)).toEqual(pages);
    }
    // and the next block, inflated into the buffer again, is whole
    const small = slots(1, [[0, {}], [9, {}]]);
    expect(decodeBlock(1, encodeBlock(1, small))).toEqual(small.slice(0, 10));
  });

  it('refuse a page out of its place, or too many pages', () => {
    expect(() => encodeBlock(2, [page(3)])).toThrow('page 3 cannot be stored in slot 0 of block 2');
    expect(() => encodeBlock(0, Array.from({ length: BLOCK_PAGES + 1 }, (_, s) => page(s)))).toThrow(`a block holds at most ${BLOCK_PAGES} pages: got ${BLOCK_PAGES + 1}`);
  });

  it('take under a third of the bytes of the same pages as one record each, in V8 serialization as IndexedDB writes it', () => {
    // varied text, as URLs and titles are: the same words over and over would compress unfairly well
    const random = mulberry32(11);
    const word = (): string => Math.floor(random() * 36 ** 6).toString(36);
    const pages = Array.from({ length: BLOCK_PAGES }, (_, slot) => page(64 + slot, { url: `https://www.${word()}.example/${word()}/${word()}-${word()}-${word()}`, title: `${word()} ${word()} ${word()} ${word()} ${word()}` }));
    const records = pages.reduce((bytes, p) => bytes + serialize(p).length, 0);
    const block = serialize(encodeBlock(1, pages)).length;
    expect(block / records).toBeLessThan(1 / 3);
  });

  const good = encodeBlock(0, slots(0, [[0, {}], [1, { check: '' }]]));
  const textOf = (entries: unknown): Uint8Array => deflateSync(strToU8(JSON.stringify(entries)));
  const goodEntries = (): unknown[][] => [[page(0).url, page(0).title, 16, page(0).firstSeen, page(0).lastSeen, 3], [page(1).url, page(1).title, 8, page(1).firstSeen, page(1).lastSeen, 3]];
  const good1 = format1(slots(0, [[0, {}], [1, { check: '' }]]));
  it.each([
    { name: 'an object', value: { pages: [] }, why: 'it is not a list' },
    { name: 'a later format', value: [3, good[1], good[2], good[3]], why: 'its format is 3, neither 1 nor 2' },
    { name: 'format 2 without marks', value: [BLOCK_FORMAT, good[1], good[2]], why: 'it is not a list of 4 parts, as format 2 is' },
    { name: 'format 1 with marks', value: [...good1, good[3]], why: 'it is not a list of 3 parts, as format 1 is' },
    { name: 'text that is a string', value: [BLOCK_FORMAT, 'pages', good[2], good[3]], why: 'its text is not bytes' },
    { name: 'slot bytes that are numbers', value: [BLOCK_FORMAT, good[1], [1, 2], good[3]], why: 'its slot bytes are not bytes' },
    { name: 'slot bytes cut short', value: [BLOCK_FORMAT, good[1], good[2].slice(0, 20), good[3]], why: 'its slot bytes are 20, not 17 a slot for at most 64' },
    { name: 'slot bytes for more slots than a block has', value: [BLOCK_FORMAT, good[1], new Uint8Array(65 * 17), Array(65).fill(null)], why: 'its slot bytes are 1105, not 17 a slot for at most 64' },
    { name: 'a kind that is not one', value: [BLOCK_FORMAT, good[1], Uint8Array.from(good[2], (b, i) => (i === 17 ? 9 : b)), good[3]], why: "slot 1's kind is 9" },
    { name: 'text that does not inflate', value: [BLOCK_FORMAT, new Uint8Array([255, 255, 255, 255]), good[2], good[3]], why: 'its text does not inflate to JSON' },
    { name: 'text that is not JSON', value: [BLOCK_FORMAT, deflateSync(strToU8('[1,')), good[2], good[3]], why: 'its text does not inflate to JSON' },
    { name: 'text that is not a list', value: [BLOCK_FORMAT, textOf({ a: 1 }), good[2], good[3]], why: `its text is not a list of at most ${BLOCK_PAGES} pages` },
    { name: 'text of more slots than a block has', value: [BLOCK_FORMAT, textOf(Array(BLOCK_PAGES + 1).fill(null)), good[2], good[3]], why: `its text is not a list of at most ${BLOCK_PAGES} pages` },
    { name: 'text of fewer slots than its slot bytes', value: [BLOCK_FORMAT, textOf([goodEntries()[0]]), good[2], good[3]], why: 'its text has 1 slots, its slot bytes 2' },
    { name: 'a page in the text where the slot bytes have none', value: [BLOCK_FORMAT, good[1], Uint8Array.from(good[2], (b, i) => (i === 17 ? 0 : b)), good[3]], why: 'slot 1 is a page in its text but not in its slot bytes' },
    { name: 'marks that are not a list', value: [BLOCK_FORMAT, good[1], good[2], 'g'], why: 'its marks are not a list of one entry a slot (2)' },
    { name: 'marks for fewer slots', value: [BLOCK_FORMAT, good[1], good[2], [null]], why: 'its marks are not a list of one entry a slot (2)' },
    { name: 'a slot that is a number', value: [BLOCK_FORMAT, textOf([goodEntries()[0], 5]), good[2], good[3]], why: 'slot 1 is neither a page nor empty' },
    { name: 'a text entry of 12 fingerprint bytes', value: [BLOCK_FORMAT, textOf([goodEntries()[0], [...goodEntries()[1]!.slice(0, 2), 12, ...goodEntries()[1]!.slice(3)]]), good[2], good[3]], why: "slot 1's kind 8 does not go with its text" },
    { name: 'a text entry of 16 bytes where the kind says 8', value: [BLOCK_FORMAT, textOf([goodEntries()[0], [...goodEntries()[1]!.slice(0, 2), 16, ...goodEntries()[1]!.slice(3)]]), good[2], good[3]], why: "slot 1's kind 8 does not go with its text" },
    { name: 'a mark that is a string', value: [BLOCK_FORMAT, good[1], good[2], [null, 'g']], why: "slot 1's marks are not [group, copySite, contentCopy]" },
    { name: 'a mark with a numeric group', value: [BLOCK_FORMAT, good[1], good[2], [null, [7, null, 0]]], why: "slot 1's marks are not [group, copySite, contentCopy]" },
    { name: 'a mark with contentCopy 2', value: [BLOCK_FORMAT, good[1], good[2], [null, ['g', null, 2]]], why: "slot 1's marks are not [group, copySite, contentCopy]" },
    { name: 'group fields in the text of format 2', value: [BLOCK_FORMAT, textOf([goodEntries()[0], [...goodEntries()[1]!, 'g']]), good[2], good[3]], why: 'slot 1 has group fields in its text' },
    { name: 'format 1: fingerprints that are numbers', value: [BLOCK_FORMAT_1, good1[1], [1, 2]], why: 'its fingerprints are not bytes' },
    { name: 'format 1: text that is not a list', value: [BLOCK_FORMAT_1, textOf({ a: 1 }), new Uint8Array(0)], why: `its text is not a list of at most ${BLOCK_PAGES} pages` },
    { name: 'format 1: fingerprints cut short', value: [BLOCK_FORMAT_1, good1[1], (good1[2] as Uint8Array).slice(0, 20)], why: 'it has 20 bytes of fingerprints for 2 slots' },
    { name: 'format 1: a text entry of 12 fingerprint bytes', value: [BLOCK_FORMAT_1, textOf([goodEntries()[0], [...goodEntries()[1]!.slice(0, 2), 12, ...goodEntries()[1]!.slice(3)]]), good1[2]], why: "slot 1's fingerprints are neither a length nor two strings" },
  ] as { name: string; value: unknown; why: string }[])('refuse $name, naming the block and the fault', ({ value, why }) => {
    expect(() => decodeBlock(0, value)).toThrow(`Doppel's stored block 0 (pages 0 to 63) is damaged: ${why}.`);
  });

  it("refuse a damaged page inside, naming it as lib/rows/codec.ts does", () => {
    const entries = goodEntries();
    entries[1]![5] = -1;
    expect(() => decodeBlock(0, [BLOCK_FORMAT, textOf(entries), good[2], good[3]] satisfies StoredBlock)).toThrow("Doppel's stored page 1 is damaged: its visits are not a count.");
  });

  it('decode a page when it is read: the other pages of the block stay readable, and the damaged one is refused when read or written', () => {
    const entries = goodEntries();
    entries[1]![5] = -1;
    const opened = openBlock(0, [BLOCK_FORMAT, textOf(entries), good[2], good[3]] satisfies StoredBlock);
    expect(opened.get(0)).toEqual(decodeBlock(0, good)[0]);
    expect(opened.get(2)).toBeUndefined();
    expect(() => opened.get(1)).toThrow("Doppel's stored page 1 is damaged: its visits are not a count.");
    expect(() => opened.all()).toThrow("Doppel's stored page 1 is damaged");
    expect(openBlock(0, good).all()).toEqual(decodeBlock(0, good));
  });
});

const first = (pages: readonly (PageValue | undefined)[]): PageValue => pages.find((p) => p !== undefined)!;

/** Seeded pages of one block with every kind of group field and provenance, some slots empty (never the last). */
const markedPages = (block: number, seed: number): (PageValue | undefined)[] => {
  const random = mulberry32(seed);
  return Array.from({ length: BLOCK_PAGES }, (_, slot): PageValue | undefined => {
    if (slot < BLOCK_PAGES - 1 && random() < 0.2) return undefined;
    const fields: Partial<PageValue> = { visits: Math.floor(random() * 9), check: random() < 0.2 ? '' : 'fedcba9876543210' };
    if (random() < 0.5) fields.group = `g${Math.floor(random() * 9)}`;
    if (random() < 0.3) fields.copySite = 'www.harbour-council.example';
    if (random() < 0.3) fields.contentCopy = true;
    if (random() < 0.3) fields.published = 28_000_000 * 60_000;
    if (random() < 0.3) Object.assign(fields, { source: `https://origin.example/${slot}`, sourceBy: random() < 0.5 ? 'credit' : 'canonical' });
    return page(block * BLOCK_PAGES + slot, fields);
  });
};

describe('format 1 (the first release) and format 2 marks', () => {
  it('read format 1 blocks exactly, group fields and provenance included', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const pages = markedPages(3, seed);
      expect(decodeBlock(3, structuredClone(format1(pages)))).toEqual(pages);
      expect(decodeBlock(3, structuredClone(encodeBlock(3, pages)))).toEqual(pages);
    }
  });

  it('write a format 1 block as format 2 when one page changes: the pages never decoded keep their group fields', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const pages = markedPages(0, seed);
      const store = new CountingStore();
      store.values.set(0, format1(pages));
      const changed = pages.findIndex((p) => p !== undefined);
      pages[changed] = { ...pages[changed]!, group: 'moved' };
      const cache = new BlockCache(store);
      await cache.set(pages[changed]!);
      await cache.flush();
      expect(store.values.get(0)).toEqual(encodeBlock(0, pages));
    }
  });

  /** What summary should give for a page: its simhash and check as bytes (8 when the check is unknown), null if they are not hex; its group fields. */
  const expectedSummary = (p: PageValue): SlotSummary => {
    const hex = /^[0-9a-f]{16}$/;
    const readable = hex.test(p.simhash) && (p.check === '' || hex.test(p.check));
    const bytes = readable ? Uint8Array.from(Buffer.from(p.simhash + p.check, 'hex')) : null;
    const marks = p.group === undefined && p.copySite === undefined && p.contentCopy !== true ? null : [p.group ?? null, p.copySite ?? null, p.contentCopy === true ? 1 : 0];
    return { fingerprints: bytes, marks } as SlotSummary;
  };
  it("give each page's fingerprints and marks from a block of either format, from format 2 without inflating its text", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const pages = markedPages(2, seed);
      pages[5] = page(2 * BLOCK_PAGES + 5, { simhash: 'not hex', check: '', group: 'g' });
      const stored = encodeBlock(2, pages);
      const broken: StoredBlock = [stored[0], new Uint8Array([255, 255]), stored[2], stored[3]]; // its text does not inflate
      for (const block of [openBlock(2, structuredClone(format1(pages))), openBlock(2, structuredClone(stored)), openBlock(2, broken)]) {
        pages.forEach((p, slot) => expect(block.summary(slot)).toEqual(p === undefined ? undefined : expectedSummary(p)));
        expect(block.summary(BLOCK_PAGES)).toBeUndefined();
      }
      expect(() => openBlock(2, broken).get(pages.findIndex((p) => p !== undefined))).toThrow('its text does not inflate to JSON');
    }
  });

  it("give a changed page's fingerprints and marks as it is now", () => {
    const pages = markedPages(0, 3);
    const block = openBlock(0, encodeBlock(0, pages));
    const changed = page(first(pages).id, { simhash: 'ffffffffffffffff', check: '', copySite: 'x.example' });
    block.set(changed.id, changed);
    expect(block.summary(changed.id)).toEqual(expectedSummary(changed));
  });

  // a format 2 block whose text was deflated at level 0: a text written back as it was read is exactly these bytes, one deflated again is not
  const stored0 = (pages: readonly (PageValue | undefined)[]): StoredBlock => {
    const stored = encodeBlock(0, pages);
    return [stored[0], deflateSync(inflateSync(stored[1]), { level: 0 }), stored[2], stored[3]];
  };
  it.each([
    { change: 'a group given', keepsText: true, edit: (p: PageValue): PageValue => ({ ...p, group: 'g-new' }) },
    { change: 'the group taken away', keepsText: true, edit: (p: PageValue): PageValue => ({ ...p, group: undefined }) },
    { change: 'copySite given', keepsText: true, edit: (p: PageValue): PageValue => ({ ...p, copySite: p.site }) },
    { change: 'contentCopy given', keepsText: true, edit: (p: PageValue): PageValue => ({ ...p, contentCopy: true }) },
    { change: 'all three taken away', keepsText: true, edit: (p: PageValue): PageValue => ({ ...p, group: undefined, copySite: undefined, contentCopy: undefined }) },
    { change: 'the visits', keepsText: false, edit: (p: PageValue): PageValue => ({ ...p, visits: p.visits + 1 }) },
    { change: 'the title', keepsText: false, edit: (p: PageValue): PageValue => ({ ...p, title: `${p.title}!` }) },
    { change: 'the simhash only (the text holds its length)', keepsText: false, edit: (p: PageValue): PageValue => ({ ...p, simhash: 'ffffffffffffffff' }) },
    { change: 'the check only', keepsText: false, edit: (p: PageValue): PageValue => ({ ...p, check: '0000000000000001' }) },
    { change: 'a published time', keepsText: false, edit: (p: PageValue): PageValue => ({ ...p, published: 29_000_000 * 60_000 }) },
    { change: 'a source', keepsText: false, edit: (p: PageValue): PageValue => ({ ...p, source: 'https://elsewhere.example/a', sourceBy: 'credit' }) },
  ])('write $change with the text kept: $keepsText, and read it back exactly', async ({ edit, keepsText }) => {
    for (let seed = 1; seed <= 10; seed++) {
      const pages = markedPages(0, seed);
      const before = stored0(pages);
      const store = new CountingStore();
      store.values.set(0, before);
      const target = first(pages);
      pages[target.id] = edit(target);
      const cache = new BlockCache(store);
      await cache.get(pages.length - 1); // another page read, unchanged
      await cache.set(pages[target.id]!);
      await cache.flush();
      const after = store.values.get(0) as StoredBlock;
      expect(after[1]).toEqual(keepsText ? before[1] : encodeBlock(0, pages)[1]);
      expect(decodeBlock(0, after)).toEqual(pages);
    }
  });

  it.each([
    { change: 'a page forgotten', edit: (cache: BlockCache, pages: (PageValue | undefined)[]) => cache.delete(first(pages).id), expected: (pages: (PageValue | undefined)[]): void => void (pages[first(pages).id] = undefined) },
    { change: 'a page added in an empty slot', edit: (cache: BlockCache, pages: (PageValue | undefined)[]) => cache.set(page(pages.indexOf(undefined))), expected: (pages: (PageValue | undefined)[]): void => void (pages[pages.indexOf(undefined)] = page(pages.indexOf(undefined))) },
  ])('deflate the text again for $change', async ({ edit, expected: expectedOf }) => {
    const pages = markedPages(0, 4);
    const store = new CountingStore();
    store.values.set(0, stored0(pages));
    const cache = new BlockCache(store);
    await edit(cache, pages);
    await cache.flush();
    expectedOf(pages);
    expect(store.values.get(0)).toEqual(encodeBlock(0, pages));
  });
});

/** An in-memory blocks store that counts what is asked of it, and keeps values as IndexedDB would (cloned). */
class CountingStore implements BlockStore {
  readonly values = new Map<number, unknown>();
  gets = 0;
  puts = 0;
  deletes = 0;
  async get(block: number): Promise<unknown> {
    this.gets++;
    return structuredClone(this.values.get(block));
  }
  async put(value: StoredBlock, block: number): Promise<unknown> {
    this.puts++;
    this.values.set(block, structuredClone(value));
    return block;
  }
  async delete(block: number): Promise<unknown> {
    this.deletes++;
    this.values.delete(block);
    return undefined;
  }
}

describe('BlockCache', () => {
  it('keeps exactly the pages a Map of them keeps, over seeded random sets and deletes in 30 transactions', async () => {
    const random = mulberry32(23);
    const store = new CountingStore();
    const reference = new Map<number, PageValue>();
    // 4 slots in each of 5 blocks, the first, the last and two between: blocks fill and empty often
    const ids = [0, 1, 2, 3, 4].flatMap((block) => [0, 1, 30, BLOCK_PAGES - 1].map((slot) => block * BLOCK_PAGES + slot));
    for (let transaction = 0; transaction < 30; transaction++) {
      const cache = new BlockCache(store);
      for (let op = 0; op < 20; op++) {
        const id = ids[Math.floor(random() * ids.length)]!;
        // transactions that mostly add, then mostly forget: blocks fill and empty
        const roll = random();
        const sets = transaction % 2 === 0 ? 0.6 : 0.2;
        if (roll < sets) {
          const written = page(id, { visits: Math.floor(random() * 100), title: `t${transaction}.${op}` });
          await cache.set(written);
          reference.set(id, written);
        } else if (roll < 0.8) {
          expect(await cache.delete(id)).toBe(reference.delete(id));
        } else {
          expect(await cache.get(id)).toEqual(reference.get(id));
        }
      }
      await cache.flush();
      const fresh = new BlockCache(store);
      for (let id = 0; id < 5 * BLOCK_PAGES; id++) expect(await fresh.get(id)).toEqual(reference.get(id));
      // no block is kept without a page in it
      for (const [block, value] of store.values) expect(decodeBlock(block, value).some((p) => p !== undefined)).toBe(true);
    }
    expect(reference.size).toBeGreaterThan(0);
    expect(store.deletes).toBeGreaterThan(0);
  });

  it('reads each block once, and writes each changed block once a flush', async () => {
    const store = new CountingStore();
    const cache = new BlockCache(store);
    await Promise.all([cache.set(page(0)), cache.set(page(1)), cache.get(2), cache.set(page(BLOCK_PAGES + 3))]);
    await cache.get(5);
    expect(store.gets).toBe(2);
    expect(await cache.flush()).toBe(2);
    expect(store.puts).toBe(2);
    expect(await cache.flush()).toBe(0);
    expect(store.puts).toBe(2);
    // reads only: nothing written
    const reader = new BlockCache(store);
    await reader.get(0);
    expect(await reader.flush()).toBe(0);
    expect(store.puts).toBe(2);
  });

  it('writes the slots it never decoded as they were read: the same bytes as encoding every page again', async () => {
    const random = mulberry32(41);
    for (let trial = 0; trial < 20; trial++) {
      const store = new CountingStore();
      const filled = Array.from({ length: BLOCK_PAGES }, (_, slot) => slot).filter(() => random() < 0.7);
      const pages = slots(0, filled.map((slot) => [slot, { visits: Math.floor(random() * 50), check: random() < 0.2 ? '' : 'fedcba9876543210', group: random() < 0.3 ? `g${slot}` : undefined }]));
      await store.put(encodeBlock(0, pages), 0);
      // one page changed, another read (decoded) and left as it was
      const cache = new BlockCache(store);
      const changed = filled[Math.floor(random() * filled.length)]!;
      await cache.get(filled[0]!);
      await cache.set(page(changed, { visits: 999, contentCopy: true }));
      await cache.flush();
      pages[changed] = page(changed, { visits: 999, contentCopy: true });
      expect(store.values.get(0)).toEqual(encodeBlock(0, pages));
    }
  });

  it('keeps a damaged slot it never read as it was, when another page of its block changes', async () => {
    const good = encodeBlock(0, slots(0, [[0, {}], [1, { check: '' }]]));
    const entries = [[page(0).url, page(0).title, 16, page(0).firstSeen, page(0).lastSeen, 3], [page(1).url, page(1).title, 8, page(1).firstSeen, page(1).lastSeen, -1]];
    const store = new CountingStore();
    await store.put([BLOCK_FORMAT, deflateSync(strToU8(JSON.stringify(entries))), good[2], [null, null]] satisfies StoredBlock, 0);
    const cache = new BlockCache(store);
    await cache.set(page(0, { visits: 7 }));
    await cache.flush();
    const after = openBlock(0, store.values.get(0));
    expect(after.get(0)).toEqual(page(0, { visits: 7 }));
    expect(() => after.get(1)).toThrow("Doppel's stored page 1 is damaged: its visits are not a count.");
  });

  it('deletes a block whose last page is forgotten, and forgets nothing twice', async () => {
    const store = new CountingStore();
    const cache = new BlockCache(store);
    await cache.set(page(BLOCK_PAGES * 2 + 7));
    await cache.flush();
    expect([...store.values.keys()]).toEqual([2]);
    const later = new BlockCache(store);
    expect(await later.delete(BLOCK_PAGES * 2 + 7)).toBe(true);
    expect(await later.delete(BLOCK_PAGES * 2 + 7)).toBe(false);
    expect(await later.delete(BLOCK_PAGES * 9)).toBe(false);
    await later.flush();
    expect(store.values.size).toBe(0);
    expect(store.deletes).toBe(1);
  });

  it('writes through IndexedDB in one transaction, and reads back in another', async () => {
    const db = await openDB('blocks-test', 1, { upgrade: (d) => void d.createObjectStore('blocks') });
    const pages = [page(0), page(1, { check: '' }), page(BLOCK_PAGES + 1, { group: 'g', copySite: 'c.example' })];
    const tx = db.transaction('blocks', 'readwrite');
    const cache = new BlockCache(tx.store);
    for (const p of pages) await cache.set(p);
    await cache.flush();
    await tx.done;
    const read = new BlockCache(db.transaction('blocks', 'readonly').store);
    for (const p of pages) expect(await read.get(p.id)).toEqual(p);
    expect(await read.get(2)).toBeUndefined();
    expect(await db.getAllKeys('blocks')).toEqual([0, 1]);
    db.close();
  });

  it('will not flush changes through a store that cannot be written', async () => {
    const store = new CountingStore();
    const cache = new BlockCache({ get: (block) => store.get(block) });
    await cache.set(page(4));
    await expect(cache.flush()).rejects.toThrow('BlockCache.flush: the blocks were changed through a store that cannot be written');
  });

  it('over absentFrom, reads no block from the first one no page can be in yet: those read as empty and are written as ever', async () => {
    const store = new CountingStore();
    const earlier = new BlockCache(store);
    await earlier.set(page(BLOCK_PAGES + 2));
    await earlier.flush();
    // ids 0 to 2 · BLOCK_PAGES − 1 may be stored (meta nextId 2 · BLOCK_PAGES): blocks 0 and 1 are read, 2 on are not
    const cache = new BlockCache(absentFrom(store, 2));
    store.gets = 0;
    expect(await cache.get(BLOCK_PAGES + 2)).toEqual(page(BLOCK_PAGES + 2));
    expect(await cache.get(3)).toBeUndefined();
    expect(store.gets).toBe(2);
    expect(await cache.get(2 * BLOCK_PAGES)).toBeUndefined();
    await cache.set(page(2 * BLOCK_PAGES + 1));
    await cache.set(page(5 * BLOCK_PAGES));
    expect(store.gets).toBe(2);
    expect(await cache.flush()).toBe(2);
    expect([...store.values.keys()].sort()).toEqual([1, 2, 5]);
    expect(await new BlockCache(store).get(2 * BLOCK_PAGES + 1)).toEqual(page(2 * BLOCK_PAGES + 1));
  });

  it('refuses a damaged block when it is read, naming it', async () => {
    const store = new CountingStore();
    store.values.set(3, [BLOCK_FORMAT, 'not bytes', new Uint8Array(0), []]);
    await expect(new BlockCache(store).get(3 * BLOCK_PAGES + 1)).rejects.toThrow(`Doppel's stored block 3 (pages 192 to 255) is damaged: its text is not bytes.`);
  });
});

describe('BlockCache.releaseRead', () => {
  it.each([
    // format 1's text is inflated as the block is opened, and not kept: its fingerprints are
    { format: 1, kept: [2], stored: (pages: (PageValue | undefined)[]): unknown => format1(pages) },
    { format: 2, kept: [1, 2], stored: (pages: (PageValue | undefined)[]): unknown => encodeBlock(0, pages) },
  ])('lets the bytes of every block read (format $format) go at once; the pages read stay, a later read reads the block again', async ({ kept, stored }) => {
    const pages = markedPages(0, 5);
    const store = new CountingStore();
    store.values.set(0, stored(pages));
    const given: unknown[] = [];
    const reader = { get: async (block: number): Promise<unknown> => (given.push(await store.get(block)), given.at(-1)) };
    const cache = new BlockCache(reader);
    const ids = pages.flatMap((p) => (p === undefined ? [] : [p.id]));
    const read = await Promise.all(ids.map((id) => cache.get(id)));
    await cache.releaseRead();
    for (const part of kept) expect((given[0] as Uint8Array[])[part]!.byteLength).toBe(0);
    expect(given).toHaveLength(1); // each block read once for all its pages
    expect(read).toEqual(ids.map((id) => pages[id]));
    expect(await cache.get(ids[0]!)).toEqual(pages[ids[0]!]);
    expect(given).toHaveLength(2);
  });

  it('refuses a cache with changes not written', async () => {
    const pages = markedPages(0, 6);
    const store = new CountingStore();
    store.values.set(0, encodeBlock(0, pages));
    const cache = new BlockCache(store);
    await cache.set(first(pages));
    await expect(cache.releaseRead()).rejects.toThrow('blocks were changed and not written');
  });
});
