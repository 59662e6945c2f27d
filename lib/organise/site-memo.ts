// Pages' sites as the passage passes ask for them. A hash on 20 to 100 pages asks for its holders'
// sites (the boilerplate rule, lib/store/passages.ts isSiteBoilerplate), and the holders of a
// pass's hashes are spread over the whole history: each write of a pass read most of the
// history's blocks again (140,000 block reads, 30 s of inflating, for a million-page import).
// Here each block is read once an organising: its pages' sites are kept, 4 bytes a page (a number
// into the sites seen). A page's site is its URL's host and a page keeps its URL and its id, so a
// kept site stays true while the page is stored; a page forgotten since is not asked for (its
// postings go with it).
import { BLOCK_PAGES } from '../rows/blocks';
import type { PageRecord } from '../store/schema';

/** What the memo reads a page through: a transaction's rows. */
export interface PageReader {
  get(id: number): Promise<PageRecord | undefined>;
}

export class SiteMemo {
  /** By page id: 0 not read, else 1 + the site's number. */
  private codes = new Uint32Array(BLOCK_PAGES);
  private readonly sites: string[] = [];
  private readonly numbers = new Map<string, number>();
  /** Blocks read and not yet kept: the many asks of one block wait for one read. */
  private readonly reading = new Map<number, Promise<void>>();
  /** The first ids of the blocks read. */
  private readonly readBlocks = new Set<number>();

  /** Blocks read. */
  get blocksRead(): number {
    return this.readBlocks.size;
  }

  /** Page `id`'s site, or undefined if no page is stored as `id`; a damaged page throws, as `rows.get` does. */
  async siteOf(id: number, rows: PageReader): Promise<string | undefined> {
    const code = id < this.codes.length ? this.codes[id]! : 0;
    if (code > 0) return this.sites[code - 1];
    const first = id - (id % BLOCK_PAGES);
    // a block read already has no page at `id` (or a damaged one): asked of the reader, not kept
    if (this.readBlocks.has(first)) return (await rows.get(id))?.site;
    let read = this.reading.get(first);
    if (read === undefined) {
      read = this.readBlock(first, rows).finally(() => this.reading.delete(first));
      this.reading.set(first, read);
    }
    await read.catch(() => undefined);
    const kept = id < this.codes.length ? this.codes[id]! : 0;
    // not kept: no page, or a damaged one, whose error the caller gets
    return kept > 0 ? this.sites[kept - 1] : (await rows.get(id))?.site;
  }

  /** Bytes held: the codes, and about 16 bytes a block read (the sites' text is a few thousand strings). */
  heldBytes(): number {
    return this.codes.byteLength + 16 * this.readBlocks.size;
  }

  private async readBlock(first: number, rows: PageReader): Promise<void> {
    // every slot of the block: one block read; a damaged page is left unread (its own ask throws)
    const pages = await Promise.all(Array.from({ length: BLOCK_PAGES }, (_, slot) => rows.get(first + slot).catch(() => undefined)));
    this.readBlocks.add(first);
    for (const page of pages) if (page !== undefined) this.keep(page.id, page.site);
  }

  private keep(id: number, site: string): void {
    if (id >= this.codes.length) {
      const grown = new Uint32Array(Math.max(2 * this.codes.length, id + BLOCK_PAGES));
      grown.set(this.codes);
      this.codes = grown;
    }
    let number = this.numbers.get(site);
    if (number === undefined) {
      number = this.sites.push(site) - 1;
      this.numbers.set(site, number);
    }
    this.codes[id] = number + 1;
  }
}
