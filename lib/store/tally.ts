// The counts the history page and the popup show, kept as pages are written instead of counted
// when they are read: at a million pages, counting the groups (a cursor over the `group` index)
// took seconds and counting the pages of thousands of sites held the database for longer, while
// later pages waited to open it (docs/bench/2026-11-22-1m-history-marks-after-*.txt).
//
// A Tally goes with one readwrite transaction. Each change of a page is announced to it
// (`change(before, after)`), and `flush` after the last change, before the pages are flushed (lib/rows/page-rows.ts),
// adds up what changed: meta `pageCount` and `groupCounts`, and the `siteCounts` rows of the
// sites touched (in SITE_BUCKETS values: lib/store/schema.ts). So the counts land with the writes, or not at
// all. A count that is missing (lost, or never written) is counted afresh from the trees, with
// the transaction's changes, instead of adjusted.
import { hash64 } from '../fingerprint/hash';
import { type GroupCounts, type PageRecord, type SiteBucket, type SiteCounts, isCount } from './schema';
import { isCopy, isCreditedCopy } from '../report/copies';

/** What a tally needs of the pages (lib/rows/page-rows.ts PageRows), in its transaction. */
export interface CountedPages {
  countAll(): Promise<number>;
  countWhere(field: 'site' | 'copySite', value: string): Promise<number>;
  /** The records whose field is `value` (the copies of a site, when counting those that credit their source). */
  where(field: 'copySite', value: string): Promise<PageRecord[]>;
  /** Whether some page had `group` before the transaction's first change, and whether one has it now. */
  hadGroup(group: string): Promise<boolean>;
  hasGroup(group: string): Promise<boolean>;
  countGroups(): Promise<GroupCounts>;
}

export interface TallyMeta {
  get(key: 'pageCount' | 'groupCounts'): Promise<unknown>;
  put(value: number | GroupCounts, key: 'pageCount' | 'groupCounts'): Promise<unknown>;
}

export interface SiteCountsStore {
  get(bucket: number): Promise<unknown>;
  getAll(): Promise<unknown[]>;
  put(value: SiteBucket): Promise<unknown>;
  delete(bucket: number): Promise<unknown>;
}

/** How many values the site rows are spread over. */
export const SITE_BUCKETS = 64;

/** The bucket of a site's row: a hash of its name, 0 to SITE_BUCKETS − 1. */
export function siteBucket(site: string): number {
  return hash64(site).lo % SITE_BUCKETS;
}

const bySite = (a: SiteCounts, b: SiteCounts): number => (a.site < b.site ? -1 : a.site > b.site ? 1 : 0);

/** `items` by the bucket of their site, each list in the order of `items`. */
function byBucket<T>(items: Iterable<T>, siteOf: (item: T) => string): Map<number, T[]> {
  const buckets = new Map<number, T[]>();
  for (const item of items) {
    const bucket = siteBucket(siteOf(item));
    const list = buckets.get(bucket);
    if (list === undefined) buckets.set(bucket, [item]);
    else list.push(item);
  }
  return buckets;
}

/** A stored bucket's readable rows in it, by site; null if the value is not a bucket. */
export function parseSiteBucket(value: unknown): Map<string, SiteCounts> | null {
  const v = value as Partial<SiteBucket> | null | undefined;
  if (v == null || !Number.isInteger(v.bucket) || !Array.isArray(v.rows)) return null;
  const rows = new Map<string, SiteCounts>();
  for (const raw of v.rows) {
    const row = parseSiteCounts(raw);
    if (row !== null && siteBucket(row.site) === v.bucket) rows.set(row.site, row);
  }
  return rows;
}

/** meta `pageCount`; counted (a walk over every page) only if it is missing or unreadable. */
export async function readPageCount(pages: Pick<CountedPages, 'countAll'>, meta: { get(key: 'pageCount'): Promise<unknown> }): Promise<number> {
  const stored = await meta.get('pageCount');
  return isCount(stored) ? stored : pages.countAll();
}

/** meta `groupCounts`, if it is readable. */
export function parseGroupCounts(value: unknown): GroupCounts | null {
  const v = value as Partial<GroupCounts> | null | undefined;
  return v != null && isCount(v.grouped) && isCount(v.groups) && v.groups <= v.grouped ? { grouped: v.grouped, groups: v.groups } : null;
}

/** A `siteCounts` row, if it is readable. */
export function parseSiteCounts(value: unknown): SiteCounts | null {
  const v = value as Partial<SiteCounts> | null | undefined;
  if (v == null || typeof v.site !== 'string' || !isCount(v.pages) || !isCount(v.copies) || v.copies > v.pages) return null;
  if (!isCount(v.credited) || v.credited > v.copies) return null;
  return { site: v.site, pages: v.pages, copies: v.copies, credited: v.credited };
}

/** A site's row counted from the site and copySite trees (and the copies' records, for those that credit their source). */
export async function countSite(pages: Pick<CountedPages, 'countWhere' | 'where'>, site: string): Promise<SiteCounts> {
  const [pageCount, copies] = await Promise.all([pages.countWhere('site', site), pages.where('copySite', site)]);
  return { site, pages: pageCount, copies: copies.length, credited: copies.filter(isCreditedCopy).length };
}

interface SiteDelta {
  pages: number;
  copies: number;
  credited: number;
}

const addTo = (row: SiteCounts, delta: SiteDelta): SiteCounts => ({
  site: row.site,
  pages: Math.max(0, row.pages + delta.pages),
  copies: Math.max(0, row.copies + delta.copies),
  credited: Math.max(0, row.credited + delta.credited),
});

export class Tally {
  private pageDelta = 0;
  private groupedDelta = 0;
  private readonly sites = new Map<string, SiteDelta>();
  /** The groups a page joined or left. */
  private readonly groupsTouched = new Set<string>();
  /** Each record changed so far, as last written (null: deleted): the `before` of a later change. */
  private readonly written = new Map<string, PageRecord | null>();

  constructor(private readonly pages: CountedPages) {}

  /**
   * Announces that the record at `before`'s or `after`'s URL is about to go from `before`
   * (undefined: not stored) to `after` (undefined: deleted).
   */
  change(before: PageRecord | undefined, after: PageRecord | undefined): void {
    const url = (after ?? before)?.url;
    if (url === undefined) return;
    if (this.written.has(url)) before = this.written.get(url) ?? undefined;
    this.written.set(url, after ?? null);
    // a group can appear or vanish only when a record joins or leaves it
    if (before?.group !== after?.group) {
      for (const group of [before?.group, after?.group]) if (group !== undefined) this.groupsTouched.add(group);
    }
    const sign = (record: PageRecord | undefined): number => (record === undefined ? 0 : 1);
    this.pageDelta += sign(after) - sign(before);
    this.groupedDelta += Number(after?.group !== undefined) - Number(before?.group !== undefined);
    if (before !== undefined) this.site(before.site).pages--;
    if (after !== undefined) this.site(after.site).pages++;
    if (before !== undefined && isCopy(before)) this.site(before.site).copies--;
    if (after !== undefined && isCopy(after)) this.site(after.site).copies++;
    if (before !== undefined && isCreditedCopy(before)) this.site(before.site).credited--;
    if (after !== undefined && isCreditedCopy(after)) this.site(after.site).credited++;
  }

  private site(site: string): SiteDelta {
    let delta = this.sites.get(site);
    if (delta === undefined) this.sites.set(site, (delta = { pages: 0, copies: 0, credited: 0 }));
    return delta;
  }

  /**
   * Writes the counts after every change of the transaction has been made, and before the pages
   * are flushed (PageRows.flush): it compares the groups with what they were before.
   */
  async flush(meta: TallyMeta, siteCounts: SiteCountsStore): Promise<void> {
    const [pageCount, groupCounts] = await Promise.all([meta.get('pageCount'), meta.get('groupCounts')]);
    const writes: Promise<unknown>[] = [];
    if (this.pageDelta !== 0 || !isCount(pageCount)) {
      writes.push(meta.put(isCount(pageCount) ? Math.max(0, pageCount + this.pageDelta) : await this.pages.countAll(), 'pageCount'));
    }
    const groups = parseGroupCounts(groupCounts);
    if (groups === null) {
      writes.push(meta.put(await this.pages.countGroups(), 'groupCounts'));
    } else if (this.groupedDelta !== 0 || this.groupsTouched.size > 0) {
      let groupDelta = 0;
      for (const group of this.groupsTouched) groupDelta += Number(await this.pages.hasGroup(group)) - Number(await this.pages.hadGroup(group));
      if (this.groupedDelta !== 0 || groupDelta !== 0) {
        writes.push(meta.put({ grouped: Math.max(0, groups.grouped + this.groupedDelta), groups: Math.max(0, groups.groups + groupDelta) }, 'groupCounts'));
      }
    }
    const touched = byBucket(
      [...this.sites].filter(([, delta]) => delta.pages !== 0 || delta.copies !== 0 || delta.credited !== 0),
      ([site]) => site,
    );
    await Promise.all(
      [...touched].map(async ([bucket, deltas]) => {
        // an unreadable or missing bucket: its touched sites are counted (its other rows, if any were lost, come back as their sites are written)
        const rows = parseSiteBucket(await siteCounts.get(bucket));
        const next = rows ?? new Map<string, SiteCounts>();
        for (const [site, delta] of deltas) {
          const row = rows === null ? await countSite(this.pages, site) : addTo(rows.get(site) ?? { site, pages: 0, copies: 0, credited: 0 }, delta);
          if (row.pages === 0) next.delete(site);
          else next.set(site, row);
        }
        await (next.size === 0 ? siteCounts.delete(bucket) : siteCounts.put({ bucket, rows: [...next.values()].sort(bySite) }));
      }),
    );
    await Promise.all(writes);
  }
}
