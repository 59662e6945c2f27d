// Which URLs may be stored, for an import that looks up only those (lib/rows/page-rows.ts byUrls).
// It takes the url tree's keys (page-rows.ts textKey), as the tree's chunks hold them.
import { fmix32 } from '../fingerprint/hash';

/**
 * Which URLs may be stored: a Bloom filter of the url tree's hashes (URL_FILTER_PROBES bits of
 * 2^25 set for each stored page's URL), and the ids below `throughId` it has seen. A clear bit
 * means no page had that URL, so an import of many new pages need not look theirs up. A page
 * added since (a visit, say) has an id at or past throughId: PageRows.byUrls reads those pages'
 * blocks and adds their URLs before it trusts a clear bit.
 * With one bit of 2^24 a URL, a million-page import looked up 3% of its new URLs for nothing
 * (99,000 chunk reads in Chromium); with three of 2^25 (4 MB), a million stored pages give a
 * false positive in 1,600 (a lookup reads a chunk of every run of the url tree).
 */
export class UrlFilter {
  static readonly BITS = 2 ** 25;
  private readonly bits = new Uint32Array(UrlFilter.BITS / 32);
  /** Every page with a smaller id has its URL in the filter. */
  throughId = 0;

  /** Adds a url tree key (a hash: textKey of the URL). */
  add(key: number): void {
    const step = urlFilterStep(key);
    for (let i = 0; i < URL_FILTER_PROBES; i++) {
      const b = (key + Math.imul(i, step)) >>> 7;
      this.bits[b >>> 5]! |= 1 << (b & 31);
    }
  }

  /** False only if no URL with this key's bits was added. */
  mayHold(key: number): boolean {
    const step = urlFilterStep(key);
    for (let i = 0; i < URL_FILTER_PROBES; i++) {
      const b = (key + Math.imul(i, step)) >>> 7;
      if ((this.bits[b >>> 5]! & (1 << (b & 31))) === 0) return false;
    }
    return true;
  }
}

/** Bits of UrlFilter set a URL. */
export const URL_FILTER_PROBES = 3;
/** The stride between a key's bits (double hashing: the key, then the key plus multiples of an odd mix of it). */
const urlFilterStep = (key: number): number => fmix32(key ^ 0x9e3779b9) | 1;

