// The copy marking's rewrite lookups (lib/organise/passage-organise.ts, step 2): the pages a
// change since the regroup can have reached, the regroup's lookups handed on with their records
// read, and lookups made again, in the store's rewrite index or the one read into memory.
import { isRewriteCopy, mayCopy } from '../report/copies';
import { REWRITE_MAX_PAGES, type RewriteRows, rewriteIndexHashes } from '../index/rewrite-store';
import type { PackedRewriteIndex } from '../index/packed-rewrites';
import type { PageRows } from '../rows/page-rows';
import type { PageStore } from '../store/pages';
import { rewriteMatchesOf } from '../store/page-rewrites';
import type { PageRecord } from '../store/schema';
import type { RewriteLinks } from '../store/rewrite-watch';

/** Pages looked up in the rewrite index a readonly transaction (the buckets it reads are kept until it ends). */
const REWRITE_LOOKUPS_PER_READ = 256;
/**
 * The regroup's lookups whose records are read a readonly transaction (handedLookups): each page
 * and each page it found is in a block of 64 records of its own or nearly, and reading one record
 * parses its whole block, so 256 lookups parsed some 700 blocks' records at once.
 */
const HANDED_LOOKUPS_PER_READ = 64;
/** Index hashes whose postings are read a readonly transaction, for the pages a change reached. */
const HASHES_PER_READ = 1024;

/**
 * The pages whose lookups may differ from the regroup's (links): those whose rewrite fingerprints
 * changed since it began reading, those it did not look up (links.unread), and every page holding
 * an index hash that one of them holds or held, when the hash is on few enough pages to be in a
 * lookup, now or then (its count moved by at most one a changed page). A lookup only reads the
 * postings of its own index hashes and the fingerprints of pages sharing them, so any other page's
 * lookup finds what the regroup's found.
 */
export async function reachedByChanges(store: PageStore, links: RewriteLinks): Promise<Set<number>> {
  const reached = new Set([...links.watch.pages, ...links.unread]);
  const hashes = new Set(links.watch.hashes);
  for (let start = 0; start < links.unread.length; start += REWRITE_LOOKUPS_PER_READ) {
    await store.read(async (_rows, _tx, _passages, rewrites) => {
      const read = await Promise.all(links.unread.slice(start, start + REWRITE_LOOKUPS_PER_READ).map((id) => rewrites.fingerprintsOf(id).catch(() => undefined)));
      for (const own of read) if (own !== undefined) for (const h of rewriteIndexHashes(own)) hashes.add(h);
    });
  }
  const most = REWRITE_MAX_PAGES + reached.size;
  const asked = [...hashes];
  for (let start = 0; start < asked.length; start += HASHES_PER_READ) {
    await store.read(async (_rows, _tx, _passages, rewrites) => {
      for (const holders of (await rewrites.postingsOf(asked.slice(start, start + HASHES_PER_READ))).values()) {
        if (holders.length <= most) for (const id of holders) reached.add(id);
      }
    });
  }
  return reached;
}

/** The regroup's lookups of `ids` (each found something, or was marked contentCopy), with the records read now: no lookup is made. */
export async function handedLookups(store: PageStore, ids: readonly number[], found: ReadonlyMap<number, readonly number[]>): Promise<Map<number, RewriteLookup>> {
  return lookupsOf(store, ids, HANDED_LOOKUPS_PER_READ, async (rows, _rewrites, id) => {
    const [record, others] = await Promise.all([rows.get(id), Promise.all((found.get(id) ?? []).map((other) => rows.get(other)))]);
    return record === undefined ? undefined : { record, matches: others.filter((other): other is PageRecord => other !== undefined).map((other) => ({ record: other })) };
  });
}

/**
 * The pages of `ids` with rewrite fingerprints, each looked up in the rewrite index (the store's,
 * or `inMemory`) as a visit would: its record, whether it is a rewrite copy, and the later pages
 * of other sites it finds (which it may make copies). `found` keeps only the lookups that can
 * change something (a match, or a record marked contentCopy), so that a million lookups do not
 * hold a million records; `count` is every lookup made.
 */
export async function rewriteLookups(store: PageStore, ids: readonly number[], inMemory: PackedRewriteIndex | undefined): Promise<{ found: Map<number, RewriteLookup>; count: number }> {
  let count = 0;
  const found = await lookupsOf(store, ids, REWRITE_LOOKUPS_PER_READ, async (rows, rewrites, id) => {
    const source = inMemory ?? rewrites;
    const [record, own] = await Promise.all([rows.get(id), source.fingerprintsOf(id)]);
    if (record === undefined || own === undefined) return undefined;
    count++;
    return { record, matches: await rewriteMatchesOf(rows, source, own, id) };
  });
  return { found, count };
}

/**
 * The lookups of `ids`, `perRead` a readonly transaction (their reads overlap in it; the record
 * blocks it read are let go at its end: a block of 64 pages read for one or two of them, by the
 * ten thousand). A lookup that finds nothing, of a page not marked contentCopy, changes nothing
 * and is left out.
 */
async function lookupsOf(
  store: PageStore,
  ids: readonly number[],
  perRead: number,
  lookUp: (rows: PageRows, rewrites: RewriteRows, id: number) => Promise<{ record: PageRecord; matches: { record: PageRecord }[] } | undefined>,
): Promise<Map<number, RewriteLookup>> {
  const found = new Map<number, RewriteLookup>();
  for (let start = 0; start < ids.length; start += perRead) {
    await store.read(async (rows, _tx, _passages, rewrites) => {
      await Promise.all(
        ids.slice(start, start + perRead).map(async (id) => {
          const looked = await lookUp(rows, rewrites, id);
          if (looked === undefined || (looked.matches.length === 0 && looked.record.contentCopy !== true)) return;
          found.set(id, lookupOf(looked.record, looked.matches));
        }),
      );
      await rows.releaseRead();
    });
  }
  return found;
}

/** What a page's lookup says, from its record and those of the pages it found. */
function lookupOf(record: PageRecord, matches: readonly { record: PageRecord }[]): RewriteLookup {
  const folded = matches.every((m) => m.record.group !== undefined && m.record.group === record.group);
  return { record, isCopy: isRewriteCopy(record, matches), makes: matches.filter((m) => mayCopy(m.record, record)).map((m) => m.record.id), linked: matches.map((m) => m.record.id), folded };
}

export interface RewriteLookup {
  record: PageRecord;
  isCopy: boolean;
  makes: number[];
  /** The pages it finds, and whether they are in its group already. */
  linked: number[];
  folded: boolean;
}
