// Queries of the store that only tests need, over its public API: recording a visit for its record
// alone, a stored page's near-duplicates, and the passage fingerprints kept for a page.
import { fingerprintFromHex } from '../../lib/fingerprint/bits';
import type { PassageFingerprints } from '../../lib/fingerprint/passages';
import type { NearDuplicateOptions, PageReader, PageStore, Visit } from '../../lib/store/pages';
import { type NearDuplicate, checkOf } from '../../lib/store/records';
import type { PageRecord } from '../../lib/store/schema';

/** Records a visit (PageStore.record) and returns the record as written. */
export async function recordVisit(store: PageStore, visit: Visit): Promise<PageRecord> {
  return (await store.record(visit)).record;
}

/** nearDuplicates of a stored record, itself left out unless excludeUrl says otherwise. */
export function nearDuplicatesOf(store: PageReader, record: PageRecord, { excludeUrl = record.url, ...options }: NearDuplicateOptions = {}): Promise<NearDuplicate[]> {
  return store.nearDuplicates(fingerprintFromHex(record.simhash), checkOf(record), { ...options, excludeUrl });
}

/** The passage fingerprints kept for the page at `url`; undefined if it is not recorded or has none. */
export function passagesOf(store: PageReader, url: string): Promise<PassageFingerprints | undefined> {
  return store.read(async (rows, _tx, passages) => {
    const record = await rows.byUrl(url);
    return record === undefined ? undefined : passages.fingerprintsOf(record.id);
  });
}
