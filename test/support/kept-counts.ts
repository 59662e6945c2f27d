// The counts a store keeps (lib/store/tally.ts) against the same counts taken from every stored
// record: the brute-force reference for meta `pageCount`, `groupCounts` and the `siteCounts` rows.
// Used by the unit tests over fake-indexeddb and by the e2e store check (test/e2e/consistency.ts).
import { storedPages } from './kept-tables';
import { expect } from 'vitest';
import type { Db, GroupCounts, SiteCounts } from '../../lib/store/schema';
import { siteBucket } from '../../lib/store/tally';

export interface CountsFromRecords {
  pageCount: number;
  groupCounts: GroupCounts;
  /** One row per site with a page, by site. */
  siteCounts: SiteCounts[];
}

const bySite = (a: { site: string }, b: { site: string }): number => (a.site < b.site ? -1 : a.site > b.site ? 1 : 0);

/** The counts of `records`, taken one record at a time. */
export function countsOfRecords(records: readonly { site: string; group?: string; copySite?: string; contentCopy?: true; source?: string }[]): CountsFromRecords {
  const sites = new Map<string, SiteCounts>();
  const row = (site: string): SiteCounts => {
    let r = sites.get(site);
    if (r === undefined) sites.set(site, (r = { site, pages: 0, copies: 0, credited: 0 }));
    return r;
  };
  const groups = new Set<string>();
  let grouped = 0;
  for (const record of records) {
    row(record.site).pages++;
    // a copy: a near-duplicate of its group's root on another site, or a passage copy; credited when it names a source
    if (record.copySite !== undefined || record.contentCopy === true) {
      row(record.site).copies++;
      if (record.source !== undefined) row(record.site).credited++;
    }
    if (record.group !== undefined) {
      grouped++;
      groups.add(record.group);
    }
  }
  return { pageCount: records.length, groupCounts: { grouped, groups: groups.size }, siteCounts: [...sites.values()].sort(bySite) };
}

/** Every row of the stored buckets, by site; a row kept in a bucket not its site's says so (`misplacedIn`). */
export function rowsOfBuckets(buckets: readonly { bucket: number; rows: readonly SiteCounts[] }[]): (SiteCounts & { misplacedIn?: number })[] {
  return buckets.flatMap(({ bucket, rows }) => rows.map((row) => (siteBucket(row.site) === bucket ? row : { ...row, misplacedIn: bucket }))).sort(bySite);
}

export async function countsFromRecords(db: Db): Promise<CountsFromRecords> {
  return countsOfRecords(await storedPages(db));
}

/** What the store keeps, in the same shape. */
export async function keptCounts(db: Db): Promise<CountsFromRecords> {
  return {
    pageCount: (await db.get('meta', 'pageCount')) as number,
    groupCounts: (await db.get('meta', 'groupCounts')) as GroupCounts,
    siteCounts: rowsOfBuckets(await db.getAll('siteCounts')),
  };
}

/** Asserts the kept counts are those of the records; `step` names the moment in a failure. */
export async function expectCountsKept(db: Db, step: string): Promise<void> {
  expect([step, await keptCounts(db)]).toEqual([step, await countsFromRecords(db)]);
}
