// The shared near-duplicate index suite's view of the extension's store: documents are minimal page
// records (their URL names the id) written through PageRows, the store's own write path (each
// flush keeps the table runs of `design`), and every query is the store's own lookup: nearIndex
// (lib/store/table-runs via lib/index/table-runs.ts), lib/index/near.ts's BackendIndex over the
// tables in a readonly transaction. Only the transactions are opened here.
import { type Fingerprint, fingerprintToHex } from '../../lib/fingerprint/bits';
import type { Match, NearDuplicateIndex } from '../../lib/index/near';
import type { TableDesign } from '../../lib/index/tables';
import { PageRows } from '../../lib/rows/page-rows';
import type { Db, PageRecord } from '../../lib/store/schema';
import { nearIndex } from '../../lib/index/table-runs';
import { Tally, readPageCount } from '../../lib/store/tally';
import { within } from '../../lib/store/within';
import { runChunks } from '../../lib/index/run-chunks';

const STORES = ['blocks', 'meta', 'siteCounts', 'runs'] as const;

/** The URL a document's id is stored under (a page's URL must be one; its site is its host). */
export const indexUrl = (id: number): string => `https://index.invalid/${id}`;
const idOfUrl = (url: string): number => Number(url.slice('https://index.invalid/'.length));

export class StoreIndex implements NearDuplicateIndex<number> {
  constructor(
    readonly db: Db,
    readonly design: TableDesign,
  ) {}

  /** The rows of one readwrite transaction, their tables written for this index's design. */
  private async write<T>(work: (rows: PageRows, tally: Tally) => Promise<T>): Promise<T> {
    const tx = this.db.transaction(STORES, 'readwrite');
    const meta = tx.objectStore('meta');
    return within(tx, async () => {
      const rows = await PageRows.open(tx.objectStore('blocks'), runChunks(tx.objectStore('runs')), meta);
      const tally = new Tally(rows);
      const result = await work(rows, tally);
      await tally.flush(meta, tx.objectStore('siteCounts'));
      await rows.flush(meta, () => [this.design]);
      return result;
    });
  }

  /** The rows and meta of one readonly transaction. */
  private async read<T>(work: (rows: PageRows, pageCount: () => Promise<number>) => Promise<T>): Promise<T> {
    const tx = this.db.transaction(STORES, 'readonly');
    const meta = tx.objectStore('meta');
    return within(tx, async () => {
      const rows = await PageRows.open(tx.objectStore('blocks'), runChunks(tx.objectStore('runs')), meta);
      return work(rows, () => readPageCount(rows, meta));
    });
  }

  async add(id: number, fp: Fingerprint): Promise<void> {
    const hex = fingerprintToHex(fp);
    const url = indexUrl(id);
    await this.write(async (rows, tally) => {
      if ((await rows.byUrl(url)) !== undefined) throw new DOMException(`${id} is already stored`, 'ConstraintError');
      const record: PageRecord = { id: rows.newId(), url, title: '', site: 'index.invalid', simhash: hex, check: hex, firstSeen: 0, lastSeen: 0, visits: 0 };
      tally.change(undefined, record);
      await rows.put(record);
    });
  }

  async remove(id: number): Promise<boolean> {
    return this.write(async (rows, tally) => {
      const record = await rows.byUrl(indexUrl(id));
      if (record === undefined) return false;
      tally.change(record, undefined);
      return rows.delete(record.id);
    });
  }

  /** The store's lookup; its page ids are mapped back to the documents' ids by their records' URLs. */
  async query(fp: Fingerprint, k: number = this.design.k): Promise<Match<number>[]> {
    return this.read(async (rows, pageCount) => {
      const matches = await nearIndex(rows.runStore, rows.runIndex, this.design, pageCount).query(fp, k);
      const records = await Promise.all(matches.map((m) => rows.get(m.id)));
      return matches.map((m, i) => ({ id: idOfUrl(records[i]!.url), distance: m.distance }));
    });
  }

  async size(): Promise<number> {
    return this.read((_rows, pageCount) => pageCount());
  }
}
