// lib/store/rewrite-watch.ts: what a watch is told of the writes made while it is open, through the
// store whose connection it watches: the pages whose rewrite fingerprints changed and their index
// hashes, before and after; nothing once closed; everything when the store is cleared.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { asFingerprint } from '../lib/fingerprint/bits';
import type { RewriteFingerprints } from '../lib/fingerprint/rewrites';
import { rewriteIndexHashes } from '../lib/index/rewrite-store';
import type { PageStore } from '../lib/store/pages';
import { watchRewrites } from '../lib/store/rewrite-watch';
import { freshStore } from './support/fresh-store';

/** Fingerprints of `n` hashes from `first`, 4096 apart (20 bits kept). */
const fingerprints = (first: number, n: number): RewriteFingerprints => {
  const hashes = Uint32Array.from({ length: n }, (_, i) => (first + i) * 4096);
  return { hashes, limit: 2 ** 32, anchors: n, lang: 'en' };
};
const visit = (store: PageStore, url: string, f: RewriteFingerprints | undefined, now = 1_000) =>
  store.record({ url, title: url, site: new URL(url).host, simhash: asFingerprint(0x0123_4567_89ab_cdefn), check: asFingerprint(0n), ...(f === undefined ? {} : { rewrites: f }), now });
const sorted = (values: Iterable<number>): number[] => [...values].sort((a, b) => a - b);

describe('RewriteWatch', () => {
  it('is told of each page whose rewrite fingerprints change, with its index hashes before and after; not of other writes', async () => {
    const store = await freshStore();
    const a = fingerprints(100, 12);
    const b = fingerprints(500, 12);
    await visit(store, 'https://a.example/1', a); // before the watch: not told
    const watch = watchRewrites(store.db);
    const first = (await store.get('https://a.example/1'))!.id;
    await visit(store, 'https://a.example/1', a, 2_000); // the same fingerprints: no change
    await visit(store, 'https://b.example/plain', undefined); // none kept: no change
    expect([watch.pages.size, watch.hashes.size, watch.everything]).toEqual([0, 0, false]);
    await visit(store, 'https://a.example/1', b, 3_000); // new text
    const second = (await visit(store, 'https://c.example/2', a)).record.id; // a new page
    expect(sorted(watch.pages)).toEqual(sorted([first, second]));
    expect(sorted(watch.hashes)).toEqual(sorted(new Set([...rewriteIndexHashes(a), ...rewriteIndexHashes(b)])));
    expect(rewriteIndexHashes(a).length).toBeGreaterThan(0);
    // forgetting: the page, with the hashes it held
    watch.hashes.clear();
    expect(await store.forget('https://c.example/2')).toBe(true);
    expect(sorted(watch.hashes)).toEqual(sorted(rewriteIndexHashes(a)));
    // a watch of another connection is told nothing
    const other = watchRewrites((await freshStore()).db);
    await visit(store, 'https://d.example/3', fingerprints(900, 12));
    expect(other.pages.size).toBe(0);
    other.close();
    watch.close();
  });

  it('once closed, is told nothing; a store cleared tells every open watch that anything may have changed', async () => {
    const store = await freshStore();
    const closed = watchRewrites(store.db);
    const open = watchRewrites(store.db);
    closed.close();
    await visit(store, 'https://a.example/1', fingerprints(100, 12));
    expect([closed.pages.size, open.pages.size]).toEqual([0, 1]);
    expect(open.everything).toBe(false);
    await store.clear();
    expect([closed.everything, open.everything]).toEqual([false, true]);
    open.close();
  });
});
