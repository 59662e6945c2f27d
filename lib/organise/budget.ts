// What each pass of organising may hold in memory, by design: the typed arrays a pass keeps (the
// bulk of what it holds), told through `onMemory` by the pass itself at its most, and checked
// against its budget by test/organise-budget.test.ts on a seeded history. A pass over postings
// holds a fixed budget whatever the import's size (it takes more passes instead); the regroup and
// a copy marking that reads the whole rewrite index hold a few hundred bytes a page.
// bench:browser reports what the extension's processes hold (VmHWM) at 100,000 and 1,000,000 pages.

import { FIRST_BYTES_CHUNK } from '../index/packed-rewrites';

export type OrganisePass = 'regroup' | 'passagePostings' | 'rewritePostings' | 'copies';

export interface HeldMemory {
  pass: OrganisePass;
  /** Bytes of the typed arrays the pass holds at its most. */
  bytes: number;
  /** Pages the pass works over (the store's, or the import's). */
  pages: number;
}

/**
 * Passage postings a pass keeps in memory, each put in its place at once (8 bytes: high and index
 * on the page, the page's index) in one pair of buffers that every pass reuses, sized by a first
 * read that counts every bucket's postings: 128 MB at most. A million-page import of 50
 * fingerprints a page takes four passes. (A first pass that read its postings as lists, 12 bytes
 * each, and sorted them, held 200 MB for half as many, and its arrays were still held when the
 * next pass's buffers were allocated.)
 */
export const POSTINGS_PER_PASS = 16_000_000;

const KB = 1 << 10;
const MB = 1 << 20;
/** The packed rewrite index's starts: a word for each of its 2^20 keys. */
const PACKED_STARTS = 4 * ((1 << 20) + 1);

/** Each pass's budget: a fixed part and a part a page, in bytes. */
export function budgetOf(pass: OrganisePass, { postingsPerPass = POSTINGS_PER_PASS }: { postingsPerPass?: number } = {}): { fixed: number; perPage: number } {
  switch (pass) {
    // the page columns (24 bytes) and the union-find (8), then the larger of the sorted table keys
    // (12) and the rewrite links' (lib/organise/rewrite-links.ts): the log of every page's index
    // hash keys, which becomes their postings (20 bits each, or as many as the largest index needs;
    // about 70 at a million pages, in chunks, the last one's spare room at most what it holds), a
    // bit each for those placed, the starts and their copy; then the postings, the candidate pairs
    // and the fingerprints of the pages in them (every page's, about 125, at the most: a slice
    // takes 2^18 pages, so only below a million pages or so; in chunks, whose last one's spare room
    // is less than the starts' copy above)
    case 'regroup':
      return { fixed: 2 * PACKED_STARTS + 64 * KB, perPage: 250 };
    // the postings, placed at once (8 bytes each); the bucket starts and ends and every bucket's
    // count (2^16 words each); the pending pages' places (two lists of words that double, and a
    // bit a fingerprint)
    case 'passagePostings':
      return { fixed: 8 * postingsPerPass + MB, perPage: 40 };
    // a page's rewrite index hashes are fewer than its passage fingerprints (28 and 50 a page in
    // bench's histories), and a rewrite pass takes half a passage pass's fingerprints: at most
    // postingsPerPass ÷ 2 a pass, 8 bytes each as read (lists that double) and 8 sorted
    case 'rewritePostings':
      return { fixed: 12 * postingsPerPass + 300 * KB, perPage: 0 };
    // the pairs sharing passages, and the whole rewrite index packed when many pages are looked up
    // (its bytes in chunks: the last one's spare room, 64 KB in the first and 2 B a page at a million)
    case 'copies':
      return { fixed: PACKED_STARTS + FIRST_BYTES_CHUNK + 64 * KB, perPage: 300 };
  }
}

/** True if what a pass held is within its budget. */
export function withinBudget(held: HeldMemory, options?: { postingsPerPass?: number }): boolean {
  const { fixed, perPage } = budgetOf(held.pass, options);
  return held.bytes <= fixed + perPage * held.pages;
}
