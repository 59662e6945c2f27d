// The toolbar badge of a tab: how many pages read before are near-duplicates of its page or share
// passages with it, as a number, and in words as its title ("Doppel: among the pages you have read,
// 2 are near-duplicates of this one and 3 share passages with it").
import type { Localizer } from './i18n';

/** The badge's number: both counts together; empty when there is none. */
export function badgeText(matches: number, passages: number): string {
  const n = matches + passages;
  return n > 0 ? String(n) : '';
}

/** The badge's title, each count with its own plural; Doppel's name alone when there is none. */
export function badgeTitle(l: Localizer, matches: number, passages: number): string {
  if (matches > 0 && passages > 0) return l.t('badgeTitleBoth', l.count('badgeNearDuplicatesPart', matches), l.count('badgePassagesPart', passages));
  if (passages > 0) return l.count('badgeTitlePassages', passages);
  if (matches > 0) return l.count('badgeTitle', matches);
  return l.t('extName');
}
