// Regrouping a whole store: the groups of near-duplicates and rewrites (lib/report/groups.ts)
// computed afresh, for a new k, or after an import (imported pages arrive in no group). Day to day
// the groups are kept by PageStore.record and forgetMany, one visit at a time; this pass is for
// when many pages change at once.
//
// The pass reads every record (URL, site, fingerprints, first seen, what the page says of where it
// comes from: about 100 bytes each in memory) and its rewrite fingerprints' bytes (packed: PackedRewriteIndex, about 240 bytes a page
// with the postings), finds every near-duplicate pair through an in-memory permuted-block index
// (MemoryIndex, the same tables as the store's) and every rewrite link, each page looked up among
// the others' rewrite fingerprints as a visit would, joins them by union-find,
// and writes the group fields of the records whose fields change, a batch per transaction. It
// yields to the event loop every SLICE_MS so that the context running it (a page, or the worker)
// keeps answering. A record recorded or changed during the pass keeps what PageStore.record gave
// it: a batch only writes a record whose simhash is still the one the pass read. Run by organise,
// it keeps what each rewrite lookup found for the copy marking that follows (RewriteLinks), which
// then looks up again only the pages a change since can reach.
import { type Fingerprint, fingerprintFromHex } from '../fingerprint/bits';
import { UnionFind } from '../report/clusters';
import { type GroupMember, areNearDuplicates, changedGroupFields, lookUpRewriteLinks } from '../report/groups';
import { MemoryIndex } from '../index/near';
import { PackedRewriteIndex } from '../index/packed-rewrites';
import { REWRITE_MAX_PAGES } from '../index/rewrite-store';
import { chooseDesign, designTables } from '../index/tables';
import { compactTables, keepDesignFitted } from './migrate';
import { type PassageOrganised, indexPending } from './passage-organise';
import type { PageReader, PageStore } from '../store/pages';
import { checkOf, storedRecord, withProvenance } from '../store/records';
import { type RewriteLinks, type RewriteWatch, watchRewrites } from '../store/rewrite-watch';
import { Words } from '../index/posting-passes';
import type { GroupsMeta, PageRecord } from '../store/schema';

/** Longest stretch of work between two yields to the event loop. */
export const SLICE_MS = 30;

export interface RegroupProgress {
  phase: 'reading' | 'comparing' | 'writing';
  done: number;
  total: number;
}

export interface RegroupOptions {
  /** Records read (and written) per transaction (default 2000). */
  batchSize?: number;
  /** Called after each slice of work; throwing stops the pass (meta stays incomplete). */
  onProgress?: (progress: RegroupProgress) => void | Promise<void>;
  /** Keep the rewrite links found, for the copy marking that follows (RegroupResult.links; the caller closes its watch). */
  keepLinks?: boolean;
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

async function regroupWatched(store: PageStore, k: number, { batchSize = 2000, onProgress }: RegroupOptions, watch: RewriteWatch | undefined): Promise<RegroupResult> {
  await setGroupsState(store, { k, complete: false });
  const total = await store.count();

  // 1. read, and each page's rewrite fingerprints, under its node's index (damaged ones link nothing)
  const nodes: (GroupMember & { group: string | undefined; copySite: string | undefined; simhashHex: string })[] = [];
  const nodeIds = new Words();
  const copies = new Set<number>();
  const unread: number[] = [];
  const rewriteIndex = new PackedRewriteIndex(REWRITE_MAX_PAGES);
  let after: number | undefined;
  for (;;) {
    const [chunk, kept] = await store.read(async (rows, _tx, _passages, rewrites) => {
      const records = await rows.pagesAfter(after, batchSize);
      return [records, await Promise.all(records.map((r) => rewrites.bytesOf(r.id).catch(() => undefined)))] as const;
    });
    for (const [j, record] of chunk.entries()) {
      let simhash: Fingerprint;
      let check: Fingerprint | null;
      try {
        simhash = fingerprintFromHex(record.simhash);
        check = checkOf(record);
      } catch {
        unread.push(record.id);
        continue; // unreadable: in no group
      }
      const bytes = kept[j];
      const looked = bytes !== undefined && rewriteIndex.add(nodes.length, bytes); // looked up below
      if (looked && record.contentCopy === true) copies.add(record.id);
      nodeIds.push(record.id);
      nodes.push(withProvenance({ url: record.url, site: record.site, simhash, check, firstSeen: record.firstSeen, group: record.group, copySite: record.copySite, simhashHex: record.simhash }, record));
    }
    await onProgress?.({ phase: 'reading', done: nodes.length, total });
    if (chunk.length < batchSize) break;
    after = chunk[chunk.length - 1]!.id;
  }

  // 2. compare: every pair within k, through tables for max(k, 1) bits (k = 0 needs blocks too)
  const design = designTables({ k: Math.max(k, 1), b: chooseDesign({ k: Math.max(k, 1), expectedSize: nodes.length }).design.b });
  const index = new MemoryIndex<number>(design, Math.max(nodes.length, 1));
  nodes.forEach((node, i) => index.add(i, node.simhash));
  const sets = new UnionFind(nodes.length);
  let sliceStart = Date.now();
  const pauseIfDue = async (done: number): Promise<void> => {
    if (Date.now() - sliceStart < SLICE_MS) return;
    await onProgress?.({ phase: 'comparing', done, total: nodes.length + rewriteIndex.size }); // the near-duplicates, then the rewrites
    await nextTick();
    sliceStart = Date.now();
  };
  for (let i = 0; i < nodes.length; i++) {
    for (const match of index.query(nodes[i]!.simhash, k)) {
      if (match.id > i && areNearDuplicates(nodes[i]!, nodes[match.id]!, k)) sets.union(i, match.id);
    }
    await pauseIfDue(i + 1);
  }
  // and the rewrite links, each page looked up as a visit looks it up (lib/report/groups.ts)
  rewriteIndex.seal();
  const found = new Map<number, number[]>();
  const pageIds = nodeIds.view();
  await lookUpRewriteLinks(
    rewriteIndex,
    (i, j) => {
      sets.union(i, j);
      if (watch === undefined) return;
      const list = found.get(pageIds[i]!);
      if (list === undefined) found.set(pageIds[i]!, [pageIds[j]!]);
      else list.push(pageIds[j]!);
    },
    (done) => pauseIfDue(nodes.length + done),
  );

  // 3. the fields each record should have, with the simhash they were worked out from
  const { groups, changes: fieldsOf } = changedGroupFields(nodes, sets);
  const changes = new Map([...fieldsOf].map(([i, fields]) => [pageIds[i]!, { ...fields, simhash: nodes[i]!.simhashHex }]));

  // 4. write, by id: a block read each, where a URL is a walk down the url tree (a page forgotten
  // since has no record; visited again, a new id, and PageStore.record grouped it)
  const ids = [...changes.keys()].sort((a, b) => a - b);
  let rewritten = 0;
  for (let start = 0; start < ids.length; start += batchSize) {
    const batch = ids.slice(start, start + batchSize);
    const count = await store.write(async ({ rows, tally }) => {
      const found = await Promise.all(batch.map((id) => rows.get(id)));
      const puts: Promise<unknown>[] = [];
      for (const record of found) {
        if (record === undefined) continue;
        const change = changes.get(record.id)!;
        if (record.simhash !== change.simhash) continue; // changed since it was read: PageStore.record grouped it
        const written: PageRecord = storedRecord(record);
        delete written.group;
        delete written.copySite;
        if (change.group !== undefined) written.group = change.group;
        if (change.copySite !== undefined) written.copySite = change.copySite;
        tally.change(record, written);
        puts.push(rows.put(written));
      }
      await Promise.all(puts);
      return puts.length;
    });
    rewritten += count;
    await onProgress?.({ phase: 'writing', done: Math.min(start + batchSize, ids.length), total: ids.length });
  }

  await setGroupsState(store, { k, complete: true });
  const result: RegroupResult = { k, pages: nodes.length, groups, rewritten, rewriteLookups: rewriteIndex.size };
  if (watch !== undefined) result.links = { found, copies, unread, watch };
  return result;
}

export interface OrganiseProgress {
  /** 'design': moving the tables to the design the store's size and k call for (lib/organise/migrate.ts); 'passages': the passage index (lib/organise/passage-organise.ts). */
  phase: 'design' | RegroupProgress['phase'] | 'passages';
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
export async function organise(store: PageStore, k: number, { onProgress }: { onProgress?: (progress: OrganiseProgress) => void | Promise<void> } = {}): Promise<OrganiseResult> {
  const moved = await keepDesignFitted(store, { k, onProgress: (p) => onProgress?.({ phase: 'design', done: p.done, total: p.total }) });
  // the regroup's rewrite lookups are handed to the copy marking: each page is looked up once
  const regrouped = (await needsRegroup(store, k)) ? await regroupAll(store, k, { onProgress, keepLinks: true }) : null;
  let passages: PassageOrganised | null;
  try {
    passages = await indexPending(store, { onProgress, links: regrouped?.links });
  } finally {
    regrouped?.links?.watch.close();
  }
  if (regrouped !== null) delete regrouped.links;
  const compacted = await compactTables(store);
  return { moved, regrouped, passages, compacted };
}
