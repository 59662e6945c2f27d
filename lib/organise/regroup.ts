// Regrouping a whole store: the groups of near-duplicates and rewrites (lib/report/groups.ts)
// computed afresh, for a new k, or after an import (imported pages arrive in no group). Day to day
// the groups are kept by PageStore.record and forgetMany, one visit at a time; this pass is for
// when many pages change at once.
//
// The pass reads every record and keeps its fingerprints in columns (PageColumns: 24 bytes a
// page), finds every near-duplicate pair through the permuted-block tables kept as sorted lists,
// one table at a time (lib/index/table-pairs.ts), then finds every rewrite link, each page looked
// up among the others' rewrite fingerprints as a visit would, with only their postings held
// (lib/organise/rewrite-links.ts: about 150 bytes a page at a million pages as they are built, 74
// after), joins them by union-find,
// reads again the records of the pages that end up in a group (their URL, site and claims decide
// the group's root and id) and writes the group fields of the records whose fields change, a batch per transaction. It
// yields to the event loop every SLICE_MS so that the context running it (a page, or the worker)
// keeps answering. A record recorded or changed during the pass keeps what PageStore.record gave
// it: a batch only writes a record whose simhash is still the one the pass read. Run by organise,
// it keeps what each rewrite lookup found for the copy marking that follows (RewriteLinks), which
// then looks up again only the pages a change since can reach.
import { type Fingerprint, fingerprintFromHalves, fingerprintFromHex, fingerprintHalves, fingerprintToHex } from '../fingerprint/bits';
import { UnionFind } from '../report/clusters';
import { type GroupFields, type GroupMember, changedGroupFields, checksConfirm } from '../report/groups';
import { TABLE_PAIRS_BYTES_PER_FINGERPRINT, forEachNearPair } from '../index/table-pairs';
import { REWRITE_MAX_PAGES } from '../index/rewrite-store';
import { chooseDesign, designTables } from '../index/tables';
import { compactTables, keepDesignFitted } from './migrate';
import { type PassageOrganised, indexPending } from './passage-organise';
import type { PageReader, PageStore } from '../store/pages';
import { checkOf, storedRecord, withProvenance } from '../store/records';
import { type RewriteLinks, type RewriteWatch, watchRewrites } from '../store/rewrite-watch';
import { Words } from '../index/posting-passes';
import { forEachRewritePage, forEachRewritePageOf } from './bulk-reads';
import { type RewritePages, linkRewritePages } from './rewrite-links';
import type { GroupsMeta, PageRecord } from '../store/schema';
import type { HeldMemory } from './budget';

/** Records read (and written) per transaction, unless the options say otherwise. */
const REGROUP_BATCH = 2000;
/**
 * Records written at most a transaction: a write holds every store until it commits, and a
 * popup's lookup waits for it (2,000 scattered records took a second and more at a million pages).
 */
const REGROUP_WRITE_BATCH = 500;
/**
 * Records of grouped pages read at most a transaction: each is in a block of its own or nearly, and
 * a transaction holds the blocks it read (2,000 a transaction held some 80 MB at a million pages).
 */
const REGROUP_MEMBERS_BATCH = 500;

/** Longest stretch of work between two yields to the event loop. */
export const SLICE_MS = 30;

export interface RegroupProgress {
  /** 'comparing': near-duplicates; 'rewrites': each page looked up among the others' rewrite fingerprints. */
  phase: 'reading' | 'comparing' | 'rewrites' | 'writing';
  done: number;
  total: number;
}

export interface RegroupOptions {
  /** Records read per transaction (default 2000), and written (at most 500). */
  batchSize?: number;
  /** Called after each slice of work; throwing stops the pass (meta stays incomplete). */
  onProgress?: (progress: RegroupProgress) => void | Promise<void>;
  /** Keep the rewrite links found, for the copy marking that follows (RegroupResult.links; the caller closes its watch). */
  keepLinks?: boolean;
  /** Told what the pass holds in memory at its most (organise's memory budget: lib/organise/budget.ts). */
  onMemory?: (held: HeldMemory) => void;
  /** The rewrite lookups' candidate pairs judged at a time (lib/organise/rewrite-links.ts PAIRS_PER_SLICE): the tests make it small. */
  rewritePairsPerSlice?: number;
}

export interface RegroupResult {
  k: number;
  pages: number;
  /** Groups of two or more pages. */
  groups: number;
  /** Records whose group fields were rewritten. */
  rewritten: number;
  /** Pages looked up among the others' rewrite fingerprints (those that have them). */
  rewriteLookups: number;
  /** With keepLinks: the lookups' findings. */
  links?: RewriteLinks;
}

const nextTick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

async function setGroupsState(store: PageStore, state: GroupsMeta): Promise<void> {
  await store.db.put('meta', state, 'groups');
}

/** True if the stored groups are not those of k (another k, or an import left them incomplete). */
export async function needsRegroup(store: PageReader, k: number): Promise<boolean> {
  const state = await store.groupsState();
  return !state.complete || state.k !== k;
}

/**
 * Recomputes every group for k (0–8; within the store's table design's k, which
 * keepDesignFitted({k}) provides) and leaves meta `groups` at {k, complete: true}. Interrupted,
 * it leaves {k, complete: false} and every record with the group fields of before or after: run
 * it again. Visits during the pass keep the groups with the new k.
 */
export async function regroupAll(store: PageStore, k: number, options: RegroupOptions = {}): Promise<RegroupResult> {
  if (!Number.isInteger(k) || k < 0 || k > 8) throw new RangeError(`k must be an integer from 0 to 8: got ${k}`);
  // watched from before the first read: a change made while reading is among those looked up again
  const watch = options.keepLinks === true ? watchRewrites(store.db) : undefined;
  try {
    return await regroupWatched(store, k, options, watch);
  } catch (error) {
    watch?.close();
    throw error;
  }
}

/** A record's simhash and check fingerprint; undefined if either is damaged. */
function fingerprintsOf(record: PageRecord): { simhash: Fingerprint; check: Fingerprint | null } | undefined {
  try {
    return { simhash: fingerprintFromHex(record.simhash), check: checkOf(record) };
  } catch {
    return undefined;
  }
}

/** Bits of PageColumns.flags. */
const HAS_CHECK = 1;
const HAS_GROUP_FIELDS = 2;
const MARKED_COPY = 4;

/**
 * What the regroup keeps of each page while it compares, by node index: its id, simhash and check
 * fingerprint as 32-bit halves, and whether it has a check and group fields: 24 bytes a page
 * (the columns are sized for the store's count); the rest of a record is read again only for the
 * pages that end up in a group.
 */
class PageColumns {
  readonly ids: Words;
  readonly his: Words;
  readonly los: Words;
  readonly checkHis: Words;
  readonly checkLos: Words;
  readonly flags: Words;

  /** `expected`: the pages to be read (the store's count), so that the columns do not double. */
  constructor(expected: number) {
    const column = (): Words => new Words(expected + 64);
    this.ids = column();
    this.his = column();
    this.los = column();
    this.checkHis = column();
    this.checkLos = column();
    this.flags = column();
  }

  get length(): number {
    return this.ids.length;
  }

  /** `marks`: whether the page has group fields, and is marked a copy (contentCopy). */
  push(id: number, simhash: Fingerprint, check: Fingerprint | null, marks: number): void {
    const { hi, lo } = fingerprintHalves(simhash);
    const c = check === null ? { hi: 0, lo: 0 } : fingerprintHalves(check);
    this.pushHalves(id, hi, lo, check === null ? null : c, marks);
  }

  /** A page from its fingerprint bytes as its block keeps them (lib/rows/blocks.ts): the simhash, then the check when it has one (16 bytes). */
  pushBytes(id: number, bytes: Uint8Array, marks: number): void {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const check = bytes.length === 16 ? { hi: view.getUint32(8), lo: view.getUint32(12) } : null;
    this.pushHalves(id, view.getUint32(0), view.getUint32(4), check, marks);
  }

  private pushHalves(id: number, hi: number, lo: number, check: { hi: number; lo: number } | null, marks: number): void {
    this.ids.push(id);
    this.his.push(hi);
    this.los.push(lo);
    this.checkHis.push(check === null ? 0 : check.hi);
    this.checkLos.push(check === null ? 0 : check.lo);
    this.flags.push((check === null ? 0 : HAS_CHECK) | marks);
  }

  /** Near-duplicates by the rule of areNearDuplicates, for two nodes already within k bits. */
  confirms(i: number, j: number): boolean {
    return checksConfirm(this.checkOf(i), this.checkOf(j));
  }

  private checkOf(i: number): Fingerprint | null {
    return (this.flags.data[i]! & HAS_CHECK) === 0 ? null : fingerprintFromHalves(this.checkHis.data[i]!, this.checkLos.data[i]!);
  }

  hasGroupFields(i: number): boolean {
    return (this.flags.data[i]! & HAS_GROUP_FIELDS) !== 0;
  }

  markedCopy(i: number): boolean {
    return (this.flags.data[i]! & MARKED_COPY) !== 0;
  }

  /** The simhash as stored (16 lowercase hex digits): a record still holding it is the one read. */
  simhashHex(i: number): string {
    return fingerprintToHex(fingerprintFromHalves(this.his.data[i]!, this.los.data[i]!));
  }

  /** Bytes held (the Words' arrays, spare room included). */
  heldBytes(): number {
    return [this.ids, this.his, this.los, this.checkHis, this.checkLos, this.flags].reduce((sum, words) => sum + words.data.byteLength, 0);
  }
}

/** A grouped page as the regroup works its fields out: a record's claims and group fields, and the simhash read first. */
type Member = GroupMember & GroupFields & { id: number; simhashHex: string };

/** What linkPages finds: the pages' columns, their sets (near-duplicates and rewrites joined), and what the rewrite lookups found (with keepLinks). */
interface Linked {
  nodes: PageColumns;
  sets: UnionFind;
  found: Map<number, number[]>;
  copies: Set<number>;
  unread: number[];
  rewriteLookups: number;
}

/**
 * Steps 1 and 2 of the regroup: every page read, and joined to its near-duplicates and rewrites.
 * The packed rewrite index lives only here: it is let go before the groups are read and written.
 */
async function linkPages(store: PageStore, k: number, { batchSize = REGROUP_BATCH, onProgress, onMemory, rewritePairsPerSlice }: RegroupOptions, keepLinks: boolean): Promise<Linked> {
  const total = await store.count();
  // 1. read each page's fingerprints and marks (damaged ones are in no group)
  const nodes = new PageColumns(total);
  const unread: number[] = [];
  let after: number | undefined;
  for (;;) {
    // fingerprints and marks only (no block's text is inflated), and the records of the few whose fingerprints are text
    const [chunk, records] = await store.read(async (rows) => {
      const summaries = await rows.summariesAfter(after, batchSize);
      return [summaries, await Promise.all(summaries.map((s) => (s.fingerprints === null ? rows.get(s.id) : undefined)))] as const;
    });
    for (const [j, { id, fingerprints, marks }] of chunk.entries()) {
      const record = records[j];
      const read = fingerprints === null ? (record === undefined ? undefined : fingerprintsOf(record)) : undefined;
      if (fingerprints === null && read === undefined) {
        unread.push(id);
        continue; // unreadable: in no group
      }
      const flags = (marks !== null && (marks[0] !== null || marks[1] !== null) ? HAS_GROUP_FIELDS : 0) | (marks?.[2] === 1 ? MARKED_COPY : 0);
      if (read !== undefined) nodes.push(id, read.simhash, read.check, flags);
      else nodes.pushBytes(id, fingerprints!, flags);
    }
    await onProgress?.({ phase: 'reading', done: nodes.length, total });
    if (chunk.length < batchSize) break;
    after = chunk[chunk.length - 1]!.id;
  }

  // 2. compare: every pair within k, through tables for max(k, 1) bits (k = 0 needs blocks too),
  // kept as sorted lists; a pair already joined is not looked at
  const count = nodes.length;
  const design = designTables({ k: Math.max(k, 1), b: chooseDesign({ k: Math.max(k, 1), expectedSize: count }).design.b });
  const sets = new UnionFind(count);
  let sliceStart = Date.now();
  // a promise only when the slice is over: a million lookups each call it
  const pauseIfDue = (phase: RegroupProgress['phase'], done: number, total: number): void | Promise<void> => (Date.now() - sliceStart < SLICE_MS ? undefined : pause(phase, done, total));
  const pause = async (phase: RegroupProgress['phase'], done: number, total: number): Promise<void> => {
    await onProgress?.({ phase, done, total });
    await nextTick();
    sliceStart = Date.now();
  };
  await onProgress?.({ phase: 'comparing', done: 0, total: count }); // shown however soon the step ends
  await forEachNearPair(design, nodes.his.view(), nodes.los.view(), k, (i, j) => void (nodes.confirms(i, j) && sets.union(i, j)), {
    joined: (i, j) => sets.connected(i, j),
    pause: async (done) => pauseIfDue('comparing', done, count),
  });
  // and the rewrite links, each page looked up as a visit looks it up (lib/organise/rewrite-links.ts),
  // its rewrite fingerprints read only now, under its node's index: the near-duplicates' tables and
  // the rewrite postings are not held at once, and the fingerprints are never all held. A page
  // recorded since the pages were read is in no node (PageStore.record grouped it); one changed
  // since is read as it is now (the copy marking looks it up again: links.watch)
  await onProgress?.({ phase: 'rewrites', done: 0, total: 0 }); // the lookups' count is known once the fingerprints are read
  const copies = new Set<number>();
  const found = new Map<number, number[]>();
  const pageIds = nodes.ids.view();
  const { lookups, heldBytes } = await linkRewritePages(
    rewritePagesOf(store, pageIds),
    (i, j) => {
      sets.union(i, j);
      if (!keepLinks) return;
      const list = found.get(pageIds[i]!);
      if (list === undefined) found.set(pageIds[i]!, [pageIds[j]!]);
      else list.push(pageIds[j]!);
    },
    {
      maxPages: REWRITE_MAX_PAGES,
      expectedPages: count,
      pairsPerSlice: rewritePairsPerSlice,
      indexed: (i) => void (nodes.markedCopy(i) && copies.add(pageIds[i]!)), // looked up by the copy marking
      counted: (total) => onProgress?.({ phase: 'rewrites', done: 0, total }),
      pause: (done, total) => pauseIfDue('rewrites', done, total),
    },
  );
  // the tables went before the rewrite postings were built: the pass holds the larger of the two
  onMemory?.({ pass: 'regroup', bytes: nodes.heldBytes() + sets.heldBytes() + Math.max(heldBytes, count * TABLE_PAIRS_BYTES_PER_FINGERPRINT), pages: count });
  return { nodes, sets, found, copies, unread, rewriteLookups: lookups };
}

async function regroupWatched(store: PageStore, k: number, options: RegroupOptions, watch: RewriteWatch | undefined): Promise<RegroupResult> {
  const { batchSize = REGROUP_BATCH, onProgress } = options;
  await setGroupsState(store, { k, complete: false });
  const { nodes, sets, found, copies, unread, rewriteLookups } = await linkPages(store, k, options, watch !== undefined);
  const count = nodes.length;
  const pageIds = nodes.ids.view();

  // 3. the groups' pages read again (only theirs: the others need no more than their flags), and
  // the fields each record should have, with the simhash they were worked out from
  const componentOf = new Map<number, number[]>(); // by root, in the order of their first node
  for (let i = 0; i < count; i++) {
    if (sets.sizeOf(i) < 2) continue;
    const root = sets.find(i);
    const list = componentOf.get(root);
    if (list === undefined) componentOf.set(root, [i]);
    else list.push(i);
  }
  const grouped = [...componentOf.values()];
  // in id order (node order): a block is read once, not once for each group in it
  const membersOf = await readMembers(store, nodes, grouped.flat().sort((x, y) => x - y), Math.min(batchSize, REGROUP_MEMBERS_BATCH));
  const components = grouped.map((indices) => indices.flatMap((i) => membersOf.get(i) ?? [])); // a page forgotten since is left out
  const changes = new Map<number, GroupFields & { simhash: string }>();
  for (const [member, fields] of changedGroupFields(components)) changes.set(member.id, { ...fields, simhash: member.simhashHex });
  for (let i = 0; i < count; i++) if (sets.sizeOf(i) < 2 && nodes.hasGroupFields(i)) changes.set(pageIds[i]!, { simhash: nodes.simhashHex(i) });
  const groups = components.filter((component) => component.length >= 2).length;

  // 4. write, by id: a block read each, where a URL is a walk down the url tree (a page forgotten
  // since has no record; visited again, a new id, and PageStore.record grouped it)
  const ids = [...changes.keys()].sort((a, b) => a - b);
  const writeBatch = Math.min(batchSize, REGROUP_WRITE_BATCH);
  let rewritten = 0;
  for (let start = 0; start < ids.length; start += writeBatch) {
    const batch = ids.slice(start, start + writeBatch);
    const written = await store.write(async ({ rows, tally }) => {
      const found = await Promise.all(batch.map((id) => rows.get(id)));
      const puts: Promise<unknown>[] = [];
      for (const record of found) {
        if (record === undefined) continue;
        const change = changes.get(record.id)!;
        if (record.simhash !== change.simhash) continue; // changed since it was read: PageStore.record grouped it
        const next: PageRecord = storedRecord(record);
        delete next.group;
        delete next.copySite;
        if (change.group !== undefined) next.group = change.group;
        if (change.copySite !== undefined) next.copySite = change.copySite;
        tally.change(record, next);
        puts.push(rows.put(next));
      }
      await Promise.all(puts);
      return puts.length;
    });
    rewritten += written;
    await onProgress?.({ phase: 'writing', done: Math.min(start + writeBatch, ids.length), total: ids.length });
  }

  await setGroupsState(store, { k, complete: true });
  const result: RegroupResult = { k, pages: count, groups, rewritten, rewriteLookups };
  if (watch !== undefined) result.links = { found, copies, unread, watch };
  return result;
}

/**
 * The records of the nodes `indices` (ascending) as members: their claims and group fields, read
 * now, and the simhash the regroup read (a record changed since keeps what PageStore.record gave
 * it: the write compares them). A page forgotten since has none.
 */
async function readMembers(store: PageStore, nodes: PageColumns, indices: readonly number[], batchSize: number): Promise<Map<number, Member>> {
  const out = new Map<number, Member>();
  const ids = nodes.ids.view();
  for (let start = 0; start < indices.length; start += batchSize) {
    const chunk = indices.slice(start, start + batchSize);
    const records = await store.read((rows) => Promise.all(chunk.map((i) => rows.get(ids[i]!))));
    chunk.forEach((i, at) => {
      const record = records[at];
      const fingerprints = record === undefined ? undefined : fingerprintsOf(record);
      if (record === undefined || fingerprints === undefined) return; // forgotten, or damaged since it was read: in no group
      const { simhash, check } = fingerprints;
      out.set(i, withProvenance({ id: record.id, url: record.url, site: record.site, simhash, check, firstSeen: record.firstSeen, group: record.group, copySite: record.copySite, simhashHex: nodes.simhashHex(i) }, record));
    });
  }
  return out;
}

export interface OrganiseProgress {
  /** 'design': moving the tables to the design the store's size and k call for (lib/organise/migrate.ts); 'passages': the passage index (lib/organise/passage-organise.ts). */
  phase: 'design' | RegroupProgress['phase'] | 'passages' | 'copies';
  done: number;
  total: number;
}

export interface OrganiseResult {
  moved: Awaited<ReturnType<typeof keepDesignFitted>>;
  regrouped: RegroupResult | null;
  /** The passage index organised after an import (indexPending); null if nothing was pending. */
  passages: PassageOrganised | null;
  /** Table trees merged into one run (PageStore.compactTables). */
  compacted: number;
}

/**
 * Brings a store up to date for k: the table design its size and k call for, then the groups, if
 * either is due, then the passage index if an import left pages pending, then the tables' trees merged into one run each where they hold many (a query
 * reads one chunk a run) (after an import, a change of k, or an interrupted run). A no-op on a
 * store that is up to date. In the extension only the worker's writer runs it (lib/background/writer.ts), one
 * job at a time.
 */
export async function organise(
  store: PageStore,
  k: number,
  { onProgress, onMemory, rewritePairsPerSlice }: { onProgress?: (progress: OrganiseProgress) => void | Promise<void>; onMemory?: (held: HeldMemory) => void; rewritePairsPerSlice?: number } = {},
): Promise<OrganiseResult> {
  const moved = await keepDesignFitted(store, { k, onProgress: (p) => onProgress?.({ phase: 'design', done: p.done, total: p.total }) });
  // the regroup's rewrite lookups are handed to the copy marking: each page is looked up once
  const regrouped = (await needsRegroup(store, k)) ? await regroupAll(store, k, { onProgress, onMemory, keepLinks: true, rewritePairsPerSlice }) : null;
  let passages: PassageOrganised | null;
  try {
    passages = await indexPending(store, { onProgress, onMemory, links: regrouped?.links });
  } finally {
    regrouped?.links?.watch.close();
  }
  if (regrouped !== null) delete regrouped.links;
  const compacted = await compactTables(store);
  return { moved, regrouped, passages, compacted };
}

/** The store's rewrite fingerprints, each page known by its node's index (`pageIds`: the nodes' page ids, ascending). */
function rewritePagesOf(store: PageStore, pageIds: Uint32Array): RewritePages {
  return {
    all(each, { resume, stop } = {}) {
      let node = 0;
      return forEachRewritePage(
        store,
        (id, bytes) => {
          while (node < pageIds.length && pageIds[node]! < id) node++;
          return node < pageIds.length && pageIds[node] === id ? each(node, bytes) : undefined;
        },
        { afterGroup: resume, stop },
      );
    },
    async some(nodes, each) {
      const ids = nodes.map((node) => pageIds[node]!);
      let at = 0;
      await forEachRewritePageOf(store, ids, (id, bytes) => {
        while (ids[at]! < id) at++;
        each(nodes[at]!, bytes);
      });
    },
  };
}
