// Pages packed 64 to a value (lib/store/blocks.ts): every page back as it went in, in its slot;
// a damaged block refused with the block and the fault named; and the bytes it saves.
import { serialize } from 'node:v8';
import { deflateSync, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BLOCK_FORMAT, BLOCK_PAGES, type StoredBlock, blockOf, decodeBlock, encodeBlock } from '../lib/store/blocks';
import type { PageValue } from '../lib/store/codec';
import { mulberry32 } from '../lib/random';

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
    const hex = (): string => Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0') + Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
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

  it('refuse a page out of its place, or too many pages', () => {
    expect(() => encodeBlock(2, [page(3)])).toThrow('page 3 cannot be stored in slot 0 of block 2');
    expect(() => encodeBlock(0, Array.from({ length: BLOCK_PAGES + 1 }, (_, s) => page(s)))).toThrow(`a block holds at most ${BLOCK_PAGES} pages: got ${BLOCK_PAGES + 1}`);
  });

  it('take under a third of the bytes of the same pages as version 6 records, in V8 serialization as IndexedDB writes it', () => {
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
  it.each([
    { name: 'an object', value: { pages: [] }, why: 'it is not a list of 3 parts' },
    { name: 'a later format', value: [2, good[1], good[2]], why: 'its format is 2, not 1' },
    { name: 'text that is a string', value: [BLOCK_FORMAT, 'pages', good[2]], why: 'its text is not bytes' },
    { name: 'fingerprints that are numbers', value: [BLOCK_FORMAT, good[1], [1, 2]], why: 'its fingerprints are not bytes' },
    { name: 'text that does not inflate', value: [BLOCK_FORMAT, new Uint8Array([255, 255, 255, 255]), good[2]], why: 'its text does not inflate to JSON' },
    { name: 'text that is not JSON', value: [BLOCK_FORMAT, deflateSync(strToU8('[1,')), good[2]], why: 'its text does not inflate to JSON' },
    { name: 'text that is not a list', value: [BLOCK_FORMAT, textOf({ a: 1 }), new Uint8Array(0)], why: `its text is not a list of at most ${BLOCK_PAGES} pages` },
    { name: 'more slots than a block has', value: [BLOCK_FORMAT, textOf(Array(BLOCK_PAGES + 1).fill(null)), new Uint8Array((BLOCK_PAGES + 1) * 16)], why: `its text is not a list of at most ${BLOCK_PAGES} pages` },
    { name: 'fingerprints cut short', value: [BLOCK_FORMAT, good[1], good[2].slice(0, 20)], why: 'it has 20 bytes of fingerprints for 2 slots' },
    { name: 'a slot that is a number', value: [BLOCK_FORMAT, textOf([goodEntries()[0], 5]), good[2]], why: 'slot 1 is neither a page nor empty' },
    { name: 'fingerprints of 12 bytes', value: [BLOCK_FORMAT, textOf([goodEntries()[0], [...goodEntries()[1]!.slice(0, 2), 12, ...goodEntries()[1]!.slice(3)]]), good[2]], why: "slot 1's fingerprints are neither a length nor two strings" },
  ] as { name: string; value: unknown; why: string }[])('refuse $name, naming the block and the fault', ({ value, why }) => {
    expect(() => decodeBlock(0, value)).toThrow(`Doppel's stored block 0 (pages 0 to 63) is damaged: ${why}.`);
  });

  it("refuse a damaged page inside, naming it as lib/store/codec.ts does", () => {
    const entries = goodEntries();
    entries[1]![5] = -1;
    expect(() => decodeBlock(0, [BLOCK_FORMAT, textOf(entries), good[2]] satisfies StoredBlock)).toThrow("Doppel's stored page 1 is damaged: its visits are not a count.");
  });
});
