// Organising's bulk reads of the store (lib/organise/passage-organise.ts): every value of a store of
// bytes by number, the pending blocks' pages, and records with their passage fingerprints, each a
// few hundred a readonly transaction.
import type { PassageFingerprints } from '../fingerprint/passages';
import type { PageStore } from '../store/pages';
import { PASSAGE_GROUP_PAGES, decodePassageBlock } from '../store/passages';
import type { PageRecord } from '../store/schema';
import { within } from '../store/within';

/** Blocks of fingerprints read a transaction. */
export const BLOCKS_PER_READ = 256;

/** Calls `each` with every value of a store of byte values by number (the postings' buckets, the rewrite groups), in key order, `perRead` a readonly transaction. */
export async function forEachValue(store: PageStore, name: 'postings' | 'rewrites', perRead: number, each: (key: number, value: Uint8Array) => void): Promise<void> {
  for (let after = -1; ; ) {
    const range = IDBKeyRange.lowerBound(after, true);
    const tx = store.db.transaction(name, 'readonly');
    const [keys, values] = await within(tx, () => Promise.all([tx.store.getAllKeys(range, perRead), tx.store.getAll(range, perRead)]));
    keys.forEach((key, i) => each(key, values[i]!));
    if (keys.length < perRead) return;
    after = keys.at(-1)!;
  }
}

/** Calls `each` with every page of the blocks (in order, BLOCKS_PER_READ a readonly transaction) that has fingerprints, as their bytes. */
export async function forEachPendingPage(store: PageStore, blocks: readonly number[], each: (id: number, bytes: Uint8Array) => void): Promise<void> {
  for (let start = 0; start < blocks.length; start += BLOCKS_PER_READ) {
    const chunk = blocks.slice(start, start + BLOCKS_PER_READ);
    const tx = store.db.transaction('passages', 'readonly');
    const values = await within(tx, () => Promise.all(chunk.map((block) => tx.store.get(block))));
    chunk.forEach((block, i) => {
      const value = values[i];
      if (value === undefined) return;
      decodePassageBlock(block, value).forEach((bytes, slot) => {
        if (bytes !== undefined) each(block * PASSAGE_GROUP_PAGES + slot, bytes);
      });
    });
  }
}

/** The records and fingerprints of `ids` (ascending), a few hundred blocks a readonly transaction; pages without either are left out. */
export async function readPagesAndFingerprints(store: PageStore, ids: readonly number[]): Promise<Map<number, { record: PageRecord; fingerprints: PassageFingerprints }>> {
  const out = new Map<number, { record: PageRecord; fingerprints: PassageFingerprints }>();
  for (let start = 0; start < ids.length; start += BLOCKS_PER_READ) {
    const chunk = ids.slice(start, start + BLOCKS_PER_READ);
    await store.read(async (rows, _tx, passages) => {
      const read = await Promise.all(chunk.map(async (id) => [await rows.get(id), await passages.fingerprintsOf(id)] as const));
      chunk.forEach((id, i) => {
        const [record, fingerprints] = read[i]!;
        if (record !== undefined && fingerprints !== undefined) out.set(id, { record, fingerprints });
      });
    });
  }
  return out;
}
