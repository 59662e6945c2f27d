// Reading version 7's pages (the `blocks` store: lib/rows/blocks.ts) from an extension context.
// A block's value is [format, Uint8Array, Uint8Array, marks?], and `evaluate` serializes what it returns:
// in the browser each Uint8Array becomes {bytes: number[]}, and here it is rebuilt and decoded
// with lib's own decodeBlock. No vitest here: the browser benchmarks (bench/) import it too.
import type { Page, Worker } from 'playwright-core';
import { decodeBlock } from '../../lib/rows/blocks';
import type { PageRecord } from '../../lib/store/schema';

/** A stored value as `evaluate` returns it: each Uint8Array part (one level deep) as {bytes: number[]}. */
export type PlainValue = unknown;

/** The value as stored, its {bytes} parts back to Uint8Arrays. */
export function reviveValue(value: PlainValue): unknown {
  const revive = (part: unknown): unknown =>
    typeof part === 'object' && part !== null && !Array.isArray(part) && Array.isArray((part as { bytes?: unknown }).bytes) ? Uint8Array.from((part as { bytes: number[] }).bytes) : part;
  return Array.isArray(value) ? value.map(revive) : revive(value);
}

/** The pages of the blocks in id order, the blocks that do not decode (a line each), and those that decode to no page. */
export function decodeBlocks(blocks: readonly { key: number; value: PlainValue }[]): { pages: PageRecord[]; problems: string[]; emptyBlocks: number[] } {
  const pages: PageRecord[] = [];
  const problems: string[] = [];
  const emptyBlocks: number[] = [];
  for (const { key, value } of blocks) {
    if (!Number.isSafeInteger(key) || key < 0) {
      problems.push(`block key ${JSON.stringify(key)} is not a block number`);
      continue;
    }
    try {
      const held = decodeBlock(key, reviveValue(value)).filter((page): page is PageRecord => page !== undefined);
      if (held.length === 0) emptyBlocks.push(key);
      pages.push(...held);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return { pages, problems, emptyBlocks };
}

/**
 * Every block of database 'doppel', read from an extension context without creating or upgrading
 * it ([] if it does not exist or has no `blocks` store yet), its bytes as plain arrays.
 */
export function readPlainBlocks(context: Page | Worker): Promise<{ key: number; value: PlainValue }[]> {
  return (context as Page).evaluate(async () => {
    type Plain = { key: number; value: unknown };
    if (!(await indexedDB.databases()).some((d) => d.name === 'doppel')) return [] as Plain[];
    return new Promise<Plain[]>((resolve, reject) => {
      const open = indexedDB.open('doppel'); // no version: never upgrades an existing database
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains('blocks')) {
          db.close();
          resolve([]);
          return;
        }
        const tx = db.transaction('blocks', 'readonly');
        const keys = tx.objectStore('blocks').getAllKeys();
        const values = tx.objectStore('blocks').getAll();
        tx.oncomplete = () => {
          db.close();
          // (no named functions in here: tsx, which runs the benchmarks, would wrap them in a helper the browser lacks)
          resolve(
            (keys.result as number[]).map((key, i) => {
              const value = values.result[i] as unknown;
              const parts = (Array.isArray(value) ? value : [value]).map((part: unknown) => (part instanceof Uint8Array ? { bytes: Array.from(part) } : part));
              return { key, value: Array.isArray(value) ? parts : parts[0] };
            }),
          );
        };
        tx.onerror = () => reject(tx.error);
      };
    });
  });
}

/** Every stored page, decoded in Node; throws if a block does not decode. */
export async function readStoredPages(context: Page | Worker): Promise<PageRecord[]> {
  const { pages, problems } = decodeBlocks(await readPlainBlocks(context));
  if (problems.length > 0) throw new Error(`the stored blocks do not decode: ${problems.slice(0, 3).join('; ')}`);
  return pages;
}
