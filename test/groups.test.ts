// Groups of near-duplicates: the pure rules (lib/groups.ts), their upkeep in the store one visit
// or forgetting at a time (PageStore.record, forgetMany), the whole-store regroup
// (lib/store/groups.ts), the history page's reads (lib/store/history.ts), and the upgrade from
// every earlier version. Every grouping is checked against a brute-force reference: union-find over
// every pair of pages.
import 'fake-indexeddb/auto';
import { IDBFactory, IDBObjectStore as FakeObjectStore } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fingerprint, asFingerprint, fingerprintFromHex, fingerprintToHex } from '../lib/fingerprint';
import { type GroupMember, areNearDuplicates, chooseGroupId, componentsOf, groupFieldsOf, newGroupId, rootOf, siteStanding } from '../lib/groups';
import { mulberry32, randomFingerprints, splitmix64 } from '../lib/random';
import { openDoppelDb, openVersioned } from '../lib/store/db';
import { needsRegroup, regroupAll } from '../lib/store/groups';
import { type HistoryEntry, readHistory, readOverview, readSiteEvidence, readSiteStandings } from '../lib/store/history';
import { NO_CHECK, PageStore } from '../lib/store/pages';
import { type Db, DB_VERSION, LEGACY_PAGES, type PageFields, type PageRecord, upgradeSchema } from '../lib/store/schema';
import { MOVE_BATCH, type MoveProgress, moveLegacyPages, readMoveProgress } from '../lib/store/move';
import { slotBase } from '../lib/store/slots';
import { countsOfRecords, expectCountsKept } from './kept-counts';
import { expectTablesOfRecords, storedPages } from './kept-tables';
import { legacyRecordKeys } from './legacy-keys';
import { BUILD_BATCH, buildBlocks } from '../lib/store/build';
import { EMPTY_RUN_INDEX } from '../lib/store/runs';
import { addToTables, tablePagesOf, writeRunIndex } from '../lib/store/table-trees';
import { toBuckets } from '../lib/store/tally';
import { designTables } from '../lib/tables';

/** fp with n distinct random bits flipped. */
function flipBits(fp: Fingerprint, n: number, random: () => number): Fingerprint {
  const positions = new Set<number>();
  while (positions.size < n) positions.add(Math.floor(random() * 64));
  let out = fp as bigint;
  for (const pos of positions) out ^= 1n << BigInt(pos);
  return asFingerprint(out);
}

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function freshStore(factory = new IDBFactory()): Promise<PageStore> {
  const db = await openDoppelDb('doppel', { factory });
  opened.push(db);
  return PageStore.open(db);
}

const fp = (hex: string): Fingerprint => asFingerprint(BigInt('0x' + hex));
const member = (url: string, site: string, simhash: string, check: string | null, firstSeen: number): GroupMember => ({
  url,
  site,
  simhash: fp(simhash),
  check: check === null ? null : fp(check),
  firstSeen,
});

describe('lib/groups', () => {
  const a = member('https://a.example/1', 'a.example', '0000000000000000', 'ffff000000000000', 1);
  const b = member('https://b.example/1', 'b.example', '0000000000000007', 'ffff000000000000', 2); // 3 bits from a
  const c = member('https://c.example/1', 'c.example', '000000000000003f', 'ffff000000000000', 3); // 3 from b, 6 from a
  const far = member('https://d.example/1', 'd.example', 'ff00000000000000', 'ffff000000000000', 0);
  const refuted = member('https://e.example/1', 'e.example', '0000000000000001', '0000ffffffff0000', 5); // check 32 bits away
  const unknownCheck = member('https://f.example/1', 'f.example', '0000000000000001', null, 6);

  it.each([
    [a, b, 3, true],
    [a, b, 2, false],
    [a, c, 3, false],
    [a, refuted, 3, false], // the simhash is 1 bit away, the check refutes it
    [a, unknownCheck, 3, true], // no check: taken on the simhash
    [a, a, 0, true],
  ])('areNearDuplicates(%#)', (x, y, k, expected) => {
    expect(areNearDuplicates(x, y, k)).toBe(expected);
    expect(areNearDuplicates(y, x, k)).toBe(expected);
  });

  it('components link chains of near-duplicates (a~b, b~c, not a~c), roots are the earliest seen', () => {
    const components = componentsOf([a, far, b, c, refuted], 3);
    expect(components.map((m) => m.map((x) => x.url))).toEqual([[a.url, b.url, c.url], [far.url], [refuted.url]]);
    expect(rootOf([c, b, a]).url).toBe(a.url);
    // a tie in firstSeen is broken by URL
    expect(rootOf([{ url: 'https://z/', firstSeen: 1 }, { url: 'https://y/', firstSeen: 1 }]).url).toBe('https://y/');
    expect(() => rootOf([])).toThrow('at least one page');
  });

  it('a copy is a member whose group root is on another site; a lone page has no group', () => {
    const sameSite = member('https://a.example/2', 'a.example', '0000000000000001', null, 9);
    const fields = groupFieldsOf([b, a, sameSite, c], 'g1');
    expect(Object.fromEntries(fields)).toEqual({
      [a.url]: { group: 'g1' },
      [sameSite.url]: { group: 'g1' }, // a later page of the original's own site is not a copy
      [b.url]: { group: 'g1', copySite: 'b.example' },
      [c.url]: { group: 'g1', copySite: 'c.example' },
    });
    expect(Object.fromEntries(groupFieldsOf([far], 'g2'))).toEqual({ [far.url]: {} });
    expect(newGroupId('https://a.example/1')).toMatch(/^[0-9a-f]{16}$/);
    expect(newGroupId('https://a.example/1')).not.toBe(newGroupId('https://a.example/2'));
  });

  it.each([
    // hints of the members, ids already claimed → the id chosen
    { hints: ['g1', 'g2', 'g1'], claimed: [], want: 'g1' }, // the id most members carry
    { hints: ['g1', 'g2', 'g2'], claimed: ['g2'], want: 'g1' }, // a larger group took g2 first
    { hints: ['g1', 'g2'], claimed: [], want: 'g1' }, // a tie: the first seen
    { hints: [undefined, undefined], claimed: [], want: newGroupId('https://seed.example/') },
    { hints: ['g1'], claimed: ['g1'], want: newGroupId('https://seed.example/') },
    { hints: [undefined], claimed: [newGroupId('https://seed.example/')], want: newGroupId('https://seed.example/#1') }, // salted until free
  ])('chooseGroupId($hints, claimed $claimed) = $want', ({ hints, claimed, want }) => {
    const taken = new Set(claimed);
    expect(chooseGroupId(hints, 'https://seed.example/', taken)).toBe(want);
    expect(taken.has(want)).toBe(true);
  });

  it.each([
    // pages, copies, mark → flagged
    [1, 1, null, true],
    [2, 1, null, false], // half is not "more than half"
    [3, 2, null, true],
    [10, 0, null, false],
    [1, 1, 'trusted', false],
    [10, 0, 'farm', true],
  ] as const)('siteStanding(%i pages, %i copies, %s) flagged = %s', (pages, copies, mark, flagged) => {
    expect(siteStanding('s.example', pages, copies, mark)).toEqual({ site: 's.example', pages, copies, mark, flagged });
  });
});

// ---------------------------------------------------------------------------------------------
// A seeded world of pages: clusters of variants 0–5 bits from a centre, on several sites, and
// some pages whose check refutes their simhash match.

interface World {
  pages: { url: string; site: string; simhash: Fingerprint; check: Fingerprint; firstSeen: number }[];
}

function world(seed: number, clusters: number, perCluster: number): World {
  const random = mulberry32(seed);
  const next64 = splitmix64(BigInt(seed));
  const pages: World['pages'] = [];
  for (let c = 0; c < clusters; c++) {
    const centre = asFingerprint(next64());
    const check = asFingerprint(next64());
    const size = 1 + Math.floor(random() * perCluster);
    for (let i = 0; i < size; i++) {
      const site = `s${Math.floor(random() * 5)}.example`;
      const refute = random() < 0.1;
      pages.push({
        url: `https://${site}/c${c}/p${i}`,
        site,
        simhash: flipBits(centre, Math.floor(random() * 6), random),
        check: refute ? flipBits(check, 40, random) : flipBits(check, Math.floor(random() * 8), random),
        firstSeen: 1_000 + Math.floor(random() * 1_000_000),
      });
    }
  }
  return { pages };
}

/** url → the sorted URLs of its group (itself alone if in none), by brute force over every pair. */
function bruteGroups(pages: readonly GroupMember[], k: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const component of componentsOf(pages, k)) {
    const key = component.map((m) => m.url).sort().join(' ');
    for (const m of component) out.set(m.url, key);
  }
  return out;
}

/** url → the sorted URLs of its stored group, and the copySite each record should have. */
async function storedGroups(store: PageStore): Promise<{ groups: Map<string, string>; records: PageRecord[] }> {
  const records = await storedPages(store.db);
  const byGroup = new Map<string, string[]>();
  for (const r of records) if (r.group !== undefined) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), r.url]);
  const groups = new Map<string, string>();
  for (const r of records) groups.set(r.url, r.group === undefined ? r.url : byGroup.get(r.group)!.sort().join(' '));
  return { groups, records };
}

function membersOf(records: readonly PageRecord[]): GroupMember[] {
  return records.map((r) => ({ url: r.url, site: r.site, simhash: fingerprintFromHex(r.simhash), check: r.check === NO_CHECK ? null : fingerprintFromHex(r.check), firstSeen: r.firstSeen }));
}

/** The stored groups, group sizes and copy marks equal the brute-force ones over the stored records. */
async function expectGroupsMatchBruteForce(store: PageStore, k: number): Promise<void> {
  const { groups, records } = await storedGroups(store);
  const members = membersOf(records);
  expect(groups).toEqual(bruteGroups(members, k));
  for (const component of componentsOf(members, k)) {
    const root = rootOf(component);
    for (const m of component) {
      const record = records.find((r) => r.url === m.url)!;
      expect([m.url, record.copySite]).toEqual([m.url, component.length > 1 && m.site !== root.site ? m.site : undefined]);
      if (component.length === 1) expect(record.group).toBeUndefined();
    }
  }
}

describe('groups kept by PageStore, one visit or forgetting at a time', () => {
  it('visits in random order, forgetting, and changed pages: the groups equal the brute-force ones', async () => {
    const store = await freshStore();
    const { pages } = world(7, 60, 6);
    const random = mulberry32(99);
    const order = [...pages].sort(() => random() - 0.5);
    for (const page of order) await store.record({ ...page, title: page.url, now: page.firstSeen }, { k: 3 });
    await expectGroupsMatchBruteForce(store, 3);
    const { records } = await storedGroups(store);
    expect(records.filter((r) => r.group !== undefined).length).toBeGreaterThan(60); // the world has groups to find
    expect(records.filter((r) => r.copySite !== undefined).length).toBeGreaterThan(20);

    // forgetting pages splits or re-roots their groups
    const forget = order.filter(() => random() < 0.2).map((p) => p.url);
    expect(await store.forgetMany([...forget, 'https://never.example/'])).toBe(forget.length);
    await expectGroupsMatchBruteForce(store, 3);

    // pages whose text changed move to another group (or to none)
    const kept = order.filter((p) => !forget.includes(p.url));
    for (let i = 0; i < 30; i++) {
      const page = kept[Math.floor(random() * kept.length)]!;
      const other = kept[Math.floor(random() * kept.length)]!;
      await store.record({ ...page, title: 'changed', simhash: flipBits(other.simhash, 1, random), check: other.check, now: 2_000_000 + i }, { k: 3 });
    }
    await expectGroupsMatchBruteForce(store, 3);

    // forgetting a site
    await store.forgetSite('s1.example');
    await expectGroupsMatchBruteForce(store, 3);
  });

  it('a revisit with the same text keeps the group; record returns the matches within the asked k', async () => {
    const store = await freshStore();
    const base = { title: 't', check: fp('00000000ffffffff') };
    await store.record({ ...base, url: 'https://a.example/', site: 'a.example', simhash: fp('0000000000000000'), now: 1 });
    const second = await store.record({ ...base, url: 'https://b.example/', site: 'b.example', simhash: fp('0000000000000003'), now: 2 }, { k: 3 });
    expect(second.matches.map((m) => [m.record.url, m.distance])).toEqual([['https://a.example/', 2]]);
    expect(second.record).toMatchObject({ copySite: 'b.example' });
    const group = second.record.group;
    const again = await store.record({ ...base, url: 'https://b.example/', site: 'b.example', simhash: fp('0000000000000003'), now: 3 }, { k: 1 });
    expect(again.matches).toEqual([]); // k = 1 asked: 2 bits is too far for the answer, not for the groups
    expect(again.record).toMatchObject({ visits: 2, group, copySite: 'b.example' });
    expect((await store.get('https://a.example/'))!.group).toBe(group);
  });

  it('an earlier-seen page joining a group becomes its root: the old root turns into a copy', async () => {
    const store = await freshStore();
    const base = { title: 't', check: fp('00000000ffffffff') };
    await store.record({ ...base, url: 'https://late.example/', site: 'late.example', simhash: fp('0000000000000000'), now: 500 });
    await store.record({ ...base, url: 'https://late.example/2', site: 'late.example', simhash: fp('0000000000000001'), now: 600 });
    expect((await store.get('https://late.example/2'))!.copySite).toBeUndefined(); // same site as the root
    // an import-like write of an earlier page does not group; a visit does (its firstSeen is now, so
    // use updateMany + regroup for an earlier one): here the earlier page arrives by regroupAll
    await store.updateMany(['https://early.example/'], () => [
      { url: 'https://early.example/', title: 't', site: 'early.example', simhash: '0000000000000002', check: '00000000ffffffff', firstSeen: 100, lastSeen: 100, visits: 1 },
    ]);
    expect(await needsRegroup(store, 3)).toBe(true);
    await regroupAll(store, 3);
    expect(await needsRegroup(store, 3)).toBe(false);
    expect((await store.get('https://late.example/'))!.copySite).toBe('late.example');
    expect((await store.get('https://early.example/'))!.copySite).toBeUndefined();
  });
});

describe('regroupAll', () => {
  it('groups an imported store like the brute force, for k = 3, 5 and 0, and keeps ids stable', async () => {
    const store = await freshStore();
    const { pages } = world(11, 150, 5);
    const fields: PageFields[] = pages.map((p) => ({
      url: p.url,
      title: p.url,
      site: p.site,
      simhash: fingerprintToHex(p.simhash),
      check: p.url.endsWith('p0') ? NO_CHECK : fingerprintToHex(p.check),
      firstSeen: p.firstSeen,
      lastSeen: p.firstSeen,
      visits: 1,
    }));
    await store.updateMany(fields.map((f) => f.url), () => fields);
    expect((await storedGroups(store)).records.every((r) => r.group === undefined)).toBe(true);
    const progress: string[] = [];
    const result = await regroupAll(store, 3, { batchSize: 100, onProgress: ({ phase }) => void progress.push(phase) });
    expect(result.pages).toBe(pages.length);
    expect(progress).toContain('reading');
    expect(progress).toContain('writing');
    await expectGroupsMatchBruteForce(store, 3);

    const before = await storedGroups(store);
    const again = await regroupAll(store, 3);
    expect(again.rewritten).toBe(0); // nothing changed: nothing written
    expect((await storedGroups(store)).records).toEqual(before.records);

    // the sites table, from the kept site counts, against counts over every stored record
    const records = (await storedGroups(store)).records;
    const marks = new Map([[pages[0]!.site, 'trusted' as const], ['never-seen.example', 'farm' as const]]);
    const want = new Map<string, { pages: number; copies: number }>([...marks.keys()].map((site) => [site, { pages: 0, copies: 0 }]));
    for (const r of records) if (r.copySite !== undefined) want.set(r.copySite, { pages: 0, copies: 0 });
    for (const r of records) {
      const w = want.get(r.site);
      if (w) w.pages++;
      if (r.copySite !== undefined) want.get(r.copySite)!.copies++;
    }
    expect(want.size).toBeGreaterThan(5);
    const standings = await readSiteStandings(store, marks);
    expect(new Map(standings.map((st) => [st.site, { pages: st.pages, copies: st.copies }]))).toEqual(want);
    expect(standings.map((st) => st.site)).toEqual([...new Set(standings.map((st) => st.site))]);

    await regroupAll(store, 5);
    await expectGroupsMatchBruteForce(store, 5);
    await regroupAll(store, 0);
    await expectGroupsMatchBruteForce(store, 0);
    await expect(regroupAll(store, 9)).rejects.toThrow('k must be an integer from 0 to 8');
  });
});

// ---------------------------------------------------------------------------------------------

// The history's newest-first reading: the lastSeen tree (lib/store/page-rows.ts), read backwards
// a batch at a time, the first batch sized for the caller's need.
describe('the history reads', () => {
  async function sample(): Promise<PageStore> {
    const store = await freshStore();
    const check = fp('00000000ffffffff');
    const visit = (url: string, simhash: string, now: number) => store.record({ url, title: `Title of ${url}`, site: new URL(url).host, simhash: fp(simhash), check, now });
    await visit('https://orig.example/mill', '1111111111111111', 1_000);
    await visit('https://copy1.example/mill', '1111111111111113', 2_000);
    await visit('https://other.example/foxes', '2222222222222222', 3_000);
    await visit('https://copy2.example/mill', '1111111111111117', 4_000);
    await visit('https://other.example/owls', '4444444444444444', 4_000); // same lastSeen as the copy
    await visit('https://copy1.example/own', '8888888888888888', 5_000);
    return store;
  }
  const urlsOf = (entries: HistoryEntry[]): string[][] => entries.map((e) => [e.root.url, ...e.copies.map((c) => c.url)]);

  it('lists entries newest first, a group once at its newest page, the earliest copy as its root', async () => {
    const store = await sample();
    const page = await readHistory(store, {}, { limit: 10, shown: new Set() });
    expect(urlsOf(page.entries)).toEqual([
      ['https://copy1.example/own'],
      ['https://other.example/owls'],
      ['https://orig.example/mill', 'https://copy1.example/mill', 'https://copy2.example/mill'],
      ['https://other.example/foxes'],
    ]);
    expect(page.next).toBeNull();
    expect(page.entries[2]!.newest).toBe(4_000);
    expect(await readOverview(store)).toEqual({ pages: 6, articles: 4, groups: 1 });
  });

  it('pages through with ties in lastSeen: every entry exactly once, for every page size', async () => {
    const store = await freshStore();
    const next64 = splitmix64(5n);
    for (let i = 0; i < 40; i++) {
      await store.record({ url: `https://t.example/${String(i).padStart(2, '0')}`, title: 't', site: 't.example', simhash: asFingerprint(next64()), check: asFingerprint(next64()), now: 1_000 + Math.floor(i / 7) });
    }
    const everything = (await readHistory(store, {}, { limit: 100, shown: new Set() })).entries.map((e) => e.id);
    expect(everything).toHaveLength(40);
    for (const limit of [1, 3, 7, 13]) {
      const shown = new Set<string>();
      const ids: string[] = [];
      let after = null;
      for (;;) {
        const page = await readHistory(store, {}, { after, limit, shown });
        ids.push(...page.entries.map((e) => e.id));
        if (page.next === null) break;
        after = page.next;
      }
      expect([limit, ids]).toEqual([limit, everything]);
    }
  });

  it('pages through 60 pages seen at the same moment, more than one batch of them', async () => {
    const store = await freshStore();
    const next64 = splitmix64(9n);
    for (let i = 0; i < 60; i++) {
      await store.record({ url: `https://same.example/${String(i).padStart(2, '0')}`, title: 't', site: 'same.example', simhash: asFingerprint(next64()), check: asFingerprint(next64()), now: 7_000 });
    }
    // ties in lastSeen go by id, highest first: the page stored last first
    const expected = Array.from({ length: 60 }, (_, i) => `https://same.example/${String(59 - i).padStart(2, '0')}`);
    for (const limit of [1, 4, 25]) {
      const shown = new Set<string>();
      const ids: string[] = [];
      let after = null;
      for (let calls = 0; calls < 200; calls++) {
        const page = await readHistory(store, {}, { after, limit, shown });
        ids.push(...page.entries.map((e) => e.id));
        if (page.next === null) break;
        after = page.next;
      }
      expect([limit, ids]).toEqual([limit, expected]);
    }
  });

  it('filters by text (any page of a group), by "has copies", by date, and stops a scan at maxScan', async () => {
    const store = await sample();
    const read = (filter: Parameters<typeof readHistory>[1]) => readHistory(store, filter, { limit: 10, shown: new Set() }).then((p) => urlsOf(p.entries));
    expect(await read({ text: 'COPY2' })).toEqual([['https://orig.example/mill', 'https://copy1.example/mill', 'https://copy2.example/mill']]);
    expect(await read({ text: 'owls' })).toEqual([['https://other.example/owls']]);
    expect(await read({ text: 'other.example' })).toHaveLength(2);
    expect(await read({ hasCopies: true })).toEqual([['https://orig.example/mill', 'https://copy1.example/mill', 'https://copy2.example/mill']]);
    expect(await read({ from: 2_500, to: 3_500 })).toEqual([['https://other.example/foxes']]);
    expect(await read({ text: 'nothing like this' })).toEqual([]);
    const partial = await readHistory(store, { text: 'foxes' }, { limit: 10, maxScan: 2, shown: new Set() });
    expect([partial.entries.length, partial.scanned, partial.next !== null]).toEqual([0, 2, true]);
  });

  it('lists the sites that copy, flagged by the rule or by a mark, with each copy beside its original', async () => {
    const store = await sample();
    const standings = await readSiteStandings(store, new Map([['other.example', 'farm' as const]]));
    expect(standings).toEqual([
      { site: 'copy2.example', pages: 1, copies: 1, mark: null, flagged: true },
      { site: 'other.example', pages: 2, copies: 0, mark: 'farm', flagged: true },
      { site: 'copy1.example', pages: 2, copies: 1, mark: null, flagged: false }, // half is not more than half
    ]);
    const evidence = await readSiteEvidence(store, 'copy1.example');
    expect(evidence.map((e) => [e.copy.url, e.original.url])).toEqual([['https://copy1.example/mill', 'https://orig.example/mill']]);
  });
});

describe('upgrade from every earlier version', () => {
  /**
   * The layouts of earlier versions, frozen as Doppel wrote them (lib/store/schema.ts at that
   * version): version 1, version 2 (lastSeen, group and copySite indexes, meta `groups`),
   * version 3 (the same stores and indexes; meta `pageCount` too, which the caller passes),
   * version 4 (a `siteCounts` store too, keyed by `bucket`, whose values the caller passes),
   * version 5 (`pages` keyed by `id`, which the records carry), and version 6 (the same, with a
   * `runs` store, which writeVersion6Runs fills, and no `keys` index but in a database upgraded
   * from version 5 whose records still carry their keys: `keysIndex`).
   */
  function writeVersion(
    version: 1 | 2 | 3 | 4 | 5 | 6,
    factory: IDBFactory,
    records: object[],
    meta: Record<string, unknown>,
    siteCounts: object[] = [],
    { keysIndex = version <= 5 }: { keysIndex?: boolean } = {},
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = factory.open('doppel', version);
      request.onupgradeneeded = () => {
        const db = request.result;
        const pages = db.createObjectStore('pages', { keyPath: version >= 5 ? 'id' : 'url' });
        if (keysIndex) pages.createIndex('keys', 'keys', { multiEntry: true });
        pages.createIndex('site', 'site');
        if (version === 1) {
          pages.createIndex('firstSeen', 'firstSeen');
        } else {
          pages.createIndex('lastSeen', 'lastSeen');
          pages.createIndex('group', 'group');
          pages.createIndex('copySite', 'copySite');
        }
        const metaStore = db.createObjectStore('meta');
        if (version >= 4) {
          const counts = db.createObjectStore('siteCounts', { keyPath: 'bucket' });
          for (const bucket of siteCounts) counts.put(bucket);
        }
        if (version >= 6) db.createObjectStore('runs');
        for (const record of records) pages.put(record);
        for (const [key, value] of Object.entries(meta)) metaStore.put(value, key);
      };
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });
  }
  /**
   * Version 6's tables of a database written by writeVersion(6, …): for each design, the trees of
   * its pages, entered a batch (a run a table) at a time as version 6's writes entered them, under
   * the pages' version 6 ids; and meta `runs` and `runsStamp`.
   */
  async function writeVersion6Runs(factory: IDBFactory, tables: { design: { k: number; b: number }; records: readonly { id: number; simhash: string }[] }[]): Promise<void> {
    const db = await openVersioned('doppel', 6, () => undefined, { factory });
    const tx = db.transaction(['runs', 'meta'], 'readwrite');
    let index = EMPTY_RUN_INDEX;
    for (const { design, records } of tables) {
      const pages = tablePagesOf(records);
      for (let at = 0; at < pages.length; at += 1_000) index = await addToTables(tx.objectStore('runs'), index, design, pages.slice(at, at + 1_000));
    }
    await writeRunIndex(tx.objectStore('meta'), index);
    await tx.done;
    db.close();
  }
  const writeVersion1 = (factory: IDBFactory, records: object[], design: object): Promise<void> => writeVersion(1, factory, records, { design });
  /** A record as versions 2 and 3 wrote it (table keys of the {k: 3, b: 4} design; group fields when given). */
  const recordOfVersion2Or3 = (url: string, simhash: string, lastSeen: number, group?: string, copySite?: string) => ({
    url,
    title: `T ${url}`,
    site: new URL(url).host,
    simhash,
    check: '00000000ffffffff',
    firstSeen: lastSeen - 5,
    lastSeen,
    visits: 1,
    keys: legacyRecordKeys(designTables({ k: 3, b: 4 }), fp(simhash)),
    ...(group === undefined ? {} : { group }),
    ...(copySite === undefined ? {} : { copySite }),
  });

  const byUrl = <T extends { url: string }>(records: readonly T[]): T[] => [...records].sort((x, y) => (x.url < y.url ? -1 : 1));
  /** Records of versions 1–6 as they end in version 7's blocks: the same fields, without their `keys` (the tables are in runs) and their old `id` (ids differ now). */
  const moved = (records: object[]): object[] => byUrl(records.map(({ keys: _, id: __, ...rest }: { keys?: unknown; id?: unknown; url?: string }) => rest as { url: string }));
  /**
   * The pages in version 7's blocks by URL, without their ids; and checks the ids the move gave
   * them: 0 to n − 1, counted up from meta `nextId` in the order of their keys in version 5/6's
   * `pages` (the URL's slot: no two of these URLs share one).
   */
  async function storedByUrl(db: Db): Promise<object[]> {
    const pages = await storedPages(db);
    expect(pages.map((page) => page.id)).toEqual(pages.map((_, i) => i));
    const oldKeys = pages.map((page) => slotBase(page.url));
    expect(oldKeys).toEqual([...oldKeys].sort((x, y) => x - y));
    expect(new Set(oldKeys).size).toBe(pages.length);
    expect(await db.get('meta', 'nextId')).toBe(pages.length === 0 ? undefined : pages.length);
    return moved(pages);
  }
  /** The records of the `pages` store as version 5 keys them (a move from version 4 half done, before the move into blocks), by URL, without their ids; and checks that each is under its URL's slot key. */
  async function slottedByUrl(db: Db): Promise<object[]> {
    const records = await db.getAll('pages');
    for (const record of records) expect(record.id).toBe(slotBase(record.url));
    return moved(records);
  }
  /** The move into blocks is done: `pages` (and version 4's store, if any) emptied, meta says so, and version 6's marker of its tables' build is gone. */
  async function expectMovedOut(db: Db, pages: number): Promise<void> {
    const legacy = db.objectStoreNames.contains(LEGACY_PAGES) ? await db.count(LEGACY_PAGES) : 0;
    expect([await db.count('pages'), legacy]).toEqual([0, 0]);
    expect(await db.get('meta', 'toBlocks')).toEqual({ built: pages, done: true });
    expect(await db.get('meta', 'tables')).toBeUndefined();
  }
  /** What each batch of a move into blocks of `total` pages reports: BUILD_BATCH pages a batch, and the rest. */
  const buildSteps = (total: number, from = 0): MoveProgress[] => {
    const steps: MoveProgress[] = [];
    for (let moved = from; moved < total; ) steps.push({ moved: (moved = Math.min(moved + BUILD_BATCH, total)), total });
    return steps;
  };
  const V6_INDEXES = ['copySite', 'group', 'lastSeen', 'site'];

  it('version 1: keeps every record and the design, moves them into blocks, and asks for a regroup that groups them', async () => {
    const factory = new IDBFactory();
    const design = designTables({ k: 3, b: 4 });
    const v1 = (url: string, simhash: string, firstSeen: number) => ({
      url,
      title: `T ${url}`,
      site: new URL(url).host,
      simhash,
      check: '00000000ffffffff',
      firstSeen,
      lastSeen: firstSeen + 10,
      visits: 2,
      keys: legacyRecordKeys(design, fp(simhash)),
    });
    const records = [v1('https://a.example/1', '1111111111111111', 10), v1('https://b.example/1', '1111111111111110', 20), v1('https://c.example/1', 'ffff0000ffff0000', 30)];
    await writeVersion1(factory, records, { k: 3, b: 4 });

    const store = await freshStore(factory);
    expect(store.db.version).toBe(DB_VERSION);
    expect(await storedByUrl(store.db)).toEqual(moved(records)); // nothing lost, nothing changed but the old keys and ids
    await expectMovedOut(store.db, 3);
    expect(await store.db.get('meta', 'pageCount')).toBe(3);
    await expectCountsKept(store.db, 'after the upgrade from version 1');
    await expectTablesOfRecords(store.db);
    expect([...store.db.transaction('pages').store.indexNames]).toEqual(V6_INDEXES); // the emptied store keeps version 6's indexes
    expect(await store.db.get('meta', 'groups')).toEqual({ k: 3, complete: false });
    expect(await needsRegroup(store, 3)).toBe(true);
    expect((await store.nearDuplicatesOf(records[0] as unknown as PageRecord)).map((m) => m.record.url)).toEqual(['https://b.example/1']);

    await regroupAll(store, 3);
    const a = (await store.get('https://a.example/1'))!;
    expect(a.group).toMatch(/^[0-9a-f]{16}$/);
    expect(await store.get('https://b.example/1')).toMatchObject({ group: a.group, copySite: 'b.example' });
    expect((await store.get('https://c.example/1'))!.group).toBeUndefined();
    expect((await readHistory(store, {}, { limit: 5, shown: new Set() })).entries.map((e) => e.root.url)).toEqual(['https://c.example/1', 'https://a.example/1']);
    await expectCountsKept(store.db, 'after the regroup');
    expect(await store.db.get('meta', 'groupCounts')).toEqual({ grouped: 2, groups: 1 });
    await expectTablesOfRecords(store.db);
  });
  it('version 2: keeps every record, its groups and meta, and counts the pages once into meta `pageCount`', async () => {
    const factory = new IDBFactory();
    const v2 = recordOfVersion2Or3;
    const records = [
      v2('https://a.example/1', '1111111111111111', 10, 'aaaaaaaaaaaaaaaa'),
      v2('https://b.example/1', '1111111111111110', 20, 'aaaaaaaaaaaaaaaa', 'b.example'),
      ...randomFingerprints(0x2c0n, 40).map((simhash, i) => v2(`https://c.example/${i}`, fingerprintToHex(simhash), 100 + i)),
    ];
    const meta = { design: { k: 3, b: 4 }, groups: { k: 3, complete: true } };
    await writeVersion(2, factory, records, meta);

    const store = await freshStore(factory);
    expect(store.db.version).toBe(DB_VERSION);
    expect(await storedByUrl(store.db)).toEqual(moved(records));
    await expectMovedOut(store.db, 42);
    await expectTablesOfRecords(store.db);
    expect(await store.db.get('meta', 'design')).toEqual(meta.design);
    expect(await store.db.get('meta', 'groups')).toEqual(meta.groups);
    expect(await store.db.get('meta', 'pageCount')).toBe(42);
    expect(await store.count()).toBe(42);
    expect(await needsRegroup(store, 3)).toBe(false);
    expect(await readOverview(store)).toEqual({ pages: 42, articles: 41, groups: 1 });
    expect(await store.get('https://b.example/1')).toMatchObject({ group: 'aaaaaaaaaaaaaaaa', copySite: 'b.example' });
    await expectCountsKept(store.db, 'after the upgrade from version 2');
  });

  it('version 3: keeps every record and meta, and counts the groups and each site\'s pages and copies once', async () => {
    const factory = new IDBFactory();
    const v3 = recordOfVersion2Or3;
    // two groups: one copied by two other sites, one within a site (no copy)
    const records = [
      v3('https://orig.example/1', '1111111111111111', 10, 'aaaaaaaaaaaaaaaa'),
      v3('https://farm.example/1', '1111111111111110', 20, 'aaaaaaaaaaaaaaaa', 'farm.example'),
      v3('https://mirror.example/1', '1111111111111100', 30, 'aaaaaaaaaaaaaaaa', 'mirror.example'),
      v3('https://orig.example/2', '2222222222222222', 40, 'bbbbbbbbbbbbbbbb'),
      v3('https://orig.example/2?print', '2222222222222220', 50, 'bbbbbbbbbbbbbbbb'),
      ...randomFingerprints(0x3c0n, 30).map((simhash, i) => v3(`https://${['farm', 'mirror', 'other'][i % 3]}.example/p${i}`, fingerprintToHex(simhash), 100 + i)),
    ];
    const meta = { design: { k: 3, b: 4 }, groups: { k: 3, complete: true }, pageCount: records.length };
    await writeVersion(3, factory, records, meta);

    const store = await freshStore(factory);
    expect(store.db.version).toBe(DB_VERSION);
    expect(await storedByUrl(store.db)).toEqual(moved(records));
    await expectMovedOut(store.db, records.length);
    await expectTablesOfRecords(store.db);
    for (const [key, value] of Object.entries(meta)) expect(await store.db.get('meta', key as keyof typeof meta)).toEqual(value);
    expect(await store.db.get('meta', 'groupCounts')).toEqual({ grouped: 5, groups: 2 });
    expect((await store.db.getAll('siteCounts')).flatMap((bucket) => bucket.rows).sort((a, b) => a.site.localeCompare(b.site))).toEqual([
      { site: 'farm.example', pages: 11, copies: 1 },
      { site: 'mirror.example', pages: 11, copies: 1 },
      { site: 'orig.example', pages: 3, copies: 0 },
      { site: 'other.example', pages: 10, copies: 0 },
    ]);
    await expectCountsKept(store.db, 'after the upgrade from version 3');
    expect(await readOverview(store)).toEqual({ pages: 35, articles: 32, groups: 2 });
    expect((await readSiteStandings(store, new Map())).map((st) => [st.site, st.pages, st.copies])).toEqual([
      ['farm.example', 11, 1],
      ['mirror.example', 11, 1],
    ]);
    expect((await readSiteEvidence(store, 'mirror.example')).map((e) => [e.copy.url, e.original.url])).toEqual([['https://mirror.example/1', 'https://orig.example/1']]);
  });

  it('version 4: every record moves, through the key of its URL\'s slot, into blocks with the same fields; meta, counts and groups stay; a migration under way starts over', async () => {
    const factory = new IDBFactory();
    const v4 = recordOfVersion2Or3;
    const records = [
      v4('https://orig.example/1', '1111111111111111', 10, 'aaaaaaaaaaaaaaaa'),
      v4('https://farm.example/1', '1111111111111110', 20, 'aaaaaaaaaaaaaaaa', 'farm.example'),
      ...randomFingerprints(0x4c0n, 2500).map((simhash, i) => v4(`https://${['farm', 'other'][i % 2]}.example/p${i}`, fingerprintToHex(simhash), 100 + i)),
    ];
    // written by version 4 mid-migration: the cursor is a URL
    const meta = {
      design: { k: 3, b: 4, migration: { phase: 'adding', to: { k: 3, b: 5 }, after: 'https://farm.example/p99' } },
      groups: { k: 3, complete: true },
      pageCount: records.length,
      groupCounts: { grouped: 2, groups: 1 },
    };
    const siteCounts = [{ bucket: 7, rows: [{ site: 'kept.example', pages: 1, copies: 0 }] }]; // not recounted: kept as it was
    await writeVersion(4, factory, records, meta, siteCounts);

    const progress: MoveProgress[] = [];
    const db = await openDoppelDb('doppel', { factory, onMoveProgress: (p) => progress.push(p) });
    opened.push(db);
    const store = await PageStore.open(db);
    expect(db.version).toBe(DB_VERSION);
    // 2,502 records: two batches of version 5's move to slot keys, then two of the move into blocks
    expect(progress).toEqual([{ moved: 2000, total: 2502 }, { moved: 2502, total: 2502 }, ...buildSteps(2502)]);
    expect(await storedByUrl(db)).toEqual(moved(records));
    expect([...db.objectStoreNames]).toEqual(['blocks', 'meta', 'pages', 'pagesByUrl', 'runs', 'siteCounts']);
    await expectMovedOut(db, 2502); // every page moved out of both old stores
    expect(await db.get('meta', 'move')).toEqual({ moved: 2502, done: true });
    await expectTablesOfRecords(db);
    const pages = db.transaction('pages').store;
    expect([pages.keyPath, pages.autoIncrement, [...pages.indexNames]]).toEqual(['id', false, V6_INDEXES]);
    expect(await db.get('meta', 'design')).toEqual({ k: 3, b: 4 }); // the migration starts over, as the building of new trees
    for (const key of ['groups', 'pageCount', 'groupCounts'] as const) expect(await db.get('meta', key)).toEqual(meta[key]);
    expect(await db.getAll('siteCounts')).toEqual(siteCounts);
    // a URL's page is found through the url tree, and the other trees answer for the new ids
    expect((await store.get('https://farm.example/1'))?.copySite).toBe('farm.example');
    expect(await store.get('https://nowhere.example/')).toBeUndefined();
    expect((await store.nearDuplicatesOf((await store.get('https://orig.example/1'))!)).map((m) => m.record.url)).toEqual(['https://farm.example/1']);
    expect(await store.forgetSite('other.example')).toBe(1250);
    expect(await store.count()).toBe(1252);
    expect((await storedPages(db)).filter((page) => page.site === 'other.example')).toEqual([]);
    await expectTablesOfRecords(db);
  });

  describe('version 5: the pages move from `pages` (and their `keys` index) into blocks (lib/store/build.ts)', () => {
    const design = designTables({ k: 3, b: 4 });
    const v5 = (url: string, simhash: string, lastSeen: number, group?: string, copySite?: string) => ({ id: slotBase(url), ...recordOfVersion2Or3(url, simhash, lastSeen, group, copySite) });
    const records = [
      v5('https://orig.example/1', '1111111111111111', 10, 'aaaaaaaaaaaaaaaa'),
      v5('https://farm.example/1', '1111111111111110', 20, 'aaaaaaaaaaaaaaaa', 'farm.example'),
      { ...v5('https://bad.example/1', '1111111111111111', 30), simhash: 'not a simhash', keys: [] }, // unreadable: in no table, kept
      ...randomFingerprints(0x50c0n, 4_000).map((simhash, i) => v5(`https://s${i % 5}.example/p${i}`, fingerprintToHex(simhash), 100 + i)),
    ];
    expect(records[0]!.keys).toEqual(legacyRecordKeys(design, fp('1111111111111111')));
    /** The records in the key order of `pages`: the order the move takes them in. */
    const inKeyOrder = [...records].sort((x, y) => x.id - y.id);
    const meta = {
      design: { k: 3, b: 4, migration: { phase: 'removing', from: { k: 3, b: 5 }, after: records[9]!.id } },
      groups: { k: 3, complete: true },
      pageCount: records.length,
      groupCounts: { grouped: 2, groups: 1 },
      move: { moved: 7, done: true },
    };
    const siteCounts = [{ bucket: 3, rows: [{ site: 'kept.example', pages: 1, copies: 0 }] }];

    /** A version 5 store of `records`, upgraded to version 7 without the move into blocks that openDoppelDb makes. */
    async function upgradedNotMoved(factory: IDBFactory): Promise<Db> {
      await writeVersion(5, factory, records, meta, siteCounts);
      const db = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      opened.push(db);
      return db;
    }
    /** Every record exactly once: in blocks with its fields (under ids 0 to n − 1 in key order), or still in `pages` as it was. */
    async function expectEveryRecordOnce(db: Db): Promise<{ moved: number; left: number }> {
      const inBlocks = await storedByUrl(db);
      const left = await db.getAll('pages');
      expect(byUrl([...inBlocks, ...moved(left)] as { url: string }[])).toEqual(moved(records));
      // the moved ones are the first in key order; the rest are in `pages` as they were, keys and all
      expect(byUrl(left)).toEqual(byUrl(inKeyOrder.slice(inBlocks.length)));
      return { moved: inBlocks.length, left: left.length };
    }

    it('the upgrade copies no page: `pages` keeps every record as it was (its keys too, and their index: deleting it held the upgrade 34 s at a million pages); once opened they are all in blocks and trees, and `pages` is empty', async () => {
      const factory = new IDBFactory();
      const db = await upgradedNotMoved(factory);
      // the upgrade itself enters nothing
      expect(await db.count('blocks')).toBe(0);
      expect(await db.count('runs')).toBe(0);
      expect(byUrl(await db.getAll('pages'))).toEqual(byUrl(records));
      expect(await db.get('meta', 'toBlocks')).toEqual({ built: 0, done: false });
      expect(await db.get('meta', 'tables')).toBeUndefined(); // version 6's marker, written and deleted in the same upgrade
      expect(await db.get('meta', 'design')).toEqual({ k: 3, b: 4 }); // version 5's migration starts over
      expect([...db.transaction('pages').store.indexNames]).toEqual(['copySite', 'group', 'keys', 'lastSeen', 'site']);
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: 0, total: records.length });
      db.close();

      const progress: MoveProgress[] = [];
      const reopened = await openDoppelDb('doppel', { factory, onMoveProgress: (p) => progress.push(p) });
      opened.push(reopened);
      expect(progress).toEqual(buildSteps(records.length));
      expect(progress.length).toBeGreaterThan(1);
      expect(await storedByUrl(reopened)).toEqual(moved(records)); // the unreadable one too
      await expectMovedOut(reopened, records.length);
      await expectTablesOfRecords(reopened);
      for (const key of ['groups', 'pageCount', 'groupCounts', 'move'] as const) expect(await reopened.get('meta', key)).toEqual(meta[key]);
      expect(await reopened.getAll('siteCounts')).toEqual(siteCounts);
      expect(await readMoveProgress('doppel', factory)).toBeNull();

      const store = await PageStore.open(reopened);
      expect((await store.nearDuplicatesOf((await store.get('https://orig.example/1'))!)).map((m) => m.record.url)).toEqual(['https://farm.example/1']);
      expect(await store.get('https://bad.example/1')).toMatchObject({ simhash: 'not a simhash', check: '00000000ffffffff' });
      // a visit now rewrites the page in its block, under the id the move gave it; `pages` stays empty
      const id = (await store.get('https://orig.example/1'))!.id;
      await store.recordVisit({ url: 'https://orig.example/1', title: 'again', site: 'orig.example', simhash: fp('1111111111111111'), check: fp('00000000ffffffff'), now: 99 });
      expect(await store.get('https://orig.example/1')).toMatchObject({ id, title: 'again', visits: 2, lastSeen: 99 });
      expect(await reopened.count('pages')).toBe(0);
      await expectTablesOfRecords(reopened);
    });

    it('the old `keys` index ends empty once the move is done: each batch takes its records out of `pages`, changing nothing else', async () => {
      const factory = new IDBFactory();
      const db = await upgradedNotMoved(factory);
      const keyedPages = async () => new Set(await db.getAllKeysFromIndex('pages', 'keys' as never)).size;
      const withKeys = records.filter((r) => r.keys.length > 0);
      expect(await keyedPages()).toBe(withKeys.length);
      const kept = async () => [await db.get('meta', 'pageCount'), await db.get('meta', 'groupCounts'), await db.getAll('siteCounts')];
      const keptBefore = await kept();

      expect(await buildBlocks(db, { batchSize: 1_500, maxBatches: 1 })).toBe(1_500);
      expect(await keyedPages()).toBe(inKeyOrder.slice(1_500).filter((r) => r.keys.length > 0).length); // the moved ones' entries are gone
      expect(await expectEveryRecordOnce(db)).toEqual({ moved: 1_500, left: records.length - 1_500 });
      db.close();

      const reopened = await openDoppelDb('doppel', { factory });
      opened.push(reopened);
      expect(await reopened.getAllKeysFromIndex('pages', 'keys' as never)).toEqual([]);
      expect([...reopened.transaction('pages').store.indexNames]).toContain('keys'); // the index stays, empty (only an upgrade could delete it)
      expect(await storedByUrl(reopened)).toEqual(moved(records));
      await expectMovedOut(reopened, records.length);
      expect([await reopened.get('meta', 'pageCount'), await reopened.get('meta', 'groupCounts'), await reopened.getAll('siteCounts')]).toEqual(keptBefore); // the counts kept beside the pages: untouched
      await expectTablesOfRecords(reopened);
      // a new database has no `keys` index at all
      const fresh = await openDoppelDb('fresh', { factory });
      opened.push(fresh);
      expect([...fresh.transaction('pages').store.indexNames]).toEqual(V6_INDEXES);
    });

    it('a move cut off goes on where it stopped; two connections moving at once move every page exactly once', async () => {
      const factory = new IDBFactory();
      const db = await upgradedNotMoved(factory);
      expect(await buildBlocks(db, { batchSize: 1_500, maxBatches: 1 })).toBe(1_500);
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: 1_500, total: records.length }); // what the popup shows meanwhile
      expect(await db.get('meta', 'toBlocks')).toEqual({ built: 1_500, done: false, after: inKeyOrder[1_499]!.id });
      expect(await expectEveryRecordOnce(db)).toEqual({ moved: 1_500, left: records.length - 1_500 });
      await expectTablesOfRecords(db); // the trees of the pages moved so far
      const second = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      opened.push(second);
      const [a, b] = await Promise.all([buildBlocks(db, { batchSize: 300 }), buildBlocks(second, { batchSize: 700 })]);
      expect(1_500 + a + b).toBe(records.length);
      expect(a).toBeGreaterThan(0);
      expect(b).toBeGreaterThan(0);
      expect(await expectEveryRecordOnce(db)).toEqual({ moved: records.length, left: 0 }); // no id given twice, none skipped
      await expectMovedOut(db, records.length);
      await expectTablesOfRecords(db);
      expect(await readMoveProgress('doppel', factory)).toBeNull();
      expect(await buildBlocks(db)).toBe(0);
    });

    let undoPatch: (() => void) | undefined;
    afterEach(() => {
      undoPatch?.();
      undoPatch = undefined;
    });
    /** The record the second batch of BUILD_BATCH takes last. */
    const lastOfSecondBatch = inKeyOrder[Math.min(2 * BUILD_BATCH, records.length) - 1]!;
    it.each([
      {
        failure: 'the run index damaged: the batch fails before it writes',
        cause: "The index of Doppel's sorted runs is damaged: runs is not a list",
        damage: async (db: Db): Promise<(db: Db) => Promise<void>> => {
          const [index, stamp] = [await db.get('meta', 'runs'), await db.get('meta', 'runsStamp')];
          await db.put('meta', { nextRun: 0, runs: 'damaged' } as never, 'runs');
          await db.delete('meta', 'runsStamp'); // (a stamp a reader has seen would let it use the index it read then)
          return async (later) => {
            await later.put('meta', index!, 'runs');
            await later.put('meta', stamp!, 'runsStamp');
          };
        },
      },
      {
        failure: 'the disk full as the batch ends: its blocks, trees and meta were written in it',
        cause: 'Simulated: the disk is full',
        damage: async (): Promise<(db: Db) => Promise<void>> => {
          // the batch's last request, the deletion of its records from `pages`, fails (as a full
          // disk fails a transaction): every write before it in the batch is undone with it
          const realDelete = FakeObjectStore.prototype.delete;
          const restore = (): void => void (FakeObjectStore.prototype.delete = realDelete);
          undoPatch = restore; // (should the test fail before the batch does)
          FakeObjectStore.prototype.delete = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['delete']>) {
            if (this.name !== 'pages') return realDelete.apply(this, args);
            restore();
            throw new DOMException('Simulated: the disk is full.', 'QuotaExceededError');
          };
          return async () => restore();
        },
      },
    ])('a batch that fails is rolled back whole: openDoppelDb says so, and the next open finishes the move ($failure)', async ({ cause, damage }) => {
      const factory = new IDBFactory();
      const db = await upgradedNotMoved(factory);
      expect(await buildBlocks(db, { maxBatches: 1 })).toBe(BUILD_BATCH);
      const moveAfter = await db.get('meta', 'toBlocks');
      const [blocksBefore, runsBefore] = [await db.getAll('blocks'), await db.getAll('runs')];
      const mend = await damage(db);
      db.close();
      await expect(openDoppelDb('doppel', { factory })).rejects.toThrow(
        new RegExp(
          `^Could not finish moving Doppel's pages into the blocks of version ${DB_VERSION} \\(${BUILD_BATCH} pages so far\\): ${cause}\\. ` +
            "Every page is kept, moved or not; the move goes on the next time Doppel opens its database\\.$",
        ),
      );
      const check = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      opened.push(check);
      // the failed batch left no trace: the first batch's blocks, trees and cursor, the rest in `pages`
      expect(await check.get('meta', 'toBlocks')).toEqual(moveAfter);
      expect(moveAfter).toMatchObject({ built: BUILD_BATCH, done: false });
      expect([await check.getAll('blocks'), await check.getAll('runs')]).toEqual([blocksBefore, runsBefore]);
      await mend(check);
      expect(await expectEveryRecordOnce(check)).toEqual({ moved: BUILD_BATCH, left: records.length - BUILD_BATCH });
      await expectTablesOfRecords(check);
      check.close();
      // mended (as a later version would), the next open finishes it
      const progress: MoveProgress[] = [];
      const reopened = await openDoppelDb('doppel', { factory, onMoveProgress: (p) => progress.push(p) });
      opened.push(reopened);
      expect(progress).toEqual(buildSteps(records.length, BUILD_BATCH));
      expect(await storedByUrl(reopened)).toEqual(moved(records));
      await expectMovedOut(reopened, records.length);
      await expectTablesOfRecords(reopened);
    });

    it('a record a block could not hold is mended where it can be, and kept in `pages` where it cannot', async () => {
      const factory = new IDBFactory();
      const db = await upgradedNotMoved(factory);
      const [first, second, third] = inKeyOrder;
      // (no version wrote such records: they stand for damage the move must survive)
      await db.put('pages', { ...first!, title: 5, site: 'elsewhere.example', lastSeen: Number.NaN, visits: -1 } as never);
      await db.put('pages', { ...second!, url: 'not a url' } as never);
      db.close();
      const reopened = await openDoppelDb('doppel', { factory });
      opened.push(reopened);
      const mended = (await storedPages(reopened)).find((page) => page.url === first!.url);
      expect(mended).toMatchObject({ title: '', site: new URL(first!.url).host, lastSeen: 0, visits: 1, simhash: first!.simhash });
      expect((await storedPages(reopened)).some((page) => page.url === third!.url)).toBe(true);
      expect((await reopened.getAll('pages')).map((record) => record.url)).toEqual(['not a url']);
      expect(await reopened.get('meta', 'toBlocks')).toMatchObject({ done: true });
      await expectTablesOfRecords(reopened);
    });
  });

  describe('version 6: the pages move from `pages` and its indexes into blocks and page-field trees (lib/store/build.ts)', () => {
    const v6 = (url: string, simhash: string, lastSeen: number, group?: string, copySite?: string): PageRecord => {
      const { keys: _, ...fields } = recordOfVersion2Or3(url, simhash, lastSeen, group, copySite);
      return { id: slotBase(url), ...fields };
    };
    const records: PageRecord[] = [
      v6('https://orig.example/1', '1111111111111111', 10, 'aaaaaaaaaaaaaaaa'),
      v6('https://farm.example/1', '1111111111111110', 20, 'aaaaaaaaaaaaaaaa', 'farm.example'),
      v6('https://mirror.example/1', '1111111111111100', 30, 'aaaaaaaaaaaaaaaa', 'mirror.example'),
      v6('https://orig.example/2', '2222222222222222', 40, 'bbbbbbbbbbbbbbbb'),
      v6('https://orig.example/2?print', '2222222222222220', 50, 'bbbbbbbbbbbbbbbb'),
      { ...v6('https://bad.example/1', '1111111111111111', 60), simhash: 'not a simhash' }, // unreadable: in no table, kept
      { ...v6('https://nocheck.example/1', '3333333333333333', 70), check: NO_CHECK }, // imported without a check
      ...randomFingerprints(0x60c0n, 3_000).map((simhash, i) => v6(`https://${['farm', 'mirror', 'other', 'orig'][i % 4]}.example/p${i}`, fingerprintToHex(simhash), 100 + i)),
    ];
    const inKeyOrder = [...records].sort((x, y) => x.id - y.id);
    const counts = countsOfRecords(records);

    it.each([
      {
        made: 'made by version 6, a migration to another design under way',
        keysIndex: false,
        // the records themselves, as version 6 wrote them
        stored: records as object[],
        design: { k: 3, b: 4, migration: { phase: 'adding', to: { k: 3, b: 5 }, after: inKeyOrder[1_000]!.id } },
        // every page in the design's trees, the first 1,001 in the new design's too
        tables: [
          { design: { k: 3, b: 4 }, records: inKeyOrder },
          { design: { k: 3, b: 5 }, records: inKeyOrder.slice(0, 1_001) },
        ],
        built: undefined,
      },
      {
        made: 'upgraded from version 5, its tables half built: the records keep their keys, and their index',
        keysIndex: true,
        stored: records.map((record) => ({ ...record, keys: record.simhash === 'not a simhash' ? [] : legacyRecordKeys(designTables({ k: 3, b: 4 }), fp(record.simhash)) })),
        design: { k: 3, b: 4 },
        tables: [{ design: { k: 3, b: 4 }, records: inKeyOrder.slice(0, 1_200) }],
        built: { built: 1_200, done: false, after: inKeyOrder[1_199]!.id },
      },
    ])('a store $made: the upgrade copies nothing, and once opened every page is in blocks, every tree exact, the queries as before', async ({ keysIndex, stored, design, tables, built }) => {
      const factory = new IDBFactory();
      const meta = {
        design,
        groups: { k: 3, complete: true },
        pageCount: counts.pageCount,
        groupCounts: counts.groupCounts,
        ...(built === undefined ? {} : { tables: built }),
      };
      await writeVersion(6, factory, stored, meta, toBuckets(counts.siteCounts), { keysIndex });
      await writeVersion6Runs(factory, tables);
      const runsOfVersion6 = await (async () => {
        const v6db = await openVersioned('doppel', 6, () => undefined, { factory });
        const value = [await v6db.getAll('runs'), await v6db.get('meta', 'runs')];
        v6db.close();
        return value;
      })();
      expect((runsOfVersion6[0] as unknown[]).length).toBeGreaterThan(0);

      // the upgrade transaction: no page copied, version 6's trees left as they were
      const upgraded = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      expect([...upgraded.objectStoreNames]).toEqual(['blocks', 'meta', 'pages', 'runs', 'siteCounts']);
      expect(await upgraded.count('blocks')).toBe(0);
      expect(byUrl(await upgraded.getAll('pages'))).toEqual(byUrl(stored as PageRecord[]));
      expect([await upgraded.getAll('runs'), await upgraded.get('meta', 'runs')]).toEqual(runsOfVersion6);
      expect(await upgraded.get('meta', 'toBlocks')).toEqual({ built: 0, done: false });
      expect(await upgraded.get('meta', 'tables')).toBeUndefined(); // version 6's build, dropped: the move rebuilds every tree
      expect(await upgraded.get('meta', 'design')).toEqual({ k: 3, b: 4 }); // a migration starts over once the move is done
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: 0, total: records.length });
      upgraded.close();

      const progress: MoveProgress[] = [];
      const db = await openDoppelDb('doppel', { factory, onMoveProgress: (p) => progress.push(p) });
      opened.push(db);
      expect(progress).toEqual(buildSteps(records.length));
      expect(await storedByUrl(db)).toEqual(moved(records));
      await expectMovedOut(db, records.length);
      if (keysIndex) expect(await db.getAllKeysFromIndex('pages', 'keys' as never)).toEqual([]); // the old index, emptied with its store
      // every tree as the pages in blocks give it: the design's tables and the page fields', nothing of version 6's old ids or of the dropped migration's design
      await expectTablesOfRecords(db);
      await expectCountsKept(db, 'after the move into blocks');
      for (const key of ['design', 'groups', 'pageCount', 'groupCounts'] as const) expect(await db.get('meta', key)).toEqual(key === 'design' ? { k: 3, b: 4 } : meta[key]);
      expect(await readMoveProgress('doppel', factory)).toBeNull();

      const store = await PageStore.open(db);
      expect(await store.count()).toBe(records.length);
      expect(await store.get('https://farm.example/1')).toMatchObject({ group: 'aaaaaaaaaaaaaaaa', copySite: 'farm.example', site: 'farm.example' });
      expect(await store.get('https://nocheck.example/1')).toMatchObject({ check: NO_CHECK });
      expect(await store.get('https://nowhere.example/')).toBeUndefined();
      const orig = (await store.get('https://orig.example/1'))!;
      expect((await store.nearDuplicatesOf(orig)).map((m) => [m.record.url, m.distance])).toEqual([
        ['https://farm.example/1', 1],
        ['https://mirror.example/1', 2],
      ]);
      // every near-duplicate of a sample of pages, against the brute force over every record
      const random = mulberry32(6);
      const readable = records.filter((r) => r.simhash !== 'not a simhash');
      const sample = [...readable.slice(0, 6), ...Array.from({ length: 20 }, () => readable[Math.floor(random() * readable.length)]!)];
      for (const page of sample) {
        const brute = readable
          .filter((r) => r.url !== page.url && areNearDuplicates(membersOf([page])[0]!, membersOf([r])[0]!, 3))
          .map((r) => r.url)
          .sort();
        expect([page.url, (await store.nearDuplicatesOf(page)).map((m) => m.record.url).sort()]).toEqual([page.url, brute]);
      }
      expect(await readOverview(store)).toEqual({ pages: records.length, articles: records.length - 3, groups: 2 });
      expect((await readSiteStandings(store, new Map())).map((st) => [st.site, st.pages, st.copies])).toEqual([
        ['farm.example', counts.siteCounts.find((row) => row.site === 'farm.example')!.pages, 1],
        ['mirror.example', counts.siteCounts.find((row) => row.site === 'mirror.example')!.pages, 1],
      ]);
      const newest = byUrl(records).reduce((x, y) => (y.lastSeen > x.lastSeen ? y : x));
      expect((await readHistory(store, {}, { limit: 1, shown: new Set() })).entries.map((e) => e.root.url)).toEqual([newest.url]);
      expect(await store.leastRecentlySeen(2)).toEqual(['https://orig.example/1', 'https://farm.example/1']);
      // writes after the move keep every tree and count exact
      expect(await store.forgetSite('other.example')).toBe(750);
      expect(await store.count()).toBe(records.length - 750);
      await expectTablesOfRecords(db);
      await expectCountsKept(db, 'after forgetting a site');
    });
  });

  describe('the move of a version 4 store to numeric keys (lib/store/move.ts)', () => {
    const v4 = recordOfVersion2Or3;
    const records = randomFingerprints(0x30e7n, 5000).map((simhash, i) => v4(`https://s${i % 7}.example/p${i}`, fingerprintToHex(simhash), 100 + i));
    const meta = { design: { k: 3, b: 4 }, groups: { k: 3, complete: true }, pageCount: records.length, groupCounts: { grouped: 0, groups: 0 } };

    /** A version 4 store of `records`, upgraded to version 7 without the moves that openDoppelDb makes. */
    async function upgradedUnmoved(factory: IDBFactory): Promise<Db> {
      await writeVersion(4, factory, records, meta);
      const db = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      opened.push(db);
      return db;
    }
    /** Every page exactly once, in one store or the other, with its fields; the moved ones under their slot keys (version 5's layout, before the move into blocks). */
    async function expectEveryPageOnce(db: Db): Promise<{ moved: number; left: number }> {
      const done = await slottedByUrl(db);
      const left = await db.getAll(LEGACY_PAGES);
      expect(moved([...done, ...left])).toEqual(moved(records));
      expect(await db.count('blocks')).toBe(0); // nothing moves into blocks before version 5's move is done
      return { moved: done.length, left: left.length };
    }

    it('the upgrade itself only renames the old store and creates the new ones: no page is copied in it', async () => {
      const db = await upgradedUnmoved(new IDBFactory());
      expect(db.version).toBe(DB_VERSION);
      expect([...db.objectStoreNames]).toEqual(['blocks', 'meta', 'pages', 'pagesByUrl', 'runs', 'siteCounts']);
      expect(await expectEveryPageOnce(db)).toEqual({ moved: 0, left: 5000 });
      expect(await db.count('runs')).toBe(0);
      expect(await db.get('meta', 'toBlocks')).toEqual({ built: 0, done: false });
    });

    it('moves a batch per transaction, counts the moved pages in meta, and a move cut off resumes where it stopped', async () => {
      const db = await upgradedUnmoved(new IDBFactory());
      const seen: MoveProgress[] = [];
      expect(await moveLegacyPages(db, { batchSize: 1500, maxBatches: 2, onProgress: (p) => seen.push(p) })).toBe(3000);
      expect(seen).toEqual([{ moved: 1500, total: 5000 }, { moved: 3000, total: 5000 }]);
      expect(await expectEveryPageOnce(db)).toEqual({ moved: 3000, left: 2000 });
      expect(await db.get('meta', 'move')).toEqual({ moved: 3000, done: false, after: byUrl(records).map((r) => r.url)[2999] });
      // the rest, as the next open does it
      expect(await moveLegacyPages(db, { batchSize: 1500, onProgress: (p) => seen.push(p) })).toBe(2000);
      expect(seen.slice(2)).toEqual([{ moved: 4500, total: 5000 }, { moved: 5000, total: 5000 }]);
      expect(await expectEveryPageOnce(db)).toEqual({ moved: 5000, left: 0 });
      expect(await db.get('meta', 'move')).toEqual({ moved: 5000, done: true });
      // done: a later open reads meta, not the emptied store; a page put back there (which nothing
      // does) would not be read again
      await db.put(LEGACY_PAGES, records[0] as unknown as PageRecord);
      expect(await moveLegacyPages(db)).toBe(0);
    });

    it('a batch that fails is rolled back whole: openDoppelDb says so, keeps every page, and the next open finishes the move', async () => {
      const factory = new IDBFactory();
      const db = await upgradedUnmoved(factory);
      await moveLegacyPages(db, { batchSize: MOVE_BATCH, maxBatches: 1 });
      // Fill the slot of a URL of the next batch with other pages (as 64 clashing URLs would): its
      // batch cannot give it a key.
      const [next] = await db.getAll(LEGACY_PAGES, null, 1);
      const base = slotBase(next!.url);
      const blockers = Array.from({ length: 64 }, (_, probe) => ({ ...(records[0] as object), id: base + probe, url: `https://blocker.example/${probe}` }) as PageRecord);
      for (const blocker of blockers) await db.put('pages', blocker);
      db.close();
      await expect(openDoppelDb('doppel', { factory })).rejects.toThrow(
        new RegExp(`^Could not finish moving Doppel's pages to the layout of version ${DB_VERSION} \\(${MOVE_BATCH} moved so far\\): .*${next!.url.replaceAll('.', '\\.')}.*Every page is kept, moved or not`),
      );
      const check = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      opened.push(check);
      for (const blocker of blockers) await check.delete('pages', blocker.id);
      expect(await expectEveryPageOnce(check)).toEqual({ moved: MOVE_BATCH, left: 5000 - MOVE_BATCH }); // the failed batch left no trace
      expect(await check.get('meta', 'move')).toMatchObject({ moved: MOVE_BATCH, done: false });
      check.close();
      const progress: MoveProgress[] = [];
      const reopened = await openDoppelDb('doppel', { factory, onMoveProgress: (p) => progress.push(p) });
      opened.push(reopened);
      // the move's last batches, then the move into blocks
      expect(progress).toEqual([{ moved: 4000, total: 5000 }, { moved: 5000, total: 5000 }, ...buildSteps(5000)]);
      expect(await storedByUrl(reopened)).toEqual(moved(records));
      await expectMovedOut(reopened, 5000);
      await expectTablesOfRecords(reopened);
      const store = await PageStore.open(reopened);
      expect(await store.count()).toBe(5000);
      expect((await store.get(records[4321]!.url))?.title).toBe(records[4321]!.title);
    });

    it('readMoveProgress (what the popup shows while it waits): how far a move has got, null when none is under way, and it creates nothing', async () => {
      const factory = new IDBFactory();
      expect(await readMoveProgress('doppel', factory)).toBeNull(); // no database
      expect(await factory.databases()).toEqual([]); // and none was created by asking
      const db = await upgradedUnmoved(factory);
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: 0, total: 5000 });
      await moveLegacyPages(db, { batchSize: 1500, maxBatches: 1 });
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: 1500, total: 5000 });
      await moveLegacyPages(db);
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: 0, total: 5000 }); // then the pages move into blocks
      await buildBlocks(db, { maxBatches: 1 });
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: BUILD_BATCH, total: 5000 });
      await buildBlocks(db);
      expect(await readMoveProgress('doppel', factory)).toBeNull(); // done
      expect(await storedByUrl(db)).toEqual(moved(records));
      opened.push(await openDoppelDb('fresh', { factory }));
      expect(await readMoveProgress('fresh', factory)).toBeNull(); // a new database has nothing to move
      expect((await factory.databases()).map((d) => [d.name, d.version]).sort()).toEqual([
        ['doppel', DB_VERSION],
        ['fresh', DB_VERSION],
      ]); // asking upgraded nothing and created nothing
      expect(db.version).toBe(DB_VERSION);
    });

    it('two connections moving at once take turns: every page moved exactly once', async () => {
      const factory = new IDBFactory();
      const first = await upgradedUnmoved(factory);
      const second = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      opened.push(second);
      const [a, b] = await Promise.all([moveLegacyPages(first, { batchSize: 700 }), moveLegacyPages(second, { batchSize: 900 })]);
      expect(a + b).toBe(5000);
      expect(a).toBeGreaterThan(0);
      expect(b).toBeGreaterThan(0);
      expect(await expectEveryPageOnce(first)).toEqual({ moved: 5000, left: 0 });
    });
  });
});
