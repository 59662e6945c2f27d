// A page's record as the rest of the store reads it: the fields it is stored with, its check
// fingerprint (which may be unknown), and the record as lib/report/groups.ts sees it.
import { type Fingerprint, fingerprintFromHex } from '../fingerprint/bits';
import type { GroupMember } from '../report/groups';
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
  return out;
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

/** A record as lib/report/groups.ts sees it; null if its fingerprints are unreadable. */
export function memberOf(record: PageRecord): (GroupMember & { record: PageRecord }) | null {
  try {
    const simhash = fingerprintFromHex(record.simhash);
    return { url: record.url, site: record.site, simhash, check: checkOf(record), firstSeen: record.firstSeen, record };
  } catch {
    return null;
  }
}
