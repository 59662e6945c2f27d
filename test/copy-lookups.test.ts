// The copy marking's rewrite lookups (lib/organise/copy-lookups.ts): a lookup handed on from the
// regroup, its records read again, says what the lookup made now says.
import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSyntheticHistory } from '../bench/data/synthetic-history';
import { indexPending } from '../lib/organise/passage-organise';
import { handedLookups, rewriteLookups } from '../lib/organise/copy-lookups';
import { importLines } from '../lib/store/transfer';
import { freshStore } from './support/fresh-store';

describe('the copy marking\'s rewrite lookups', () => {
  it('handed on with the pages they found, give what lookups made now give, over several transactions of records', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doppel-copy-lookups-'));
    try {
      const history = await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: 600, seed: 11, rewriteRate: 0.2 });
      const store = await freshStore();
      const lines = readFileSync(history.file, 'utf8').split('\n').filter((line) => line !== '');
      await importLines(store, lines, { now: Date.UTC(2026, 10, 1) });
      await indexPending(store); // the rewrite index holds every page
      const ids = (await store.pagesAfter(undefined, 1000)).map((r) => r.id);

      const made = await rewriteLookups(store, ids, undefined);
      expect(made.count).toBe(ids.length);
      // more than one transaction's worth (64) found something
      expect(made.found.size).toBeGreaterThan(64);
      expect([...made.found.values()].filter((lookup) => lookup.isCopy).length).toBeGreaterThan(10);

      const links = new Map([...made.found].map(([id, lookup]) => [id, lookup.linked]));
      // a page that found nothing, and one not stored, are left out as a made lookup leaves them
      const nothing = ids.find((id) => !made.found.has(id))!;
      const handed = await handedLookups(store, [...made.found.keys(), nothing, 99_999], links);
      const sorted = (keys: Iterable<number>): number[] => [...keys].sort((x, y) => x - y); // in the order the reads ended
      expect(sorted(handed.keys())).toEqual(sorted(made.found.keys()));
      for (const [id, lookup] of made.found) expect(handed.get(id), `page ${id}`).toEqual(lookup);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
