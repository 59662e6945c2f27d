// Reading the history page's data out of the store: entries newest first (a group of
// near-duplicates folded into one entry), the overall counts, and the sites that copy. Every read
// is one short readonly transaction over an index or the kept counts (lib/store/tally.ts), so that
// the first screen of a store of a million pages costs about as much as that of a hundred.
import { type SiteMark, type SiteStanding, rootOf, seenBefore, siteStanding } from '../groups';
import { type IDBPIndex, unwrap, wrap } from 'idb';
import type { PageStore } from './pages';
import type { DoppelDB, PageRecord, SiteCounts } from './schema';
import { countGroups, countSite, parseGroupCounts, parseSiteBucket, readPageCount, siteBucket } from './tally';

export interface HistoryFilter {
  /** Case-insensitive text sought in the title, URL or site of any page of an entry. */
  text?: string;
  /** Only entries with a page last seen at or after this time (ms since the epoch). */
  from?: number;
  /** …and at or before this time. */
  to?: number;
  /** Only entries of two or more pages. */
  hasCopies?: boolean;
}

/** One entry of the history: a page alone, or a group of near-duplicates. */
export interface HistoryEntry {
  /** The group id, or the page's URL for a page in no group. */
  id: string;
  /** The earliest-seen page of the group (the page itself when alone). */
  root: PageRecord;
  /** The other pages, earliest first. */
  copies: PageRecord[];
  /** The newest lastSeen among its pages: the entry's place in the list. */
  newest: number;
}

/** Where a read stopped: the last record the lastSeen cursor passed (its lastSeen and key). */
export interface HistoryCursor {
  lastSeen: number;
  id: number;
}

export interface HistoryPage {
  entries: HistoryEntry[];
  /** Where to go on from; null at the end of the history. */
  next: HistoryCursor | null;
  /** Records the cursor passed (matching or not). */
  scanned: number;
}

export interface ReadOptions {
  after?: HistoryCursor | null;
  /** Stop after this many entries… */
  limit: number;
  /** …or after passing this many records (a search reads on in further calls). */
  maxScan?: number;
  /** Ids of entries already shown: their pages are passed over (a group appears once, at its newest page). */
  shown: Set<string>;
}

function matchesText(record: PageRecord, needle: string): boolean {
  return record.title.toLowerCase().includes(needle) || record.url.toLowerCase().includes(needle) || record.site.includes(needle);
}

/** The entry of a group's members. */
export function entryOf(id: string, members: readonly PageRecord[]): HistoryEntry {
  const root = rootOf(members);
  const copies = members.filter((m) => m !== root).sort((a, b) => (seenBefore(a, b) ? -1 : seenBefore(b, a) ? 1 : 0));
  return { id, root, copies, newest: Math.max(...members.map((m) => m.lastSeen)) };
}

type LastSeenIndex = IDBPIndex<DoppelDB, ['pages'], 'pages', 'lastSeen', 'readonly'>;

/** Records of the `lastSeen` index, newest first, after `after` (or from the top of `range`). */
interface NewestFirst {
  /** The next record, or null at the end of the range. */
  next(): Promise<PageRecord | null>;
  /** True once the range is known to hold no record past the last one returned. */
  ended(): boolean;
}

interface IndexRecord {
  key: number;
  primaryKey: number;
  value: PageRecord;
}
type GetAllRecords = (options: { query?: IDBKeyRange | null; count?: number; direction?: IDBCursorDirection }) => IDBRequest<IndexRecord[]>;

/** Whether (record key, primary key) comes after `after` in newest-first order. */
const isPast = (key: number, id: number, after: HistoryCursor | null): boolean =>
  after === null || key < after.lastSeen || (key === after.lastSeen && id < after.id);

/**
 * Newest-first reading. Where the browser has IDBIndex.getAllRecords with a direction (Chromium
 * 141+) a batch of `batch` records is one request (the first is sized for the caller's need,
 * later ones larger); elsewhere, and to get past a batch made only of records that share one
 * lastSeen, one cursor step per record. Each batch asks for the records at or below the last
 * lastSeen seen and drops those already returned.
 */
function newestFirst(index: LastSeenIndex, range: IDBKeyRange | undefined, after: HistoryCursor | null, batch: number): NewestFirst {
  const raw = unwrap(index) as IDBIndex & { getAllRecords?: GetAllRecords };
  const lower = range?.lower as number | undefined;
  let position = after;
  let buffered: PageRecord[] = [];
  let done = false;
  let useCursor = typeof raw.getAllRecords !== 'function';
  let cursor: Awaited<ReturnType<LastSeenIndex['openCursor']>> | undefined;

  const below = (from: HistoryCursor | null): IDBKeyRange | undefined => {
    if (from === null) return range;
    return lower === undefined ? IDBKeyRange.upperBound(from.lastSeen) : IDBKeyRange.bound(lower, from.lastSeen);
  };

  let lastBatchShort = false;
  const fill = async (): Promise<void> => {
    const count = batch;
    batch = Math.max(batch, 200);
    const records = (await wrap(raw.getAllRecords!({ query: below(position) ?? null, count, direction: 'prev' }))) as unknown as IndexRecord[];
    buffered = records.filter((r) => isPast(r.key, r.primaryKey, position)).map((r) => r.value);
    lastBatchShort = records.length < count;
    if (buffered.length === 0 && !lastBatchShort) useCursor = true; // a whole batch of records already returned (ties)
  };

  const stepCursor = async (): Promise<PageRecord | null> => {
    if (cursor === undefined) {
      cursor = await index.openCursor(below(position), 'prev');
      // resume after `position`: skip the records at its lastSeen whose key is at or after its key
      if (cursor && position !== null && cursor.key === position.lastSeen && cursor.primaryKey >= position.id) {
        if (cursor.primaryKey > position.id) cursor = await cursor.continuePrimaryKey(position.lastSeen, position.id);
        if (cursor && cursor.key === position.lastSeen && cursor.primaryKey === position.id) cursor = await cursor.continue();
      }
    } else if (cursor !== null) {
      cursor = await cursor.continue();
    }
    return cursor?.value ?? null;
  };

  return {
    async next() {
      if (done) return null;
      if (buffered.length === 0 && !useCursor) {
        if (lastBatchShort) done = true;
        else await fill();
      }
      let record: PageRecord | null = null;
      if (buffered.length > 0) record = buffered.shift()!;
      else if (useCursor && !done) record = await stepCursor();
      if (record === null) {
        done = true;
        return null;
      }
      position = { lastSeen: record.lastSeen, id: record.id };
      return record;
    },
    ended: () => done || (buffered.length === 0 && lastBatchShort && !useCursor),
  };
}

/**
 * The next entries of the history, newest first (by the newest lastSeen of their pages), from
 * `after`. A group is one entry, placed at its most recently seen page and listed once (ids in
 * `shown` are passed over, and the ids returned are added to it).
 */
export async function readHistory(store: PageStore, filter: HistoryFilter, { after = null, limit, maxScan = Infinity, shown }: ReadOptions): Promise<HistoryPage> {
  const needle = filter.text?.trim().toLowerCase() ?? '';
  const tx = store.db.transaction('pages', 'readonly');
  const index = tx.store.index('lastSeen');
  const groups = tx.store.index('group');
  const upper = after?.lastSeen ?? filter.to;
  const lower = filter.from;
  const range =
    upper !== undefined && lower !== undefined
      ? IDBKeyRange.bound(lower, Math.min(upper, filter.to ?? Infinity))
      : upper !== undefined
        ? IDBKeyRange.upperBound(Math.min(upper, filter.to ?? Infinity))
        : lower !== undefined
          ? IDBKeyRange.lowerBound(lower)
          : undefined;
  // Entries in order; a group's members are fetched while the reader moves on (one round trip for
  // all of them instead of one each), except under a text search, which needs them to decide.
  const pending: (HistoryEntry | Promise<HistoryEntry>)[] = [];
  let scanned = 0;
  const reader = newestFirst(index, range, after, Math.min(maxScan, limit + 10));
  const membersOf = async (record: PageRecord): Promise<PageRecord[]> => {
    if (record.group === undefined) return [record];
    const members = await groups.getAll(IDBKeyRange.only(record.group));
    return members.length === 0 ? [record] : members;
  };
  let last: HistoryCursor | null = null;
  for (let record = await reader.next(); record !== null; record = await reader.next()) {
    scanned++;
    last = { lastSeen: record.lastSeen, id: record.id };
    const id = record.group ?? record.url;
    if (!shown.has(id) && (!filter.hasCopies || record.group !== undefined)) {
      if (needle === '') {
        shown.add(id);
        pending.push(membersOf(record).then((members) => entryOf(id, members)));
      } else {
        const members = await membersOf(record);
        if (members.some((m) => matchesText(m, needle))) {
          shown.add(id);
          pending.push(entryOf(id, members));
        }
      }
    }
    if (pending.length >= limit || scanned >= maxScan) break;
  }
  const ended = reader.ended();
  const entries = await Promise.all(pending);
  await tx.done;
  return { entries, next: ended ? null : last, scanned };
}

export interface Overview {
  pages: number;
  /** Distinct articles: pages in no group, plus one per group. */
  articles: number;
  /** Groups of two or more near-duplicates. */
  groups: number;
}

/** The counts at the top of the history page: meta's kept counts (lib/store/tally.ts), no walk over the pages. */
export async function readOverview(store: PageStore): Promise<Overview> {
  const tx = store.db.transaction(['pages', 'meta'], 'readonly');
  const pagesStore = tx.objectStore('pages');
  const meta = tx.objectStore('meta');
  const [pages, kept] = await Promise.all([readPageCount(pagesStore, meta), meta.get('groupCounts')]);
  // counted (a walk over the groups) only if the kept counts are missing or unreadable
  const { grouped, groups } = parseGroupCounts(kept) ?? (await countGroups(pagesStore.index('group')));
  await tx.done;
  return { pages, articles: pages - grouped + groups, groups };
}

type SiteCountsReader = { get(bucket: number): Promise<unknown> };
type PagesCounter = Parameters<typeof countSite>[0];

/** A site's kept counts; counted from the indexes if it has no readable row (a site with no pages has none). */
async function siteCountsOf(counts: SiteCountsReader, pages: PagesCounter, site: string): Promise<SiteCounts> {
  return parseSiteBucket(await counts.get(siteBucket(site)))?.get(site) ?? countSite(pages, site);
}

/** The standing of one site (the popup's flag). */
export async function readSiteStanding(store: PageStore, site: string, mark: SiteMark | null): Promise<SiteStanding> {
  const tx = store.db.transaction(['pages', 'siteCounts'], 'readonly');
  const { pages, copies } = await siteCountsOf(tx.objectStore('siteCounts'), tx.objectStore('pages'), site);
  await tx.done;
  return siteStanding(site, pages, copies, mark);
}

/**
 * Every site with at least one copy, and every marked site: flagged ones first, then by share of
 * copies, then by name. One read of the kept site counts (lib/store/tally.ts).
 */
export async function readSiteStandings(store: PageStore, marks: ReadonlyMap<string, SiteMark>): Promise<SiteStanding[]> {
  const tx = store.db.transaction(['pages', 'siteCounts'], 'readonly');
  const counts = tx.objectStore('siteCounts');
  const rows = new Map((await counts.getAll()).flatMap((bucket) => [...(parseSiteBucket(bucket) ?? [])]));
  const withCopies = [...rows.values()].filter((row) => row.copies > 0);
  // a marked site with no row: counted (it has no page, or its bucket was lost)
  const marked = await Promise.all([...marks.keys()].filter((site) => (rows.get(site)?.copies ?? 0) === 0).map(async (site) => rows.get(site) ?? countSite(tx.objectStore('pages'), site)));
  await tx.done;
  const out = [...withCopies, ...marked].map(({ site, pages, copies }) => siteStanding(site, pages, copies, marks.get(site) ?? null));
  const share = (s: SiteStanding): number => (s.pages === 0 ? 0 : s.copies / s.pages);
  return out.sort((a, b) => Number(b.flagged) - Number(a.flagged) || share(b) - share(a) || b.copies - a.copies || (a.site < b.site ? -1 : a.site > b.site ? 1 : 0));
}

/** A copy beside the page it copies (the earliest-seen page of its group, on another site). */
export interface CopyEvidence {
  copy: PageRecord;
  original: PageRecord;
}

/** The evidence for a site: each of its copies beside its original, newest copy first; at most `limit`. */
export async function readSiteEvidence(store: PageStore, site: string, limit = 200): Promise<CopyEvidence[]> {
  const tx = store.db.transaction('pages', 'readonly');
  const copies = await tx.store.index('copySite').getAll(IDBKeyRange.only(site), limit);
  const groups = tx.store.index('group');
  const out = await Promise.all(
    copies.map(async (copy) => {
      const members = copy.group === undefined ? [copy] : await groups.getAll(IDBKeyRange.only(copy.group));
      return { copy, original: rootOf(members.length > 0 ? members : [copy]) };
    }),
  );
  await tx.done;
  return out.sort((a, b) => b.copy.firstSeen - a.copy.firstSeen);
}
