// Keeping which pages are rewrite copies (lib/report/copies.ts) with each change of a page, in its
// transaction, as page-passages.ts does for passage copies: a visited page's rewrite fingerprints
// and the pages it rewrites or that rewrite it, and the copies a page's fingerprints may make.
import { encodeRewriteBytes } from '../fingerprint/rewrite-codec';
import type { RewriteFingerprints } from '../fingerprint/rewrites';
import { type RewriteRecordMatch, type RewriteRows, rewriteMatches } from '../index/rewrite-store';
import type { RewriteSource } from '../index/rewrite-index';
import { sameBytes } from '../index/slots';
import { mayCopy } from '../report/copies';
import type { PageRows } from '../rows/page-rows';
import type { PageRecord } from './schema';

/** The rewrite matches of a page, its record's and every other record's, at most MAX_REWRITE_CANDIDATES compared (rewriteMatches); `rewrites` is the store's index, or all of it in memory. */
export function rewriteMatchesOf(rows: PageRows, rewrites: RewriteSource, own: RewriteFingerprints, id: number): Promise<RewriteRecordMatch<PageRecord>[]> {
  return rewriteMatches(rewrites, (other) => rows.get(other), own, id);
}

/** The rewrite copies that `page`'s kept fingerprints may be what makes copies: later pages of another site, marked contentCopy, that rewrite it or that it rewrites. */
export async function rewriteCopiesMadeBy(rows: PageRows, rewrites: RewriteRows, page: PageRecord): Promise<number[]> {
  const own = await rewrites.fingerprintsOf(page.id);
  if (own === undefined) return [];
  const matches = await rewriteMatchesOf(rows, rewrites, own, page.id);
  return matches.filter(({ record }) => record.contentCopy === true && mayCopy(record, page)).map(({ record }) => record.id);
}

/**
 * Keeps a visited page's rewrite fingerprints (none if `fingerprints` is undefined) and returns
 * every page it rewrites or that rewrites it, and whether its fingerprints are those it had (`same`:
 * its rewrite links are unchanged). When the page was stored before with other fingerprints or
 * other claims (`claimsChanged`), the pages its old fingerprints may make copies are rechecked
 * once the postings are written; so are the pages of other sites it is now the original of.
 */
export async function recordRewrites(
  rows: PageRows,
  rewrites: RewriteRows,
  recheckCopies: Set<number>,
  record: PageRecord,
  old: PageRecord | undefined,
  fingerprints: RewriteFingerprints | undefined,
  claimsChanged = false,
): Promise<{ matches: RewriteRecordMatch<PageRecord>[]; same: boolean }> {
  const bytes = fingerprints === undefined ? undefined : encodeRewriteBytes(fingerprints);
  const before = old === undefined ? undefined : await rewrites.bytesOf(record.id);
  const changed = old !== undefined && !sameBytes(before, bytes);
  if (changed || claimsChanged) for (const id of await rewriteCopiesMadeBy(rows, rewrites, old!)) recheckCopies.add(id);
  const matches = fingerprints === undefined ? [] : await rewriteMatchesOf(rows, rewrites, fingerprints, record.id);
  await rewrites.set(record.id, bytes);
  // a page that is the original of pages stored before it (it keeps its firstSeen, or they name it, or it was published first) makes them copies
  if (old === undefined || changed || claimsChanged) for (const { record: other } of matches) if (mayCopy(other, record)) recheckCopies.add(other.id);
  return { matches, same: old !== undefined && (!changed || (before === undefined && bytes === undefined)) };
}
