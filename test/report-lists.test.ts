// What a report lists (lib/background/report-lists.ts): the original of a page's story among its
// near-duplicates, the pages it shares at least half its text with and its rewrites, marked in
// each list; a page that only quotes a little is not part of the story.
import { describe, expect, it } from 'vitest';
import { listedPassages, listedRewrites, originalSummary } from '../lib/background/report-lists';
import type { RecordMatch } from '../lib/store/passages';
import type { PageRecord } from '../lib/store/schema';
import type { RewriteRecordMatch } from '../lib/index/rewrite-store';

const DAY = 86_400_000;
const T = Date.UTC(2026, 2, 1);
let ids = 0;
const record = (site: string, seen: number, fields: Partial<PageRecord> = {}): PageRecord => ({
  id: ids++, url: `https://${site}/a`, title: `On ${site}`, site, simhash: '0000000000000000', check: '', firstSeen: T + seen * DAY, lastSeen: T + seen * DAY, visits: 1, ...fields,
});
const passage = (other: PageRecord, share: number, otherShare: number): RecordMatch => ({ record: other, match: { id: other.id, share, otherShare, passages: [], hashes: [other.id + 1], ends: [] } });
const rewrite = (other: PageRecord): RewriteRecordMatch<PageRecord> =>
  ({ record: other, match: { id: other.id, translated: false, lang: 'en', shared: [7], comparison: { aInB: 0.5, bInA: 0.4 } } }) as unknown as RewriteRecordMatch<PageRecord>;

describe('originalSummary', () => {
  const farm = record('farm.example', 0);
  const pub = record('pub.example', 3, { published: T - 2 * DAY });

  it('a copy read first names its original, published earlier, in whichever list it is', () => {
    const want = { url: pub.url, title: pub.title, site: 'pub.example', self: false, evidence: 'published', days: 2 };
    expect(originalSummary(farm, { near: [{ record: pub, distance: 1 }], passages: [], rewrites: [] })).toEqual(want);
    expect(originalSummary(farm, { near: [], passages: [passage(pub, 0.6, 0.4)], rewrites: [] })).toEqual(want);
    expect(originalSummary(farm, { near: [], passages: [passage(pub, 0.2, 0.9)], rewrites: [] })).toEqual(want); // it is an excerpt of this page… or this page of it: half of either
    expect(originalSummary(farm, { near: [], passages: [], rewrites: [rewrite(pub)] })).toEqual(want);
  });

  it('the original itself says so; a page quoting less than half of either is not its story', () => {
    expect(originalSummary(pub, { near: [{ record: farm, distance: 1 }], passages: [], rewrites: [] })).toMatchObject({ url: pub.url, self: true, evidence: 'published' });
    expect(originalSummary(farm, { near: [], passages: [passage(pub, 0.3, 0.2)], rewrites: [] })).toBeNull();
    expect(originalSummary(farm, { near: [], passages: [], rewrites: [] })).toBeNull();
  });

  it('the lists mark the original', () => {
    const other = record('other.example', 1);
    expect(listedPassages([passage(pub, 0.6, 0.5), passage(other, 0.55, 0.5)], pub.url).map((m) => [m.site, m.original])).toEqual([['pub.example', true], ['other.example', false]]);
    expect(listedRewrites([rewrite(other), rewrite(pub)], 'en', pub.url).map((m) => [m.site, m.original])).toEqual([['other.example', false], ['pub.example', true]]);
    expect(listedRewrites([rewrite(pub)], 'en').map((m) => m.original)).toEqual([false]);
  });
});
