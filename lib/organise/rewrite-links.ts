// The regroup's rewrite links (lib/organise/regroup.ts): every page looked up among the others'
// rewrite fingerprints as a visit looks it up (findRewriteMatches: the same candidates, the same
// hashes left out, the same judgement), with the postings held and the fingerprints not. A
// million pages' fingerprints take about 113 MB, their postings 70: the fingerprints are read
// three times rather than held. The first read counts each page's index hashes and logs their
// keys (PackedLog, 20 bits each), which then become the postings, put in place through the log
// (PackedRewritePostings.sealFromLog: the two are never held at once); the second finds each
// page's candidates in the postings, kept as pairs; the third reads the fingerprints of the pages
// in those pairs only (a few: a candidate shares two rare hashes), to judge them. Past PAIRS_PER_SLICE pairs or PAGES_PER_SLICE pages in them, the second read
// stops, the pairs are judged and let go, and it goes on from there.
import { decodeRewriteBytes } from '../fingerprint/rewrite-codec';
import { type RewriteFingerprints, indexHashes } from '../fingerprint/rewrites';
import { PackedLog } from '../index/packed-log';
import { PackedRewriteBytes, PackedRewritePostings, REWRITE_KEY_BITS, rewriteKeyOf } from '../index/packed-rewrites';
import { Words, release } from '../index/posting-passes';
import { judgeRewriteCandidates, rewriteCandidates } from '../index/rewrite-index';

/** Candidate pairs held at most at once (8 bytes each) before they are judged. */
export const PAIRS_PER_SLICE = 1 << 21;
/** Pages in those pairs at most, whose fingerprints are read to judge them (about 121 bytes each held: 32 MB). */
export const PAGES_PER_SLICE = 1 << 18;

/** The pages' rewrite fingerprints as stored, each page known by an index (the regroup's nodes). */
export interface RewritePages {
  /**
   * Calls `each` with every page's index and bytes, indices ascending, from after the point
   * `resume` (from the first page without it); an `each` that answers a promise is awaited. When
   * `stop()` says so, the reading stops at a point it returns, to resume from; undefined at the end.
   */
  all(each: (page: number, bytes: Uint8Array) => void | Promise<void>, options?: { resume?: number; stop?: () => boolean }): Promise<number | undefined>;
  /** Calls `each` with the bytes of the pages of `pages` (ascending) that have them, in order. */
  some(pages: Uint32Array, each: (page: number, bytes: Uint8Array) => void): Promise<void>;
}

export interface RewriteLinkOptions {
  /** A hash on more pages is left out (REWRITE_MAX_PAGES). */
  maxPages: number;
  /** About how many pages have fingerprints: the lists are sized once. */
  expectedPages?: number;
  pairsPerSlice?: number;
  pagesPerSlice?: number;
  /** Told each page whose fingerprints are indexed (and will be looked up), in order. */
  indexed?: (page: number) => void;
  /** Told, once the postings are built, how many lookups will be made; may answer a promise (awaited). */
  counted?: (total: number) => void | Promise<void>;
  /** Called after each lookup, and after each page judged, with the lookups made and to make (and as the postings are placed, with 0 and 0: not yet counted): may answer a promise (awaited), to yield. */
  pause?: (done: number, total: number) => void | Promise<void>;
}

export interface RewriteLinked {
  /** Pages looked up: those whose fingerprints were indexed. */
  lookups: number;
  /** Bytes of the typed arrays held at the most. */
  heldBytes: number;
}

/**
 * Calls `link(page, other)` for each page `other` that `page`'s lookup finds, in the order
 * findRewriteMatches gives them, pages in ascending order. A page whose bytes are not fingerprints
 * is not indexed, and links nothing.
 */
export async function linkRewritePages(pages: RewritePages, link: (page: number, other: number) => void, { maxPages, expectedPages = 1024, pairsPerSlice = PAIRS_PER_SLICE, pagesPerSlice = PAGES_PER_SLICE, indexed, counted, pause }: RewriteLinkOptions): Promise<RewriteLinked> {
  if (!(pairsPerSlice >= 1 && pagesPerSlice >= 1)) throw new RangeError(`pairsPerSlice and pagesPerSlice must be 1 or more: got ${pairsPerSlice} and ${pagesPerSlice}`);
  // 1. count and log every page's index hashes, then place them
  const postings = new PackedRewritePostings(maxPages, expectedPages);
  const { indexShare } = postings;
  // a key's 20 bits, or the pages' indices' if wider: the log becomes the postings (sealFromLog)
  const keys = new PackedLog(Math.max(REWRITE_KEY_BITS, 32 - Math.clz32(Math.max(0, expectedPages - 1))));
  const keyEnds = new Words(expectedPages);
  await pages.all((page, bytes) => {
    const own = fingerprintsIn(bytes);
    if (own === undefined) return;
    const hashes = indexHashes(own, indexShare);
    postings.count(page, hashes);
    for (let i = 0; i < hashes.length; i++) keys.push(rewriteKeyOf(hashes[i]!));
    keyEnds.push(keys.length);
    indexed?.(page);
  });
  // the log becomes the postings, placed through it: never both at once
  const placing = await postings.sealFromLog(keys, keyEnds.view(), () => pause?.(0, 0));
  let most = postings.heldBytes() + keyEnds.data.byteLength + placing;
  release(keyEnds.data);

  // 2. each page's candidates, kept as pairs; 3. the pairs' pages read, and the pairs judged
  const ids = postings.ids.view();
  const total = ids.length;
  await counted?.(total);
  const owners = new Words(1024);
  const others = new Words(1024);
  const wanted = new Uint32Array(total === 0 ? 1 : (ids[total - 1]! >>> 5) + 1);
  let wantedPages = 0;
  const want = (p: number): void => {
    if ((wanted[p >>> 5]! & (1 << (p & 31))) !== 0) return;
    wanted[p >>> 5]! |= 1 << (p & 31);
    wantedPages++;
  };
  let next = 0;
  let done = 0;
  let resume: number | undefined;
  do {
    owners.length = 0;
    others.length = 0;
    wantedPages = 0;
    resume = await pages.all(
      (page, bytes) => {
        while (next < total && ids[next]! < page) next++;
        if (next === total || ids[next] !== page) return; // not indexed: not looked up
        next++;
        done++;
        const own = fingerprintsIn(bytes);
        const hashes = own === undefined ? [] : indexHashes(own, indexShare);
        if (hashes.length > 0) {
          const { candidates } = rewriteCandidates(postings.postingsOf(hashes), page, maxPages, postings.counter);
          for (const other of candidates) {
            owners.push(page);
            others.push(other);
            want(page);
            want(other);
          }
        }
        return pause?.(done, total);
      },
      // checked where the reading can stop (the store's: after a group of 64 pages), so a slice may pass the caps by that many lookups' pairs
      { resume, stop: () => owners.length >= pairsPerSlice || wantedPages >= pagesPerSlice },
    );
    const held = new PackedRewriteBytes(wantedPages);
    await pages.some(bitsOf(wanted, wantedPages), (page, bytes) => held.add(page, bytes));
    wanted.fill(0);
    most = Math.max(most, postings.heldBytes() + owners.data.byteLength + others.data.byteLength + wanted.byteLength + held.heldBytes());
    const owner = owners.view();
    const other = others.view();
    for (let q = 0; q < owner.length; ) {
      const page = owner[q]!;
      let r = q + 1;
      while (r < owner.length && owner[r] === page) r++;
      const own = held.fingerprintsOf(page);
      if (own !== undefined) {
        const candidates = Array.from(other.subarray(q, r));
        const frequent = new Set(Array.from(indexHashes(own, indexShare)).filter((h) => postings.countOf(h) > maxPages));
        for (const { id } of judgeRewriteCandidates(own, candidates, candidates.map((id) => held.fingerprintsOf(id)), frequent)) link(page, id);
      }
      q = r;
      const answered = pause?.(done, total);
      if (answered !== undefined) await answered;
    }
    held.release();
  } while (resume !== undefined);
  postings.release();
  release(owners.data, others.data, wanted);
  return { lookups: total, heldBytes: most };
}

function fingerprintsIn(bytes: Uint8Array): RewriteFingerprints | undefined {
  try {
    return decodeRewriteBytes(bytes);
  } catch {
    return undefined;
  }
}

/** The set bits' indices, ascending (`count` of them). */
function bitsOf(words: Uint32Array, count: number): Uint32Array {
  const out = new Uint32Array(count);
  let at = 0;
  for (let i = 0; i < words.length; i++) {
    for (let w = words[i]!; w !== 0; w &= w - 1) out[at++] = i * 32 + (31 - Math.clz32(w & -w));
  }
  return out;
}
