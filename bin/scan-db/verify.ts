// Candidates from the SQL (candidates.ts), judged in batches by the same lib/ code that judges them
// in memory, each batch's fingerprints looked up by document id. A judge returns, for each candidate
// it keeps, its list entry as `scan --json` gives it before its original is added.
import type { JS } from '@duckdb/node-api';
import { hammingDistance, type Fingerprint } from '../../lib/fingerprint/bits';
import { confirmsNearDuplicate } from '../../lib/fingerprint/features';
import { estimateJaccard } from '../../lib/fingerprint/minhash';
import { compareNilsimsa } from '../../lib/fingerprint/nilsimsa';
import type { WordPassageFingerprints } from '../../lib/fingerprint/passages';
import type { RewriteLanguage } from '../../lib/fingerprint/rewrite-anchors';
import { comparePassages } from '../../lib/index/passage-index';
import { candidateComparison } from '../../lib/index/rewrite-index';
import { reuseEntry } from '../../lib/scan/reuse';
import { CANDIDATE_RULE, type ScanCode, rewriteEntry } from '../../lib/scan/detectors/rewrites';
import { int32sOf, nilsimsaOfWords, uint32sOf } from './codec';
import type { ScanDatabase } from './database';

export interface Candidate {
  a: number;
  b: number;
}

/** A list's entry: the two documents' paths and what was measured. */
export interface Entry {
  a: string;
  b: string;
}

/** Each candidate's entry, null for those not kept; `pathOf` names a document of the batch. */
export type Judge = (batch: readonly Candidate[], db: ScanDatabase, pathOf: (id: number) => string) => Promise<(Entry | null)[]>;

/** The distinct ids of a batch, as an SQL list. */
export function idList(batch: readonly Candidate[]): string {
  const ids = new Set<number>();
  for (const { a, b } of batch) ids.add(a).add(b);
  return [...ids].join(', ');
}

/** Rows of `sql` (with `{ids}` standing for the batch's ids) keyed by their `doc` (or `id`) column. */
async function byId(db: ScanDatabase, batch: readonly Candidate[], sql: string): Promise<Map<number, Record<string, JS>>> {
  const rows = await db.rows(sql.replace('{ids}', idList(batch)));
  return new Map(rows.map((row) => [(row.doc ?? row.id) as number, row]));
}

/** simhash (lib/scan/detectors/simhash.ts): within k bits, confirmed by the check simhash. */
export function simhashJudge(k: number): Judge {
  return async (batch, db, pathOf) => {
    const docs = await byId(db, batch, 'SELECT id, simhash, check_simhash FROM documents WHERE id IN ({ids})');
    return batch.map(({ a, b }) => {
      const x = docs.get(a)!;
      const y = docs.get(b)!;
      const distance = hammingDistance(x.simhash as Fingerprint, y.simhash as Fingerprint);
      return distance <= k && confirmsNearDuplicate(x.check_simhash as Fingerprint, y.check_simhash as Fingerprint) ? { a: pathOf(a), b: pathOf(b), distance } : null;
    });
  };
}

/** minhash (lib/index/lsh.ts lshPairs): signatures agreeing on at least `threshold` of their rows. */
export function minhashJudge(threshold: number): Judge {
  return async (batch, db, pathOf) => {
    const docs = await byId(db, batch, 'SELECT doc, signature FROM minhash_signatures WHERE doc IN ({ids})');
    const signature = new Map([...docs].map(([id, row]) => [id, uint32sOf(row.signature as Uint8Array)]));
    return batch.map(({ a, b }) => {
      const jaccard = estimateJaccard(signature.get(a)!, signature.get(b)!);
      return jaccard >= threshold ? { a: pathOf(a), b: pathOf(b), jaccard } : null;
    });
  };
}

/** nilsimsa (lib/fingerprint/nilsimsa.ts): a score of at least `threshold`. */
export function nilsimsaJudge(threshold: number): Judge {
  return async (batch, db, pathOf) => {
    const docs = await byId(db, batch, 'SELECT doc, c0, c1, c2, c3 FROM nilsimsa_codes WHERE doc IN ({ids})');
    const code = new Map([...docs].map(([id, row]) => [id, nilsimsaOfWords([row.c0, row.c1, row.c2, row.c3] as bigint[])]));
    return batch.map(({ a, b }) => {
      const score = compareNilsimsa(code.get(a)!, code.get(b)!);
      return score >= threshold ? { a: pathOf(a), b: pathOf(b), score } : null;
    });
  };
}

/** The judge of the method named. */
export function methodJudge(method: string, threshold: number): Judge {
  if (method === 'simhash') return simhashJudge(threshold);
  if (method === 'minhash') return minhashJudge(threshold);
  if (method === 'nilsimsa') return nilsimsaJudge(threshold);
  throw new RangeError(`no on-disk judge for the method ${JSON.stringify(method)}`);
}

/**
 * Shared passages (lib/scan/reuse.ts over lib/index/passage-index.ts): the passages a shares with
 * b, boilerplate left out (the hashes of passage_boilerplate), with each side's share.
 */
export const passagesJudge: Judge = async (batch, db, pathOf) => {
  const docs = await byId(db, batch, 'SELECT doc, words, hashes, positions, word_hashes FROM passage_texts WHERE doc IN ({ids})');
  const fingerprints = new Map<number, WordPassageFingerprints>();
  for (const [id, row] of docs) {
    fingerprints.set(id, { words: row.words as number, hashes: uint32sOf(row.hashes as Uint8Array), positions: int32sOf(row.positions as Uint8Array), wordHashes: uint32sOf(row.word_hashes as Uint8Array) });
  }
  const boilerplate = new Set(
    (await db.rows(`SELECT DISTINCT p.hash FROM passage_hashes p JOIN passage_boilerplate x ON x.hash = p.hash WHERE p.doc IN (${idList(batch)})`)).map((r) => r.hash as number),
  );
  const ignore = (hash: number): boolean => boilerplate.has(hash);
  return batch.map(({ a, b }) => {
    const found = comparePassages(fingerprints.get(a)!, fingerprints.get(b)!, { ignore });
    if (found.passages.length === 0) return null;
    return reuseEntry(pathOf(a), pathOf(b), { aShare: found.share, bShare: found.otherShare, passages: found.passages });
  });
};

/** Rewrites (lib/index/rewrite-index.ts, then lib/scan/detectors/rewrites.ts): a candidate pair at VERIFY_FROM with frequent hashes left out, then scan's verdict. */
export const rewritesJudge: Judge = async (batch, db, pathOf) => {
  const docs = await byId(db, batch, 'SELECT doc, hashes, sample_limit, anchors, lang, wide_hashes, wide_limit FROM rewrite_samples WHERE doc IN ({ids})');
  const codes = new Map<number, ScanCode>();
  for (const [id, row] of docs) {
    const code: ScanCode = { hashes: uint32sOf(row.hashes as Uint8Array), limit: Number(row.sample_limit), anchors: row.anchors as number, lang: row.lang as RewriteLanguage };
    if (row.wide_hashes !== null) code.wide = { hashes: uint32sOf(row.wide_hashes as Uint8Array), limit: Number(row.wide_limit) };
    codes.set(id, code);
  }
  const frequent = new Set(
    (await db.rows(`SELECT DISTINCT r.hash FROM rewrite_index r JOIN rewrite_frequent f ON f.hash = r.hash WHERE r.doc IN (${idList(batch)})`)).map((r) => r.hash as number),
  );
  return batch.map(({ a, b }) => {
    const x = codes.get(a)!;
    const y = codes.get(b)!;
    if (candidateComparison(x, y, CANDIDATE_RULE, (h) => frequent.has(h)) === null) return null;
    return rewriteEntry(pathOf(a), pathOf(b), x, y);
  });
};
