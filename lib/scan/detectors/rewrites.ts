// Rewritten and translated copies (lib/fingerprint/rewrites.ts): the pairs of documents in which
// one holds at least REWRITE_THRESHOLD of the other's pairs of rare words in order (names, places,
// numbers), the larger share and whether the two are in different languages. A page's code is a
// few dozen hashes, so `--ndjson` lists them too.
import { REWRITE_PARAMS, REWRITE_RULE, type RewriteComparison, type RewriteParams, type RewriteRule, type RewriteFingerprints, type WideSample, compareRewrites, isRewritePair, rewriteFingerprintsWithWide, translated, WIDE_CAP } from '../../fingerprint/rewrites';
import { findRewritePairs } from '../../index/rewrite-index';
import type { CopyDetector, CopyPair } from '../detector';
import { type OriginalOf, originalWords } from '../original';

/** One entry of `scan --json`'s `rewrites`. */
export interface ScanRewrite {
  a: string;
  b: string;
  /** The larger of the two shares: of a's rare-word pairs found in b, and of b's in a (3 decimals). */
  share: number;
  /** Whether the two are in different languages (a guess from their scripts and function words). */
  translated: boolean;
}

/**
 * scan keeps each pair hash whole (32 bits) where the extension cuts it to 20 to store fewer bytes:
 * a long page's index hashes are the smallest below its limit, so at a million documents a 20-bit
 * value is on dozens of documents by chance, and the candidates' self-join (on disk) or postings
 * (in memory) made 461 million pair rows to find 302,656 candidates (docs/scale.md). Two documents
 * meet on a 32-bit hash only when they share the pair of rare words, or by a chance 4,096 times
 * rarer. Both paths take these fingerprints, so they agree.
 */
export const SCAN_REWRITE_PARAMS: RewriteParams = { ...REWRITE_PARAMS, sample: { ...REWRITE_PARAMS.sample, bits: 32 } };

/** A text's rewrite code as scan takes it: whole hashes, and the wide sample of a long page. */
export const scanRewriteCode = (text: string): ScanCode => rewriteFingerprintsWithWide(text, WIDE_CAP, SCAN_REWRITE_PARAMS);

/** A pair of rare words on more than this many documents is left out: it says the subject, not the article (as for passages' boilerplate). */
export const REWRITE_MAX_PAGES = 100;

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Candidates are the pairs whose samples pass this lower threshold; each is then judged on its
 * samples and on the two pages' wide samples (WIDE_CAP hashes for a long page, where the sample
 * has 64): a pair when the wide samples pass the rule, or when the samples pass it and the wide
 * ones hold at least this share. Two long pages dense with numbers can share 3 of the 10 hashes
 * under the smaller of their limits by chance (0.3), and 3 of 64 beneath their wide ones
 * (bench:peers at 10×); a long rewrite that shares 0.25 of its 64 may share 0.3 of its 256; and
 * near the threshold the two estimates differ both ways, so neither alone is taken over the other.
 */
export const VERIFY_FROM = 0.15;

export type ScanCode = RewriteFingerprints & { wide?: WideSample };

/** The comparison of two documents' wide samples (their samples, where a page kept every pair). */
export function verifiedComparison(a: ScanCode, b: ScanCode): RewriteComparison {
  return compareRewrites({ ...a, ...(a.wide ?? {}) }, { ...b, ...(b.wide ?? {}) });
}

/** scan's verdict on a candidate (VERIFY_FROM says the rule), with the comparison it rests on: the wide samples', or the samples'. */
export function judgeRewrite(a: ScanCode, b: ScanCode, rule: RewriteRule = REWRITE_RULE): { linked: boolean; comparison: RewriteComparison } {
  const wide = verifiedComparison(a, b);
  if (isRewritePair(wide, rule)) return { linked: true, comparison: wide };
  const sampled = compareRewrites(a, b);
  if (isRewritePair(sampled, rule) && Math.max(wide.aInB, wide.bInA) >= VERIFY_FROM) return { linked: true, comparison: sampled };
  return { linked: false, comparison: wide };
}

/** Up to this many documents scan judges by REWRITE_RULE as it is. */
export const CHANCE_FREE_UP_TO = 300_000;

/**
 * The rule scan judges rewrites by among `documents` documents: REWRITE_RULE, asking one more
 * shared pair for each tenfold (or part of one) past CHANCE_FREE_UP_TO. Unrelated pairs that share
 * a few rare words in order by chance grow as the square of the documents: among a million
 * (bench:scan-scale) three unrelated pairs shared exactly 3 and were linked, while every planted
 * rewrite found shared 4 or more (one 4, the rest 5 or more), and among 100,000 no pair shared
 * fewer than 5. Small folders and the extension keep REWRITE_RULE.
 */
export function scanRewriteRule(documents: number): RewriteRule {
  const extra = documents > CHANCE_FREE_UP_TO ? Math.ceil(Math.log10(documents / CHANCE_FREE_UP_TO)) : 0;
  return { ...REWRITE_RULE, minShared: REWRITE_RULE.minShared + extra };
}

/** What makes two pages a candidate: the rule at VERIFY_FROM (findRewritePairs, or candidateComparison for one pair). */
export const CANDIDATE_RULE = { ...REWRITE_RULE, threshold: VERIFY_FROM };

/** The list's entry for a candidate (a before b), when judgeRewrite links it; null otherwise. */
export function rewriteEntry(a: string, b: string, codeA: ScanCode, codeB: ScanCode, rule: RewriteRule = REWRITE_RULE): ScanRewrite | null {
  const { linked, comparison } = judgeRewrite(codeA, codeB, rule);
  if (!linked) return null;
  return { a, b, share: round3(Math.max(comparison.aInB, comparison.bInA)), translated: translated(codeA, codeB) };
}

export const rewrites: CopyDetector = {
  name: 'rewrites',
  key: 'rewrites',
  streams: true,
  entry: 'rewrite',
  noteKey: 'rewriteNote',
  code: (text) => scanRewriteCode(text),
  noteOf: (code) => (code as RewriteFingerprints | null)?.note,
  async find(documents, reported) {
    const present = documents.flatMap((d, i) => (d.code === null ? [] : [i]));
    const codes = present.map((i) => documents[i]!.code as ScanCode);
    const out: ScanRewrite[] = [];
    const rule = scanRewriteRule(documents.length);
    for (const { a, b } of findRewritePairs(codes, CANDIDATE_RULE, REWRITE_MAX_PAGES)) {
      const pa = documents[present[a]!]!.path;
      const pb = documents[present[b]!]!.path;
      if (reported(pa, pb)) continue;
      const entry = rewriteEntry(pa, pb, codes[a]!, codes[b]!, rule);
      if (entry !== null) out.push(entry);
    }
    return out as unknown as CopyPair[];
  },
  section(pairs, numberOf) {
    const list = pairs as unknown as (ScanRewrite & Partial<OriginalOf>)[];
    const out = [`Rewritten or translated copies (${list.length}): pairs that keep the order of their rare words (names, places, numbers)`];
    if (list.length) out.push('     share  kind        a / b');
    for (const r of list) {
      const original = r.original === undefined ? '' : `  ${originalWords({ original: r.original, evidence: r.evidence ?? null }, numberOf)}`;
      out.push(`  ${`${(100 * r.share).toFixed(0)}%`.padStart(8)}  ${(r.translated ? 'translated' : 'rewritten').padEnd(10)}  ${[numberOf(r.a), r.a].filter(Boolean).join(' ')}  /  ${[numberOf(r.b), r.b].filter(Boolean).join(' ')}${original}`);
    }
    if (list.length) out.push('  (npm run scan -- --compare A B shows their shared rare words)');
    return out.join('\n') + '\n';
  },
};
