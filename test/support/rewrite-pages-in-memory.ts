// RewritePages (lib/organise/rewrite-links.ts) over bytes in memory, as the regroup reads the store's.
import { expect } from 'vitest';
import type { RewritePages } from '../../lib/organise/rewrite-links';

/** A store's rewrite bytes by page index (RewritePages), counting the whole reads. */
export function pagesInMemory(bytes: readonly (Uint8Array | undefined)[]): RewritePages & { allReads: number } {
  return {
    allReads: 0,
    async all(each, { resume, stop } = {}) {
      this.allReads++;
      for (let i = resume === undefined ? 0 : resume + 1; i < bytes.length; i++) {
        const b = bytes[i];
        if (b === undefined) continue;
        await each(i, b);
        if (stop?.() === true) return i;
      }
      return undefined;
    },
    async some(pages, each) {
      let last = -1;
      for (const page of pages) {
        expect(page).toBeGreaterThan(last); // ascending
        last = page;
        const b = bytes[page];
        if (b !== undefined) each(page, b);
      }
    },
  };
}
