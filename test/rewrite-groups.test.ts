// Rewrites fold into their original's group (lib/report/groups.ts componentsOf with rewrite links,
// rewriteLinksAmong, lib/organise/rewrite-links.ts linkRewritePages; kept by lib/store/page-groups.ts on each visit and
// forgetting, recomputed by lib/organise/regroup.ts regroupAll). The reference is brute force: the
// connected components of every pair of pages that are near-duplicates or rewrite-linked (the
// detector's rule, written out here), over synthetic pages whose simhash clusters and rewrite
// families are drawn independently, after a seeded random sequence of visits, text changes and
// forgetting.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { type Fingerprint, asFingerprint, fingerprintToHex } from '../lib/fingerprint/bits';
import { REWRITE_RULE, type RewriteFingerprints, compareRewrites, isRewritePair, sampleHashes } from '../lib/fingerprint/rewrites';
import { encodeRewriteBytes } from '../lib/fingerprint/rewrite-codec';
import { type GroupMember, areNearDuplicates, componentsOf, rewriteLinksAmong } from '../lib/report/groups';
import { findRewriteMatches } from '../lib/index/rewrite-index';
import { linkRewritePages } from '../lib/organise/rewrite-links';
import { pagesInMemory } from './support/rewrite-pages-in-memory';
import { PackedRewriteIndex } from '../lib/index/packed-rewrites';
import { REWRITE_MAX_PAGES } from '../lib/index/rewrite-store';
import { mulberry32, pick, splitmix64, uint32s } from '../lib/random';
import type { PageStore } from '../lib/store/pages';
import { type PassageOrganised, indexPending } from '../lib/organise/passage-organise';
import { organise, regroupAll } from '../lib/organise/regroup';
import { updateMany } from '../lib/store/transfer';
import { storedRecord } from '../lib/store/records';
import { readHistory } from '../lib/ui/history-data';
import { freshStore } from './support/fresh-store';
import { storedPages } from './support/kept-tables';
import { flipRandomBits } from './support/random-bits';
import { expectCountsKept } from './support/kept-counts';

const K = 3;

interface Page {
  url: string;
  site: string;
  simhash: Fingerprint;
  check: Fingerprint;
  /** Rewrite fingerprints; absent: none kept. */
  f?: RewriteFingerprints;
}

/** A page as the store holds it: with the firstSeen its first visit gave it. */
type Stored = Page & { firstSeen: number };

/**
 * Draws pages: each in one of `clusters` simhash clusters (0–5 bits from its centre, 1 in 10 with
 * a check that refutes it) and, independently, in one of `families` rewrite families or in none:
 * a page keeps each of its family's 40 hashes with a chance of 0.2, 0.45 or 0.8 (so that some
 * pairs of a family are rewrites and some are not), plus 3 of its own.
 */
function drawPages(seed: number, count: number, clusters = 12, families = 8): () => Page {
  const random = mulberry32(seed);
  const next64 = splitmix64(BigInt(seed));
  const next32 = uint32s(seed + 1);
  const hash = (): number => Math.floor(next32() / 4096) * 4096; // 20 bits kept, as the store keeps them
  const centres = Array.from({ length: clusters }, () => ({ simhash: asFingerprint(next64()), check: asFingerprint(next64()) }));
  const familyHashes = Array.from({ length: families }, () => Array.from({ length: 40 }, hash));
  let i = 0;
  return () => {
    const centre = pick(random, centres);
    const site = `s${Math.floor(random() * 4)}.example`;
    const page: Page = {
      url: `https://${site}/p${i++}`,
      site,
      simhash: flipRandomBits(centre.simhash, Math.floor(random() * 6), random),
      check: random() < 0.1 ? flipRandomBits(centre.check, 40, random) : flipRandomBits(centre.check, Math.floor(random() * 8), random),
    };
    if (random() < 0.75) page.f = rewriteFingerprintsOf(pick(random, familyHashes), pick(random, [0.2, 0.45, 0.8]), random, hash);
    if (i > count) throw new Error('drew more pages than asked');
    return page;
  };
}

function rewriteFingerprintsOf(family: readonly number[], keep: number, random: () => number, hash: () => number): RewriteFingerprints {
  const all = Uint32Array.from(new Set([...family.filter(() => random() < keep), hash(), hash(), hash()])).sort();
  const { hashes, limit } = sampleHashes(all, { share: 1, cap: 64, bits: 20 });
  return { hashes, limit, anchors: hashes.length, lang: 'en' };
}

// ---- the reference ----

/** The detector's rule between two pages, written out: two shared index hashes, and 3 shared sampled pairs making 0.3 of either page. */
function rewriteLinked(a: RewriteFingerprints | undefined, b: RewriteFingerprints | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const indexed = (f: RewriteFingerprints): number[] => Array.from(f.hashes).filter((h) => h < f.limit * REWRITE_RULE.indexShare);
  const theirs = new Set(indexed(b));
  return indexed(a).filter((h) => theirs.has(h)).length >= REWRITE_RULE.minIndexShared && isRewritePair(compareRewrites(a, b));
}

const memberOfPage = (p: Stored): GroupMember => ({ url: p.url, site: p.site, simhash: p.simhash, check: p.check, firstSeen: p.firstSeen });

/** url → the sorted URLs of its component (itself alone if linked to nothing), by labelling every pair of pages. */
function referenceGroups(pages: readonly Stored[], withRewrites = true): Map<string, string> {
  const label = pages.map((_, i) => i);
  const linked = (i: number, j: number): boolean => areNearDuplicates(memberOfPage(pages[i]!), memberOfPage(pages[j]!), K) || (withRewrites && rewriteLinked(pages[i]!.f, pages[j]!.f));
  // relabel until no linked pair has two labels (at most n rounds)
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < pages.length; i++) {
      for (let j = 0; j < pages.length; j++) {
        if (label[j]! < label[i]! && linked(i, j)) {
          label[i] = label[j]!;
          changed = true;
        }
      }
    }
  }
  const out = new Map<string, string>();
  pages.forEach((p, i) => out.set(p.url, pages.filter((_, j) => label[j] === label[i]).map((q) => q.url).sort().join(' ')));
  return out;
}

/** The copySite each page should have: its site, when its component has 2 pages or more and its earliest-seen page (firstSeen, then URL) is on another site. */
function referenceCopySites(pages: readonly Stored[], groups: Map<string, string>): Map<string, string | undefined> {
  const byUrl = new Map(pages.map((p) => [p.url, p]));
  const out = new Map<string, string | undefined>();
  for (const p of pages) {
    const component = groups.get(p.url)!.split(' ').map((url) => byUrl.get(url)!);
    const root = [...component].sort((a, b) => a.firstSeen - b.firstSeen || (a.url < b.url ? -1 : 1))[0]!;
    out.set(p.url, component.length > 1 && root.site !== p.site ? p.site : undefined);
  }
  return out;
}

/** What the store keeps: url → the sorted URLs of its group, and each page's copySite. */
async function storedGroups(store: PageStore): Promise<{ groups: Map<string, string>; copySites: Map<string, string | undefined> }> {
  const records = await storedPages(store.db);
  const byGroup = new Map<string, string[]>();
  for (const r of records) if (r.group !== undefined) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), r.url]);
  return {
    groups: new Map(records.map((r) => [r.url, r.group === undefined ? r.url : byGroup.get(r.group)!.sort().join(' ')])),
    copySites: new Map(records.map((r) => [r.url, r.copySite])),
  };
}

async function expectReferenceGroups(store: PageStore, pages: readonly Stored[], step: string, withRewrites = true): Promise<void> {
  const want = referenceGroups(pages, withRewrites);
  const got = await storedGroups(store);
  expect([step, got.groups]).toEqual([step, want]);
  expect([step, got.copySites]).toEqual([step, referenceCopySites(pages, want)]);
}

const visitOf = (p: Page, now: number) => ({ url: p.url, title: p.url, site: p.site, simhash: p.simhash, check: p.check, ...(p.f === undefined ? {} : { rewrites: p.f }), now });

/** Pages as an import writes them: in no group, their rewrite fingerprints pending. */
async function importPages(store: PageStore, pages: readonly Stored[]): Promise<void> {
  const fields = pages.map((p) => ({
    url: p.url,
    title: p.url,
    site: p.site,
    simhash: fingerprintToHex(p.simhash),
    check: fingerprintToHex(p.check),
    firstSeen: p.firstSeen,
    lastSeen: p.firstSeen,
    visits: 1,
    ...(p.f === undefined ? {} : { rewrites: encodeRewriteBytes(p.f) }),
  }));
  await updateMany(store, fields.map((f) => f.url), () => fields);
}

// ---------------------------------------------------------------------------------------------

describe('rewrite links as group links (lib/report/groups.ts)', () => {
  const fp = (hex: string): Fingerprint => asFingerprint(BigInt('0x' + hex));
  const member = (url: string, simhash: string): GroupMember => ({ url, site: new URL(url).host, simhash: fp(simhash), check: null, firstSeen: 1 });
  const a = member('https://a.example/', '0000000000000000');
  const b = member('https://b.example/', '0000000000000007'); // 3 bits from a
  const c = member('https://c.example/', 'ffff000000000000');
  const d = member('https://d.example/', '00000000ffff0000');

  it.each([
    // links → the components' URLs
    { links: [], want: [[a.url, b.url], [c.url], [d.url]] },
    { links: [[2, 3]], want: [[a.url, b.url], [c.url, d.url]] },
    { links: [[0, 3]], want: [[a.url, b.url, d.url], [c.url]] },
    { links: [[1, 2], [2, 3]], want: [[a.url, b.url, c.url, d.url]] },
    { links: [[3, 3]], want: [[a.url, b.url], [c.url], [d.url]] }, // a page linked to itself
  ] as const)('componentsOf with links $links', ({ links, want }) => {
    expect(componentsOf([a, b, c, d], K, links).map((component) => component.map((m) => m.url))).toEqual(want);
  });

  it.each([1, 2, 3, 4, 5])('rewriteLinksAmong and linkRewritePages link the pairs the rule links (seed %i)', async (seed) => {
    const draw = drawPages(seed, 40, 1, 3);
    const fingerprints = Array.from({ length: 40 }, () => draw().f);
    const want: string[] = [];
    for (let i = 0; i < fingerprints.length; i++) for (let j = i + 1; j < fingerprints.length; j++) if (rewriteLinked(fingerprints[i], fingerprints[j])) want.push(`${i}-${j}`);
    expect(want.length).toBeGreaterThan(10); // the families make links…
    expect(want.length).toBeLessThan((40 * 39) / 4); // …and not between every pair
    const pairs = (links: Iterable<readonly [number, number]>): string[] => [...new Set([...links].map(([i, j]) => `${Math.min(i, j)}-${Math.max(i, j)}`))].sort();
    expect(pairs(rewriteLinksAmong(fingerprints))).toEqual(want.sort());
    // the store's bytes, one of them damaged: that page is neither indexed nor looked up
    const bytes = fingerprints.map((f) => (f === undefined ? undefined : encodeRewriteBytes(f)));
    const damaged = bytes.findIndex((b) => b !== undefined);
    bytes[damaged] = Uint8Array.of(1, 2);
    const wantAfter = want.filter((pair) => !pair.split('-').map(Number).includes(damaged));
    // each page's lookup as a visit makes it, in the order it finds them
    const index = new PackedRewriteIndex(REWRITE_MAX_PAGES);
    bytes.forEach((b, i) => b !== undefined && index.add(i, b));
    index.seal();
    const visits: string[] = [];
    for (const [i, own] of index.pages()) for (const { id } of await findRewriteMatches(index, own, i)) visits.push(`${i}→${id}`);
    expect(pairs(visits.map((v) => v.split('→').map(Number) as [number, number]))).toEqual(wantAfter);
    const withFingerprints = bytes.flatMap((b, i) => (b !== undefined && i !== damaged ? [i] : []));
    expect(withFingerprints.length).toBeLessThan(fingerprints.length - 1); // some pages have none
    for (const perSlice of [1, 3, 1000]) {
      const pages = pagesInMemory(bytes);
      const looked: string[] = [];
      const indexed: number[] = [];
      const pauses: number[] = [];
      const { lookups, heldBytes } = await linkRewritePages(pages, (i, j) => looked.push(`${i}→${j}`), { maxPages: REWRITE_MAX_PAGES, pairsPerSlice: perSlice, indexed: (i) => indexed.push(i), pause: (done) => void pauses.push(done) });
      expect(looked).toEqual(visits);
      expect(indexed).toEqual(withFingerprints);
      expect(lookups).toBe(withFingerprints.length);
      expect(heldBytes).toBeGreaterThan(0);
      // as the postings are placed (none made: 0; each key's holders sorted, 2^20 keys, every
      // 65,536), then after each lookup, and after each page judged (with the lookups made by then)
      expect(pauses.every((done, i) => i === 0 || done >= pauses[i - 1]!)).toBe(true);
      expect(pauses.filter((done) => done === 0).length).toBe(16);
      expect([...new Set(pauses)]).toEqual(Array.from({ length: lookups + 1 }, (_, i) => i));
      // a read to index, then the candidates' reads: one for each slice (stopped past pairsPerSlice pairs)
      const lookupsWithPairs = new Set(visits.map((v) => v.split('→')[0])).size;
      if (perSlice === 1000) expect(pages.allReads).toBe(2);
      if (perSlice === 1) expect(pages.allReads).toBeGreaterThanOrEqual(1 + lookupsWithPairs);
    }
    expect(rewriteLinksAmong([fingerprints.find((f) => f !== undefined), undefined])).toEqual([]);
  });
});

describe('groups with rewrites kept by the store, one visit or forgetting at a time', () => {
  it.each([11, 12, 13])('a random sequence of visits, text changes and forgetting (seed %i): after each step, the groups and copies are the brute force\'s', { timeout: 120_000 }, async (seed) => {
    const store = await freshStore();
    const random = mulberry32(seed * 101);
    const draw = drawPages(seed, 400);
    const stored = new Map<string, Stored>();
    let now = 1_000;
    let foldedByRewrites = 0;
    const visited = (): Stored[] => [...stored.values()];
    for (let step = 0; step < 140; step++) {
      const roll = random();
      const some = visited();
      let what: string;
      if (some.length < 6 || roll < 0.5) {
        const page = draw();
        await store.record(visitOf(page, ++now));
        stored.set(page.url, { ...page, firstSeen: now });
        what = `visit ${page.url}`;
      } else if (roll < 0.72) {
        // the text changed: another simhash, other rewrite fingerprints (or none), or both
        const page = pick(random, some);
        const other = draw();
        const mode = pick(random, ['simhash', 'rewrites', 'both'] as const);
        const changed: Stored = { ...page, ...(mode === 'rewrites' ? {} : { simhash: other.simhash, check: other.check }) };
        if (mode !== 'simhash') {
          delete changed.f;
          if (other.f !== undefined) changed.f = other.f;
        }
        await store.record(visitOf(changed, ++now));
        stored.set(page.url, changed);
        what = `change ${mode} of ${page.url}`;
      } else if (roll < 0.78) {
        const page = pick(random, some);
        await store.record(visitOf(page, ++now)); // the same text again
        what = `revisit ${page.url}`;
      } else if (roll < 0.96) {
        const gone = some.filter(() => random() < 0.08);
        if (gone.length === 0) gone.push(pick(random, some));
        expect(await store.forgetMany(gone.map((p) => p.url))).toBe(gone.length);
        for (const p of gone) stored.delete(p.url);
        what = `forget ${gone.map((p) => p.url).join(', ')}`;
      } else {
        const site = pick(random, some).site;
        expect(await store.forgetSite(site)).toBe(some.filter((p) => p.site === site).length);
        for (const p of some) if (p.site === site) stored.delete(p.url);
        what = `forget site ${site}`;
      }
      await expectReferenceGroups(store, visited(), `step ${step}: ${what}`);
      const nearOnly = referenceGroups(visited(), false);
      if ([...referenceGroups(visited())].some(([url, group]) => nearOnly.get(url) !== group)) foldedByRewrites++;
    }
    expect(foldedByRewrites).toBeGreaterThan(40); // most steps had a group that rewrites alone make
    await expectCountsKept(store.db, 'after the sequence');

    // the whole-store regroup agrees with what the visits and forgetting kept: nothing to rewrite
    const again = await regroupAll(store, K);
    expect([again.rewritten, again.rewriteLookups]).toEqual([0, visited().filter((p) => p.f !== undefined).length]);
    await expectReferenceGroups(store, visited(), 'after regroupAll');
  });

  it.each([
    // the original o, its rewrite r on another site, and n, a near-duplicate of o with no rewrite fingerprints
    { forget: [], want: [['o', 'r', 'n']] },
    { forget: ['n'], want: [['o', 'r']] }, // forgetting another member leaves the rewrite folded
    { forget: ['o'], want: [] }, // forgetting the original unlinks the rewrite from n: both alone
    { forget: ['r'], want: [['o', 'n']] },
  ])('o, r, n, forgetting $forget: the groups are $want', async ({ forget, want }) => {
    const store = await freshStore();
    const random = mulberry32(7);
    const next32 = uint32s(8);
    const family = Array.from({ length: 40 }, () => Math.floor(next32() / 4096) * 4096);
    const hash = (): number => Math.floor(next32() / 4096) * 4096;
    const simhash = asFingerprint(0x0123456789abcdefn);
    const check = asFingerprint(0xfedcba9876543210n);
    const pages: Record<string, Page> = {
      o: { url: 'https://o.example/', site: 'o.example', simhash, check, f: rewriteFingerprintsOf(family, 0.9, random, hash) },
      r: { url: 'https://r.example/', site: 'r.example', simhash: asFingerprint(~0x0123456789abcdefn & 0xffffffffffffffffn), check: asFingerprint(0x0f0f0f0f0f0f0f0fn), f: rewriteFingerprintsOf(family, 0.9, random, hash) },
      n: { url: 'https://n.example/', site: 'n.example', simhash: flipRandomBits(simhash, 2, random), check },
    };
    expect(rewriteLinked(pages['o']!.f, pages['r']!.f)).toBe(true);
    for (const [i, name] of ['o', 'r', 'n'].entries()) await store.record(visitOf(pages[name]!, 1_000 + i));
    const recorded = await store.get(pages['r']!.url);
    expect(recorded).toMatchObject({ copySite: 'r.example', contentCopy: true }); // a copy both ways…
    if (forget.length > 0) expect(await store.forgetMany(forget.map((name) => pages[name]!.url))).toBe(forget.length);
    const { groups } = await storedGroups(store);
    const grouped = [...new Set([...groups.values()].filter((g) => g.includes(' ')))];
    const name = (url: string): string => Object.entries(pages).find(([, p]) => p.url === url)![0];
    expect(grouped.map((g) => g.split(' ').map(name).sort())).toEqual(want.map((w) => [...w].sort()));
    await expectCountsKept(store.db, `after forgetting ${forget.join(', ')}`); // …counted once
  });
});

describe('the whole-store regroup with rewrites', () => {
  /** 60 pages of a random history, each first seen at its own time. */
  function someHistory(seed: number): Stored[] {
    const draw = drawPages(seed, 60);
    return Array.from({ length: 60 }, (_, i) => ({ ...draw(), firstSeen: 1_000 + i * 7 }));
  }

  it('an import is grouped like the brute force, rewrites included, though its rewrite fingerprints wait for organising', async () => {
    const pages = someHistory(21);
    const store = await freshStore();
    await importPages(store, pages);
    const phases = new Set<string>();
    const result = await regroupAll(store, K, { batchSize: 16, onProgress: ({ phase }) => void phases.add(phase) });
    expect(result).toMatchObject({ pages: 60, rewriteLookups: pages.filter((p) => p.f !== undefined).length });
    expect([...phases]).toEqual(['reading', 'comparing', 'rewrites', 'writing']); // each step named as it starts, in order
    await expectReferenceGroups(store, pages, 'after regroupAll');
    // the rewrite lookups' candidate pairs judged one at a time: the same groups
    const sliced = await freshStore();
    await importPages(sliced, pages);
    expect(await regroupAll(sliced, K, { batchSize: 16, rewritePairsPerSlice: 1 })).toMatchObject({ pages: 60, rewriteLookups: result.rewriteLookups, groups: result.groups });
    await expectReferenceGroups(sliced, pages, 'after regroupAll, pairs judged one at a time');
    const nearOnly = referenceGroups(pages, false);
    expect([...referenceGroups(pages)].filter(([url, group]) => nearOnly.get(url) !== group).length).toBeGreaterThan(10);
    await expectCountsKept(store.db, 'after regroupAll');
  });

  it('a page whose fingerprints cannot be read is in no group, and its rewrite fingerprints link no other page', async () => {
    const pages = someHistory(21);
    const store = await freshStore();
    await importPages(store, pages);
    // a page that rewrites others, its simhash damaged in its record (its rewrite fingerprints are stored apart)
    const damaged = pages.find((p) => pages.some((q) => q !== p && rewriteLinked(p.f, q.f)))!;
    await store.write(async ({ rows }) => {
      const record = (await rows.byUrl(damaged.url))!;
      await rows.put({ ...storedRecord(record), simhash: 'not a simhash' });
    });
    const result = await regroupAll(store, K);
    expect(result.pages).toBe(59);
    const others = pages.filter((p) => p !== damaged);
    const want = referenceGroups(others);
    const got = await storedGroups(store);
    expect(got.groups.get(damaged.url)).toBe(damaged.url); // in no group
    got.groups.delete(damaged.url);
    expect(got.groups).toEqual(want);
  });

  it('organising an import of more pages than maxRewriteLookups looks them up in the index read into memory, with the outcome of looking them up in the store', async () => {
    const pages = someHistory(24);
    const nearOnly = referenceGroups(pages, false);
    expect([...referenceGroups(pages)].filter(([url, group]) => nearOnly.get(url) !== group).length).toBeGreaterThan(10); // rewrites alone link many
    const outcome = async (maxRewriteLookups: number): Promise<string[]> => {
      const store = await freshStore();
      // the groups of near-duplicates complete, then the rewrite fingerprints imported: they wait
      // for organising, which joins their links (the groups marked complete, as after a regroup
      // that did not link them)
      await importPages(store, pages.map(({ f: _, ...page }) => page));
      await regroupAll(store, K);
      await importPages(store, pages);
      await store.db.put('meta', { k: K, complete: true }, 'groups');
      await expectReferenceGroups(store, pages, 'near-duplicates only', false);
      expect(await indexPending(store, { maxRewriteLookups })).toMatchObject({ rewriteLookups: pages.filter((p) => p.f !== undefined).length, rewritesInMemory: maxRewriteLookups < 60 });
      await expectReferenceGroups(store, pages, `after organising the index (maxRewriteLookups ${maxRewriteLookups})`);
      await expectCountsKept(store.db, 'after organising the index');
      return (await storedPages(store.db)).map((p) => JSON.stringify(p));
    };
    expect(await outcome(10)).toEqual(await outcome(1000));
  });

  it('organising an import leaves its rewrites in their originals\' entries of the history', async () => {
    const pages = someHistory(23);
    const store = await freshStore();
    await importPages(store, pages);
    const organised = await organise(store, K);
    expect(organised.regrouped).toMatchObject({ rewriteLookups: pages.filter((p) => p.f !== undefined).length });
    expect(organised.passages).toMatchObject({ rewritesInMemory: false });
    await expectReferenceGroups(store, pages, 'after organising');
    // the history's entries are the groups: each once, under its earliest-seen page
    const { entries } = await readHistory(store, {}, { limit: 100, shown: new Set() });
    const want = referenceGroups(pages);
    expect(entries.map((e) => [e.root.url, ...e.copies.map((c) => c.url)].sort().join(' ')).sort()).toEqual([...new Set(want.values())].sort());
    for (const e of entries) expect(e.copies.every((c) => c.firstSeen >= e.root.firstSeen)).toBe(true);
  });
});

describe('organising looks each page up once: the regroup hands its rewrite lookups to the copy marking', () => {
  const history = (seed: number): Stored[] => {
    const draw = drawPages(seed, 60);
    return Array.from({ length: 60 }, (_, i) => ({ ...draw(), firstSeen: 1_000 + i * 7 }));
  };
  /** Pages whose lookup finds another, by the rule written out. */
  const findingSomething = (pages: readonly Stored[]): Stored[] => pages.filter((p) => pages.some((q) => q !== p && rewriteLinked(p.f, q.f)));

  /**
   * An import organised, `between` run as the copy marking's step begins (after the regroup), or
   * `at` the regroup's rewrite step (its pages read, their rewrite fingerprints not yet):
   * 'handed' by organise (the regroup's lookups used), 'again' by the regroup then indexPending
   * without them (every page looked up again, as before the hand-over), 'blind' with them but their
   * watch closed before `between` (the changes unseen).
   */
  async function organisedWith(
    pages: readonly Stored[],
    how: 'handed' | 'again' | 'blind',
    between: (store: PageStore) => Promise<unknown> = async () => undefined,
    before: (store: PageStore) => Promise<unknown> = async () => undefined,
    at: 'passages' | 'rewrites' | 'lookups' = 'passages',
    rewritePairsPerSlice?: number,
  ) {
    const store = await freshStore();
    await importPages(store, pages);
    await before(store);
    let ran = false;
    // 'lookups': the regroup's rewrite step once its postings are built (it tells the lookups' count)
    const onProgress = async ({ phase, total }: { phase: string; total: number }): Promise<void> => {
      if ((at === 'lookups' ? phase !== 'rewrites' || total === 0 : phase !== at) || ran) return;
      ran = true;
      await between(store);
    };
    let passages: PassageOrganised | null;
    if (how === 'handed') passages = (await organise(store, K, { onProgress, rewritePairsPerSlice })).passages;
    else {
      const regrouped = await regroupAll(store, K, { keepLinks: how === 'blind', onProgress, rewritePairsPerSlice });
      regrouped.links?.watch.close();
      passages = await indexPending(store, { onProgress, links: regrouped.links });
    }
    expect(ran).toBe(true);
    await expectCountsKept(store.db, `organised (${how})`);
    return { passages, outcome: (await storedPages(store.db)).map((p) => JSON.stringify(p)) };
  }

  it('with nothing between, the copy marking makes no lookup and reads only the pages that found something, with the outcome of looking every page up again', async () => {
    for (const seed of [25, 26, 27]) {
      const pages = history(seed);
      const handed = await organisedWith(pages, 'handed');
      const again = await organisedWith(pages, 'again');
      expect(again.passages).toMatchObject({ rewriteLookups: pages.filter((p) => p.f !== undefined).length, rewritesHanded: 0 });
      expect(handed.passages).toMatchObject({ rewriteLookups: 0, rewritesHanded: findingSomething(pages).length });
      expect(findingSomething(pages).length).toBeGreaterThan(10);
      expect(handed.outcome).toEqual(again.outcome);
      expect(handed.outcome.filter((p) => p.includes('"contentCopy":true')).length).toBeGreaterThan(3); // the lookups mark copies
    }
  });

  it('a page marked a copy whose lookup now finds nothing is handed over too, and is a copy no longer', async () => {
    const pages = history(29);
    const lonely = pages.filter((p) => p.f !== undefined && !findingSomething(pages).includes(p));
    expect(lonely).toHaveLength(2);
    // as an earlier organising left them (their originals since forgotten, say)
    const markCopies = (store: PageStore): Promise<void> =>
      store.write(async ({ rows, tally }) => {
        for (const { url } of lonely) {
          const record = (await rows.byUrl(url))!;
          const written = { ...storedRecord(record), contentCopy: true as const };
          tally.change(record, written);
          await rows.put(written);
        }
      });
    const handed = await organisedWith(pages, 'handed', undefined, markCopies);
    const again = await organisedWith(pages, 'again', undefined, markCopies);
    expect(handed.passages).toMatchObject({ rewriteLookups: 0, rewritesHanded: findingSomething(pages).length + lonely.length });
    expect(handed.outcome).toEqual(again.outcome);
    for (const { url } of lonely) expect(handed.outcome.find((p) => p.includes(`"${url}"`))).not.toContain('"contentCopy":true');
  });

  // what happens between the regroup and the copy marking; each changes what some lookup finds
  const pages = history(28);
  const linked = findingSomething(pages);
  const other = pages.find((p) => p.f !== undefined && !rewriteLinked(p.f, linked[0]!.f))!;
  const newPage = (f: RewriteFingerprints | undefined, name: string): Page => ({ url: `https://n.example/${name}`, site: 'n.example', simhash: asFingerprint(0x1234_5678_9abc_def0n), check: asFingerprint(0x0fed_cba9_8765_4321n), ...(f === undefined ? {} : { f }) });
  // looksAgain: whether any page is looked up again (a page without rewrite fingerprints changes no lookup)
  const BETWEEN: readonly { what: string; between: (store: PageStore) => Promise<unknown>; blindDiffers: boolean; looksAgain: boolean }[] = [
    { what: 'a new page rewriting an imported one (its visit cannot find it: the postings are not written yet)', between: (store) => store.record(visitOf(newPage(linked[0]!.f, 'rewrite'), 10_000)), blindDiffers: true, looksAgain: true },
    { what: 'a new page published before the imported page it rewrites', between: (store) => store.record({ ...visitOf(newPage(linked[0]!.f, 'first'), 10_000), provenance: { published: 60_000 } }), blindDiffers: true, looksAgain: true },
    { what: 'an imported page visited again with the text of another', between: (store) => store.record(visitOf({ ...linked[0]!, f: other.f }, 10_000)), blindDiffers: true, looksAgain: true },
    // (a link to a forgotten page finds no record: the regroup's lookups give the outcome even unseen)
    { what: 'a page the lookups found, forgotten', between: (store) => store.forget(linked[1]!.url), blindDiffers: false, looksAgain: true },
    { what: 'a new page without rewrite fingerprints', between: (store) => store.record(visitOf(newPage(undefined, 'plain'), 10_000)), blindDiffers: false, looksAgain: false },
  ];
  it.each(BETWEEN)('$what: the outcome of looking every page up again', async ({ between, blindDiffers, looksAgain }) => {
    const handed = await organisedWith(pages, 'handed', between);
    const again = await organisedWith(pages, 'again', between);
    expect(handed.outcome).toEqual(again.outcome);
    expect(handed.passages!.rewriteLookups).toBeLessThan(again.passages!.rewriteLookups / 2); // only what the change reached…
    expect(handed.passages!.rewriteLookups > 0).toBe(looksAgain); // …and that much
    // the watch is what handles it: unseen, the regroup's lookups give another outcome
    const blind = await organisedWith(pages, 'blind', between);
    if (blindDiffers) expect(blind.outcome).not.toEqual(again.outcome);
    else expect(blind.outcome).toEqual(again.outcome);
  });

  // the regroup reads the rewrite fingerprints after the pages' columns and the near-duplicates:
  // a change between the two is read as it is now, and the copy marking looks again what it reached
  it.each(BETWEEN)('$what, made inside the regroup before its rewrite fingerprints are read: the outcome of looking every page up again', async ({ between }) => {
    const handed = await organisedWith(pages, 'handed', between, undefined, 'rewrites');
    const again = await organisedWith(pages, 'again', between, undefined, 'rewrites');
    expect(handed.outcome).toEqual(again.outcome);
    expect(handed.passages!.rewriteLookups).toBeLessThan(again.passages!.rewriteLookups / 2);
  });

  // its fingerprints are read three times (lib/organise/rewrite-links.ts): to build the postings,
  // to find each page's candidates, and to judge them; a change after the first is read as it is
  // then, in the candidates' slices as in one
  it.each(BETWEEN)('$what, made inside the regroup once its rewrite postings are built: the outcome of looking every page up again', async ({ between }) => {
    const handed = await organisedWith(pages, 'handed', between, undefined, 'lookups');
    const again = await organisedWith(pages, 'again', between, undefined, 'lookups');
    expect(handed.outcome).toEqual(again.outcome);
    const sliced = await organisedWith(pages, 'handed', between, undefined, 'lookups', 1);
    expect(sliced.outcome).toEqual(again.outcome);
    expect(sliced.passages!.rewriteLookups).toBe(handed.passages!.rewriteLookups);
  });
});
