// Candidates from the SQL (candidates.ts), judged by the same lib/ code that judges them in memory.
// Each judge names the rows it reads, one a document (`rows`, SQL keyed by `doc`); the scan streams
// every candidate joined with its two documents' rows in one query (scan-on-disk.ts judgeInto), so
// each fingerprint table is read once, whatever the number of candidates. (Looking each batch's
// documents up by id read the whole table for every batch: at a million documents the passage
// judging had not ended after 45 minutes.) A judge returns, for a candidate it keeps, its list
// entry as `scan --json` gives it before its original is added.
import type { JS } from '@duckdb/node-api';
import { hammingDistance, type Fingerprint } from '../../lib/fingerprint/bits';
import { confirmsNearDuplicate } from '../../lib/fingerprint/features';
import { estimateJaccard } from '../../lib/fingerprint/minhash';
import { compareNilsimsa } from '../../lib/fingerprint/nilsimsa';
import type { RewriteLanguage } from '../../lib/fingerprint/rewrite-anchors';
import { comparePassages } from '../../lib/index/passage-index';
import { candidateComparison } from '../../lib/index/rewrite-index';
import { reuseEntry } from '../../lib/scan/reuse';
import { CANDIDATE_RULE, type ScanCode, rewriteEntry, scanRewriteRule } from '../../lib/scan/detectors/rewrites';
import { int32sOf, nilsimsaOfWords, uint32sOf } from './codec';
import type { ScanDatabase } from './database';

/** A list's entry: the two documents' paths and what was measured. */
export interface Entry {
  a: string;
  b: string;
}

/** A document's row of a judge's `rows`. */
export type Row = Record<string, JS>;

export interface Judge {
  /** SQL giving one row a document, with a `doc` column (its id) and the columns `columns` names. */
  rows: string;
  columns: readonly string[];
  /** Reads what every candidate needs, once, before the first (the frequent rewrite hashes). */
  prepare?(db: ScanDatabase): Promise<void>;
  /** The entry of the candidate (a, b), or null when it is not kept. */
  judge(a: Row, b: Row, pathA: string, pathB: string): Entry | null;
}

/** simhash (lib/scan/detectors/simhash.ts): within k bits, confirmed by the check simhash. */
export function simhashJudge(k: number): Judge {
  return {
    rows: 'SELECT id AS doc, simhash, check_simhash FROM documents',
    columns: ['simhash', 'check_simhash'],
    judge: (x, y, a, b) => {
      const distance = hammingDistance(x.simhash as Fingerprint, y.simhash as Fingerprint);
      return distance <= k && confirmsNearDuplicate(x.check_simhash as Fingerprint, y.check_simhash as Fingerprint) ? { a, b, distance } : null;
    },
  };
}

/** minhash (lib/index/lsh.ts lshPairs): signatures agreeing on at least `threshold` of their rows. */
export function minhashJudge(threshold: number): Judge {
  return {
    rows: 'SELECT doc, signature FROM minhash_signatures',
    columns: ['signature'],
    judge: (x, y, a, b) => {
      const jaccard = estimateJaccard(uint32sOf(x.signature as Uint8Array), uint32sOf(y.signature as Uint8Array));
      return jaccard >= threshold ? { a, b, jaccard } : null;
    },
  };
}

/** nilsimsa (lib/fingerprint/nilsimsa.ts): a score of at least `threshold`. */
export function nilsimsaJudge(threshold: number): Judge {
  const code = (row: Row): Uint8Array => nilsimsaOfWords([row.c0, row.c1, row.c2, row.c3] as bigint[]);
  return {
    rows: 'SELECT doc, c0, c1, c2, c3 FROM nilsimsa_codes',
    columns: ['c0', 'c1', 'c2', 'c3'],
    judge: (x, y, a, b) => {
      const score = compareNilsimsa(code(x), code(y));
      return score >= threshold ? { a, b, score } : null;
    },
  };
}

/** The judge of the method named. */
export function methodJudge(method: string, threshold: number): Judge {
  if (method === 'simhash') return simhashJudge(threshold);
  if (method === 'minhash') return minhashJudge(threshold);
  if (method === 'nilsimsa') return nilsimsaJudge(threshold);
  throw new RangeError(`no on-disk judge for the method ${JSON.stringify(method)}`);
}

/** Each document's hashes of `postings` (hash, doc) found in `among` (a table of hash), as a list `column`. */
const hashesAmong = (postings: string, among: string): string =>
  `SELECT p.doc, list(p.hash) AS hashes FROM ${postings} p JOIN ${among} x ON x.hash = p.hash GROUP BY p.doc`;

/**
 * Shared passages (lib/scan/reuse.ts over lib/index/passage-index.ts): the passages a shares with
 * b, boilerplate left out (each document's hashes in passage_boilerplate), with each side's share.
 */
export const passagesJudge: Judge = {
  rows: `SELECT t.doc, t.words, t.hashes, t.positions, t.word_hashes, bp.hashes AS boilerplate FROM passage_texts t LEFT JOIN (${hashesAmong('passage_hashes', 'passage_boilerplate')}) bp ON bp.doc = t.doc`,
  columns: ['words', 'hashes', 'positions', 'word_hashes', 'boilerplate'],
  judge: (x, y, a, b) => {
    const fingerprints = (row: Row): { words: number; hashes: Uint32Array; positions: Int32Array; wordHashes: Uint32Array } => ({
      words: row.words as number,
      hashes: uint32sOf(row.hashes as Uint8Array),
      positions: int32sOf(row.positions as Uint8Array),
      wordHashes: uint32sOf(row.word_hashes as Uint8Array),
    });
    const boilerplate = new Set([...((x.boilerplate as number[] | null) ?? []), ...((y.boilerplate as number[] | null) ?? [])]);
    const found = comparePassages(fingerprints(x), fingerprints(y), { ignore: (hash) => boilerplate.has(hash) });
    if (found.passages.length === 0) return null;
    return reuseEntry(a, b, { aShare: found.share, bShare: found.otherShare, passages: found.passages });
  },
};

/**
 * Rewrites (lib/index/rewrite-index.ts, then lib/scan/detectors/rewrites.ts): a candidate pair at
 * VERIFY_FROM with the frequent hashes left out (all of rewrite_frequent, read once, as the
 * in-memory index leaves them out of every comparison), then scan's verdict by the rule for the
 * scan's `documents` (scanRewriteRule).
 */
export function rewritesJudge(documents: number): Judge {
  const rule = scanRewriteRule(documents);
  let frequent = new Set<number>();
  const code = (row: Row): ScanCode => {
    const c: ScanCode = { hashes: uint32sOf(row.hashes as Uint8Array), limit: Number(row.sample_limit), anchors: row.anchors as number, lang: row.lang as RewriteLanguage };
    if (row.wide_hashes !== null) c.wide = { hashes: uint32sOf(row.wide_hashes as Uint8Array), limit: Number(row.wide_limit) };
    return c;
  };
  return {
    rows: 'SELECT doc, hashes, sample_limit, anchors, lang, wide_hashes, wide_limit FROM rewrite_samples',
    columns: ['hashes', 'sample_limit', 'anchors', 'lang', 'wide_hashes', 'wide_limit'],
    prepare: async (db) => {
      frequent = new Set((await db.rows('SELECT hash FROM rewrite_frequent', db.main)).map((r) => r.hash as number));
    },
    judge: (x, y, a, b) => {
      const cx = code(x);
      const cy = code(y);
      if (candidateComparison(cx, cy, CANDIDATE_RULE, (h) => frequent.has(h)) === null) return null;
      return rewriteEntry(a, b, cx, cy, rule);
    },
  };
}
