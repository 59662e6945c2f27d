// The toolbar badge of a tab: how many pages read before are near-duplicates of its page, share
// passages with it, or tell its story in other words (rewrites and translations), as a number, and
// in words as its title ("Doppel: among the pages you have read, 2 are near-duplicates of this one
// and 3 share passages with it").
import type { Localizer } from './i18n';

/** The badge's number: the counts together; empty when there is none. */
export function badgeText(matches: number, passages: number, rewrites = 0): string {
  const n = matches + passages + rewrites;
  return n > 0 ? String(n) : '';
}

/** The badge's title, each count with its own plural; Doppel's name alone when there is none. */
export function badgeTitle(l: Localizer, matches: number, passages: number, rewrites = 0): string {
  const parts = [
    matches > 0 ? l.count('badgeNearDuplicatesPart', matches) : null,
    passages > 0 ? l.count('badgePassagesPart', passages) : null,
    rewrites > 0 ? l.count('badgeRewritesPart', rewrites) : null,
  ].filter((part): part is string => part !== null);
  if (parts.length === 3) return l.t('badgeTitleThree', ...parts);
  if (parts.length === 2) return l.t('badgeTitleBoth', ...parts);
  if (rewrites > 0) return l.count('badgeTitleRewrites', rewrites);
  if (passages > 0) return l.count('badgeTitlePassages', passages);
  if (matches > 0) return l.count('badgeTitle', matches);
  return l.t('extName');
}
