// The passage index layouts bench:passage-layout compares (bench/layout/passage-layout.ts's header
// says what each is), and the per-page fingerprint records each writes beside the blocks, 64 pages
// a record: their shape a layout, and their codec.
import type { PageFingerprints } from './passage-layout-synthetic';

export const LAYOUTS = ['baseline', 'raw', 'packed', 'packed-pos', 'packed-prefix'] as const;
export type Layout = (typeof LAYOUTS)[number];

/**
 * [hashes a slot (0: no page), hashes, positions]:
 * - raw, packed: the hashes as u32, the positions as u16;
 * - packed-pos: the hashes as u32 only;
 * - packed-prefix: the high 16 bits of each hash as u16 (enough to find the chunks that hold the
 *   page's postings, whose ids then say which are its own), and each position's gap from the one
 *   before (the first from 0) as u8: winnowing keeps one k-gram in every w = 26, so a gap is at most 26.
 */
export type PassagePageRecord = [counts: Uint8Array, hashes: Uint32Array | Uint16Array, positions?: Uint16Array | Uint8Array];

export function encodePassagePages(pages: readonly PageFingerprints[], layout: Layout): PassagePageRecord {
  const counts = Uint8Array.from(pages, (p) => p.hashes.length);
  const total = pages.reduce((n, p) => n + p.hashes.length, 0);
  if (layout === 'packed-prefix') {
    const prefixes = new Uint16Array(total);
    const gaps = new Uint8Array(total);
    let at = 0;
    for (const p of pages) {
      let previous = 0;
      for (let f = 0; f < p.hashes.length; f++, at++) {
        prefixes[at] = p.hashes[f]! >>> 16;
        const gap = p.positions[f]! - previous;
        if (gap < 0 || gap > 255) throw new RangeError(`a position gap of ${gap} words does not fit a byte`);
        gaps[at] = gap;
        previous = p.positions[f]!;
      }
    }
    return [counts, prefixes, gaps];
  }
  const hashes = new Uint32Array(total);
  const positions = new Uint16Array(total);
  let at = 0;
  for (const p of pages) {
    hashes.set(p.hashes, at);
    positions.set(p.positions, at);
    at += p.hashes.length;
  }
  return layout === 'packed-pos' ? [counts, hashes] : [counts, hashes, positions];
}

/** The pages of a record; packed-prefix's hashes come back as their prefix << 16 (what encodePassagePages keeps of them). */
export function decodePassagePages(value: PassagePageRecord): PageFingerprints[] {
  const [counts, stored, positions] = value;
  const prefixed = stored instanceof Uint16Array;
  const pages: PageFingerprints[] = [];
  let at = 0;
  for (const n of counts) {
    const hashes = prefixed ? Uint32Array.from(stored.subarray(at, at + n), (p) => p * 65536) : (stored as Uint32Array).subarray(at, at + n);
    let pos: Uint16Array;
    if (positions instanceof Uint8Array) {
      pos = new Uint16Array(n);
      let sum = 0;
      for (let f = 0; f < n; f++) pos[f] = sum += positions[at + f]!;
    } else pos = positions?.subarray(at, at + n) ?? new Uint16Array(n);
    pages.push({ hashes, positions: pos });
    at += n;
  }
  return pages;
}
