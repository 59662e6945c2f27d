// lib/index.ts's IndexBackend over the store's blocks and table trees, so that the shared index
// suite (test/index-suite.ts) checks the IndexedDB layout. For tests and benchmarks, not the
// extension.
import { type Fingerprint, fingerprintFromHex, fingerprintToHex } from '../../lib/fingerprint/bits';
import type { Candidate, IndexBackend } from '../../lib/index/near';
import { PageRows } from '../../lib/store/page-rows';
import { lookup } from '../../lib/index/runs';
import type { Db, PageRecord } from '../../lib/store/schema';
import { tableTree } from '../../lib/store/table-trees';
import { Tally, readPageCount } from '../../lib/store/tally';
import { within } from '../../lib/store/within';
import { type TableDesign, type TableKey, keyOf } from '../../lib/index/tables';

const STORES = ['blocks', 'meta', 'siteCounts', 'runs'] as const;

/** The URL an id is stored under: a page's URL must be one (its site is its host). */
const indexUrl = (id: string): string => `https://index.invalid/${encodeURIComponent(id)}`;
const indexId = (url: string): string => decodeURIComponent(url.slice('https://index.invalid/'.length));

/** Ids are stored as URLs of minimal records (no title or visits; check = simhash), their tables those of `design`. */
export class IdbIndexBackend implements IndexBackend<string> {
  constructor(
    readonly db: Db,
    readonly design: TableDesign,
  ) {}

  /** The rows of one readwrite transaction, their tables written for this backend's design. */
  private async write<T>(work: (rows: PageRows, tally: Tally) => Promise<T>): Promise<T> {
    const tx = this.db.transaction(STORES, 'readwrite');
    const meta = tx.objectStore('meta');
    return within(tx, async () => {
      const rows = await PageRows.open(tx.objectStore('blocks'), tx.objectStore('runs'), meta);
      const tally = new Tally(rows);
      const result = await work(rows, tally);
      await tally.flush(meta, tx.objectStore('siteCounts'));
      await rows.flush(meta, () => [this.design]);
      return result;
    });
  }

  /** The rows (and meta) of one readonly transaction. */
  private async read<T>(work: (rows: PageRows, meta: { get(key: 'pageCount'): Promise<unknown> }) => Promise<T>): Promise<T> {
    const tx = this.db.transaction(STORES, 'readonly');
    const meta = tx.objectStore('meta');
    return within(tx, async () => work(await PageRows.open(tx.objectStore('blocks'), tx.objectStore('runs'), meta), meta));
  }

  async add(id: string, fp: Fingerprint, keys: readonly TableKey[]): Promise<void> {
    if (keys.length !== this.design.tables.length) {
      throw new RangeError(`expected ${this.design.tables.length} table keys: got ${keys.length}`);
    }
    const hex = fingerprintToHex(fp);
    const url = indexUrl(id);
    await this.write(async (rows, tally) => {
      if ((await rows.byUrl(url)) !== undefined) throw new DOMException(`${id} is already stored`, 'ConstraintError');
      // the trees' keys are computed from fp: they are `keys` for this design (lib/tables.ts tableKeys)
      const record: PageRecord = { id: rows.newId(), url, title: '', site: 'index.invalid', simhash: hex, check: hex, firstSeen: 0, lastSeen: 0, visits: 0 };
      tally.change(undefined, record);
      await rows.put(record);
    });
  }

  async remove(id: string): Promise<boolean> {
    return this.write(async (rows, tally) => {
      const record = await rows.byUrl(indexUrl(id));
      if (record === undefined) return false;
      tally.change(record, undefined);
      return rows.delete(record.id);
    });
  }

  /** The pages whose key in `table` is `key` (a 32-bit word of the tree can hold longer keys that differ: those are left out). */
  async candidates(table: number, key: TableKey): Promise<Candidate<string>[]> {
    return this.read(async (rows) => {
      const entries = await lookup(rows.runStore, rows.runIndex, tableTree(this.design, table), key % 2 ** 32);
      const steps = this.design.tables[table]!.steps;
      const exact = entries.filter((entry) => keyOf(steps, entry[1]!, entry[2]!) === key);
      const records = await Promise.all(exact.map((entry) => rows.get(entry[3]!)));
      return records.filter((record): record is PageRecord => record !== undefined).map((record) => ({ id: indexId(record.url), fp: fingerprintFromHex(record.simhash) }));
    });
  }

  async size(): Promise<number> {
    return this.read((rows, meta) => readPageCount(rows, meta));
  }
}
