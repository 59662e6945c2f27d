// Which of a page's passage fingerprints another page holds: one bit a fingerprint, in the page's
// order, its "marks" (lib/store/passages.ts keeps them beside the fingerprints). A lookup of a
// stored page reads the buckets of its marked hashes only: at a million pages a page holds about
// 50 fingerprints, of which about 10 are on another page, and each bucket read is most of what a
// popup waits for (docs/passage-index.md).
//
// Marks may claim more than is true, never less: every hash of the page that another indexed page
// holds is marked, and a mark stays when that page goes (a read for nothing). A page without marks
// (its postings waiting for organising), or whose marks do not fit its fingerprints, has every
// hash looked up.
//
// Bytes: ceil(n / 8) for n fingerprints, bit i (the highest of each byte first) for fingerprint i.
// Provisional marks, those of a page whose postings wait for organising, have one byte more (1):
// they do not fit, so the page's lookups read every hash, but a visit that shares one of its hashes
// meanwhile marks it there, and organising adds what it finds to them (no share is lost between
// its reading the buckets and its writing the marks).
// Pure: no IndexedDB here.

/** The marks of `count` fingerprints, fingerprint i marked when `held(i)`. */
export function encodeMarks(count: number, held: (i: number) => boolean): Uint8Array {
  const out = new Uint8Array(Math.ceil(count / 8));
  for (let i = 0; i < count; i++) if (held(i)) out[i >> 3]! |= 0x80 >> (i & 7);
  return out;
}

/** Whether marks of this length belong to a page of `count` fingerprints. */
export const marksFit = (marks: Uint8Array, count: number): boolean => marks.length === Math.ceil(count / 8);

/** The provisional marks of a page of `count` fingerprints, none marked. */
export function provisionalMarks(count: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(count / 8) + 1);
  out[out.length - 1] = 1;
  return out;
}

/** Whether the marks, final or provisional, are those of a page of `count` fingerprints. */
export const marksOfCount = (marks: Uint8Array, count: number): boolean => marksFit(marks, count) || (marks.length === Math.ceil(count / 8) + 1 && marks.at(-1) === 1);

export const isMarked = (marks: Uint8Array, i: number): boolean => (marks[i >> 3]! & (0x80 >> (i & 7))) !== 0;

/** The hashes a lookup reads: the marked ones, or all of them without marks that fit. */
export function hashesToLookUp(hashes: ArrayLike<number>, marks: Uint8Array | undefined): number[] {
  const all = Array.from(hashes);
  if (marks === undefined || !marksFit(marks, hashes.length)) return all;
  return all.filter((_, i) => isMarked(marks, i));
}

/** The marks (final or provisional) with every fingerprint of `hash` marked; the same array if nothing changed. */
export function withHashMarked(marks: Uint8Array, hashes: ArrayLike<number>, hash: number): Uint8Array {
  let out = marks;
  for (let i = 0; i < hashes.length; i++) {
    if (hashes[i] !== hash || isMarked(out, i)) continue;
    if (out === marks) out = marks.slice();
    out[i >> 3]! |= 0x80 >> (i & 7);
  }
  return out;
}

/** Final marks of `count` fingerprints: those `held` says another page holds, and those `earlier` marks (final or provisional; any other bytes are ignored). */
export function finalMarks(count: number, held: (i: number) => boolean, earlier: Uint8Array | undefined): Uint8Array {
  const kept = earlier !== undefined && marksOfCount(earlier, count) ? earlier : undefined;
  return encodeMarks(count, (i) => held(i) || (kept !== undefined && isMarked(kept, i)));
}
