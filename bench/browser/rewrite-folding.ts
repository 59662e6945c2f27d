// bench:browser: what organising made of the synthetic history's planted rewrites, read from the
// store itself. The pages' blocks are read in an extension page (the extension's IndexedDB) and
// decoded here (lib/rows/blocks.ts): whether each rewrite and its original are in one group (the
// history page folds them), and whether the later-seen of the two, on another site, is marked a
// copy (contentCopy: *Sites that copy* counts it).
import type { Page } from 'playwright-core';
import { BLOCK_PAGES, decodeBlock } from '../../lib/rows/blocks';
import type { PageValue } from '../../lib/rows/codec';
import { DB_NAME } from '../../lib/store/schema';
import { canonicalUrl } from '../../lib/url';

export interface RewriteFolding {
  planted: number;
  /** Rewrites whose two pages were found at the ids of their lines (the store was empty before the import). */
  located: number;
  folded: number;
  laterMarkedCopy: number;
}

/** Reads the blocks of the planted rewrites' pages; each page's id is its line's index (an import into an empty store numbers them so). */
export async function rewriteFolding(page: Page, rewrites: readonly { copy: string; original: string; copyLine: number; originalLine: number }[]): Promise<RewriteFolding> {
  const blocks = [...new Set(rewrites.flatMap((r) => [r.copyLine, r.originalLine].map((id) => Math.floor(id / BLOCK_PAGES))))];
  const read = await page.evaluate(
    async ({ name, keys }) => {
      // (no named functions in here: tsx, which runs this file, would wrap them in a helper the page lacks)
      const db = await new Promise<IDBDatabase>((ok, fail) => {
        const request = indexedDB.open(name);
        request.onsuccess = () => ok(request.result);
        request.onerror = () => fail(request.error);
      });
      try {
        const store = db.transaction('blocks', 'readonly').objectStore('blocks');
        const values = await Promise.all(
          keys.map(
            (key) =>
              new Promise<unknown>((ok, fail) => {
                const request = store.get(key);
                request.onsuccess = () => ok(request.result);
                request.onerror = () => fail(request.error);
              }),
          ),
        );
        // a block is [format, deflated text, fingerprints, marks]: the bytes cross as base64
        return values.map((value) =>
          Array.isArray(value)
            ? value.map((part) => {
                if (!(part instanceof Uint8Array)) return part;
                let text = '';
                for (let i = 0; i < part.length; i += 8192) text += String.fromCharCode(...part.subarray(i, i + 8192));
                return { b64: btoa(text) };
              })
            : value,
        );
      } finally {
        db.close();
      }
    },
    { name: DB_NAME, keys: blocks },
  );
  const pages = new Map<number, PageValue>();
  blocks.forEach((block, i) => {
    const value = read[i];
    if (!Array.isArray(value)) return;
    const bytes = value.map((part: unknown) => (typeof part === 'object' && part !== null && 'b64' in part ? Uint8Array.from(Buffer.from((part as { b64: string }).b64, 'base64')) : part));
    decodeBlock(block, bytes).forEach((p) => p !== undefined && pages.set(p.id, p));
  });
  const out: RewriteFolding = { planted: rewrites.length, located: 0, folded: 0, laterMarkedCopy: 0 };
  for (const r of rewrites) {
    const copy = pages.get(r.copyLine);
    const original = pages.get(r.originalLine);
    if (copy?.url !== canonicalUrl(r.copy) || original?.url !== canonicalUrl(r.original)) continue;
    out.located++;
    if (copy.group !== undefined && copy.group === original.group) out.folded++;
    const later = copy.firstSeen > original.firstSeen ? copy : original.firstSeen > copy.firstSeen ? original : undefined;
    if (later?.contentCopy === true) out.laterMarkedCopy++;
  }
  return out;
}
