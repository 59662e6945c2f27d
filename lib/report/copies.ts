// Which pages are copies: the rule behind the badge's words, the history page's "Sites that copy"
// and the copySite and contentCopy fields the store keeps, written once. "The original" of two
// pages is what lib/report/original.ts decides from the pages' own evidence.
//
// - A near-duplicate copy: a page in a group of near-duplicates (and rewrites) whose root (its
//   original) is on another site (lib/report/groups.ts groupFieldsOf gives it copySite).
// - A passage copy: a page with at least PASSAGE_COPY_SHARE of its words in passages it shares
//   with a page of another site that is the original of the two.
// - A rewrite copy: a rewrite or translation (lib/index/rewrite-index.ts: the pair keeps the order
//   of its rare words) of a page of another site that is the original of the two.
// The store keeps whether a page is a passage or a rewrite copy as contentCopy (isContentCopy). A
// page is a copy when it is any of the three (isCopy), counted once: a rewrite copy, grouped with
// its original, has both copySite and contentCopy. A copy that names a source on another site
// (its canonical link, og:url or a credit line) credits it (isCreditedCopy).
import { type Claims, isOriginalOf } from './original';

/** At least this share of a page's words in passages shared with an earlier page of another site makes it a copy. */
export const PASSAGE_COPY_SHARE = 0.5;

/** What the rule reads of a page. */
export type CopyPage = Claims;

/** Whether `page` can be a copy of `source`: `source` is on another site and is the original of the two. */
export function mayCopy(page: CopyPage, source: CopyPage): boolean {
  return source.site !== page.site && isOriginalOf(source, page);
}

/**
 * Whether `page` is a passage copy of `source`, `share` of its words being in the passages they
 * share (worked out only if `source` can be copied by it, when given as a function).
 */
export function isPassageCopyOf(page: CopyPage, source: CopyPage, share: number | (() => number)): boolean {
  return mayCopy(page, source) && (typeof share === 'number' ? share : share()) >= PASSAGE_COPY_SHARE;
}

/** Whether `page` is a passage copy by these matches (each an earlier page and `page`'s share of words in their passages). */
export function isPassageCopy(page: CopyPage, matches: readonly { record: CopyPage; match: { share: number } }[]): boolean {
  return matches.some(({ record, match }) => isPassageCopyOf(page, record, match.share));
}

/** Whether `page` is a rewrite copy by these matches (each a page that it rewrites or translates, or that rewrites it). */
export function isRewriteCopy(page: CopyPage, matches: readonly { record: CopyPage }[]): boolean {
  return matches.some(({ record }) => mayCopy(page, record));
}

/** Whether a page is a passage copy or a rewrite copy by these matches: its contentCopy. */
export function isContentCopy(
  page: CopyPage,
  passages: readonly { record: CopyPage; match: { share: number } }[],
  rewrites: readonly { record: CopyPage }[],
): boolean {
  return isPassageCopy(page, passages) || isRewriteCopy(page, rewrites);
}

/** Whether a page counts as a copy for the sites that copy: a near-duplicate, a passage copy or a rewrite copy of the original of another site. */
export const isCopy = (record: { copySite?: string; contentCopy?: true }): boolean => record.copySite !== undefined || record.contentCopy === true;

/** Whether a page is a copy that credits its source: it names a source on another site (lib/text/provenance.ts keeps no other). */
export const isCreditedCopy = (record: { copySite?: string; contentCopy?: true; source?: string }): boolean => isCopy(record) && record.source !== undefined;
