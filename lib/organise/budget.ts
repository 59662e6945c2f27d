// What each pass of organising may hold in memory, by design: the typed arrays a pass keeps (the
// bulk of what it holds), told through `onMemory` by the pass itself at its most, and checked
// against its budget by test/organise-budget.test.ts on a seeded history. A pass over postings
// holds a fixed budget whatever the import's size (it takes more passes instead); the regroup and
// a copy marking that reads the whole rewrite index hold a few hundred bytes a page.
// bench:browser reports what the extension's processes hold (VmHWM) at 100,000 and 1,000,000 pages.

export type OrganisePass = 'regroup' | 'passagePostings' | 'rewritePostings' | 'copies';

export interface HeldMemory {
  pass: OrganisePass;
  /** Bytes of the typed arrays the pass holds at its most. */
  bytes: number;
  /** Pages the pass works over (the store's, or the import's). */
  pages: number;
}

/**
 * Passage postings the first pass keeps in memory: 12 bytes each as read (bucket and high, page id,
 * place), as many again sorted by bucket, about 200 MB. The later passes put each posting in its
 * place at once (8 bytes: high and index on the page, the page's index) and take twice as many: a
 * million-page import of 50 fingerprints a page takes four passes (seven before they did).
 */
export const POSTINGS_PER_PASS = 8_000_000;

const KB = 1 << 10;
const MB = 1 << 20;
/** The packed rewrite index's starts: a word for each of its 2^20 keys. */
const PACKED_STARTS = 4 * ((1 << 20) + 1);

/** Each pass's budget: a fixed part and a part a page, in bytes. */
export function budgetOf(pass: OrganisePass, { postingsPerPass = POSTINGS_PER_PASS }: { postingsPerPass?: number } = {}): { fixed: number; perPage: number } {
  switch (pass) {
    // the page columns (24 bytes), the packed rewrite index (about 240: its bytes, postings and
    // counter), the union-find (8) and the sorted table keys (12)
    case 'regroup':
      return { fixed: PACKED_STARTS + 64 * KB, perPage: 340 };
    // the first pass: the lists read (sized for the pass, 5% spare) and sorted; a later pass: twice
    // the postings, placed at once; the bucket starts and ends and every bucket's count (2^16 words
    // each); the pending pages' places (two lists of words that double, and a bit a fingerprint)
    case 'passagePostings':
      return { fixed: 26 * postingsPerPass + MB, perPage: 40 };
    // a page's rewrite index hashes are fewer than its passage fingerprints (28 and 50 a page in
    // bench's histories): at most postingsPerPass a pass, 8 bytes each as read (lists that double)
    // and 8 sorted
    case 'rewritePostings':
      return { fixed: 24 * postingsPerPass + 300 * KB, perPage: 0 };
    // the pairs sharing passages, and the whole rewrite index packed when many pages are looked up
    case 'copies':
      return { fixed: PACKED_STARTS + 64 * KB, perPage: 300 };
  }
}

/** True if what a pass held is within its budget. */
export function withinBudget(held: HeldMemory, options?: { postingsPerPass?: number }): boolean {
  const { fixed, perPage } = budgetOf(held.pass, options);
  return held.bytes <= fixed + perPage * held.pages;
}
