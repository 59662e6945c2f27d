// The table design: choosing it from the store's size, and reading it from meta (with the
// migration to another under way, lib/organise/migrate.ts).
//
// Choice (designFor). For 2^d stored pages and a table keyed on p bits, a query's lookup in that
// table returns 2^(d − p) random candidates on average (the true near-duplicates aside), so a
// design of T tables costs T lookups and about T · 2^(d − p) candidates per query. chooseDesign
// takes the fewest blocks b whose narrowest key keeps that at most 16 per table, for the current
// page count (HEADROOM = 1): the store is redesigned once it has grown past what its design is
// good for. (Twice the count would move a store of a million pages to 10 tables, 2.5 times the
// entries of 4, for a query that returns 64 candidates instead of 32 at the top of the range.)
// For k = 3:
//
//   pages (count)              design  tables  key bits (tables)     per table     per query, at the top
//   0 … 1,048,576 (2^20)       b = 4      4    16 (4)                2^(d−16)      4·16 = 64
//   … 536,870,912 (2^29)       b = 5     10    25 (4), 26 (6)        2^(d−25/26)   4·16 + 6·8 = 112
//   … 34,359,738,368 (2^35)    b = 6     20    31 (4), 32 (12), 33 (4)             4·16 + 12·8 + 4·4 = 176
//
// (4 tables of 16-bit keys serve up to a million pages at 16 candidates per table. Right after the
// move a query costs 10 lookups returning about 2^(20−25) ≈ 0.03 random candidates each.)

import { DEFAULT_K, type DesignParams as DesignMeta, chooseDesign, designTables } from './tables';

/** designFor sizes the design for this many times the current count (see above). */
export const HEADROOM = 1;
/** The k of every design Doppel chooses. */
export const DESIGN_K = DEFAULT_K;

/**
 * Past this many tables a design costs too much storage (every table is one entry per page): for
 * k > 3, designFor takes no more, longer-bucketed tables.
 */
export const MAX_TABLES = 20;

/**
 * The design for a store of `count` pages whose near-duplicates are wanted within k bits:
 * chooseDesign for HEADROOM · count pages at max(k, 3) (a k = 3 design answers every k below 3 as
 * well, so lowering k moves nothing). For k > 3 chooseDesign's designs need up to 165 tables at a
 * million pages; then the design with the most tables up to MAX_TABLES is taken instead, whose
 * lookups return more candidates (slower queries on a large store, at the same storage).
 */
export function designFor(count: number, k: number = DESIGN_K): DesignMeta {
  const kk = Math.max(k, DESIGN_K);
  const { design } = chooseDesign({ k: kk, expectedSize: count * HEADROOM });
  if (kk === DESIGN_K || design.tables.length <= MAX_TABLES) return { k: design.k, b: design.b };
  let b = kk + 1;
  while (b + 1 < design.b && designTables({ k: kk, b: b + 1 }).tables.length <= MAX_TABLES) b++;
  return { k: kk, b };
}

/** A migration in progress, as stored in meta's `design` value (alongside the readable {k, b}). */
export type MigrationState = { phase: 'adding'; to: DesignMeta; after?: number };

/** meta's `design` value: the design whose plain keys queries read, and a migration under way. */
export interface StoredDesign extends DesignMeta {
  migration?: MigrationState;
}

export const sameDesign = (x: DesignMeta, y: DesignMeta): boolean => x.k === y.k && x.b === y.b;
const isInt = (x: unknown): x is number => Number.isInteger(x);
const isDesign = (x: unknown): x is DesignMeta =>
  typeof x === 'object' && x !== null && isInt((x as DesignMeta).k) && isInt((x as DesignMeta).b);

/** Parses meta's design value; throws on an unreadable one. */
export function parseStoredDesign(value: unknown): StoredDesign {
  if (!isDesign(value)) throw new Error(`the stored table design is unreadable: ${JSON.stringify(value)}`);
  const out: StoredDesign = { k: value.k, b: value.b };
  const m = (value as StoredDesign).migration;
  if (m === undefined) return out;
  const after = typeof m.after === 'number' ? { after: m.after } : {};
  if (m.phase === 'adding' && isDesign(m.to)) out.migration = { phase: 'adding', to: { k: m.to.k, b: m.to.b }, ...after };
  else throw new Error(`the stored table design's migration is unreadable: ${JSON.stringify(value)}`);
  return out;
}

/** The tables of a design (lib/index/tables.ts), for every module of lib/store. */
export { tablesOf } from '../index/tables';

/** The designs whose trees a write to page `id` must keep while meta is `stored` (the table above). */
export function writeDesigns(stored: StoredDesign, id: number): DesignMeta[] {
  const m = stored.migration;
  if (m !== undefined && m.after !== undefined && id <= m.after) return [stored, m.to];
  return [stored];
}
