// Passages a page shares with pages kept in a passage index (lib/store/passages.ts): from the
// fingerprints alone, as no text is kept. Pure: the index's postings and the other pages'
// fingerprints come in through the arguments.
//
// A page is compared only with the pages that hold at least two of its fingerprints (counted per
// fingerprint of this page, repeats included): from fingerprints alone a passage spans its matched
// k-grams, so one match spans k words, never MIN_PASSAGE_WORDS. Boilerplate (lib/passages/index.ts)
// is what the postings say of this page's own hashes: on more than `maxPages` pages, or marked as
// one site's (the store marks those when their pages change).
import { MIN_PASSAGE_WORDS, PASSAGE_PARAMS, type PassageFingerprints } from '../fingerprint/passages';
import { BOILERPLATE, type BoilerplateRule } from './passage-index';
import { type Passage, coveredShare, sharedPassages } from './passage-match';

/** What the postings say of one hash: the pages holding it, and whether it is one site's boilerplate. */
export interface Posting {
  ids: ArrayLike<number>;
  siteBoilerplate: boolean;
}

export interface StoredMatch {
  id: number;
  /** The fraction of this page's words inside the passages, 0 to 1. */
  share: number;
  /** The fraction of the other page's words inside them. */
  otherShare: number;
  passages: Passage[];
  /** This page's fingerprint hashes whose k-gram lies inside one of the passages, each once, in position order. */
  hashes: number[];
}

export interface StoredMatchOptions {
  rule?: BoilerplateRule;
  /** At most this many candidates are compared, those holding the most of this page's fingerprints first. */
  maxCandidates?: number;
}

/** Candidates compared at most (a page among hundreds that share a phrase with it: the most similar are kept). */
export const MAX_PASSAGE_CANDIDATES = 100;

/** Whether `hash` is boilerplate by its postings. */
export function isBoilerplate(posting: Posting | undefined, rule: BoilerplateRule = BOILERPLATE): boolean {
  return posting !== undefined && (posting.ids.length > rule.maxPages || posting.siteBoilerplate);
}

/**
 * The candidates for `own` (the page `ownId`): the pages holding at least two of its fingerprints
 * that are not boilerplate, with how many they hold, most first (then by id). `postings` has an
 * entry for each of own's distinct hashes that some page holds.
 */
export function passageCandidates(own: PassageFingerprints, ownId: number, postings: ReadonlyMap<number, Posting>, rule: BoilerplateRule = BOILERPLATE): { id: number; held: number }[] {
  const occurrences = new Map<number, number>();
  for (const h of own.hashes) occurrences.set(h, (occurrences.get(h) ?? 0) + 1);
  const held = new Map<number, number>();
  for (const [h, times] of occurrences) {
    const posting = postings.get(h);
    if (posting === undefined || isBoilerplate(posting, rule)) continue;
    for (let i = 0; i < posting.ids.length; i++) {
      const id = posting.ids[i]!;
      if (id !== ownId) held.set(id, (held.get(id) ?? 0) + times);
    }
  }
  return [...held]
    .filter(([, n]) => n >= 2)
    .map(([id, n]) => ({ id, held: n }))
    .sort((a, b) => b.held - a.held || a.id - b.id);
}

/** Own's hashes whose k-gram lies inside one of the ranges (each once, in position order). */
export function hashesInside(own: PassageFingerprints, ranges: readonly { start: number; end: number }[], k = PASSAGE_PARAMS.k): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < own.hashes.length; i++) {
    const p = own.positions[i]!;
    if (!ranges.some((r) => p >= r.start && p + k <= r.end)) continue;
    const h = own.hashes[i]!;
    if (!seen.has(h)) {
      seen.add(h);
      out.push(h);
    }
  }
  return out;
}

/**
 * The pages among `candidates` that share a passage of MIN_PASSAGE_WORDS or more with `own`, the
 * largest share of own first. `fingerprintsOf` gives a candidate's fingerprints (undefined: none
 * kept). `postings` as for passageCandidates.
 */
export async function matchStored(
  own: PassageFingerprints,
  candidates: readonly { id: number }[],
  postings: ReadonlyMap<number, Posting>,
  fingerprintsOf: (id: number) => Promise<PassageFingerprints | undefined>,
  rule: BoilerplateRule = BOILERPLATE,
): Promise<StoredMatch[]> {
  const ignore = (h: number): boolean => isBoilerplate(postings.get(h), rule);
  const others = await Promise.all(candidates.map((c) => fingerprintsOf(c.id)));
  const out: StoredMatch[] = [];
  candidates.forEach(({ id }, i) => {
    const other = others[i];
    if (other === undefined) return;
    const passages = sharedPassages(own, other, { ignore, minWords: MIN_PASSAGE_WORDS });
    if (passages.length === 0) return;
    out.push({
      id,
      share: coveredShare(passages.map((p) => p.a), own.words),
      otherShare: coveredShare(passages.map((p) => p.b), other.words),
      passages,
      hashes: hashesInside(own, passages.map((p) => p.a)),
    });
  });
  return out.sort((a, b) => b.share - a.share || b.otherShare - a.otherShare || a.id - b.id);
}
