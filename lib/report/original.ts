// Which of two pages of one story (near-duplicates, pages sharing passages, or a rewrite and its
// source) is the original: the one rule, written once. The popup, the history page's groups and
// its "Sites that copy", the store's copy marks and `scan` all ask it.
//
// The pages' own evidence comes first (lib/text/provenance.ts reads it), the order you read them
// in last:
//   1. A page whose canonical link, og:url or credit link names the other page is the copy
//      (evidence 'canonical' or 'credit'). If it names only the other page's site, it is the copy
//      unless step 2 or 3 says otherwise.
//   2. Otherwise, the page that claims the earlier publication time is the original ('published'),
//      when both claim one and they differ by more than a day.
//   3. Otherwise, a page that claims a publication time before the other was first seen is the
//      original ('published'), when the other claims none.
//   4. Otherwise, the page seen first ('seen').
// A page that names the other and is named by it, page for page, gets no verdict from step 1.
// The known limit: a farm that backdates its copy wins step 2.
import { siteKey, type SourceKind } from '../text/provenance';

export type Evidence = SourceKind | 'published' | 'seen';

/** What the rule reads of a page. */
export interface Claims {
  url: string;
  site: string;
  firstSeen: number;
  /** When the page says it was published (ms since the epoch). */
  published?: number;
  /** The address the page names as its source (on another site), and how. */
  source?: string;
  sourceBy?: SourceKind;
}

export interface Verdict<T> {
  original: T;
  copy: T;
  evidence: Evidence;
}

/** Publication times closer than this do not order two pages (time zones, a date without a time). */
export const PUBLISHED_MARGIN_MS = 86_400_000;

/** a was seen before b: by firstSeen, then by URL, so that of two pages exactly one is first. */
export function seenBefore(a: { firstSeen: number; url: string }, b: { firstSeen: number; url: string }): boolean {
  return a.firstSeen < b.firstSeen || (a.firstSeen === b.firstSeen && a.url < b.url);
}

/** An address as two spellings of one page share it: no scheme, no "www.", no trailing slash, no fragment. */
export function addressKey(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.replace(/\/+$/, '');
    return `${siteKey(u.host)}${path}${u.search}`;
  } catch {
    return url;
  }
}

/** Whether `page` names `other` as its source: the page itself, its site only, or not at all. */
export function names(page: Claims, other: Claims): 'page' | 'site' | null {
  if (page.source === undefined) return null;
  if (addressKey(page.source) === addressKey(other.url)) return 'page';
  let host: string;
  try {
    host = new URL(page.source).host;
  } catch {
    return null;
  }
  return siteKey(host) === siteKey(other.site) ? 'site' : null;
}

const verdict = <T>(original: T, copy: T, evidence: Evidence): Verdict<T> => ({ original, copy, evidence });

/** Steps 2 and 3: the publication times the pages claim; null when they do not decide. */
function byPublished<T extends Claims>(a: T, b: T): Verdict<T> | null {
  if (a.published !== undefined && b.published !== undefined) {
    if (Math.abs(a.published - b.published) <= PUBLISHED_MARGIN_MS) return null;
    return a.published < b.published ? verdict(a, b, 'published') : verdict(b, a, 'published');
  }
  if (a.published !== undefined && a.published < b.firstSeen) return verdict(a, b, 'published');
  if (b.published !== undefined && b.published < a.firstSeen) return verdict(b, a, 'published');
  return null;
}

/** Which of two pages of one story is the original, and by what evidence (the rule at the top of the file). */
export function judgeOriginal<T extends Claims>(a: T, b: T): Verdict<T> {
  const aNamesB = names(a, b);
  const bNamesA = names(b, a);
  if (aNamesB === 'page' && bNamesA !== 'page') return verdict(b, a, a.sourceBy!);
  if (bNamesA === 'page' && aNamesB !== 'page') return verdict(a, b, b.sourceBy!);
  const claimed = byPublished(a, b);
  if (aNamesB === 'site' && bNamesA === null && claimed?.original !== a) return verdict(b, a, a.sourceBy!);
  if (bNamesA === 'site' && aNamesB === null && claimed?.original !== b) return verdict(a, b, b.sourceBy!);
  if (claimed !== null) return claimed;
  return seenBefore(a, b) ? verdict(a, b, 'seen') : verdict(b, a, 'seen');
}

/** Whether `original` is the original of the pair it makes with `copy` by the rule. */
export function isOriginalOf(original: Claims, copy: Claims): boolean {
  return judgeOriginal(original, copy).original === original;
}

/**
 * The original of a group of pages of one story: taken in the order they were seen, each page
 * that the rule calls the original of the pair it makes with the one chosen so far is chosen
 * instead. Where the pairs' verdicts agree (no cycle), that is the page every other page loses
 * to. The same whatever the order of `members`.
 */
export function originalAmong<T extends Claims>(members: readonly T[]): T {
  if (members.length === 0) throw new RangeError('a group has at least one page');
  if (members.length === 1) return members[0]!;
  const inOrder = [...members].sort((a, b) => (seenBefore(a, b) ? -1 : seenBefore(b, a) ? 1 : 0));
  let chosen = inOrder[0]!;
  for (let i = 1; i < inOrder.length; i++) if (isOriginalOf(inOrder[i]!, chosen)) chosen = inOrder[i]!;
  return chosen;
}

/** Whether two records of a page claim the same: the same publication time and the same named source. */
export function sameClaims(a: Omit<Claims, 'url' | 'site' | 'firstSeen'>, b: Omit<Claims, 'url' | 'site' | 'firstSeen'>): boolean {
  return a.published === b.published && a.source === b.source && a.sourceBy === b.sourceBy;
}

const DAY_MS = 86_400_000;

/** The original among a page and the pages of its story, and why, as the popup says it. */
export interface OriginalFinding<T> {
  original: T;
  /** Why the original wins over the page it is compared with: `page` itself when that is a copy, else the related page seen first. */
  evidence: Evidence;
  /** For 'published': whole days from the original's publication time to the other's (or to when the other was first seen, if it claims none). */
  days: number | null;
}

/**
 * The original among `page` and `related` (the pages of its story: near-duplicates, pages it
 * shares half its text with, rewrites), by originalAmong, with the evidence of the pair it makes
 * with `page` (or, when `page` is the original, with the related page seen first); null when
 * nothing is related.
 */
export function findOriginal<T extends Claims>(page: T, related: readonly T[]): OriginalFinding<T> | null {
  if (related.length === 0) return null;
  const original = originalAmong([page, ...related]);
  const other = original !== page ? page : related.reduce((a, b) => (seenBefore(b, a) ? b : a));
  const { original: winner, evidence } = judgeOriginal(original, other);
  if (winner !== original) return { original, evidence: 'seen', days: null }; // a cycle of verdicts: chosen by the order of sight
  const days = evidence === 'published' ? Math.max(0, Math.floor(((other.published ?? other.firstSeen) - original.published!) / DAY_MS)) : null;
  return { original, evidence, days };
}
