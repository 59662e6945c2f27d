// Values of one page each, kept PASSAGE_GROUP_PAGES pages to a record: how the store keeps each
// page's passage fingerprints (lib/store/passages.ts) and rewrite fingerprints
// (lib/index/rewrite-store.ts). Also what those indexes need of an object store keyed by number.
import { readVarint, writeVarint } from '../fingerprint/varint';
import { type Bucket, EMPTY_BUCKET, decodeBucket } from './postings';

/** Pages a value holds (a group): the blocks' size (lib/rows/blocks.ts BLOCK_PAGES), so a visit rewrites about as much of each. */
export const PASSAGE_GROUP_PAGES = 64;

/** The group that holds page `id`'s value, and its slot in it. */
export function groupOf(id: number): { group: number; slot: number } {
  if (!Number.isSafeInteger(id) || id < 0) throw new RangeError(`a page id is a whole number of at least 0: got ${id}`);
  return { group: Math.floor(id / PASSAGE_GROUP_PAGES), slot: id % PASSAGE_GROUP_PAGES };
}

/** A store read by number (idb's object stores fit, readonly or not), and what writing one needs too. */
export interface KeyedReader<V> {
  get(key: number): Promise<V | undefined>;
}
export interface KeyedStore<V> extends KeyedReader<V> {
  put(value: V, key: number): Promise<unknown>;
  delete(key: number): Promise<unknown>;
}

/** What an index needs of a store of groups, by group; and of a store of posting buckets (lib/index/postings.ts), by bucket. */
export type SlotReader = KeyedReader<Uint8Array>;
export type SlotStore = KeyedStore<Uint8Array>;
export type PostingReader = KeyedReader<Uint8Array>;
export type PostingStore = KeyedStore<Uint8Array>;

/** A group's value: each slot's bytes (undefined: none) after its varint length, trailing empty slots left out. */
export function encodeSlots(slots: readonly (Uint8Array | undefined)[]): Uint8Array | undefined {
  let used = slots.length;
  while (used > 0 && (slots[used - 1] === undefined || slots[used - 1]!.length === 0)) used--;
  if (used === 0) return undefined;
  let size = 0;
  for (let s = 0; s < used; s++) size += 5 + (slots[s]?.length ?? 0);
  const out = new Uint8Array(size);
  let at = 0;
  for (let s = 0; s < used; s++) {
    const bytes = slots[s];
    at = writeVarint(out, at, bytes?.length ?? 0);
    if (bytes !== undefined) {
      out.set(bytes, at);
      at += bytes.length;
    }
  }
  return out.slice(0, at);
}

/** A group's slots from its value; a RangeError naming what it holds and the group if the value is not one. */
export function decodeSlots(group: number, value: unknown, what: string): (Uint8Array | undefined)[] {
  const fail = (why: string): never => {
    throw new RangeError(`Doppel's stored ${what} of block ${group} are damaged: ${why}.`);
  };
  if (!(value instanceof Uint8Array)) return fail('they are not bytes');
  const slots: (Uint8Array | undefined)[] = [];
  let at = 0;
  while (at < value.length) {
    if (slots.length >= PASSAGE_GROUP_PAGES) return fail(`they hold more than ${PASSAGE_GROUP_PAGES} slots`);
    let length: number;
    try {
      ({ value: length, end: at } = readVarint(value, at));
    } catch (error) {
      return fail((error as Error).message);
    }
    if (at + length > value.length) return fail(`slot ${slots.length} runs past the end`);
    slots.push(length === 0 ? undefined : value.subarray(at, at + length));
    at += length;
  }
  return slots;
}

/** A block's value of passage fingerprints (lib/store/passages.ts): each slot's bytes (undefined: none), trailing empty slots left out. */
export const encodePassageBlock = encodeSlots;

/** A block's slots of passage fingerprints from its value; a RangeError naming the block if the value is not one. */
export const decodePassageBlock = (block: number, value: unknown): (Uint8Array | undefined)[] => decodeSlots(block, value, 'passage fingerprints');

/**
 * `store`, its reads of keys from `firstAbsent` on answered as absent without a read. Page ids are
 * given out in order from meta `nextId`, so a block or group whose first id is at or past it holds
 * no page yet: an import of a million new pages read 15,600 such blocks, and 31,000 such groups of
 * passages and marks. Writes go through as ever.
 */
export function absentFrom<V>(store: KeyedStore<V>, firstAbsent: number): KeyedStore<V>;
export function absentFrom<V>(store: KeyedReader<V>, firstAbsent: number): KeyedReader<V>;
export function absentFrom<V>(store: KeyedReader<V> | KeyedStore<V>, firstAbsent: number): KeyedReader<V> | KeyedStore<V> {
  const get = (key: number): Promise<V | undefined> => (key >= firstAbsent ? Promise.resolve(undefined) : store.get(key));
  if (!('put' in store)) return { get };
  return { get, put: (value: V, key: number) => store.put(value, key), delete: (key: number) => store.delete(key) };
}

/** Values read once in a transaction, by key: a second reader waits for the first read (and sees what `set` put since). */
export class ReadOnce<V> {
  private readonly values = new Map<number, Promise<V>>();

  constructor(private readonly read: (key: number) => Promise<V>) {}

  get(key: number): Promise<V> {
    let value = this.values.get(key);
    if (value === undefined) {
      value = this.read(key);
      value.catch(() => undefined); // kept for later readers: an aborted transaction rejects it, unread
      this.values.set(key, value);
    }
    return value;
  }

  set(key: number, value: V): void {
    this.values.set(key, Promise.resolve(value));
  }
}

/** A bucket of postings as stored (EMPTY_BUCKET if none), read by `decode`; a RangeError naming `what` and the bucket if its value is damaged. */
export async function readBucket(postings: PostingReader, bucket: number, what: string, decode: (bytes: Uint8Array) => Bucket = decodeBucket): Promise<Bucket> {
  const value: unknown = await postings.get(bucket);
  if (value === undefined) return EMPTY_BUCKET;
  if (!(value instanceof Uint8Array)) throw new RangeError(`Doppel's stored ${what} of bucket ${bucket} are damaged: they are not bytes.`);
  try {
    return decode(value);
  } catch (error) {
    throw new RangeError(`Doppel's stored ${what} of bucket ${bucket} are damaged: ${(error as Error).message}.`);
  }
}

/** Each match with the record of the page it names, in order; a match whose record is gone is dropped. */
export async function withRecords<M extends { id: number }, R>(found: readonly M[], records: (id: number) => Promise<R | undefined>): Promise<{ record: R; match: M }[]> {
  const read = await Promise.all(found.map((match) => records(match.id)));
  return found.flatMap((match, i) => {
    const record = read[i];
    return record === undefined ? [] : [{ record, match }];
  });
}

/** Whether two pages' kept bytes are the same (both absent is not the same: nothing to compare). */
export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && a.length === b.length && a.every((byte, i) => byte === b[i]);
}
