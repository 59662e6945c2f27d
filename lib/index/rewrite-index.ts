// The rewrite pairs among a set of pages, found through postings of their sampled hashes
// (lib/fingerprint/rewrites.ts): scan's matcher, checked in the tests against comparing every pair.
import { REWRITE_RULE, type RewriteComparison, type RewriteFingerprints, type RewriteRule, compareRewrites, isRewritePair } from '../fingerprint/rewrites';

export interface RewritePair {
  a: number;
  b: number;
  comparison: RewriteComparison;
}

/**
 * The rewrite pairs among pages (indices a < b), found through postings: each sampled hash lists
 * the pages that have it, a hash on more than `maxPages` pages is left out (a pair of names every
 * page on the subject has), and only pages that share `rule.minShared` hashes are compared.
 * Equal to comparing every pair with the same hashes left out (the tests check it).
 */
export function findRewritePairs(pages: readonly RewriteFingerprints[], rule: RewriteRule = REWRITE_RULE, maxPages = Infinity): RewritePair[] {
  if (!(rule.minShared >= 1)) throw new RangeError(`pages found through postings share a hash at least: minShared must be 1 or more, got ${rule.minShared}`);
  const postings = new Map<number, number[]>();
  pages.forEach((page, p) => {
    for (const h of page.hashes) {
      const list = postings.get(h);
      if (list) list.push(p);
      else postings.set(h, [p]);
    }
  });
  const skip = (h: number): boolean => (postings.get(h)?.length ?? 0) > maxPages;
  const out: RewritePair[] = [];
  pages.forEach((page, a) => {
    const shared = new Map<number, number>();
    for (const h of page.hashes) {
      const list = postings.get(h)!;
      if (list.length > maxPages) continue;
      for (const b of list) if (b > a) shared.set(b, (shared.get(b) ?? 0) + 1);
    }
    for (const [b, count] of [...shared].sort((x, y) => x[0] - y[0])) {
      if (count < rule.minShared) continue;
      const comparison = compareRewrites(page, pages[b]!, skip);
      if (isRewritePair(comparison, rule)) out.push({ a, b, comparison });
    }
  });
  return out;
}
