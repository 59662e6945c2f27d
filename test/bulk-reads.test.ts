// Organising's bulk reads (lib/organise/bulk-reads.ts) against what the store holds, read page by page.
import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSyntheticHistory } from '../bench/data/synthetic-history';
import { decodePassageBytes } from '../lib/fingerprint/passage-codec';
import { parsePending, pendingBlocks } from '../lib/index/pending-blocks';
import { forEachPendingPage, forEachValue, readPagesAndFingerprints } from '../lib/organise/bulk-reads';
import { importLines } from '../lib/store/transfer';
import { freshStore } from './support/fresh-store';

describe('bulk reads', () => {
  it('give every pending page, every record with its fingerprints, and every value in key order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doppel-bulk-'));
    try {
      const history = await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: 300, seed: 5 });
      const store = await freshStore();
      await importLines(store, readFileSync(history.file, 'utf8').split('\n').filter((line) => line !== ''), { now: Date.UTC(2026, 10, 1) });
      const records = await store.pagesAfter(undefined, 1000, { passages: true });
      const withPassages = records.filter((r) => r.passages !== undefined);
      expect(withPassages.length).toBeGreaterThan(250);

      const pending = parsePending(await store.db.get('meta', 'passagePending'));
      const seen: [number, ArrayLike<number>][] = [];
      await forEachPendingPage(store, [...pendingBlocks(pending)], (id, bytes) => seen.push([id, decodePassageBytes(bytes).hashes]));
      expect(seen).toEqual(withPassages.map((r) => [r.id, decodePassageBytes(r.passages!).hashes]));

      const asked = [...withPassages.slice(0, 40).map((r) => r.id), 99_999];
      const read = await readPagesAndFingerprints(store, asked);
      expect([...read.keys()]).toEqual(asked.slice(0, 40)); // the missing page left out
      for (const r of withPassages.slice(0, 40)) expect(read.get(r.id)!.fingerprints.hashes).toEqual(decodePassageBytes(r.passages!).hashes);

      const keys: number[] = [];
      await forEachValue(store, 'rewrites', 3, (key, value) => {
        expect(value).toBeInstanceOf(Uint8Array);
        keys.push(key);
      });
      expect(keys.length).toBeGreaterThan(3);
      expect(keys).toEqual(await store.db.getAllKeys('rewrites'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
