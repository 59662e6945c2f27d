// Reuse among a set of pages: every pair that shares passages, with each page's share.
import { type MatchOptions, type Passage, coveredShare, sharedPassages } from '../index/passage-match';
import type { WordPassageFingerprints } from '../fingerprint/passages';
import { BOILERPLATE, type BoilerplateRule, PassageIndex } from '../index/passage-index';

export interface PageForReuse {
  fingerprints: WordPassageFingerprints | null;
  site: string | null;
}

export interface Reuse {
  /** Indices into the pages, a < b. */
  a: number;
  b: number;
  /** Fraction of each page's words inside the passages they share. */
  aShare: number;
  bShare: number;
  passages: Passage[];
}

/** The passages of two fingerprinted texts, extended to whole shared runs, and each side's share. */
export function compareTexts(a: WordPassageFingerprints, b: WordPassageFingerprints, options: MatchOptions = {}): Omit<Reuse, 'a' | 'b'> {
  const passages = sharedPassages(a, b, { ...options, wordHashes: { a: a.wordHashes, b: b.wordHashes } });
  return {
    aShare: coveredShare(passages.map((p) => p.a), a.words),
    bShare: coveredShare(passages.map((p) => p.b), b.words),
    passages,
  };
}

/**
 * Every pair of pages sharing passages (boilerplate left out by document frequency over these
 * pages), sorted by a then b, except the pairs `skip` says no to.
 */
export function findReuse(pages: readonly PageForReuse[], skip: (a: number, b: number) => boolean = () => false, rule: BoilerplateRule = BOILERPLATE): Reuse[] {
  const index = new PassageIndex<number>(rule);
  pages.forEach((p, i) => {
    if (p.fingerprints) index.add(i, p.fingerprints, p.site);
  });
  const ignore = (h: number) => index.isBoilerplate(h);
  const out: Reuse[] = [];
  pages.forEach((page, a) => {
    if (!page.fingerprints) return;
    for (const b of index.candidates(page.fingerprints, a).sort((x, y) => x - y)) {
      if (b <= a || skip(a, b)) continue;
      const found = compareTexts(page.fingerprints, pages[b]!.fingerprints!, { ignore });
      if (found.passages.length) out.push({ a, b, ...found });
    }
  });
  return out;
}
