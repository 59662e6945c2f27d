// Keeping the passage index (lib/store/passages.ts) with each change of a page, in its
// transaction: a visited page's fingerprints and the pages it shares passages with, forgetting
// pages, and which pages are passage or rewrite copies (contentCopy, lib/report/copies.ts) once
// the postings are written (the rewrites' part is page-rewrites.ts).
import type { RewriteRows } from '../index/rewrite-store';
import type { PassageFingerprints } from '../fingerprint/passages';
import { encodePassageBytes } from '../fingerprint/passage-codec';
import { isContentCopy, isPassageCopyOf, mayCopy } from '../report/copies';
import type { PageRows } from '../rows/page-rows';
import { type PassageRows, type RecordMatch, passageMatches } from './passages';
import { regroupAfterRemoval } from './page-groups';
import { rewriteCopiesMadeBy, rewriteMatchesOf } from './page-rewrites';
import { sameBytes } from '../index/slots';
import { storedRecord } from './records';
import type { PageRecord } from './schema';
import type { Tally } from './tally';

/** What keeping the passages needs of a write (PageStore.write's Writing). */
export interface PassageUpkeep {
  rows: PageRows;
  tally: Tally;
  passages: PassageRows;
  /** Pages whose contentCopy is to be worked out again once the postings are written (a page they share passages with, or rewrite, changed or went). */
  recheckCopies: Set<number>;
}

/**
 * Forgets `gone` (stored records) with their passage fingerprints, regroups what is left of their
 * groups, and has the passage and rewrite copies they made copies worked out again; returns how many.
 */
export async function forget({ rows, tally, passages, rewrites, recheckCopies }: PassageUpkeep & { rewrites: RewriteRows }, gone: readonly PageRecord[], k: number): Promise<number> {
  const goneIds = new Set(gone.map((record) => record.id));
  for (const record of gone) {
    const made = [...(await copiesMadeBy(rows, passages, record)), ...(await rewriteCopiesMadeBy(rows, rewrites, record))];
    for (const id of made) if (!goneIds.has(id)) recheckCopies.add(id);
  }
  await Promise.all(
    gone.map(async (record) => {
      tally.change(record, undefined);
      await Promise.all([passages.set(record.id, undefined), rewrites.set(record.id, undefined)]);
      return rows.delete(record.id);
    }),
  );
  await regroupAfterRemoval({ rows, tally, rewrites }, gone, k);
  return gone.length;
}

/** The passage copies that `page`'s kept fingerprints may be what makes copies: later pages of another site, marked contentCopy, sharing its passages. */
async function copiesMadeBy(rows: PageRows, passages: PassageRows, page: PageRecord): Promise<number[]> {
  const own = await passages.fingerprintsOf(page.id);
  if (own === undefined) return [];
  const matches = await passageMatches(passages, (id) => rows.get(id), own, page.id);
  return matches.filter(({ record }) => record.contentCopy === true && mayCopy(record, page)).map(({ record }) => record.id);
}

/**
 * Keeps a visited page's passage fingerprints (none if `fingerprints` is undefined) and returns
 * every page sharing passages with it. The pages its old text or claims may have made passage
 * copies (`claimsChanged`: what it says of where it comes from changed), and those it now makes
 * copies (it is their original: lib/report/original.ts), are rechecked once the postings are written.
 */
export async function recordPassages(
  rows: PageRows,
  passages: PassageRows,
  recheckCopies: Set<number>,
  record: PageRecord,
  old: PageRecord | undefined,
  fingerprints: PassageFingerprints | undefined,
  claimsChanged = false,
): Promise<RecordMatch[]> {
  const bytes = fingerprints === undefined ? undefined : encodePassageBytes(fingerprints);
  const before = old === undefined ? undefined : await passages.bytesOf(record.id);
  const same = sameBytes(before, bytes);
  // a revisit with the same text and claims changes no posting and no other page's standing
  if (old !== undefined && (!same || claimsChanged)) for (const id of await copiesMadeBy(rows, passages, old)) recheckCopies.add(id);
  if (fingerprints === undefined) {
    if (before !== undefined) await passages.set(record.id, undefined);
    return [];
  }
  const shared = await passageMatches(passages, (id) => rows.get(id), fingerprints, record.id);
  if (same && !claimsChanged) return shared;
  if (!same) await passages.set(record.id, bytes);
  // a page that is the original of pages stored before it (it keeps its firstSeen, or they name it, or it was published first) makes them copies
  for (const { record: other, match } of shared) {
    if (isPassageCopyOf(other, record, match.otherShare)) recheckCopies.add(other.id);
  }
  return shared;
}

/** Works out contentCopy again for the pages `ids` from their passage and rewrite matches as the postings are now (written: PassageRows.flush, RewriteRows.flush). */
export async function recheckContentCopies(rows: PageRows, tally: Tally, passages: PassageRows, rewrites: RewriteRows, ids: ReadonlySet<number>): Promise<void> {
  for (const id of ids) {
    const record = await rows.get(id);
    if (record === undefined) continue;
    const [own, ownRewrites] = await Promise.all([passages.fingerprintsOf(id), rewrites.fingerprintsOf(id)]);
    const shared = own === undefined ? [] : await passageMatches(passages, (other) => rows.get(other), own, id);
    const copy = isContentCopy(record, shared, ownRewrites === undefined ? [] : await rewriteMatchesOf(rows, rewrites, ownRewrites, id));
    if (copy === (record.contentCopy === true)) continue;
    const written = storedRecord(record);
    if (copy) written.contentCopy = true;
    else delete written.contentCopy;
    tally.change(record, written);
    await rows.put(written);
  }
}
