// Which pages are copies: the rule behind the badge's words, the history page's "Sites that copy"
// and the copySite and passageCopy fields the store keeps, written once.
//
// - A near-duplicate copy: a page in a group of near-duplicates whose root (the page seen first)
//   is on another site (lib/report/groups.ts groupFieldsOf gives it copySite).
// - A passage copy: a page with at least PASSAGE_COPY_SHARE of its words in passages it shares
//   with a page first seen before it on another site (passageCopy).
// A page is a copy when it is either (isCopy).
import { seenBefore } from './groups';

/** At least this share of a page's words in passages shared with an earlier page of another site makes it a copy. */
export const PASSAGE_COPY_SHARE = 0.5;

/** What the rule reads of a page. */
export interface CopyPage {
  site: string;
  firstSeen: number;
  url: string;
}

/** Whether `page` can be a copy of `source`: `source` was first seen before it, on another site. */
export function mayCopy(page: CopyPage, source: CopyPage): boolean {
  return source.site !== page.site && seenBefore(source, page);
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

/** Whether a page counts as a copy for the sites that copy: a near-duplicate or a passage copy of a page first seen on another site. */
export const isCopy = (record: { copySite?: string; passageCopy?: true }): boolean => record.copySite !== undefined || record.passageCopy === true;
