// The passage index and its one matcher: which pages hold each passage-fingerprint hash (the
// postings), which hashes are boilerplate, and the pages a page shares passages with. `scan` keeps
// its postings in memory (PassageIndex, below); the extension keeps them in IndexedDB
// (lib/store/passages.ts PassageRows). Both are a PassageSource, and findSharedPassages is the
// matcher for both.
//
// Boilerplate is found from the pages themselves, by document frequency: a hash on more than
// `maxPages` pages overall (SuperFastMatch ignores hashes in more than 100 documents), or on at
// least `maxSitePages` pages of one site (a newsletter box, a credit line, a "read more" promo),
// is left out of passages.
//
// A page is compared with the pages that hold at least `minHeld` of its fingerprints (counted per
// fingerprint of this page, repeats included). With both texts' word hashes (scan), one shared
// fingerprint is extended to the whole shared run, so one is enough. From what the extension keeps,
// two are asked: without word bits one match spans k words, never MIN_PASSAGE_WORDS; with them one
// match would do, but a candidate per chance shared hash would cost a lookup at a million pages
// more reads, so a shared run of 30 to about 45 words, which may hold a single fingerprint, can be
// missed there where scan finds it.
import { MIN_PASSAGE_WORDS, PASSAGE_PARAMS, type PassageFingerprints, type WordPassageFingerprints } from '../fingerprint/passages';
import { type MatchOptions, type Passage, coveredShare, sharedPassages } from './passage-match';
import type { MaybePromise } from './near';

export interface BoilerplateRule {
  maxPages: number;
  maxSitePages: number;
}

export const BOILERPLATE: BoilerplateRule = { maxPages: 100, maxSitePages: 20 };

/** What the postings say of one hash: the pages holding it, and whether it is one site's boilerplate. */
export interface Posting {
  ids: ArrayLike<number>;
  siteBoilerplate: boolean;
}

/** Whether a hash is boilerplate by its postings. */
export function isBoilerplate(posting: Posting | undefined, rule: BoilerplateRule = BOILERPLATE): boolean {
  return posting !== undefined && (posting.ids.length > rule.maxPages || posting.siteBoilerplate);
}

/** What the matcher reads of an index: the postings of a page's hashes, and the other pages' fingerprints. */
export interface PassageSource {
  readonly boilerplate: BoilerplateRule;
  /** The posting of each distinct hash some page holds (the others are absent). */
  postingsOf(hashes: ArrayLike<number>): MaybePromise<ReadonlyMap<number, Posting>>;
  /** A page's fingerprints; undefined if it has none. */
  fingerprintsOf(id: number): MaybePromise<PassageFingerprints | undefined>;
  /**
   * Whether any hash is boilerplate, where the source can say it for hashes the looked-up page
   * does not hold (in memory). Absent, the other page's boilerplate is judged on the hashes they
   * share, from the postings read (IndexedDB: no read for hashes of the other page alone).
   */
  isBoilerplate?(hash: number): boolean;
}

/** In-memory postings, for `scan`: pages are added once, with their site (null when unknown). */
export class PassageIndex implements PassageSource {
  private readonly postings = new Map<number, number[]>();
  private readonly perSite = new Map<string, Map<number, number>>();
  private readonly siteBoilerplate = new Set<number>();
  private readonly pages = new Map<number, PassageFingerprints>();

  constructor(readonly boilerplate: BoilerplateRule = BOILERPLATE) {
    if (!(boilerplate.maxPages >= 1 && boilerplate.maxSitePages >= 2)) {
      throw new RangeError(`boilerplate needs maxPages ≥ 1 and maxSitePages ≥ 2: got ${boilerplate.maxPages} and ${boilerplate.maxSitePages}`);
    }
  }

  get size(): number {
    return this.pages.size;
  }

  /**
   * Whether a hash is boilerplate among the pages added so far. A new function after each add:
   * the matcher keeps each text's boilerplate zones per function (lib/index/passage-match.ts).
   */
  isBoilerplate: (hash: number) => boolean = this.judge();

  private judge(): (hash: number) => boolean {
    return (hash) => this.documentFrequency(hash) > this.boilerplate.maxPages || this.siteBoilerplate.has(hash);
  }

  add(id: number, fingerprints: PassageFingerprints, site: string | null = null): void {
    if (this.pages.has(id)) throw new Error(`page ${id} is already in the passage index`);
    this.isBoilerplate = this.judge();
    this.pages.set(id, fingerprints);
    const counts = site === null ? null : this.perSite.get(site) ?? this.perSite.set(site, new Map()).get(site)!;
    for (const h of new Set(fingerprints.hashes)) {
      const list = this.postings.get(h);
      if (list) list.push(id);
      else this.postings.set(h, [id]);
      if (counts) {
        const n = (counts.get(h) ?? 0) + 1;
        counts.set(h, n);
        if (n >= this.boilerplate.maxSitePages) this.siteBoilerplate.add(h);
      }
    }
  }

  fingerprintsOf(id: number): PassageFingerprints | undefined {
    return this.pages.get(id);
  }

  /** Pages holding the hash. */
  documentFrequency(hash: number): number {
    return this.postings.get(hash)?.length ?? 0;
  }

  postingsOf(hashes: ArrayLike<number>): Map<number, Posting> {
    const out = new Map<number, Posting>();
    for (let i = 0; i < hashes.length; i++) {
      const h = hashes[i]!;
      const ids = this.postings.get(h);
      if (ids !== undefined && !out.has(h)) out.set(h, { ids, siteBoilerplate: this.siteBoilerplate.has(h) });
    }
    return out;
  }
}

/** A page sharing passages with the one looked up. */
export interface SharedPassages {
  id: number;
  /** The fraction of the looked-up page's words inside the passages, 0 to 1. */
  share: number;
  /** The fraction of the other page's words inside them. */
  otherShare: number;
  passages: Passage[];
  /** The looked-up page's fingerprint hashes whose k-gram lies inside one of the passages, each once, in position order. */
  hashes: number[];
  /** Where each passage's ends lie from the looked-up page's first and last fingerprints inside it. */
  ends: PassageEnd[];
}

/**
 * Where a passage's ends lie on the looked-up page, from its first and last fingerprints inside
 * the passage: what the content script, which finds the fingerprints on the live page by their
 * hashes, extends its marks by (lib/content/highlight.ts).
 */
export interface PassageEnd {
  /** The hash of the page's first fingerprint inside the passage, and the words from the passage's start to that fingerprint's first word. */
  first: number;
  lead: number;
  /** The hash of its last fingerprint inside, and the words from the end of that fingerprint's k-gram to the passage's end. */
  last: number;
  trail: number;
}

export interface MatchPassagesOptions {
  /** Pages left out (the near-duplicates a report lists already, say). */
  exclude?: (id: number) => boolean;
  /** At most this many candidates are compared, those holding the most of this page's fingerprints first. */
  maxCandidates?: number;
  /** Whether to work out the hashes and ends that mark the passages on a page (true by default; `scan` marks nothing). */
  marks?: boolean;
}

/** Candidates compared at most in a lookup (a page among hundreds that share a phrase with it: the most similar are kept). */
export const MAX_PASSAGE_CANDIDATES = 100;

/**
 * The candidates for `own` (the page `ownId`): the pages holding at least `minHeld` of its
 * fingerprints that are not boilerplate, with how many they hold, most first (then by id).
 */
export function passageCandidates(own: PassageFingerprints, ownId: number, postings: ReadonlyMap<number, Posting>, rule: BoilerplateRule = BOILERPLATE, minHeld = 2): { id: number; held: number }[] {
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
    .filter(([, n]) => n >= minHeld)
    .map(([id, n]) => ({ id, held: n }))
    .sort((a, b) => b.held - a.held || a.id - b.id);
}

/** Per range, own's first and last fingerprints inside it and how far the range's ends lie from them (ranges with none inside are left out). */
export function passageEnds(own: PassageFingerprints, ranges: readonly { start: number; end: number }[], k = PASSAGE_PARAMS.k): PassageEnd[] {
  const out: PassageEnd[] = [];
  for (const r of ranges) {
    let first = -1;
    let last = -1;
    for (let i = 0; i < own.hashes.length; i++) {
      const p = own.positions[i]!;
      if (p < r.start) continue;
      if (p + k > r.end) break;
      if (first < 0) first = i;
      last = i;
    }
    if (first >= 0) out.push({ first: own.hashes[first]!, lead: own.positions[first]! - r.start, last: own.hashes[last]!, trail: r.end - (own.positions[last]! + k) });
  }
  return out;
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

const hasWords = (f: PassageFingerprints): f is WordPassageFingerprints => (f as Partial<WordPassageFingerprints>).wordHashes !== undefined;

/**
 * The passages `own` shares with `other`, boilerplate left out, of MIN_PASSAGE_WORDS or more,
 * and each side's share of words inside them. With both texts' word hashes, each passage is
 * extended to the whole shared run; with both pages' word bits, to about its ends.
 */
export function comparePassages(own: PassageFingerprints, other: PassageFingerprints, options: Pick<MatchOptions, 'ignore' | 'params'> = {}): Omit<SharedPassages, 'id' | 'hashes' | 'ends'> {
  const wordHashes = hasWords(own) && hasWords(other) ? { a: own.wordHashes, b: other.wordHashes } : undefined;
  const passages = sharedPassages(own, other, { ...options, minWords: MIN_PASSAGE_WORDS, ...(wordHashes === undefined ? {} : { wordHashes }) });
  return {
    share: coveredShare(passages.map((p) => p.a), own.words),
    otherShare: coveredShare(passages.map((p) => p.b), other.words),
    passages,
  };
}

/**
 * The pages of `source` sharing a passage of MIN_PASSAGE_WORDS or more with `own` (the page
 * `ownId`, whose fingerprints they are), the largest share of own first: the one matcher of
 * `scan` (in memory) and of the extension (IndexedDB).
 */
export async function findSharedPassages(source: PassageSource, own: PassageFingerprints, ownId: number, { exclude, maxCandidates = Infinity, marks = true }: MatchPassagesOptions = {}): Promise<SharedPassages[]> {
  if (own.hashes.length === 0) return [];
  const postings = await source.postingsOf(own.hashes);
  const candidates = passageCandidates(own, ownId, postings, source.boilerplate, hasWords(own) ? 1 : 2)
    .filter((c) => exclude === undefined || !exclude(c.id))
    .slice(0, maxCandidates);
  const ignore = source.isBoilerplate ?? ((h: number): boolean => isBoilerplate(postings.get(h), source.boilerplate));
  const others = await Promise.all(candidates.map((c) => source.fingerprintsOf(c.id)));
  const out: SharedPassages[] = [];
  candidates.forEach(({ id }, i) => {
    const other = others[i];
    if (other === undefined) return;
    const found = comparePassages(own, other, { ignore });
    if (found.passages.length === 0) return;
    const ranges = found.passages.map((p) => p.a);
    out.push(marks ? { id, ...found, hashes: hashesInside(own, ranges), ends: passageEnds(own, ranges) } : { id, ...found, hashes: [], ends: [] });
  });
  return out.sort((a, b) => b.share - a.share || b.otherShare - a.otherShare || a.id - b.id);
}
