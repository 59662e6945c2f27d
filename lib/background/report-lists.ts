// What a report lists, from what the store found for a page: each page summed up, the passages
// folded one entry a set, the rewrites, and the original of the page's story with why. The
// recorder's replies (lib/background/recorder.ts) are made of these.
import type { RewriteLanguage } from '../fingerprint/rewrite-anchors';
import type { RewriteRecordMatch } from '../index/rewrite-store';
import { PASSAGE_COPY_SHARE } from '../report/copies';
import { foldSamePassages } from '../report/fold';
import { findOriginal } from '../report/original';
import { LIMITS, type OriginalSummary, type PageSummary, type PassageMatch, type RewriteSummary } from '../protocol/messages';
import type { PageMatches } from '../store/pages';
import type { RecordMatch } from '../store/passages';
import type { PageRecord } from '../store/schema';

export function summary(record: PageRecord): PageSummary {
  return {
    url: record.url,
    title: record.title,
    site: record.site,
    simhash: record.simhash,
    firstSeen: record.firstSeen,
    lastSeen: record.lastSeen,
    visits: record.visits,
  };
}

/** The pages of a page's story, for finding its original: its near-duplicates, the pages it shares half its text with (either way), its rewrites. */
function storyOf({ near, passages, rewrites }: Pick<PageMatches, 'near' | 'passages' | 'rewrites'>): PageRecord[] {
  const halves = passages.filter(({ match }) => Math.max(match.share, match.otherShare) >= PASSAGE_COPY_SHARE);
  return [...near, ...halves, ...rewrites].map(({ record }) => record);
}

/** The original of a page's story (lib/report/original.ts findOriginal), as the popup shows it; null when nothing is related. */
export function originalSummary(record: PageRecord, found: Pick<PageMatches, 'near' | 'passages' | 'rewrites'>): OriginalSummary | null {
  const finding = findOriginal(record, storyOf(found));
  if (finding === null) return null;
  const { original, evidence, days } = finding;
  return { url: original.url, title: original.title, site: original.site, self: original === record, evidence, days };
}

/** The matches as one entry per set of shared passages (lib/report/fold.ts), at most LIMITS.passageSets: what the popup lists and the badge counts. */
export function foldedPassages(matches: readonly RecordMatch[]): { lead: RecordMatch; alsoIn: RecordMatch[] }[] {
  const foldable = matches.map((m) => ({ m, hashes: m.match.hashes, firstSeen: m.record.firstSeen, url: m.record.url }));
  return foldSamePassages(foldable)
    .slice(0, LIMITS.passageSets)
    .map(({ lead, alsoIn }) => ({ lead: lead.m, alsoIn: alsoIn.map((other) => other.m) }));
}

/** The pages sharing passages, as the popup lists them (shares rounded to 4 decimals); `original`: the URL of the story's original. */
export function listedPassages(matches: readonly RecordMatch[], original?: string): PassageMatch[] {
  const round = (share: number): number => Math.round(share * 10_000) / 10_000;
  return foldedPassages(matches).map(({ lead: { record, match }, alsoIn }) => ({
    ...summary(record),
    share: round(match.share),
    otherShare: round(match.otherShare),
    passages: match.passages.length,
    hashes: match.hashes,
    ends: match.ends,
    alsoIn: alsoIn.map((other) => summary(other.record)),
    original: record.url === original,
  }));
}

/** The rewrites, as the popup lists them (at most LIMITS.passageSets, shares rounded to 4 decimals); `original`: the URL of the story's original. */
export function listedRewrites(matches: readonly RewriteRecordMatch<PageRecord>[], ownLanguage: RewriteLanguage, original?: string): RewriteSummary[] {
  return matches.slice(0, LIMITS.passageSets).map(({ record, match }) => ({
    ...summary(record),
    share: Math.round(Math.max(match.comparison.aInB, match.comparison.bInA) * 10_000) / 10_000,
    translated: match.translated,
    language: match.lang,
    ownLanguage,
    hashes: match.shared,
    original: record.url === original,
  }));
}
