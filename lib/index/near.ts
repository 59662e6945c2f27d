// The near-duplicate index: permuted-block tables (lib/index/tables.ts) over a small storage
// interface.
//
// A backend only stores documents under their table keys and returns a table's bucket for one key;
// `BackendIndex` does the lookups, the exact Hamming check and the de-duplication across tables.
// The extension's store is such a backend (lib/index/table-runs.ts: the tables as sorted runs in
// IndexedDB), and the shared test suite checks BackendIndex over it against a brute-force scan.
// `MemoryIndex` is both a backend and a complete index with a synchronous, allocation-light query
// path for `scan`, tests and benchmarks.

import { type Fingerprint, fingerprintHalves, hammingDistance, hammingDistanceHalves } from '../fingerprint/bits';
import { type KeyStep, type TableDesign, type TableKey, keyOf, tableKeys } from './tables';

export type MaybePromise<T> = T | Promise<T>;

export interface Match<Id> {
  readonly id: Id;
  readonly distance: number;
}

/** A document in a bucket: its id and its fingerprint's two 32-bit halves (no bigint per candidate). */
export interface Candidate<Id> {
  readonly id: Id;
  readonly hi: number;
  readonly lo: number;
}

/** A document and its fingerprint, as the brute-force reference takes them. */
export interface IndexedDocument<Id> {
  readonly id: Id;
  readonly fp: Fingerprint;
}

/** Storage for an index: stores documents under their table keys and returns buckets. */
export interface IndexBackend<Id> {
  /**
   * Store a document; keys[t] is its key in table t (tableKeys(design, fp)). Ids are unique.
   * Optional: a backend written otherwise (the store writes its tables with its pages) has none.
   */
  add?(id: Id, fp: Fingerprint, keys: readonly TableKey[]): MaybePromise<void>;
  /** Forget a document; false if the id was not stored. Optional: only if cheap. */
  remove?(id: Id): MaybePromise<boolean>;
  /** Every stored document whose key in `table` equals `key`, in any order. */
  candidates(table: number, key: TableKey): MaybePromise<Iterable<Candidate<Id>>>;
  size(): MaybePromise<number>;
}

/** What callers (and the shared test suite) use, whatever the storage. */
export interface NearDuplicateIndex<Id> {
  readonly design: TableDesign;
  add(id: Id, fp: Fingerprint): MaybePromise<void>;
  /** Stored documents within Hamming distance k (default: the design's k) of fp, nearest first. */
  query(fp: Fingerprint, k?: number): MaybePromise<Match<Id>[]>;
  remove(id: Id): MaybePromise<boolean>;
  size(): MaybePromise<number>;
}

export interface Pair<Id> {
  /** Inserted before b. */
  readonly a: Id;
  readonly b: Id;
  readonly distance: number;
}

function checkQueryK(design: TableDesign, k: number): void {
  if (!Number.isInteger(k) || k < 0 || k > design.k) {
    throw new RangeError(`query k must be an integer from 0 to ${design.k} (the design's k): got ${k}`);
  }
}

/**
 * Reference answer: a linear scan. Everything within distance k, sorted by distance, ties in
 * input order.
 */
export function bruteForceQuery<Id>(all: Iterable<IndexedDocument<Id>>, fp: Fingerprint, k: number): Match<Id>[] {
  const out: Match<Id>[] = [];
  for (const { id, fp: other } of all) {
    const distance = hammingDistance(fp, other);
    if (distance <= k) out.push({ id, distance });
  }
  return out.sort((x, y) => x.distance - y.distance); // stable
}

/** The index over any backend; every backend call may be asynchronous. */
export class BackendIndex<Id> implements NearDuplicateIndex<Id> {
  constructor(
    readonly design: TableDesign,
    readonly backend: IndexBackend<Id>,
  ) {}

  async add(id: Id, fp: Fingerprint): Promise<void> {
    if (this.backend.add === undefined) throw new TypeError('this index backend cannot add documents');
    await this.backend.add(id, fp, tableKeys(this.design, fp));
  }

  async remove(id: Id): Promise<boolean> {
    if (this.backend.remove === undefined) throw new TypeError('this index backend cannot remove documents');
    return this.backend.remove(id);
  }

  async size(): Promise<number> {
    return this.backend.size();
  }

  /**
   * Nearest first; ties in the order the backend first returned them (table 0 first). Every
   * table's bucket is asked for at once: an asynchronous backend reads them side by side.
   */
  async query(fp: Fingerprint, k: number = this.design.k): Promise<Match<Id>[]> {
    checkQueryK(this.design, k);
    const buckets = await Promise.all(tableKeys(this.design, fp).map((key, t) => this.backend.candidates(t, key)));
    const { hi, lo } = fingerprintHalves(fp);
    const found = new Map<Id, number>();
    for (const bucket of buckets) {
      for (const candidate of bucket) {
        const id = candidate.id;
        if (found.has(id)) continue;
        const distance = hammingDistanceHalves(hi, lo, candidate.hi, candidate.lo);
        if (distance <= k) found.set(id, distance);
      }
    }
    return [...found].map(([id, distance]) => ({ id, distance })).sort((x, y) => x.distance - y.distance);
  }
}

// A bucket holds one slot inline (most buckets, once keys are long) or an array of slots in
// insertion order.
type Bucket = number | number[];

const TWO_32 = 2 ** 32;
const TWO_30 = 2 ** 30;

/**
 * Bucket maps are keyed by small integers, which V8 hashes and stores without allocating: keys
 * below 2^30 as they are, longer keys folded to 30 bits. A fold collision only adds candidates,
 * which the exact distance check drops; every true match still shares its table's folded key.
 * (lib/index/table-pairs.ts sorts on the same folded keys.)
 */
export function bucketKey(key: number): number {
  if (key < TWO_30) return key;
  const high = Math.floor(key / TWO_30);
  return ((key - high * TWO_30) ^ Math.imul(high, 0x9e3779b1)) & (TWO_30 - 1);
}

/**
 * In-memory index. Fingerprints live in one Uint32Array of interleaved hi/lo halves indexed by
 * slot (insertion order), grown by doubling; each table maps key → bucket of slots. Queries look
 * up C(b, k) buckets and check candidates on the halves: no bigint per candidate.
 * Removal leaves a tombstone in the buckets (ignored by queries).
 */
export class MemoryIndex<Id> implements NearDuplicateIndex<Id>, IndexBackend<Id> {
  readonly design: TableDesign;
  /** Bucket entries examined by query() and pairs() so far (for benchmarks). */
  candidatesExamined = 0;

  private readonly steps: (readonly KeyStep[])[];
  private readonly buckets: Map<number, Bucket>[];
  private readonly ids: Id[] = [];
  private readonly slotOf = new Map<Id, number>();
  private halves: Uint32Array;
  private removed: Uint8Array;
  private seen: Uint32Array;
  private stamp = 0;
  private used = 0;
  private live = 0;

  constructor(design: TableDesign, initialCapacity = 1024) {
    this.design = design;
    this.steps = design.tables.map((t) => t.steps);
    this.buckets = design.tables.map(() => new Map<number, Bucket>());
    const capacity = Math.max(1, Math.floor(initialCapacity));
    this.halves = new Uint32Array(2 * capacity);
    this.removed = new Uint8Array(capacity);
    this.seen = new Uint32Array(capacity);
  }

  size(): number {
    return this.live;
  }

  has(id: Id): boolean {
    return this.slotOf.has(id);
  }

  /** keys (from tableKeys with this design) may be passed to skip recomputing them. */
  add(id: Id, fp: Fingerprint, keys?: readonly TableKey[]): void {
    if (this.slotOf.has(id)) throw new Error(`id already indexed: ${String(id)}`);
    if (keys !== undefined && keys.length !== this.buckets.length) {
      throw new RangeError(`expected ${this.buckets.length} table keys: got ${keys.length}`);
    }
    const { hi, lo } = fingerprintHalves(fp);
    const slot = this.used;
    if (slot === this.removed.length) this.grow();
    this.halves[2 * slot] = hi;
    this.halves[2 * slot + 1] = lo;
    this.ids.push(id);
    this.slotOf.set(id, slot);
    this.used++;
    this.live++;
    for (let t = 0; t < this.buckets.length; t++) {
      const key = bucketKey(keys === undefined ? keyOf(this.steps[t]!, hi, lo) : keys[t]!);
      const table = this.buckets[t]!;
      const bucket = table.get(key);
      if (bucket === undefined) table.set(key, slot);
      else if (typeof bucket === 'number') table.set(key, [bucket, slot]);
      else bucket.push(slot);
    }
  }

  remove(id: Id): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    this.removed[slot] = 1;
    this.live--;
    return true;
  }

  /** Nearest first; ties in insertion order. */
  query(fp: Fingerprint, k: number = this.design.k): Match<Id>[] {
    checkQueryK(this.design, k);
    const { hi, lo } = fingerprintHalves(fp);
    const hits = this.collect(hi, lo, k, -1, this.nextStamp());
    const out: Match<Id>[] = new Array(hits.length);
    for (let i = 0; i < hits.length; i++) {
      const h = hits[i]!;
      const slot = h % TWO_32;
      out[i] = { id: this.ids[slot]!, distance: (h - slot) / TWO_32 };
    }
    return out;
  }

  /** IndexBackend: the live documents in one bucket, in insertion order. */
  candidates(table: number, key: TableKey): Candidate<Id>[] {
    const bucket = this.buckets[table]?.get(bucketKey(key));
    if (bucket === undefined) return [];
    const steps = this.steps[table]!;
    const out: Candidate<Id>[] = [];
    for (const slot of typeof bucket === 'number' ? [bucket] : bucket) {
      const hi = this.halves[2 * slot]!;
      const lo = this.halves[2 * slot + 1]!;
      if (this.removed[slot] === 0 && keyOf(steps, hi, lo) === key) {
        out.push({ id: this.ids[slot]!, hi, lo });
      }
    }
    return out;
  }

  /**
   * Every pair of live documents within distance k (default: the design's k), each pair once,
   * ordered by a's then b's insertion order.
   */
  pairs(k: number = this.design.k): Pair<Id>[] {
    checkQueryK(this.design, k);
    const out: Pair<Id>[] = [];
    for (let slot = 0; slot < this.used; slot++) {
      if (this.removed[slot] !== 0) continue;
      const hits = this.collect(this.halves[2 * slot]!, this.halves[2 * slot + 1]!, k, slot, this.nextStamp());
      if (hits.length === 0) continue;
      hits.sort((x, y) => (x % TWO_32) - (y % TWO_32));
      for (const h of hits) {
        const other = h % TWO_32;
        out.push({ a: this.ids[slot]!, b: this.ids[other]!, distance: (h - other) / TWO_32 });
      }
    }
    return out;
  }

  /**
   * The hot path. Live slots above `after` within distance k, each once, encoded as
   * distance · 2^32 + slot and sorted (so: by distance, then insertion order).
   */
  private collect(hi: number, lo: number, k: number, after: number, stamp: number): number[] {
    const hits: number[] = [];
    const halves = this.halves;
    const seen = this.seen;
    const removed = this.removed;
    let examined = 0;
    for (let t = 0; t < this.buckets.length; t++) {
      const bucket = this.buckets[t]!.get(bucketKey(keyOf(this.steps[t]!, hi, lo)));
      if (bucket === undefined) continue;
      if (typeof bucket === 'number') {
        examined++;
        const slot = bucket;
        if (slot > after && seen[slot] !== stamp) {
          const d = hammingDistanceHalves(hi, lo, halves[2 * slot]!, halves[2 * slot + 1]!);
          if (d <= k && removed[slot] === 0) {
            seen[slot] = stamp;
            hits.push(d * TWO_32 + slot);
          }
        }
        continue;
      }
      examined += bucket.length;
      for (let i = 0; i < bucket.length; i++) {
        const slot = bucket[i]!;
        if (slot <= after || seen[slot] === stamp) continue;
        const d = hammingDistanceHalves(hi, lo, halves[2 * slot]!, halves[2 * slot + 1]!);
        if (d <= k && removed[slot] === 0) {
          seen[slot] = stamp;
          hits.push(d * TWO_32 + slot);
        }
      }
    }
    this.candidatesExamined += examined;
    return hits.length > 1 ? hits.sort((x, y) => x - y) : hits;
  }

  private nextStamp(): number {
    if (this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }

  private grow(): void {
    const capacity = 2 * this.removed.length;
    const halves = new Uint32Array(2 * capacity);
    halves.set(this.halves);
    this.halves = halves;
    const removed = new Uint8Array(capacity);
    removed.set(this.removed);
    this.removed = removed;
    const seen = new Uint32Array(capacity);
    seen.set(this.seen);
    this.seen = seen;
  }
}
