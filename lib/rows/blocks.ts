// Pages packed BLOCK_PAGES to an IndexedDB value, read and written through lib/rows/page-rows.ts.
//
// Why: a record a page costs Chromium's IndexedDB a key, a value header and a LevelDB entry each,
// and a single page's 140 bytes of URL and title are too short to compress; 64 pages' are not
// (bench:layout compares one record a page with blocks, deflated or not, at a million pages).
//
// A page's id is its block's number times BLOCK_PAGES plus its slot in the block. The block's
// value is [BLOCK_FORMAT, text, fingerprints]:
// - text: deflate (fflate, raw) of the UTF-8 JSON of one entry a slot: null for an empty slot (a
//   page forgotten, or not yet written), else the page as lib/rows/codec.ts stores it
//   (StoredPage, the site left out: it is the URL's host) with its fingerprints replaced by how
//   many bytes of them `fingerprints` holds (16, or 8 when the check is unknown), or by the two
//   strings of a simhash that is not 16 hex digits.
// - fingerprints: 16 bytes a slot, the simhash then the check, zeros where there is none. They are
//   random bits, which a deflate cannot shrink, so they are kept out of it.
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import { type PageValue, type StoredPage, decodePage, encodePage } from './codec';
import type { StoredBlock } from './record';

/**
 * Pages a block. Deflating URLs and titles 32, 64, 128 and 256 pages at a time took 61, 54, 50 and
 * 47 bytes a page of bench:browser's synthetic text, and 72, 68, 64 and 60 of 6,733 real URLs
 * from the corpus's pages, with link texts as titles (npm run bench:block-text): past 64 little
 * is gained, and a visit rewrites its whole block.
 */
export const BLOCK_PAGES = 64;
/** The first element of every block value: a later format gets another number. */
export const BLOCK_FORMAT = 1;
const FINGERPRINT_BYTES = 16;

/** The block that holds page `id`, and its slot in it. */
export function blockOf(id: number): { block: number; slot: number } {
  if (!Number.isSafeInteger(id) || id < 0) throw new RangeError(`a page id is a whole number of at least 0: got ${id}`);
  return { block: Math.floor(id / BLOCK_PAGES), slot: id % BLOCK_PAGES };
}

/**
 * The stored form of a block's pages: `pages[slot]` is the page in that slot, or undefined. Each
 * page's id must be its place, block × BLOCK_PAGES + slot (a page cannot move by being written).
 */
export function encodeBlock(block: number, pages: readonly (PageValue | undefined)[]): StoredBlock {
  if (pages.length > BLOCK_PAGES) throw new RangeError(`a block holds at most ${BLOCK_PAGES} pages: got ${pages.length}`);
  return packBlock(block, pages.length, (slot) => pages[slot]);
}

/**
 * The stored block of `length` slots, `slotOf` giving each: a page (encoded), undefined (empty), or
 * a slot as it was stored (its entry and fingerprint bytes, kept as they are).
 */
function packBlock(block: number, length: number, slotOf: (slot: number) => PageValue | undefined | StoredSlot): StoredBlock {
  let used = length;
  while (used > 0 && slotOf(used - 1) === undefined) used--;
  const fingerprints = new Uint8Array(used * FINGERPRINT_BYTES);
  const entries: unknown[] = [];
  for (let slot = 0; slot < used; slot++) {
    const page = slotOf(slot);
    if (page === undefined) {
      entries.push(null);
      continue;
    }
    if (page instanceof StoredSlot) {
      fingerprints.set(page.fingerprints, slot * FINGERPRINT_BYTES);
      entries.push(page.entry);
      continue;
    }
    if (page.id !== block * BLOCK_PAGES + slot) throw new RangeError(`page ${page.id} cannot be stored in slot ${slot} of block ${block}`);
    const stored: unknown[] = encodePage(page);
    const packed = stored[2] as StoredPage[2];
    if (packed instanceof Uint8Array) {
      fingerprints.set(packed, slot * FINGERPRINT_BYTES);
      stored[2] = packed.length;
    }
    entries.push(stored);
  }
  return [BLOCK_FORMAT, deflateSync(strToU8(JSON.stringify(entries)), { level: 6 }), fingerprints];
}

/** A slot as it was read, not decoded: written back as it was. */
class StoredSlot {
  constructor(
    readonly entry: unknown,
    readonly fingerprints: Uint8Array,
  ) {}
}

/**
 * The pages of block `block` from its stored value, by slot (undefined for an empty slot); a
 * RangeError that names the block and what is wrong if the value is not a block of pages.
 */
export function decodeBlock(block: number, value: unknown): (PageValue | undefined)[] {
  return openBlock(block, value).all();
}

/**
 * A block's slots, each page decoded when it is first read: a query reads a page or two of a
 * block, and decoding all 64 (a URL parsed and two fingerprints written out for each) cost more
 * than reading the block.
 */
export class BlockPages {
  private readonly pages: (PageValue | undefined | null)[];

  /** `entries`: the slots as stored (null: empty), `fingerprints` their bytes. Empty: a new block. */
  constructor(
    private readonly block: number,
    private readonly entries: readonly unknown[] = [],
    private readonly fingerprints: Uint8Array = new Uint8Array(0),
  ) {
    // null: not decoded yet
    this.pages = entries.map((entry) => (entry === null ? undefined : null));
  }

  /** The page in `slot`, or undefined; a RangeError naming the block if that slot is damaged. */
  get(slot: number): PageValue | undefined {
    const page = this.pages[slot];
    if (page !== null) return page;
    const decoded = decodeSlot(this.block, slot, this.entries[slot], this.fingerprints);
    this.pages[slot] = decoded;
    return decoded;
  }

  set(slot: number, page: PageValue | undefined): void {
    while (this.pages.length < slot) this.pages.push(undefined);
    this.pages[slot] = page;
  }

  /** Whether every slot is empty. */
  isEmpty(): boolean {
    return this.pages.every((page) => page === undefined);
  }

  /** Every slot, decoded. */
  all(): (PageValue | undefined)[] {
    return this.pages.map((_, slot) => this.get(slot));
  }

  /**
   * The block's stored value. A slot never decoded is written as it was read, not decoded and
   * encoded again: a change to one page of a block does not pay for the other 63 (organising
   * writes a field of tens of thousands of pages, each in its own block).
   */
  stored(): StoredBlock {
    return packBlock(this.block, this.pages.length, (slot) => {
      const page = this.pages[slot];
      return page !== null ? page : new StoredSlot(this.entries[slot], this.fingerprints.subarray(slot * FINGERPRINT_BYTES, (slot + 1) * FINGERPRINT_BYTES));
    });
  }
}

function blockFault(block: number, why: string): never {
  throw new RangeError(`Doppel's stored block ${block} (pages ${block * BLOCK_PAGES} to ${block * BLOCK_PAGES + BLOCK_PAGES - 1}) is damaged: ${why}.`);
}

function decodeSlot(block: number, slot: number, entry: unknown, fingerprints: Uint8Array): PageValue {
  if (!Array.isArray(entry)) return blockFault(block, `slot ${slot} is neither a page nor empty`);
  const stored = [...entry] as unknown[];
  if (stored[2] === 8 || stored[2] === 16) stored[2] = fingerprints.slice(slot * FINGERPRINT_BYTES, slot * FINGERPRINT_BYTES + (stored[2] as number));
  else if (!Array.isArray(stored[2])) return blockFault(block, `slot ${slot}'s fingerprints are neither a length nor two strings`);
  return decodePage(block * BLOCK_PAGES + slot, stored);
}

/**
 * Inflated into one buffer, reused: fflate, not told the size, allocates 128 and then 256 kB to
 * inflate each block (it grows its buffer to 128 kB past every match), and organising inflates
 * blocks by the ten thousand. The text is decoded before the next inflate reuses the buffer. A
 * block that fills it may be cut short (fflate drops what does not fit, or throws on a stored
 * deflate block): it is inflated again into a buffer of its own.
 */
const INFLATE_BUFFER = new Uint8Array(1 << 18);

function inflated(text: Uint8Array): Uint8Array {
  try {
    const out = inflateSync(text, { out: INFLATE_BUFFER });
    if (out.length < INFLATE_BUFFER.length) return out;
  } catch {
    // too long for the buffer, or not deflate: inflated alone below, which says which
  }
  return inflateSync(text);
}

/** A block's slots from its stored value (each page decoded when read); a RangeError naming the block if the value is not a block. */
export function openBlock(block: number, value: unknown): BlockPages {
  const fail = (why: string): never => blockFault(block, why);
  if (!Array.isArray(value) || value.length !== 3) return fail('it is not a list of 3 parts');
  const [format, text, fingerprints] = value as unknown[];
  if (format !== BLOCK_FORMAT) return fail(`its format is ${JSON.stringify(format)}, not ${BLOCK_FORMAT}`);
  if (!(text instanceof Uint8Array)) return fail('its text is not bytes');
  if (!(fingerprints instanceof Uint8Array)) return fail('its fingerprints are not bytes');
  let entries: unknown;
  try {
    entries = JSON.parse(strFromU8(inflated(text)));
  } catch {
    return fail('its text does not inflate to JSON');
  }
  if (!Array.isArray(entries) || entries.length > BLOCK_PAGES) return fail(`its text is not a list of at most ${BLOCK_PAGES} pages`);
  if (fingerprints.length !== entries.length * FINGERPRINT_BYTES) return fail(`it has ${fingerprints.length} bytes of fingerprints for ${entries.length} slots`);
  return new BlockPages(block, entries, fingerprints);
}

/** What BlockCache needs to read the `blocks` object store (idb's store has it, readonly or not). */
export interface BlockReader {
  get(block: number): Promise<unknown>;
}

/** What it needs to write it too: out-of-line keys. */
export interface BlockStore extends BlockReader {
  put(value: StoredBlock, block: number): Promise<unknown>;
  delete(block: number): Promise<unknown>;
}

/**
 * The pages of the blocks one transaction touches: each block is read and decoded at most once,
 * changed in memory, and written once by flush() (a block whose slots are all empty is deleted).
 * Every method works within the caller's transaction: flush() before it ends, or nothing changed
 * is written.
 */
export class BlockCache {
  private readonly read = new Map<number, Promise<BlockPages>>();
  private readonly changed = new Set<number>();

  constructor(private readonly store: BlockReader | BlockStore) {}

  private pagesOf(block: number): Promise<BlockPages> {
    let pages = this.read.get(block);
    if (pages === undefined) {
      pages = this.store.get(block).then((value) => (value === undefined ? new BlockPages(block) : openBlock(block, value)));
      pages.catch(() => undefined); // kept for later readers: a transaction that aborts rejects it, unread
      this.read.set(block, pages);
    }
    return pages;
  }

  /** The page stored as `id`, or undefined. */
  async get(id: number): Promise<PageValue | undefined> {
    const { block, slot } = blockOf(id);
    return (await this.pagesOf(block)).get(slot);
  }

  /** Stores `page` as its id, in place of what was there. */
  async set(page: PageValue): Promise<void> {
    const { block, slot } = blockOf(page.id);
    (await this.pagesOf(block)).set(slot, page);
    this.changed.add(block);
  }

  /** Forgets the page stored as `id`; false if there was none. */
  async delete(id: number): Promise<boolean> {
    const { block, slot } = blockOf(id);
    const pages = await this.pagesOf(block);
    if (pages.get(slot) === undefined) return false;
    pages.set(slot, undefined);
    this.changed.add(block);
    return true;
  }

  /** Writes every block changed since the last flush; returns how many. */
  async flush(): Promise<number> {
    const blocks = [...this.changed];
    if (blocks.length === 0) return 0;
    const store = this.store;
    if (!('put' in store)) throw new TypeError('BlockCache.flush: the blocks were changed through a store that cannot be written');
    this.changed.clear();
    await Promise.all(
      blocks.map(async (block) => {
        const pages = await this.pagesOf(block);
        return pages.isEmpty() ? store.delete(block) : store.put(pages.stored(), block);
      }),
    );
    return blocks.length;
  }
}
