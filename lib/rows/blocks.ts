// Pages packed BLOCK_PAGES to an IndexedDB value, read and written through lib/rows/page-rows.ts.
//
// Why: a record a page costs Chromium's IndexedDB a key, a value header and a LevelDB entry each,
// and a single page's 140 bytes of URL and title are too short to compress; 64 pages' are not
// (bench:layout compares one record a page with blocks, deflated or not, at a million pages).
//
// A page's id is its block's number times BLOCK_PAGES plus its slot in the block. The block's
// value is [BLOCK_FORMAT, text, slot bytes, marks]:
// - text: deflate (fflate, raw) of the UTF-8 JSON of one entry a slot: null for an empty slot (a
//   page forgotten, or not yet written), else the page as lib/rows/codec.ts stores it
//   (StoredPage, the site left out: it is the URL's host) without its group fields, and with its
//   fingerprints replaced by how many bytes of them the slot bytes hold (16, or 8 when the check
//   is unknown), or by the two strings of a simhash that is not 16 hex digits.
// - slot bytes: SLOT_BYTES a slot: its kind (EMPTY, TEXT_FINGERPRINTS, or 8 or 16: how many
//   fingerprint bytes follow), then 16 bytes, the simhash then the check, zeros where there is
//   none. Fingerprints are random bits, which a deflate cannot shrink, so they are kept out of it.
// - marks: one entry a slot, the page's group fields (SlotMarks), or null when it has none.
// Organising reads every page's fingerprints and marks, and changes the marks of tens of thousands
// of pages and nothing else of them: with both outside the text, it reads a block without
// inflating it (summary), and writes one whose text is unchanged with the same deflated bytes (a
// fifth of organising's time at a million pages went to inflating and deflating blocks for them).
// Format 1 (the first release's) is [1, text, fingerprints]: 16 bytes a slot, no kinds, no marks:
// each entry holds its group fields. It is read as ever, and written as format 2 when it changes.
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import { type PageValue, type StoredPage, decodePage, encodePage, splitGroupFields } from './codec';
import type { SlotMarks, StoredBlock } from './record';
import { release } from '../index/posting-passes';

/**
 * Pages a block. Deflating URLs and titles 32, 64, 128 and 256 pages at a time took 61, 54, 50 and
 * 47 bytes a page of bench:browser's synthetic text, and 72, 68, 64 and 60 of 6,733 real URLs
 * from the corpus's pages, with link texts as titles (npm run bench:block-text): past 64 little
 * is gained, and a visit rewrites its whole block.
 */
export const BLOCK_PAGES = 64;
/** The first element of every block value written: a later format gets another number. */
export const BLOCK_FORMAT = 2;
/** The first release's format, without kinds or marks: still read. */
export const BLOCK_FORMAT_1 = 1;
const FINGERPRINT_BYTES = 16;
/** A slot's bytes in format 2: its kind, then its fingerprints. */
const SLOT_BYTES = 1 + FINGERPRINT_BYTES;
/** Kinds of slot: no page; a page whose fingerprints are strings in its text entry (not 16 hex digits: unreadable). 8 and 16 are fingerprint bytes. */
const EMPTY = 0;
const TEXT_FINGERPRINTS = 1;

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
 * a slot as it was stored (its entry, kind, fingerprint bytes and marks, kept as they are).
 */
function packBlock(block: number, length: number, slotOf: (slot: number) => PageValue | undefined | StoredSlot): StoredBlock {
  let used = length;
  while (used > 0 && slotOf(used - 1) === undefined) used--;
  const bytes = new Uint8Array(used * SLOT_BYTES);
  const entries: unknown[] = [];
  const marks: SlotMarks[] = [];
  for (let slot = 0; slot < used; slot++) {
    const page = slotOf(slot);
    if (page === undefined) {
      entries.push(null);
      marks.push(null);
      continue;
    }
    const stored = page instanceof StoredSlot ? page : splitPage(block, slot, page);
    bytes[slot * SLOT_BYTES] = stored.kind;
    bytes.set(stored.fingerprints, slot * SLOT_BYTES + 1);
    entries.push(stored.entry);
    marks.push(stored.marks);
  }
  return [BLOCK_FORMAT, deflateSync(strToU8(JSON.stringify(entries)), { level: 6 }), bytes, marks];
}

/** A slot as it is stored: its text entry, kind, fingerprint bytes (16, or fewer: the rest are zeros) and marks. */
class StoredSlot {
  constructor(
    readonly entry: unknown,
    readonly kind: number,
    readonly fingerprints: Uint8Array,
    readonly marks: SlotMarks,
  ) {}
}

function marksOf(page: PageValue): SlotMarks {
  if (page.group === undefined && page.copySite === undefined && page.contentCopy !== true) return null;
  return [page.group ?? null, page.copySite ?? null, page.contentCopy === true ? 1 : 0];
}

/** A page as its block stores it. */
function splitPage(block: number, slot: number, page: PageValue): StoredSlot {
  if (page.id !== block * BLOCK_PAGES + slot) throw new RangeError(`page ${page.id} cannot be stored in slot ${slot} of block ${block}`);
  const stored: unknown[] = encodePage({ ...page, group: undefined, copySite: undefined, contentCopy: undefined });
  const packed = stored[2] as StoredPage[2];
  if (!(packed instanceof Uint8Array)) return new StoredSlot(stored, TEXT_FINGERPRINTS, NO_BYTES, marksOf(page));
  stored[2] = packed.length;
  return new StoredSlot(stored, packed.length, packed, marksOf(page));
}

const NO_BYTES: Uint8Array = new Uint8Array(0);

/**
 * The pages of block `block` from its stored value, by slot (undefined for an empty slot); a
 * RangeError that names the block and what is wrong if the value is not a block of pages.
 */
export function decodeBlock(block: number, value: unknown): (PageValue | undefined)[] {
  return openBlock(block, value).all();
}

/** What the regroup reads of a page: its fingerprints (the simhash, then the check when known), null when they are unreadable, and its marks. */
export interface SlotSummary {
  fingerprints: Uint8Array | null;
  marks: SlotMarks;
}

/** A block as it was read: format 1's entries, or format 2's text (inflated when first needed), slot bytes and marks. */
type ReadBlock = { format: 1; entries: readonly unknown[]; fingerprints: Uint8Array } | { format: 2; text: Uint8Array; bytes: Uint8Array; marks: readonly unknown[] };

/**
 * A block's slots, each page decoded when it is first read: a query reads a page or two of a
 * block, and decoding all 64 (a URL parsed and two fingerprints written out for each) cost more
 * than reading the block. A format 2 block's text is inflated only when a page of it is read.
 */
export class BlockPages {
  private readonly pages: (PageValue | undefined | null)[];
  private entries: readonly unknown[] | undefined;

  /** Empty `read`: a new block. */
  constructor(
    private readonly block: number,
    private readonly read?: ReadBlock,
  ) {
    // null: not decoded yet
    if (read === undefined) this.pages = [];
    else if (read.format === 1) {
      this.entries = read.entries;
      this.pages = read.entries.map((entry) => (entry === null ? undefined : null));
    } else this.pages = Array.from({ length: read.marks.length }, (_, slot) => (read.bytes[slot * SLOT_BYTES] === EMPTY ? undefined : null));
  }

  /** The page in `slot`, or undefined; a RangeError naming the block if that slot is damaged. */
  get(slot: number): PageValue | undefined {
    const page = this.pages[slot];
    if (page !== null) return page;
    const decoded = this.decode(slot);
    this.pages[slot] = decoded;
    return decoded;
  }

  /** The fingerprints and marks of the page in `slot` (undefined if there is none), a format 2 block's text not inflated for them. */
  summary(slot: number): SlotSummary | undefined {
    const read = this.read;
    if (this.pages[slot] !== null || read === undefined || read.format === 1) {
      const page = this.get(slot);
      if (page === undefined) return undefined;
      const { kind, fingerprints, marks } = splitPage(this.block, slot, page);
      return { fingerprints: kind === TEXT_FINGERPRINTS ? null : fingerprints, marks };
    }
    const kind = read.bytes[slot * SLOT_BYTES]!;
    return { fingerprints: kind === TEXT_FINGERPRINTS ? null : read.bytes.subarray(slot * SLOT_BYTES + 1, slot * SLOT_BYTES + 1 + kind), marks: this.marksOf(read, slot) };
  }

  set(slot: number, page: PageValue | undefined): void {
    while (this.pages.length < slot) this.pages.push(undefined);
    this.pages[slot] = page;
  }

  /** Lets the bytes read go (release): the block cannot be read or written after. */
  release(): void {
    const read = this.read;
    if (read?.format === 1) release(read.fingerprints);
    else if (read?.format === 2) release(read.text, read.bytes);
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
   * writes a field of tens of thousands of pages, each in its own block). When only marks
   * changed, the text is written back as it was read, not inflated or deflated.
   */
  stored(): StoredBlock {
    const read = this.read;
    const marks = read?.format === 2 ? this.marksOverKeptText(read) : undefined;
    if (read?.format === 2 && marks !== undefined) return [BLOCK_FORMAT, read.text, read.bytes, marks];
    return packBlock(this.block, this.pages.length, (slot) => {
      const page = this.pages[slot];
      return page !== null ? page : this.storedSlot(slot);
    });
  }

  /** The text's entries, inflated when first asked for. */
  private entryOf(slot: number): unknown {
    if (this.entries === undefined) this.entries = inflateEntries(this.block, this.read as Extract<ReadBlock, { format: 2 }>);
    return this.entries[slot];
  }

  private decode(slot: number): PageValue {
    const read = this.read!;
    const entry = this.entryOf(slot);
    if (read.format === 1) return decodeSlot(this.block, slot, entry, read.fingerprints.subarray(slot * FINGERPRINT_BYTES, (slot + 1) * FINGERPRINT_BYTES));
    const at = slot * SLOT_BYTES;
    const kind = read.bytes[at]!;
    if (Array.isArray(entry) && kindOf(entry) !== kind) return blockFault(this.block, `slot ${slot}'s kind ${kind} does not go with its text`);
    const page = decodeSlot(this.block, slot, entry, read.bytes.subarray(at + 1, at + SLOT_BYTES));
    if (page.group !== undefined || page.copySite !== undefined || page.contentCopy !== undefined) return blockFault(this.block, `slot ${slot} has group fields in its text`);
    const marks = this.marksOf(read, slot);
    if (marks === null) return page;
    const [group, copySite, contentCopy] = marks;
    if (group !== null) page.group = group;
    if (copySite !== null) page.copySite = copySite;
    if (contentCopy === 1) page.contentCopy = true;
    return page;
  }

  /** A format 2 slot's marks, checked; a RangeError naming the block if they are not marks. */
  private marksOf(read: Extract<ReadBlock, { format: 2 }>, slot: number): SlotMarks {
    const marks = read.marks[slot];
    if (marks !== null && !isSlotMarks(marks)) return blockFault(this.block, `slot ${slot}'s marks are not [group, copySite, contentCopy]`);
    return marks;
  }

  /** A slot never decoded, as stored: a format 1 entry's marks taken out of it (not checked: a damaged one stays damaged). */
  private storedSlot(slot: number): StoredSlot {
    const read = this.read!;
    const entry = this.entryOf(slot);
    if (read.format === 2) {
      const at = slot * SLOT_BYTES;
      return new StoredSlot(entry, read.bytes[at]!, read.bytes.subarray(at + 1, at + SLOT_BYTES), read.marks[slot] as SlotMarks);
    }
    const fingerprints = read.fingerprints.subarray(slot * FINGERPRINT_BYTES, (slot + 1) * FINGERPRINT_BYTES);
    if (!Array.isArray(entry)) return new StoredSlot(entry, TEXT_FINGERPRINTS, fingerprints, null);
    const { entry: text, marks } = splitGroupFields(entry);
    return new StoredSlot(text, kindOf(entry), fingerprints, marks);
  }

  /**
   * The marks of every slot if no slot's text, kind or fingerprints differ from what was read (so
   * the text and slot bytes read are still theirs); undefined if one does.
   */
  private marksOverKeptText(read: Extract<ReadBlock, { format: 2 }>): SlotMarks[] | undefined {
    if (this.pages.length !== read.marks.length) return undefined;
    const marks: SlotMarks[] = [];
    for (let slot = 0; slot < this.pages.length; slot++) {
      const page = this.pages[slot];
      const at = slot * SLOT_BYTES;
      if (page === null) marks.push(read.marks[slot] as SlotMarks);
      else if (page === undefined || read.bytes[at] === EMPTY) {
        if (page !== undefined || read.bytes[at] !== EMPTY) return undefined;
        marks.push(null);
      } else {
        const split = splitPage(this.block, slot, page);
        if (split.kind !== read.bytes[at] || JSON.stringify(split.entry) !== JSON.stringify(this.entryOf(slot))) return undefined;
        for (let i = 0; i < FINGERPRINT_BYTES; i++) if ((split.fingerprints[i] ?? 0) !== read.bytes[at + 1 + i]) return undefined;
        marks.push(split.marks);
      }
    }
    return marks;
  }
}

function blockFault(block: number, why: string): never {
  throw new RangeError(`Doppel's stored block ${block} (pages ${block * BLOCK_PAGES} to ${block * BLOCK_PAGES + BLOCK_PAGES - 1}) is damaged: ${why}.`);
}

/** The page in a slot from its text entry (without marks in format 2) and its 16 fingerprint bytes; a RangeError naming what is wrong. */
function decodeSlot(block: number, slot: number, entry: unknown, fingerprints: Uint8Array): PageValue {
  if (!Array.isArray(entry)) return blockFault(block, `slot ${slot} is neither a page nor empty`);
  const stored = [...entry] as unknown[];
  if (stored[2] === 8 || stored[2] === 16) stored[2] = fingerprints.slice(0, stored[2] as number);
  else if (!Array.isArray(stored[2])) return blockFault(block, `slot ${slot}'s fingerprints are neither a length nor two strings`);
  return decodePage(block * BLOCK_PAGES + slot, stored);
}

/** The kind of slot a text entry (a list) says it is: its fingerprint bytes, or TEXT_FINGERPRINTS for anything else. */
function kindOf(entry: readonly unknown[]): number {
  return entry[2] === 8 || entry[2] === 16 ? entry[2] : TEXT_FINGERPRINTS;
}

function isSlotMarks(mark: unknown): mark is Exclude<SlotMarks, null> {
  return (
    Array.isArray(mark) &&
    mark.length === 3 &&
    (mark[0] === null || typeof mark[0] === 'string') &&
    (mark[1] === null || typeof mark[1] === 'string') &&
    (mark[2] === 0 || mark[2] === 1)
  );
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

/** A text's entries: a list of at most BLOCK_PAGES (`slots` of them, when the slots are known); a RangeError naming the block if it is not. */
function textEntries(block: number, text: Uint8Array, slots?: number): unknown[] {
  let entries: unknown;
  try {
    entries = JSON.parse(strFromU8(inflated(text)));
  } catch {
    return blockFault(block, 'its text does not inflate to JSON');
  }
  if (!Array.isArray(entries) || entries.length > BLOCK_PAGES) return blockFault(block, `its text is not a list of at most ${BLOCK_PAGES} pages`);
  if (slots !== undefined && entries.length !== slots) return blockFault(block, `its text has ${entries.length} slots, its slot bytes ${slots}`);
  return entries;
}

function inflateEntries(block: number, read: Extract<ReadBlock, { format: 2 }>): unknown[] {
  const entries = textEntries(block, read.text, read.marks.length);
  entries.forEach((entry, slot) => (entry === null) !== (read.bytes[slot * SLOT_BYTES] === EMPTY) && blockFault(block, `slot ${slot} is ${entry === null ? 'empty in its text' : 'a page in its text'} but not in its slot bytes`));
  return entries;
}

/**
 * A block's slots from its stored value (each page decoded when read, a format 2 block's text
 * inflated when a page is read); a RangeError naming the block if the value is not a block.
 */
export function openBlock(block: number, value: unknown): BlockPages {
  const fail = (why: string): never => blockFault(block, why);
  if (!Array.isArray(value)) return fail('it is not a list');
  const [format, text, bytes, marks] = value as unknown[];
  if (format !== BLOCK_FORMAT && format !== BLOCK_FORMAT_1) return fail(`its format is ${JSON.stringify(format)}, neither ${BLOCK_FORMAT_1} nor ${BLOCK_FORMAT}`);
  const parts = format === BLOCK_FORMAT ? 4 : 3;
  if (value.length !== parts) return fail(`it is not a list of ${parts} parts, as format ${format} is`);
  if (!(text instanceof Uint8Array)) return fail('its text is not bytes');
  if (!(bytes instanceof Uint8Array)) return fail(format === BLOCK_FORMAT ? 'its slot bytes are not bytes' : 'its fingerprints are not bytes');
  if (format === BLOCK_FORMAT_1) {
    const entries = textEntries(block, text);
    if (bytes.length !== entries.length * FINGERPRINT_BYTES) return fail(`it has ${bytes.length} bytes of fingerprints for ${entries.length} slots`);
    return new BlockPages(block, { format: 1, entries, fingerprints: bytes });
  }
  if (bytes.length % SLOT_BYTES !== 0 || bytes.length > BLOCK_PAGES * SLOT_BYTES) return fail(`its slot bytes are ${bytes.length}, not ${SLOT_BYTES} a slot for at most ${BLOCK_PAGES}`);
  const slots = bytes.length / SLOT_BYTES;
  if (!Array.isArray(marks) || marks.length !== slots) return fail(`its marks are not a list of one entry a slot (${slots})`);
  for (let slot = 0; slot < slots; slot++) {
    const kind = bytes[slot * SLOT_BYTES]!;
    if (kind !== EMPTY && kind !== TEXT_FINGERPRINTS && kind !== 8 && kind !== 16) return fail(`slot ${slot}'s kind is ${kind}`);
  }
  return new BlockPages(block, { format: 2, text, bytes, marks });
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

  /** The fingerprints and marks of the page stored as `id` (BlockPages.summary), or undefined. */
  async summary(id: number): Promise<SlotSummary | undefined> {
    const { block, slot } = blockOf(id);
    return (await this.pagesOf(block)).summary(slot);
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

  /**
   * Lets every block read so far go at once (BlockPages.release), rather than at the next
   * collection: organising reads blocks by the ten thousand for a page or two of each. The pages
   * read are decoded copies and stay; a summary's fingerprints (views of the block) do not. Only
   * for a cache that changed nothing; the next read of a block reads it again.
   */
  async releaseRead(): Promise<void> {
    if (this.changed.size > 0) throw new TypeError('BlockCache.releaseRead: blocks were changed and not written');
    const read = [...this.read.values()];
    this.read.clear();
    for (const pages of await Promise.allSettled(read)) if (pages.status === 'fulfilled') pages.value.release();
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
