// Groups of near-duplicates: the pure rules (lib/report/groups.ts), their upkeep in the store one visit
// or forgetting at a time (PageStore.record, forgetMany), the whole-store regroup
// (lib/organise/regroup.ts) and the history page's reads (lib/ui/history-data.ts). Every grouping is checked against a brute-force reference: union-find over
// every pair of pages.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fingerprint, asFingerprint, fingerprintFromHex, fingerprintToHex } from '../lib/fingerprint/bits';
import { type GroupMember, areNearDuplicates, chooseGroupId, componentsOf, groupFieldsOf, newGroupId, rootOf, siteStanding } from '../lib/report/groups';
import { mulberry32, splitmix64 } from '../lib/random';
import { openDoppelDb } from '../lib/store/db';
import { needsRegroup, regroupAll } from '../lib/organise/regroup';
import { type HistoryEntry, readHistory, readOverview, readSiteEvidence, readSiteStandings } from '../lib/ui/history-data';
import { PageStore } from '../lib/store/pages';
import { NO_CHECK } from '../lib/store/records';
import { forget } from '../lib/store/page-passages';
import { MAX_PAIRWISE } from '../lib/store/page-groups';
import type { Db, PageFields, PageRecord } from '../lib/store/schema';
import { storedPages } from './support/kept-tables';
import { flipRandomBits } from './support/random-bits';
import { updateMany } from '../lib/store/transfer';

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
    expect(rootOf([{ url: 'https://z/', site: 'z', firstSeen: 1 }, { url: 'https://y/', site: 'y', firstSeen: 1 }]).url).toBe('https://y/');
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
    // pages, copies, of them credited, mark → flagged, republishes with credit
    [1, 1, 0, null, true, false],
    [2, 1, 0, null, false, false], // half is not "more than half"
    [3, 2, 0, null, true, false],
    [10, 0, 0, null, false, false],
    [1, 1, 0, 'trusted', false, false],
    [10, 0, 0, 'farm', true, false],
    // copies that credit their source do not count toward the flag
    [3, 3, 3, null, false, true],
    [3, 3, 2, null, false, true], // one uncredited copy of three pages
    [3, 3, 1, null, true, false], // two of three
    [4, 3, 1, null, false, true], // two of four: half is not more than half
    [3, 3, 3, 'farm', true, false],
    [3, 3, 0, 'trusted', false, false],
    [2, 2, 2, 'trusted', false, true],
  ] as const)('siteStanding(%i pages, %i copies, %i credited, %s) flagged = %s, credits its sources = %s', (pages, copies, credited, mark, flagged, creditsSources) => {
    expect(siteStanding('s.example', pages, copies, credited, mark)).toEqual({ site: 's.example', pages, copies, credited, mark, flagged, creditsSources });
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
        simhash: flipRandomBits(centre, Math.floor(random() * 6), random),
        check: refute ? flipRandomBits(check, 40, random) : flipRandomBits(check, Math.floor(random() * 8), random),
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
      await store.record({ ...page, title: 'changed', simhash: flipRandomBits(other.simhash, 1, random), check: other.check, now: 2_000_000 + i }, { k: 3 });
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

  it('forget (lib/store/page-passages.ts) regroups what is left (lib/store/page-groups.ts): a chain cut in its middle falls apart', async () => {
    const store = await freshStore();
    const base = { title: 't', check: fp('00000000ffffffff') };
    // a ~ b ~ c: a and c are 4 bits apart, each 2 from b
    for (const [host, hex, now] of [['a', '0000000000000000', 1], ['b', '0000000000000003', 2], ['c', '000000000000000f', 3]] as const) {
      await store.record({ ...base, url: `https://${host}.example/`, site: `${host}.example`, simhash: fp(hex), now });
    }
    const b = (await store.get('https://b.example/'))!;
    expect(new Set([b.group, (await store.get('https://a.example/'))!.group, (await store.get('https://c.example/'))!.group]).size).toBe(1);
    expect(await store.write((w) => forget(w, [b], 3))).toBe(1);
    expect(await store.get('https://b.example/')).toBeUndefined();
    for (const url of ['https://a.example/', 'https://c.example/']) expect(await store.get(url)).not.toHaveProperty('group');
    expect(await store.groupsState()).toEqual({ k: 3, complete: true });
  });

  it('past MAX_PAIRWISE pages in the groups a visit touches, they are merged without comparing pairs', async () => {
    const store = await freshStore();
    const base = { title: 't', check: fp('00000000ffffffff'), simhash: fp('0000000000000000') };
    for (let i = 0; i <= MAX_PAIRWISE; i++) await store.record({ ...base, url: `https://s${i}.example/`, site: `s${i}.example`, now: i + 1 });
    const { records } = await storedGroups(store);
    expect(records).toHaveLength(MAX_PAIRWISE + 1);
    expect(new Set(records.map((r) => r.group)).size).toBe(1);
    expect(records.filter((r) => r.copySite !== undefined)).toHaveLength(MAX_PAIRWISE); // all but the root
  }, 120_000);

  it('an earlier-seen page joining a group becomes its root: the old root turns into a copy', async () => {
    const store = await freshStore();
    const base = { title: 't', check: fp('00000000ffffffff') };
    await store.record({ ...base, url: 'https://late.example/', site: 'late.example', simhash: fp('0000000000000000'), now: 500 });
    await store.record({ ...base, url: 'https://late.example/2', site: 'late.example', simhash: fp('0000000000000001'), now: 600 });
    expect((await store.get('https://late.example/2'))!.copySite).toBeUndefined(); // same site as the root
    // an import-like write of an earlier page does not group; a visit does (its firstSeen is now, so
    // use updateMany + regroup for an earlier one): here the earlier page arrives by regroupAll
    await updateMany(store, ['https://early.example/'], () => [
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
    await updateMany(store, fields.map((f) => f.url), () => fields);
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

// The history's newest-first reading: the lastSeen tree (lib/rows/page-rows.ts), read backwards
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
      { site: 'copy2.example', pages: 1, copies: 1, credited: 0, mark: null, flagged: true, creditsSources: false },
      { site: 'other.example', pages: 2, copies: 0, credited: 0, mark: 'farm', flagged: true, creditsSources: false },
      { site: 'copy1.example', pages: 2, copies: 1, credited: 0, mark: null, flagged: false, creditsSources: false }, // half is not more than half
    ]);
    const evidence = await readSiteEvidence(store, 'copy1.example');
    expect(evidence.map((e) => [e.copy.url, e.original.url])).toEqual([['https://copy1.example/mill', 'https://orig.example/mill']]);
  });
});
