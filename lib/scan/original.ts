// Which document of a pair, or of a cluster, is the original, for `scan`: the extension's rule
// (lib/report/original.ts) over what each page says of where it comes from (ScannedDocument's url,
// address, published, source). A folder has no reading order, so where only the order of reading
// would decide (the rule's last step), scan names no original: `original` is null.
//
// A page is known to the rule by the address it declares (its canonical link or og:url) unless that
// names another site's page as its source, when it is known by its own address (its path's, when
// the path starts with a host); a page with neither is known by its path.
import { type Claims, type Evidence, judgeOriginal, originalAmong } from '../report/original';
import type { OriginalOf, ScanCluster, ScannedDocument } from './scan';

export type { OriginalOf, ScanCluster } from './scan';

/** Why a pair's or a cluster's original is the original; null with no original. */
export type ScanEvidence = Exclude<Evidence, 'seen'>;

type Claimed = Claims & { path: string };

/**
 * A document as the rule reads it: every page first seen at once, when it is scanned (a folder has
 * no order), so that a page that states its date is the original of one that states none.
 */
export function claimsOf(document: ScannedDocument): Claimed {
  const url = (document.sourceBy === 'canonical' ? document.url : document.address ?? document.url) ?? `file:///${document.path}`;
  let site = '';
  try {
    site = new URL(url).host;
  } catch {
    // a path: no site
  }
  const published = document.published === undefined ? undefined : Date.parse(document.published);
  return {
    path: document.path,
    url,
    site,
    firstSeen: Number.POSITIVE_INFINITY,
    ...(published === undefined || Number.isNaN(published) ? {} : { published }),
    ...(document.source === undefined || document.sourceBy === undefined ? {} : { source: document.source, sourceBy: document.sourceBy }),
  };
}

const NONE: OriginalOf = { original: null, evidence: null };

/** The original of two documents, and why; none when only the order of reading would say. */
export function originalOfPair(a: Claimed, b: Claimed): OriginalOf {
  const { original, evidence } = judgeOriginal(a, b);
  return evidence === 'seen' ? NONE : { original: original.path, evidence };
}

/** Evidence from the strongest to the weakest: a cluster's original stands on its weakest verdict. */
const STRENGTH: readonly ScanEvidence[] = ['canonical', 'credit', 'published'];

/**
 * The original of a cluster: the rule's original among its members (originalAmong), when it is
 * the original of every pair it makes with another member by the pages' own evidence, with the
 * weakest evidence of those pairs; none otherwise.
 */
export function originalOfCluster(members: readonly Claimed[]): OriginalOf {
  if (members.length < 2) return NONE;
  const original = originalAmong(members);
  let weakest = 0;
  for (const member of members) {
    if (member === original) continue;
    const verdict = judgeOriginal(original, member);
    if (verdict.original !== original || verdict.evidence === 'seen') return NONE;
    weakest = Math.max(weakest, STRENGTH.indexOf(verdict.evidence));
  }
  return { original: original.path, evidence: STRENGTH[weakest]! };
}

/**
 * The report's pairs of every list with their original and evidence, and its clusters as
 * {members, original, evidence}: for `scan --json`, `--ndjson` and the text report.
 */
export function withOriginals(documents: readonly ScannedDocument[]): {
  pair<P extends { a: string; b: string }>(pair: P): P & OriginalOf;
  cluster(members: readonly string[]): ScanCluster;
} {
  const claims = new Map(documents.map((d) => [d.path, claimsOf(d)]));
  const of = (path: string): Claimed => claims.get(path) ?? { path, url: `file:///${path}`, site: '', firstSeen: Number.POSITIVE_INFINITY };
  return {
    pair: (pair) => ({ ...pair, ...originalOfPair(of(pair.a), of(pair.b)) }),
    cluster: (members) => ({ members: [...members], ...originalOfCluster(members.map(of)) }),
  };
}

/** How the text report says a pair's or a cluster's original: "original: #3 (published earlier)", or that none is known. */
export function originalWords({ original, evidence }: OriginalOf, numberOf: (path: string) => string = () => ''): string {
  if (original === null || evidence === null) return 'original: not known (the pages do not say)';
  const why = evidence === 'published' ? 'published earlier' : evidence === 'canonical' ? 'named by a canonical link' : 'named by a credit line';
  return `original: ${[numberOf(original), original].filter(Boolean).join(' ')} (${why})`;
}
