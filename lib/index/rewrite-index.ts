// The rewrite pairs among a set of pages, found through postings of their sampled hashes
// (lib/fingerprint/rewrites.ts): scan's matcher, checked in the tests against comparing every pair.
import type { RewriteLanguage } from '../fingerprint/rewrite-anchors';
import { REWRITE_RULE, type RewriteComparison, type RewriteFingerprints, type RewriteRule, compareRewrites, frequentSkip, indexHashes, isRewritePair, translated } from '../fingerprint/rewrites';

export interface RewritePair {
  a: number;
  b: number;
  comparison: RewriteComparison;
}

/**
 * The rewrite pairs among pages (indices a < b), found through postings: each index hash (a
 * page's hashes below `rule.indexShare` of its limit) lists the pages that have it, a hash on more
 * than `maxPages` pages is left out (a pair of names every page on the subject has), and only
 * pages that share `rule.minIndexShared` index hashes are compared. Equal to comparing every pair
 * with the same hashes left out and the same candidates (the tests check it).
 */
export function findRewritePairs(pages: readonly RewriteFingerprints[], rule: RewriteRule = REWRITE_RULE, maxPages = Infinity): RewritePair[] {
  if (!(rule.minIndexShared >= 1)) throw new RangeError(`pages found through postings share a hash at least: minIndexShared must be 1 or more, got ${rule.minIndexShared}`);
  const postings = new Map<number, number[]>();
  const indexed = pages.map((page) => indexHashes(page, rule.indexShare));
  indexed.forEach((hashes, p) => {
    for (const h of hashes) {
      const list = postings.get(h);
      if (list) list.push(p);
      else postings.set(h, [p]);
    }
  });
  const frequent = (h: number): boolean => (postings.get(h)?.length ?? 0) > maxPages;
  const out: RewritePair[] = [];
  pages.forEach((page, a) => {
    const shared = new Map<number, number>();
    for (const h of indexed[a]!) {
      const list = postings.get(h)!;
      if (list.length > maxPages) continue;
      for (const b of list) if (b > a) shared.set(b, (shared.get(b) ?? 0) + 1);
    }
    for (const [b, count] of [...shared].sort((x, y) => x[0] - y[0])) {
      if (count < rule.minIndexShared) continue;
      const comparison = compareRewrites(page, pages[b]!, frequentSkip(page, pages[b]!, rule.indexShare, frequent));
      if (isRewritePair(comparison, rule)) out.push({ a, b, comparison });
    }
  });
  return out;
}

// ---- one page looked up: the matcher of `scan`'s index in memory and of the extension's store ----

/** What the matcher reads of an index: who holds each of a page's hashes, and the other pages' fingerprints. */
export interface RewriteSource {
  /** A hash on more than this many pages is left out (it names the subject, not the article). */
  readonly maxPages: number;
  /** The postings hold each page's hashes below this share of its limit (RewriteRule.indexShare). */
  readonly indexShare: number;
  /** The pages holding each distinct index hash asked for that some page holds (the others are absent). */
  postingsOf(hashes: ArrayLike<number>): MaybePromise<ReadonlyMap<number, ArrayLike<number>>>;
  /** A page's fingerprints; undefined if it has none. */
  fingerprintsOf(id: number): MaybePromise<RewriteFingerprints | undefined>;
}

type MaybePromise<T> = T | Promise<T>;

/** A page that the one looked up rewrites or translates, or that rewrites it. */
export interface RewriteMatch {
  id: number;
  comparison: RewriteComparison;
  /** The hashes of the looked-up page that the other holds too (not left out): what marks the shared rare words. */
  shared: number[];
  /** Whether the two are in different languages, and the other page's language. */
  translated: boolean;
  lang: RewriteLanguage;
}

/** Candidates compared at most in a lookup, those sharing the most hashes first. */
export const MAX_REWRITE_CANDIDATES = 50;

/**
 * The pages of `source` that are rewrites of `own` (the page `ownId`) by `rule`, the larger share
 * first. Candidates share `rule.minIndexShared` index hashes that are on at most `source.maxPages`
 * pages; a hash is left out of the comparison when the postings read say it is on more (the
 * looked-up page's index hashes: the others' are not read, so they always count).
 */
export async function findRewriteMatches(
  source: RewriteSource,
  own: RewriteFingerprints,
  ownId: number,
  { exclude, rule = REWRITE_RULE, maxCandidates = MAX_REWRITE_CANDIDATES }: { exclude?: (id: number) => boolean; rule?: RewriteRule; maxCandidates?: number } = {},
): Promise<RewriteMatch[]> {
  if (rule.indexShare !== source.indexShare) throw new RangeError(`the rule's index share (${rule.indexShare}) is not the index's (${source.indexShare})`);
  const lookup = indexHashes(own, rule.indexShare);
  if (lookup.length === 0) return [];
  const postings = await source.postingsOf(lookup);
  const frequent = new Set<number>();
  const held = new Map<number, number>();
  for (const [h, ids] of postings) {
    if (ids.length > source.maxPages) {
      frequent.add(h);
      continue;
    }
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (id !== ownId && !exclude?.(id)) held.set(id, (held.get(id) ?? 0) + 1);
    }
  }
  const candidates = [...held]
    .filter(([, n]) => n >= rule.minIndexShared)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, maxCandidates)
    .map(([id]) => id);
  const others = await Promise.all(candidates.map((id) => source.fingerprintsOf(id)));
  const out: RewriteMatch[] = [];
  candidates.forEach((id, i) => {
    const other = others[i];
    if (other === undefined) return;
    const skip = frequentSkip(own, other, rule.indexShare, (h) => frequent.has(h));
    const comparison = compareRewrites(own, other, skip);
    if (!isRewritePair(comparison, rule)) return;
    const theirs = new Set(other.hashes);
    const limit = Math.min(own.limit, other.limit);
    const shared = Array.from(own.hashes).filter((h) => h < limit && theirs.has(h) && !skip(h));
    out.push({ id, comparison, shared, translated: translated(own, other), lang: other.lang });
  });
  const larger = (m: RewriteMatch): number => Math.max(m.comparison.aInB, m.comparison.bInA);
  return out.sort((a, b) => larger(b) - larger(a) || a.id - b.id);
}

/** Rewrite fingerprints in memory, pages added once: `scan`'s and the tests' source. */
export class RewriteIndex implements RewriteSource {
  private readonly postings = new Map<number, number[]>();
  private readonly pages = new Map<number, RewriteFingerprints>();

  constructor(
    readonly maxPages = Infinity,
    readonly indexShare = REWRITE_RULE.indexShare,
  ) {}

  add(id: number, fingerprints: RewriteFingerprints): void {
    if (this.pages.has(id)) throw new Error(`page ${id} is already in the rewrite index`);
    this.pages.set(id, fingerprints);
    for (const h of indexHashes(fingerprints, this.indexShare)) {
      const list = this.postings.get(h);
      if (list) list.push(id);
      else this.postings.set(h, [id]);
    }
  }

  postingsOf(hashes: ArrayLike<number>): Map<number, number[]> {
    const out = new Map<number, number[]>();
    for (let i = 0; i < hashes.length; i++) {
      const ids = this.postings.get(hashes[i]!);
      if (ids !== undefined) out.set(hashes[i]!, ids);
    }
    return out;
  }

  fingerprintsOf(id: number): RewriteFingerprints | undefined {
    return this.pages.get(id);
  }
}
