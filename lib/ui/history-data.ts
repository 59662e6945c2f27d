// Reading the history page's data out of the store: entries newest first (a group of
// near-duplicates and rewrites folded into one entry), the overall counts, and the sites that copy. Every read
// is one short readonly transaction over a tree or the kept counts (lib/store/tally.ts), so that
// the first screen of a store of a million pages costs about as much as that of a hundred.
import { type SiteMark, type SiteStanding, areNearDuplicates, rootOf, seenBefore, siteStanding } from '../report/groups';
import { type Evidence, judgeOriginal, originalAmong } from '../report/original';
import { MAX_PAGE_ID, lastSeenEntry } from '../rows/page-rows';
import type { PageReader } from '../store/pages';
import { storedPassageMatches } from '../store/passages';
import { rewriteMatchesOf } from '../store/page-rewrites';
import { memberOf } from '../store/records';
import { isPassageCopyOf, mayCopy } from '../report/copies';
import type { RewriteLanguage } from '../fingerprint/rewrite-anchors';
import type { Localizer } from './i18n';
import { languageName } from './rewrites-view';
import type { PageRecord, SiteCounts } from '../store/schema';
import { countSite, parseGroupCounts, parseSiteBucket, readPageCount, siteBucket } from '../store/tally';

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

/** One entry of the history: a page alone, or a group of near-duplicates and rewrites. */
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

/**
 * The next entries of the history, newest first (by the newest lastSeen of their pages), from
 * `after`. A group is one entry, placed at its most recently seen page and listed once (ids in
 * `shown` are passed over, and the ids returned are added to it). Pages are read from the
 * lastSeen tree (lib/rows/page-rows.ts) a batch at a time: the first batch sized for the
 * caller's need, later ones larger.
 */
export async function readHistory(store: PageReader, filter: HistoryFilter, { after = null, limit, maxScan = Infinity, shown }: ReadOptions): Promise<HistoryPage> {
  const needle = filter.text?.trim().toLowerCase() ?? '';
  return store.read(async (rows) => {
    // strictly before the cursor, and no later than `to` (every id of its millisecond)
    let before: number[] | null | undefined = after === null ? undefined : lastSeenEntry(after.lastSeen, after.id);
    if (filter.to !== undefined && (after === null || filter.to < after.lastSeen)) before = lastSeenEntry(filter.to, MAX_PAGE_ID);
    // Entries in order; a group's members are fetched while the reader moves on (one round trip for
    // all of them instead of one each), except under a text search, which needs them to decide.
    const pending: (HistoryEntry | Promise<HistoryEntry>)[] = [];
    let scanned = 0;
    let batch = Math.min(maxScan, limit + 10);
    const membersOf = async (record: PageRecord): Promise<PageRecord[]> => {
      if (record.group === undefined) return [record];
      const members = await rows.where('group', record.group);
      return members.length === 0 ? [record] : members;
    };
    let last: HistoryCursor | null = null;
    let ended = false;
    reading: while (!ended) {
      const { pages, next } = await rows.newestFirst(batch, before ?? undefined);
      batch = Math.max(batch, 200);
      before = next;
      ended = next === null;
      for (let i = 0; i < pages.length; i++) {
        const record = pages[i]!;
        if (filter.from !== undefined && record.lastSeen < filter.from) {
          ended = true;
          break reading;
        }
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
        if (pending.length >= limit || scanned >= maxScan) {
          ended = i === pages.length - 1 && next === null; // this was the tree's last page
          break reading;
        }
      }
    }
    const entries = await Promise.all(pending);
    return { entries, next: ended ? null : last, scanned };
  });
}

export interface Overview {
  pages: number;
  /** Distinct articles: pages in no group, plus one per group. */
  articles: number;
  /** Groups of two or more pages (near-duplicates and rewrites). */
  groups: number;
}

/** The counts at the top of the history page: meta's kept counts (lib/store/tally.ts), no walk over the pages. */
export async function readOverview(store: PageReader): Promise<Overview> {
  return store.read(async (rows, tx) => {
    const meta = tx.objectStore('meta');
    const [pages, kept] = await Promise.all([readPageCount(rows, meta), meta.get('groupCounts')]);
    // counted (a walk over the groups) only if the kept counts are missing or unreadable
    const { grouped, groups } = parseGroupCounts(kept) ?? (await rows.countGroups());
    return { pages, articles: pages - grouped + groups, groups };
  });
}

type SiteCountsReader = { get(bucket: number): Promise<unknown> };
type PagesCounter = Parameters<typeof countSite>[0];

/** A site's kept counts; counted from the site tree if it has no readable row (a site with no pages has none). */
async function siteCountsOf(counts: SiteCountsReader, pages: PagesCounter, site: string): Promise<SiteCounts> {
  return parseSiteBucket(await counts.get(siteBucket(site)))?.get(site) ?? countSite(pages, site);
}

/** The standing of one site (the popup's flag). */
export async function readSiteStanding(store: PageReader, site: string, mark: SiteMark | null): Promise<SiteStanding> {
  const { pages, copies, credited } = await store.read((rows, tx) => siteCountsOf(tx.objectStore('siteCounts'), rows, site));
  return siteStanding(site, pages, copies, credited, mark);
}

/**
 * Every site with at least one copy, and every marked site: flagged ones first, then by share of
 * copies, then by name. One read of the kept site counts (lib/store/tally.ts).
 */
export async function readSiteStandings(store: PageReader, marks: ReadonlyMap<string, SiteMark>): Promise<SiteStanding[]> {
  const { withCopies, marked } = await store.read(async (pages, tx) => {
    const rows = new Map((await tx.objectStore('siteCounts').getAll()).flatMap((bucket) => [...(parseSiteBucket(bucket) ?? [])]));
    // a marked site with no row: counted (it has no page, or its bucket was lost)
    const counted = await Promise.all([...marks.keys()].filter((site) => (rows.get(site)?.copies ?? 0) === 0).map(async (site) => rows.get(site) ?? countSite(pages, site)));
    return { withCopies: [...rows.values()].filter((row) => row.copies > 0), marked: counted };
  });
  const out = [...withCopies, ...marked].map(({ site, pages, copies, credited }) => siteStanding(site, pages, copies, credited, marks.get(site) ?? null));
  const share = (s: SiteStanding): number => (s.pages === 0 ? 0 : s.copies / s.pages);
  return out.sort((a, b) => Number(b.flagged) - Number(a.flagged) || share(b) - share(a) || b.copies - a.copies || (a.site < b.site ? -1 : a.site > b.site ? 1 : 0));
}

/**
 * A copy beside the page it copies: its group's original (lib/report/original.ts), on another
 * site, when it is a near-duplicate of it or copies by nothing else; for a passage copy that is no
 * such near-duplicate, the original, among the pages of other sites it is a copy of, that half of
 * its words are shared with (`share`: that fraction); for a rewrite copy that is neither (a rewrite
 * is grouped with its original), the original among the pages of other sites it rewrites or
 * translates and is a copy of (`rewrite`). `evidence`: why that page is the original of the two.
 */
export interface CopyEvidence {
  copy: PageRecord;
  original: PageRecord;
  evidence: Evidence;
  share?: number;
  /** Whether the copy is a translation of the original, and the copy's language as its rewrite fingerprints guess it. */
  rewrite?: { translated: boolean; language: RewriteLanguage };
}

/**
 * The words between a copy and its original in the evidence list: "copies", "repeats 62% of its
 * words from", "looks like a rewrite of" or "looks like the Spanish translation of".
 */
export function evidenceVerb(l: Localizer, { share, rewrite }: Pick<CopyEvidence, 'share' | 'rewrite'>): string {
  if (share !== undefined) return l.t('copiesPassages', l.share(share));
  if (rewrite === undefined) return l.t('copies');
  const language = rewrite.translated ? languageName(l, rewrite.language) : null;
  return language === null ? l.t('copiesRewrite') : l.t('copiesTranslation', language);
}

/** The match whose page is the original among them (lib/report/original.ts originalAmong); undefined if none. */
function originalMatch<M extends { record: PageRecord }>(matches: readonly M[]): M | undefined {
  if (matches.length === 0) return undefined;
  const original = originalAmong(matches.map((m) => m.record));
  return matches.find((m) => m.record === original);
}

/** The evidence for a site: each of its copies beside its original, newest copy first; at most `limit`. */
export async function readSiteEvidence(store: PageReader, site: string, limit = 200): Promise<CopyEvidence[]> {
  const { k } = await store.groupsState();
  const nearDuplicates = (a: PageRecord, b: PageRecord): boolean => {
    const [x, y] = [memberOf(a), memberOf(b)];
    return x !== null && y !== null && areNearDuplicates(x, y, k);
  };
  const out = await store.read(async (rows, _tx, passages, rewrites) => {
    const copies = await rows.where('copySite', site, limit);
    return Promise.all(
      copies.map(async (copy): Promise<CopyEvidence> => {
        const members = copy.group === undefined ? [copy] : await rows.where('group', copy.group);
        const root = rootOf(members.length > 0 ? members : [copy]);
        if (copy.contentCopy === true && !(copy.copySite !== undefined && nearDuplicates(copy, root))) {
          const own = await passages.fingerprintsOf(copy.id);
          const matches = own === undefined ? [] : await storedPassageMatches(passages, (id) => rows.get(id), own, copy.id, new Set());
          const first = originalMatch(matches.filter(({ record, match }) => isPassageCopyOf(copy, record, match.share)));
          if (first !== undefined) return { copy, original: first.record, evidence: judgeOriginal(copy, first.record).evidence, share: first.match.share };
          const ownRewrites = await rewrites.fingerprintsOf(copy.id);
          const rewritten = ownRewrites === undefined ? [] : await rewriteMatchesOf(rows, rewrites, ownRewrites, copy.id);
          const source = originalMatch(rewritten.filter(({ record }) => mayCopy(copy, record)));
          if (source !== undefined && ownRewrites !== undefined) return { copy, original: source.record, evidence: judgeOriginal(copy, source.record).evidence, rewrite: { translated: source.match.translated, language: ownRewrites.lang } };
        }
        return { copy, original: root, evidence: judgeOriginal(copy, root).evidence };
      }),
    );
  });
  return out.sort((a, b) => b.copy.firstSeen - a.copy.firstSeen);
}
