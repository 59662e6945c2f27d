// lib/organise/site-memo.ts: the passage passes' sites, each block read once an organising
import { describe, expect, it } from 'vitest';
import { SiteMemo } from '../lib/organise/site-memo';
import { BLOCK_PAGES } from '../lib/rows/blocks';
import type { PageRecord } from '../lib/store/schema';

/** A reader of pages `ids` (site s<id mod 7>.example), counting its reads; `damaged` ids throw as a damaged record does. */
function reader(ids: Iterable<number>, damaged: ReadonlySet<number> = new Set()) {
  const pages = new Map([...ids].map((id) => [id, { id, site: `s${id % 7}.example` } as PageRecord]));
  const reads: number[] = [];
  return {
    reads,
    async get(id: number): Promise<PageRecord | undefined> {
      reads.push(id);
      await Promise.resolve();
      if (damaged.has(id)) throw new RangeError(`Doppel's stored page ${id} is damaged: test.`);
      return pages.get(id);
    },
  };
}

describe('SiteMemo', () => {
  it.each([
    { what: 'pages in one block', stored: [0, 1, 63], asked: [0, 63, 1, 0], blocks: 1 },
    { what: 'pages in blocks far apart (its codes grow)', stored: [5, 64 * 1000 + 3, 64 * 5000], asked: [64 * 5000, 5, 64 * 1000 + 3, 5], blocks: 3 },
    { what: 'an id with no page, beside stored ones', stored: [10, 12], asked: [11, 10, 12, 11], blocks: 1 },
  ])('gives each page its site, undefined where no page is, one read a block: $what', async ({ stored, asked, blocks }) => {
    const rows = reader(stored);
    const memo = new SiteMemo();
    for (const id of asked) expect(await memo.siteOf(id, rows)).toBe(stored.includes(id) ? `s${id % 7}.example` : undefined);
    expect(memo.blocksRead).toBe(blocks);
    // each block's slots read once; an id with no page is asked again (not kept: a page may come)
    const missing = asked.filter((id) => !stored.includes(id)).length;
    expect(rows.reads.length).toBe(blocks * BLOCK_PAGES + missing);
  });

  it('reads a block once when its pages are asked for all at once', async () => {
    const rows = reader(Array.from({ length: 3 * BLOCK_PAGES }, (_, id) => id));
    const memo = new SiteMemo();
    const asked = Array.from({ length: 3 * BLOCK_PAGES }, (_, i) => (i * 37) % (3 * BLOCK_PAGES));
    const sites = await Promise.all(asked.map((id) => memo.siteOf(id, rows)));
    expect(sites).toEqual(asked.map((id) => `s${id % 7}.example`));
    expect(memo.blocksRead).toBe(3);
    expect(rows.reads.length).toBe(3 * BLOCK_PAGES);
    // later asks, as from a later transaction, read nothing
    expect(await memo.siteOf(100, reader([]))).toBe('s2.example');
  });

  it("throws for a damaged page as the reader does, and keeps its block's other pages", async () => {
    const rows = reader([1, 2, 3], new Set([2]));
    const memo = new SiteMemo();
    await expect(memo.siteOf(2, rows)).rejects.toThrow('page 2 is damaged');
    expect(await memo.siteOf(1, rows)).toBe('s1.example');
    expect(await memo.siteOf(3, rows)).toBe('s3.example');
    expect(memo.blocksRead).toBe(1);
  });

  it('holds 4 bytes a page up to the largest id asked, doubling', async () => {
    const memo = new SiteMemo();
    expect(memo.heldBytes()).toBe(4 * BLOCK_PAGES);
    // then 4 bytes an id and 16 a block read
    await memo.siteOf(64 * 100, reader([64 * 100]));
    expect(memo.heldBytes()).toBeGreaterThanOrEqual(4 * (64 * 100 + 1));
    expect(memo.heldBytes()).toBeLessThanOrEqual(4 * 2 * (64 * 101) + 16);
  });
});
