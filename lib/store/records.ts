// A page's record as the rest of the store reads it: the fields it is stored with, its check
// fingerprint (which may be unknown), the record as lib/report/groups.ts sees it, and the records
// near a simhash.
import { type Fingerprint, fingerprintFromHex, hammingDistance } from '../fingerprint/bits';
import { confirmsNearDuplicate } from '../fingerprint/features';
import { nearIndex } from '../index/table-runs';
import type { PageRows } from '../rows/page-rows';
import type { StoredDesign } from '../index/design';
import type { GroupMember } from '../report/groups';
import type { Claims } from '../report/original';
import type { PageRecord } from './schema';

/**
 * The `check` of a record whose check fingerprint is unknown: a page imported without one
 * (lib/store/transfer.ts), since Doppel keeps no page text to recompute it from. Such a match
 * cannot be confirmed, so nearDuplicates accepts it on the simhash alone. The next visit to the
 * page (recordVisit) writes its real check.
 */
export const NO_CHECK = '';
/** A copy of `record` with exactly PageRecord's fields, in their order. */
export function storedRecord(record: PageRecord): PageRecord {
  const out: PageRecord = {
    id: record.id,
    url: record.url,
    title: record.title,
    site: record.site,
    simhash: record.simhash,
    check: record.check,
    firstSeen: record.firstSeen,
    lastSeen: record.lastSeen,
    visits: record.visits,
  };
  if (record.group !== undefined) out.group = record.group;
  if (record.copySite !== undefined) out.copySite = record.copySite;
  if (record.contentCopy === true) out.contentCopy = true;
  return withProvenance(out, record);
}

export interface NearDuplicate {
  record: PageRecord;
  /** Hamming distance between the simhashes. */
  distance: number;
}

/** A record's check fingerprint; null when it is unknown (NO_CHECK). Throws if it is unreadable. */
export function checkOf(record: PageRecord): Fingerprint | null {
  return record.check === NO_CHECK ? null : fingerprintFromHex(record.check);
}

/** `out` with the provenance fields of `from` (lib/text/provenance.ts: the page's publication time and named source), where it has them. */
export function withProvenance<T extends Claims>(out: T, from: Pick<Claims, 'published' | 'source' | 'sourceBy'>): T {
  if (from.published !== undefined) out.published = from.published;
  if (from.source !== undefined && from.sourceBy !== undefined) {
    out.source = from.source;
    out.sourceBy = from.sourceBy;
  }
  return out;
}

/** A record as lib/report/groups.ts sees it; null if its fingerprints are unreadable. */
export function memberOf(record: PageRecord): (GroupMember & { record: PageRecord }) | null {
  try {
    const simhash = fingerprintFromHex(record.simhash);
    return withProvenance({ url: record.url, site: record.site, simhash, check: checkOf(record), firstSeen: record.firstSeen, record }, record);
  } catch {
    return null;
  }
}

/**
 * The records within k bits of simhash (confirmed by check: nearDuplicates' rule), found through
 * the tables of meta's design (nearIndex: lib/index/near.ts's BackendIndex over the store's
 * table runs), nearest first, then earliest first; excludeUrl left out. Each candidate is judged
 * by its record, which is the truth: one whose record is gone, unreadable or no longer within k
 * (an entry of its earlier text) is dropped. The tables are kept with every write, so the last
 * should not happen.
 */
export async function findNear(rows: PageRows, stored: StoredDesign, simhash: Fingerprint, check: Fingerprint | null, k: number, excludeUrl: string | undefined): Promise<NearDuplicate[]> {
  const matches = await nearIndex(rows.runStore, rows.runIndex, stored, () => rows.countAll()).query(simhash, k);
  const records = await Promise.all(matches.map((match) => rows.get(match.id)));
  const seen = new Set<string>();
  const out: NearDuplicate[] = [];
  for (const record of records) {
    if (record === undefined || seen.has(record.url)) continue;
    const member = memberOf(record);
    if (member === null) continue; // an unreadable record matches nothing
    const distance = hammingDistance(simhash, member.simhash);
    if (distance > k) continue;
    seen.add(record.url);
    if (record.url === excludeUrl) continue;
    // a missing check (either side) cannot confirm or refute: accepted on the simhash alone
    if (check === null || member.check === null || confirmsNearDuplicate(check, member.check)) out.push({ record, distance });
  }
  return out.sort(
    (x, y) => x.distance - y.distance || x.record.firstSeen - y.record.firstSeen || (x.record.url < y.record.url ? -1 : x.record.url > y.record.url ? 1 : 0),
  );
}
