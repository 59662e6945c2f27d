// The rewrite pairs among a set of pages, found through postings of their sampled hashes
// (lib/fingerprint/rewrites.ts): scan's matcher, checked in the tests against comparing every pair.
import type { RewriteLanguage } from '../fingerprint/rewrite-anchors';
import { REWRITE_RULE, type RewriteComparison, type RewriteFingerprints, type RewriteRule, compareRewrites, frequentSkip, indexHashes, isRewritePair, translated } from '../fingerprint/rewrites';
import { release } from './posting-passes';

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
      const comparison = candidateComparison(page, pages[b]!, rule, frequent);
      if (comparison !== null) out.push({ a, b, comparison });
    }
  });
  return out;
}

/**
 * A candidate pair judged as findRewritePairs judges it: its comparison with the shared hashes on
 * too many pages left out (`frequent`), when it is a pair by `rule`; null otherwise. (scan's
 * on-disk join, bin/scan-db/, finds the candidates in SQL and judges each here.)
 */
export function candidateComparison(page: RewriteFingerprints, other: RewriteFingerprints, rule: RewriteRule, frequent: (hash: number) => boolean): RewriteComparison | null {
  const comparison = compareRewrites(page, other, frequentSkip(page, other, rule.indexShare, frequent));
  return isRewritePair(comparison, rule) ? comparison : null;
}

// ---- one page looked up: the matcher of `scan`'s index in memory and of the extension's store ----

/** What the matcher reads of an index: who holds each of a page's hashes, and the other pages' fingerprints. */
export interface RewriteSource {
  /** A hash on more than this many pages is left out (it names the subject, not the article). */
  readonly maxPages: number;
  /** The postings hold each page's hashes below this share of its limit (RewriteRule.indexShare). */
  readonly indexShare: number;
  /**
   * The pages holding each distinct index hash asked for that some page holds (the others are
   * absent). A hash on more than maxPages pages may be given by its count alone (`{ length }`):
   * a lookup only counts it. An answer given at once (not a promise) is read before the next call.
   */
  postingsOf(hashes: ArrayLike<number>): MaybePromise<ReadonlyMap<number, ArrayLike<number>>>;
  /** A page's fingerprints; undefined if it has none. */
  fingerprintsOf(id: number): MaybePromise<RewriteFingerprints | undefined>;
  /** How a lookup counts the holders of its hashes (default: by sorting them). */
  readonly counter?: HolderCounter;
}

/** Counts how many of `lists` (each holding an id at most once) hold each id. */
export interface HolderCounter {
  /** [id, count] of the ids that `min` lists or more hold, in no particular order. */
  count(lists: readonly ArrayLike<number>[], min: number): [id: number, count: number][];
}

/** Any ids: every holder listed once a list, sorted, counted by runs (no map of counts, whose every step hashes an id). */
const sortingCounter: HolderCounter = {
  count(lists, min) {
    let total = 0;
    for (const list of lists) total += list.length;
    const all = new Float64Array(total);
    let at = 0;
    for (const list of lists) for (let i = 0; i < list.length; i++) all[at++] = list[i]!;
    all.sort();
    const out: [number, number][] = [];
    for (let i = 0; i < total; ) {
      let j = i + 1;
      while (j < total && all[j] === all[i]) j++;
      if (j - i >= min) out.push([all[i]!, j - i]);
      i = j;
    }
    return out;
  },
};

/**
 * Ids from 0 to maxId, counted in two bit sets (an id seen once, and seen again) cleared after each
 * call through the ids it touched: 2 bits an id kept between calls, small enough to stay in the
 * processor's cache, where a count per id (8 bytes) at a million ids was read from memory at every
 * holder. A call costs one step a holder where sorting costs log n: for the lookups of a whole
 * store in memory (PackedRewriteIndex), a million of them, each with a few hundred to a few
 * thousand holders. Only the ids seen twice are counted exactly, in a second pass.
 */
export class DenseHolderCounter implements HolderCounter {
  private readonly once: Uint32Array;
  private readonly again: Uint32Array;
  /** The ids the call saw, in order of first sight; then the ids it saw twice. */
  private touched = new Uint32Array(1024);
  private repeated = new Uint32Array(64);

  constructor(readonly maxId: number) {
    const words = (maxId >>> 5) + 1;
    this.once = new Uint32Array(words);
    this.again = new Uint32Array(words);
  }

  /** Lets the bit sets go (release): the counter can no longer count. */
  release(): void {
    release(this.once, this.again, this.touched, this.repeated);
  }

  heldBytes(): number {
    return this.once.byteLength + this.again.byteLength + this.touched.byteLength + this.repeated.byteLength;
  }

  count(lists: readonly ArrayLike<number>[], min: number): [number, number][] {
    const { once, again, maxId } = this;
    let touched = this.touched;
    let repeated = this.repeated;
    let distinct = 0;
    let twice = 0;
    try {
      for (let l = 0; l < lists.length; l++) {
        const list = lists[l]!;
        for (let i = 0; i < list.length; i++) {
          const id = list[i]!;
          if (!(id >= 0 && id <= maxId)) throw new RangeError(`DenseHolderCounter: id ${id} is not from 0 to ${maxId}`);
          const word = id >>> 5;
          const bit = 1 << (id & 31);
          if ((once[word]! & bit) === 0) {
            once[word]! |= bit;
            if (distinct === touched.length) this.touched = touched = grown(touched);
            touched[distinct++] = id;
          } else if ((again[word]! & bit) === 0) {
            again[word]! |= bit;
            if (twice === repeated.length) this.repeated = repeated = grown(repeated);
            repeated[twice++] = id;
          }
        }
      }
      // the ids seen twice or more, counted exactly: few, beside the many seen once
      const counts = new Map<number, number>();
      if (twice > 0) {
        for (let l = 0; l < lists.length; l++) {
          const list = lists[l]!;
          for (let i = 0; i < list.length; i++) {
            const id = list[i]!;
            if ((again[id >>> 5]! & (1 << (id & 31))) !== 0) counts.set(id, (counts.get(id) ?? 0) + 1);
          }
        }
      }
      const out: [number, number][] = [];
      if (min <= 1) for (let i = 0; i < distinct; i++) if (!counts.has(touched[i]!)) out.push([touched[i]!, 1]);
      for (const [id, n] of counts) if (n >= min) out.push([id, n]);
      return out;
    } finally {
      for (let i = 0; i < distinct; i++) once[touched[i]! >>> 5] = 0;
      for (let i = 0; i < twice; i++) again[repeated[i]! >>> 5] = 0;
    }
  }
}

/** `array` in one twice as long, its values kept. */
function grown(array: Uint32Array): Uint32Array<ArrayBuffer> {
  const larger = new Uint32Array(2 * array.length);
  larger.set(array);
  return larger;
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

/** How a lookup chooses its candidates (findRewriteMatches; the regroup's lookups, lib/organise/regroup.ts). */
export interface CandidateOptions {
  exclude?: (id: number) => boolean;
  rule?: RewriteRule;
  maxCandidates?: number;
}

/**
 * A lookup's candidates, from the postings of its index hashes (`postings`, as RewriteSource's
 * postingsOf gives them): the pages other than `ownId` holding `rule.minIndexShared` of the lists
 * on at most `maxPages` pages, those sharing the most first (then by id), `maxCandidates` at most;
 * and the hashes on more pages, which the comparison leaves out.
 */
export function rewriteCandidates(
  postings: ReadonlyMap<number, ArrayLike<number>>,
  ownId: number,
  maxPages: number,
  counter: HolderCounter | undefined,
  { exclude, rule = REWRITE_RULE, maxCandidates = MAX_REWRITE_CANDIDATES }: CandidateOptions = {},
): { candidates: number[]; frequent: Set<number> } {
  const frequent = new Set<number>();
  const lists: ArrayLike<number>[] = [];
  for (const [h, ids] of postings) {
    if (ids.length > maxPages) frequent.add(h);
    else lists.push(ids);
  }
  const held = (counter ?? sortingCounter).count(lists, rule.minIndexShared).filter(([id]) => id !== ownId && !exclude?.(id));
  const candidates = held
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, maxCandidates)
    .map(([id]) => id);
  return { candidates, frequent };
}

/**
 * The candidates (`others[i]` the fingerprints of `candidates[i]`, undefined if it has none) that
 * are rewrites of `own` by `rule`, the larger share first; `frequent` the hashes left out.
 */
export function judgeRewriteCandidates(own: RewriteFingerprints, candidates: readonly number[], others: readonly (RewriteFingerprints | undefined)[], frequent: ReadonlySet<number>, rule: RewriteRule = REWRITE_RULE): RewriteMatch[] {
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

/**
 * The pages of `source` that are rewrites of `own` (the page `ownId`) by `rule`, the larger share
 * first. Candidates share `rule.minIndexShared` index hashes that are on at most `source.maxPages`
 * pages; a hash is left out of the comparison when the postings read say it is on more (the
 * looked-up page's index hashes: the others' are not read, so they always count).
 */
export async function findRewriteMatches(source: RewriteSource, own: RewriteFingerprints, ownId: number, options: CandidateOptions = {}): Promise<RewriteMatch[]> {
  const rule = options.rule ?? REWRITE_RULE;
  if (rule.indexShare !== source.indexShare) throw new RangeError(`the rule's index share (${rule.indexShare}) is not the index's (${source.indexShare})`);
  const lookup = indexHashes(own, rule.indexShare);
  if (lookup.length === 0) return [];
  // not awaited when the source answers at once: no other lookup runs before its lists are counted
  // (PackedRewriteIndex's are views of a buffer its next call overwrites)
  const asked = source.postingsOf(lookup);
  const postings = asked instanceof Promise ? await asked : asked;
  const { candidates, frequent } = rewriteCandidates(postings, ownId, source.maxPages, source.counter, options);
  const others = await Promise.all(candidates.map((id) => source.fingerprintsOf(id)));
  return judgeRewriteCandidates(own, candidates, others, frequent, rule);
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
