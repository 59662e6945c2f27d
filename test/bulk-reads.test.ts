// Organising's bulk reads (lib/organise/bulk-reads.ts) against what the store holds, read page by page.
import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSyntheticHistory } from '../bench/data/synthetic-history';
import { decodePassageBytes } from '../lib/fingerprint/passage-codec';
import { parsePending, pendingBlocks } from '../lib/index/pending-blocks';
import { forEachPendingPage, forEachValue, readFingerprints, readPairPages } from '../lib/organise/bulk-reads';
import { importLines } from '../lib/store/transfer';
import { freshStore } from './support/fresh-store';

describe('bulk reads', () => {
  it('give every pending page, every record with its fingerprints, and every value in key order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doppel-bulk-'));
    try {
      const history = await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: 300, seed: 5 });
      const store = await freshStore();
      const lines = readFileSync(history.file, 'utf8').split('\n').filter((line) => line !== '');
      // and one page without fingerprints
      const { passages: _passages, rewrites: _rewrites, ...bare } = JSON.parse(lines[1]!) as Record<string, unknown>;
      await importLines(store, [...lines, JSON.stringify({ ...bare, url: 'https://bare.example/no-passages' })], { now: Date.UTC(2026, 10, 1) });
      const records = await store.pagesAfter(undefined, 1000, { passages: true });
      const withPassages = records.filter((r) => r.passages !== undefined);
      expect(withPassages.length).toBeGreaterThan(250);

      const pending = parsePending(await store.db.get('meta', 'passagePending'));
      const seen: [number, ArrayLike<number>][] = [];
      const given: Uint8Array[] = [];
      await forEachPendingPage(store, [...pendingBlocks(pending)], (id, bytes) => {
        seen.push([id, decodePassageBytes(bytes).hashes]);
        given.push(bytes);
      });
      expect(seen).toEqual(withPassages.map((r) => [r.id, decodePassageBytes(r.passages!).hashes]));
      // each block's value is let go once its pages are given (release; test/support/transfer.ts in Node)
      expect(given.filter((bytes) => bytes.length > 0)).toEqual([]);

      // the pair pages: those with a record (with fingerprints or not: readFingerprints tells), their claims and whether they were copies
      const withoutPassages = records.filter((r) => r.passages === undefined);
      expect(withoutPassages.length).toBe(1);
      const asked = [...withPassages.slice(0, 40), ...withoutPassages].map((r) => r.id).sort((x, y) => x - y);
      const pairPages = await readPairPages(store, [...asked, 99_999]);
      expect([...pairPages.keys()]).toEqual(asked); // the missing page left out
      for (const r of [...withPassages.slice(0, 40), ...withoutPassages]) {
        const claims = { url: r.url, site: r.site, firstSeen: r.firstSeen, ...(r.published === undefined ? {} : { published: r.published }), ...(r.source === undefined ? {} : { source: r.source }), ...(r.sourceBy === undefined ? {} : { sourceBy: r.sourceBy }) };
        expect(pairPages.get(r.id)).toEqual({ id: r.id, ...claims, contentCopy: r.contentCopy === true });
      }
      expect(withPassages.slice(0, 40).some((r) => r.published !== undefined || r.source !== undefined)).toBe(true);
      const fingerprints = await readFingerprints(store, [...asked, 99_999]);
      expect([...fingerprints.keys()]).toEqual(asked.filter((id) => withPassages.some((r) => r.id === id))); // those without fingerprints left out
      for (const r of withPassages.slice(0, 40)) expect(fingerprints.get(r.id)!.hashes).toEqual(decodePassageBytes(r.passages!).hashes);

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
