// Groups of near-duplicates: the pure rules (lib/groups.ts), their upkeep in the store one visit
// or forgetting at a time (PageStore.record, forgetMany), the whole-store regroup
// (lib/store/groups.ts), the history page's reads (lib/store/history.ts), and the upgrade from
// every earlier version. Every grouping is checked against a brute-force reference: union-find over
// every pair of pages.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Fingerprint, asFingerprint, fingerprintFromHex, fingerprintToHex } from '../lib/fingerprint';
import { type GroupMember, areNearDuplicates, chooseGroupId, componentsOf, groupFieldsOf, newGroupId, rootOf, siteStanding } from '../lib/groups';
import { mulberry32, randomFingerprints, splitmix64 } from '../lib/random';
import { openDoppelDb, openVersioned } from '../lib/store/db';
import { needsRegroup, regroupAll } from '../lib/store/groups';
import { type HistoryEntry, readHistory, readOverview, readSiteEvidence, readSiteStandings } from '../lib/store/history';
import { NO_CHECK, PageStore } from '../lib/store/pages';
import { type Db, DB_VERSION, LEGACY_PAGES, type PageFields, type PageRecord, upgradeSchema } from '../lib/store/schema';
import { MOVE_BATCH, type MoveProgress, moveLegacyPages, readMoveProgress } from '../lib/store/move';
import { readByUrl, slotBase } from '../lib/store/slots';
import { expectCountsKept } from './kept-counts';
import { expectTablesOfRecords } from './kept-tables';
import { legacyRecordKeys } from './legacy-keys';
import { BUILD_BATCH, buildTables } from '../lib/store/build';
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
  const records = await store.db.getAll('pages');
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

// The history's newest-first reading takes batches through IDBIndex.getAllRecords where the
// browser has it (Chromium 141+; fake-indexeddb too) and steps a cursor elsewhere: both are run.
const withGetAllRecords = IDBIndex.prototype as IDBIndex & { getAllRecords?: unknown };
const realGetAllRecords = withGetAllRecords.getAllRecords;
let getAllRecordsCalls = 0;
describe.each([
  ['in batches (getAllRecords)', true],
  ['with a cursor (no getAllRecords)', false],
])('the history reads, %s', (_how, batched) => {
  beforeAll(() => {
    getAllRecordsCalls = 0;
    if (batched) {
      withGetAllRecords.getAllRecords = function (this: IDBIndex, ...args: unknown[]) {
        getAllRecordsCalls++;
        return (realGetAllRecords as (...a: unknown[]) => unknown).apply(this, args);
      };
    } else {
      delete withGetAllRecords.getAllRecords;
    }
  });
  afterAll(() => {
    withGetAllRecords.getAllRecords = realGetAllRecords;
    // the path under test was the one taken
    expect(getAllRecordsCalls > 0).toBe(batched);
  });

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
    // ties in lastSeen go by key, highest first (the index's 'prev' order)
    const expected = Array.from({ length: 60 }, (_, i) => `https://same.example/${String(i).padStart(2, '0')}`).sort((x, y) => slotBase(y) - slotBase(x));
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
   * version 3 (the same stores and indexes; meta `pageCount` too, which the caller passes), and
   * version 4 (a `siteCounts` store too, keyed by `bucket`, whose values the caller passes), and
   * version 5 (`pages` keyed by `id`, which the records carry).
   */
  function writeVersion(version: 1 | 2 | 3 | 4 | 5, factory: IDBFactory, records: object[], meta: Record<string, unknown>, siteCounts: object[] = []): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = factory.open('doppel', version);
      request.onupgradeneeded = () => {
        const db = request.result;
        const pages = db.createObjectStore('pages', { keyPath: version === 5 ? 'id' : 'url' });
        pages.createIndex('keys', 'keys', { multiEntry: true });
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

  /** The stored records by URL, without their ids; and checks that each is under its URL's slot key (no two of these URLs share one). */
  async function storedByUrl(db: Db): Promise<object[]> {
    const records = await db.getAll('pages');
    for (const record of records) expect(record.id).toBe(slotBase(record.url));
    return records.map(({ id: _, ...rest }) => rest).sort((x, y) => (x.url < y.url ? -1 : 1));
  }
  const byUrl = (records: { url: string }[]): object[] => [...records].sort((x, y) => (x.url < y.url ? -1 : 1));
  /** Records of versions 1–4 as the move writes them: without their `keys` (version 6 keeps the tables in runs). */
  const moved = (records: object[]): object[] => byUrl(records.map(({ keys: _, ...rest }: { keys?: unknown; url?: string }) => rest as { url: string }));
  const V6_INDEXES = ['copySite', 'group', 'lastSeen', 'site'];

  it('version 1: keeps every record and the design, adds the indexes, and asks for a regroup that groups them', async () => {
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
    expect(await storedByUrl(store.db)).toEqual(moved(records)); // nothing lost, nothing changed but the old keys
    expect(await store.db.get('meta', 'pageCount')).toBe(3);
    await expectCountsKept(store.db, 'after the upgrade from version 1');
    await expectTablesOfRecords(store.db);
    expect([...store.db.transaction('pages').store.indexNames]).toEqual(V6_INDEXES);
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
    await expectTablesOfRecords(store.db);
    expect(await store.db.get('meta', 'design')).toEqual(meta.design);
    expect(await store.db.get('meta', 'groups')).toEqual(meta.groups);
    expect(await store.db.get('meta', 'pageCount')).toBe(42);
    expect(await store.count()).toBe(42);
    expect(await needsRegroup(store, 3)).toBe(false);
    expect(await readOverview(store)).toEqual({ pages: 42, articles: 41, groups: 1 });
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
  });

  it('version 4: every record moves to the key of its URL\'s slot, with the same fields; meta, counts and groups stay; a migration under way starts over', async () => {
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

    const store = await freshStore(factory);
    expect(store.db.version).toBe(DB_VERSION);
    expect(await storedByUrl(store.db)).toEqual(moved(records)); // 2,502 records: two batches of the move and a part
    expect([...store.db.objectStoreNames]).toEqual(['meta', 'pages', 'pagesByUrl', 'runs', 'siteCounts']);
    expect(await store.db.count(LEGACY_PAGES)).toBe(0); // every page moved
    expect(await store.db.get('meta', 'move')).toEqual({ moved: 2502, done: true });
    // then entered in the tables, in batches of their own (lib/store/build.ts)
    expect(await store.db.get('meta', 'tables')).toMatchObject({ built: 2502, done: true });
    await expectTablesOfRecords(store.db);
    const pages = store.db.transaction('pages').store;
    expect([pages.keyPath, pages.autoIncrement, [...pages.indexNames]]).toEqual(['id', false, V6_INDEXES]);
    expect(await store.db.get('meta', 'design')).toEqual({ k: 3, b: 4 }); // the migration starts over, as the building of new trees
    for (const key of ['groups', 'pageCount', 'groupCounts'] as const) expect(await store.db.get('meta', key)).toEqual(meta[key]);
    expect(await store.db.getAll('siteCounts')).toEqual(siteCounts);
    // a URL's page is found through its slot, and the indexes answer for the new keys
    expect((await store.get('https://farm.example/1'))?.copySite).toBe('farm.example');
    expect(await readByUrl({ getAll: (q) => store.db.getAll('pages', q) }, 'https://nowhere.example/')).toBeUndefined();
    expect((await store.nearDuplicatesOf((await store.get('https://orig.example/1'))!)).map((m) => m.record.url)).toEqual(['https://farm.example/1']);
    expect(await store.forgetSite('other.example')).toBe(1250);
    expect(await store.count()).toBe(1252);
    await expectTablesOfRecords(store.db);
  });

  describe('version 5: the tables move from the `keys` index to sorted runs (lib/store/build.ts)', () => {
    const design = designTables({ k: 3, b: 4 });
    const v5 = (url: string, simhash: string, lastSeen: number, group?: string, copySite?: string) => ({ id: slotBase(url), ...recordOfVersion2Or3(url, simhash, lastSeen, group, copySite) });
    const records = [
      v5('https://orig.example/1', '1111111111111111', 10, 'aaaaaaaaaaaaaaaa'),
      v5('https://farm.example/1', '1111111111111110', 20, 'aaaaaaaaaaaaaaaa', 'farm.example'),
      { ...v5('https://bad.example/1', '1111111111111111', 30), simhash: 'not a simhash', keys: [] }, // unreadable: in no table, kept
      ...randomFingerprints(0x50c0n, 4_000).map((simhash, i) => v5(`https://s${i % 5}.example/p${i}`, fingerprintToHex(simhash), 100 + i)),
    ];
    expect(records[0]!.keys).toEqual(legacyRecordKeys(design, fp('1111111111111111')));
    const meta = {
      design: { k: 3, b: 4, migration: { phase: 'removing', from: { k: 3, b: 5 }, after: records[9]!.id } },
      groups: { k: 3, complete: true },
      pageCount: records.length,
      groupCounts: { grouped: 2, groups: 1 },
      move: { moved: 7, done: true },
    };
    const siteCounts = [{ bucket: 3, rows: [{ site: 'kept.example', pages: 1, copies: 0 }] }];

    async function upgradedUnbuilt(factory: IDBFactory): Promise<Db> {
      await writeVersion(5, factory, records, meta, siteCounts);
      const db = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      opened.push(db);
      return db;
    }

    it('keeps every record as it was (its keys too, and their index: deleting it held the upgrade 34 s at a million pages) and builds the tables once opened', async () => {
      const factory = new IDBFactory();
      const db = await upgradedUnbuilt(factory);
      // the upgrade itself enters nothing
      expect(await db.count('runs')).toBe(0);
      expect(await db.get('meta', 'tables')).toEqual({ built: 0, done: false });
      expect(await db.get('meta', 'design')).toEqual({ k: 3, b: 4 }); // version 5's migration starts over
      expect([...db.transaction('pages').store.indexNames]).toEqual(['copySite', 'group', 'keys', 'lastSeen', 'site']);
      db.close();

      const progress: MoveProgress[] = [];
      const reopened = await openDoppelDb('doppel', { factory, onMoveProgress: (p) => progress.push(p) });
      opened.push(reopened);
      expect(progress).toEqual([
        { moved: BUILD_BATCH, total: records.length },
        { moved: 2 * BUILD_BATCH, total: records.length },
        { moved: records.length, total: records.length },
      ]);
      expect(await reopened.get('meta', 'tables')).toEqual({ built: records.length, done: true });
      expect(byUrl(await reopened.getAll('pages'))).toEqual(byUrl(records));
      await expectTablesOfRecords(reopened);
      for (const key of ['groups', 'pageCount', 'groupCounts', 'move'] as const) expect(await reopened.get('meta', key)).toEqual(meta[key]);
      expect(await reopened.getAll('siteCounts')).toEqual(siteCounts);

      const store = await PageStore.open(reopened);
      expect((await store.nearDuplicatesOf((await store.get('https://orig.example/1'))!)).map((m) => m.record.url)).toEqual(['https://farm.example/1']);
      // a record rewritten by version 6 drops its old keys, and with them its entries in the old index
      await store.recordVisit({ url: 'https://orig.example/1', title: 'again', site: 'orig.example', simhash: fp('1111111111111111'), check: fp('00000000ffffffff'), now: 99 });
      expect(Object.keys((await store.get('https://orig.example/1'))!)).not.toContain('keys');
      expect(await reopened.getAllKeysFromIndex('pages', 'keys' as never, IDBKeyRange.only('0:1111'))).toEqual([slotBase('https://farm.example/1')]);
      await expectTablesOfRecords(reopened);
    });

    it("dropLegacyKeys empties the old `keys` index a batch at a time, changing nothing else; a page a visit rewrote first is left to it", async () => {
      const factory = new IDBFactory();
      (await upgradedUnbuilt(factory)).close();
      const db = await openDoppelDb('doppel', { factory });
      opened.push(db);
      const store = await PageStore.open(db);
      const keyedPages = async () => new Set(await db.getAllKeysFromIndex('pages', 'keys' as never)).size;
      const withKeys = records.filter((r) => r.keys.length > 0);
      expect(await keyedPages()).toBe(withKeys.length);
      // a visit rewrites its page without keys first (storedRecord)
      await store.recordVisit({ url: 'https://orig.example/1', title: 'again', site: 'orig.example', simhash: fp('1111111111111111'), check: fp('00000000ffffffff'), now: 99 });
      const visited = (await store.get('https://orig.example/1'))!;
      expect(await keyedPages()).toBe(withKeys.length - 1);

      const kept = async () => [await db.get('meta', 'pageCount'), await db.get('meta', 'groupCounts'), await db.getAll('siteCounts')];
      const keptBefore = await kept();
      expect(await store.dropLegacyKeys(1_500)).toBe(withKeys.length - 1);
      expect(await keyedPages()).toBe(0);
      // every record as it was but for its keys; the visited one as the visit left it
      const expected = records.map((record) => {
        if (record.url === visited.url) return visited;
        if (record.keys.length === 0) return record; // in no index entry: left as it is
        const { keys: _, ...rest } = record;
        return rest;
      });
      expect(byUrl(await db.getAll('pages'))).toEqual(byUrl(expected));
      await expectTablesOfRecords(db);
      expect(await kept()).toEqual(keptBefore); // the counts kept beside the pages: untouched
      expect(await store.dropLegacyKeys()).toBe(0); // nothing left
      expect((await store.nearDuplicatesOf(visited)).map((m) => m.record.url)).toEqual(['https://farm.example/1']);
      // a new database has no `keys` index: nothing to do
      const fresh = await openDoppelDb('fresh', { factory });
      opened.push(fresh);
      expect(await (await PageStore.open(fresh)).dropLegacyKeys()).toBe(0);
    });

    it('a build cut off goes on where it stopped; two connections building at once enter every page once', async () => {
      const factory = new IDBFactory();
      const db = await upgradedUnbuilt(factory);
      expect(await buildTables(db, { batchSize: 1_500, maxBatches: 1 })).toBe(1_500);
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: 1_500, total: records.length }); // what the popup shows meanwhile
      const second = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      opened.push(second);
      const [a, b] = await Promise.all([buildTables(db, { batchSize: 300 }), buildTables(second, { batchSize: 700 })]);
      expect(1_500 + a + b).toBe(records.length);
      expect(a).toBeGreaterThan(0);
      expect(b).toBeGreaterThan(0);
      await expectTablesOfRecords(db);
      expect(await readMoveProgress('doppel', factory)).toBeNull();
      expect(await buildTables(db)).toBe(0);
    });

    it('a batch that fails is rolled back whole: openDoppelDb says so, and the next open finishes the build', async () => {
      const factory = new IDBFactory();
      const db = await upgradedUnbuilt(factory);
      await buildTables(db, { maxBatches: 1 });
      await db.put('meta', { nextRun: 0, runs: 'damaged' } as never, 'runs');
      await db.delete('meta', 'runsStamp'); // (a stamp a reader has seen would let it use the index it read then)
      db.close();
      await expect(openDoppelDb('doppel', { factory })).rejects.toThrow(
        new RegExp(`^Could not finish building Doppel's tables of near-duplicates for version ${DB_VERSION} \\(${BUILD_BATCH} pages so far\\): The index of Doppel's sorted runs is damaged: runs is not a list\\. Every page is kept`),
      );
      const check = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      expect(await check.get('meta', 'tables')).toMatchObject({ built: BUILD_BATCH, done: false });
      // mended (as a later version would), the next open finishes it
      await check.clear('runs');
      await check.put('meta', { nextRun: 0, runs: [] }, 'runs');
      await check.put('meta', { built: 0, done: false }, 'tables');
      check.close();
      const reopened = await openDoppelDb('doppel', { factory });
      opened.push(reopened);
      await expectTablesOfRecords(reopened);
    });
  });

  describe('the move of a version 4 store to numeric keys (lib/store/move.ts)', () => {
    const v4 = recordOfVersion2Or3;
    const records = randomFingerprints(0x30e7n, 5000).map((simhash, i) => v4(`https://s${i % 7}.example/p${i}`, fingerprintToHex(simhash), 100 + i));
    const meta = { design: { k: 3, b: 4 }, groups: { k: 3, complete: true }, pageCount: records.length, groupCounts: { grouped: 0, groups: 0 } };

    /** A version 4 store of `records`, upgraded to version 5 without the move that openDoppelDb makes. */
    async function upgradedUnmoved(factory: IDBFactory): Promise<Db> {
      await writeVersion(4, factory, records, meta);
      const db = await openVersioned('doppel', DB_VERSION, upgradeSchema, { factory });
      opened.push(db);
      return db;
    }
    /** Every page exactly once, in one store or the other, with its fields; the moved ones under their slot keys. */
    async function expectEveryPageOnce(db: Db): Promise<{ moved: number; left: number }> {
      const done = await storedByUrl(db);
      const left = await db.getAll(LEGACY_PAGES);
      expect(moved([...done, ...left])).toEqual(moved(records));
      return { moved: done.length, left: left.length };
    }

    it('the upgrade itself only renames the old store and creates the new one: no page is copied in it', async () => {
      const db = await upgradedUnmoved(new IDBFactory());
      expect(db.version).toBe(DB_VERSION);
      expect([...db.objectStoreNames]).toEqual(['meta', 'pages', 'pagesByUrl', 'runs', 'siteCounts']);
      expect(await expectEveryPageOnce(db)).toEqual({ moved: 0, left: 5000 });
    });

    it('moves a batch per transaction, counts the moved pages in meta, and a move cut off resumes where it stopped', async () => {
      const db = await upgradedUnmoved(new IDBFactory());
      const seen: MoveProgress[] = [];
      expect(await moveLegacyPages(db, { batchSize: 1500, maxBatches: 2, onProgress: (p) => seen.push(p) })).toBe(3000);
      expect(seen).toEqual([{ moved: 1500, total: 5000 }, { moved: 3000, total: 5000 }]);
      expect(await expectEveryPageOnce(db)).toEqual({ moved: 3000, left: 2000 });
      expect(await db.get('meta', 'move')).toEqual({ moved: 3000, done: false, after: byUrl(records).map((r) => (r as { url: string }).url)[2999] });
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
      expect(progress.map((p) => p.moved)).toEqual([4000, 5000, 2000, 4000, 5000]); // the move's last batches, then the tables' building
      expect(await expectEveryPageOnce(reopened)).toEqual({ moved: 5000, left: 0 });
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
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: 0, total: 5000 }); // then the tables are built
      await buildTables(db, { maxBatches: 1 });
      expect(await readMoveProgress('doppel', factory)).toEqual({ moved: BUILD_BATCH, total: 5000 });
      await buildTables(db);
      expect(await readMoveProgress('doppel', factory)).toBeNull(); // done
      opened.push(await openDoppelDb('fresh', { factory }));
      expect(await readMoveProgress('fresh', factory)).toBeNull(); // a new database has nothing to move
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
