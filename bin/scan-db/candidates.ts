// The on-disk scan's candidate SQL, in one file: every statement the join runs over the fingerprint
// tables (schema.ts, docs/scan-schema.md), written in the SQL that DuckDB and Spark SQL share, with
// the few differences behind one switch (Dialect):
//
//               DuckDB (the scan)                 Spark SQL (a cluster, over the Parquet shards)
//   64-bit XOR  xor(a, b)   (DuckDB's ^ is power) a ^ b
//   shift       a >> n on UBIGINT (logical)       shiftrightunsigned(a, n) on BIGINT
//   simhash     UBIGINT                           BIGINT, the same 64 bits (signedSimhash below)
//
// bit_count, least, CAST(… AS BIGINT), GROUP BY … HAVING, UNION ALL, anti-joins written as
// LEFT JOIN … WHERE … IS NULL, and DROP TABLE IF EXISTS + CREATE TABLE … AS are the same in both.
//
// Candidates are pairs of document ids a < b. Buckets (documents sharing a key in one table or
// band) of at most `bucketCap` documents give every pair; a larger one gives star edges, from its
// smallest id to each other member, which keep its documents connected (the clusters) without
// its n²/2 pairs. Passages and rewrites need no such cap: a hash on more than their page cap
// (lib/index/passage-index.ts BOILERPLATE, REWRITE_MAX_PAGES) is left out as it is in memory,
// so no bucket of theirs holds more than that many documents.
import type { TableDesign } from '../../lib/index/tables';

export interface Dialect {
  readonly name: 'duckdb' | 'spark';
  xor(a: string, b: string): string;
  /** a shifted right by n bits, zeros coming in from the left. */
  shiftRight(a: string, n: number): string;
}

export const DUCKDB: Dialect = { name: 'duckdb', xor: (a, b) => `xor(${a}, ${b})`, shiftRight: (a, n) => `(${a} >> ${n})` };
export const SPARK: Dialect = { name: 'spark', xor: (a, b) => `(${a} ^ ${b})`, shiftRight: (a, n) => `shiftrightunsigned(${a}, ${n})` };

/** Replaces a table by the rows of a query. */
const table = (name: string, query: string): string => `DROP TABLE IF EXISTS ${name};\nCREATE TABLE ${name} AS\n${query};`;

/**
 * A design's table keys of a simhash column as SQL: table t's key, the chosen blocks' bits
 * concatenated (lib/index/tables.ts keyOf: each step appends `(half >>> shift) & mask`).
 */
export function simhashKeySql(design: TableDesign, t: number, column: string, d: Dialect = DUCKDB): string {
  let key = '';
  for (const step of design.tables[t]!.steps) {
    const bits = `(${d.shiftRight(column, step.shift + (step.half === 0 ? 32 : 0))} & ${step.mask})`;
    key = key === '' ? `CAST(${bits} AS BIGINT)` : `(${key} * ${step.scale} + CAST(${bits} AS BIGINT))`;
  }
  return key;
}

/** Manku's tables: every fingerprinted document under its key in each of the design's tables, with its simhash. */
export function simhashBlocksSql(design: TableDesign, d: Dialect = DUCKDB): string {
  const selects = design.tables.map((_, t) => `SELECT ${t} AS tbl, ${simhashKeySql(design, t, 'simhash', d)} AS key, id AS doc, simhash FROM documents WHERE simhash IS NOT NULL`);
  return table('simhash_blocks', selects.join('\nUNION ALL\n'));
}

/**
 * The pairs of `members` (rows of `groupKey`, doc, and any `carried` columns) sharing a group:
 * every pair in a group of at most `cap` documents, star edges from the smallest id in a larger one.
 * Columns carried come out as x_<name> (a's) and y_<name> (b's).
 */
function bucketEdges(from: string, groupKey: readonly string[], cap: number, carried: readonly string[] = []): string {
  const on = (x: string, y: string): string => groupKey.map((k) => `${x}.${k} = ${y}.${k}`).join(' AND ');
  const keys = groupKey.join(', ');
  const carry = carried.flatMap((c) => [`x.${c} AS x_${c}`, `y.${c} AS y_${c}`]).join(', ');
  const extra = carry === '' ? '' : `, ${carry}`;
  return `WITH buckets AS (
  SELECT ${keys}, count(*) AS size, min(doc) AS center FROM ${from} GROUP BY ${keys} HAVING count(*) > 1
), members AS (
  SELECT m.*, b.size, b.center FROM ${from} m JOIN buckets b ON ${on('m', 'b')}
), edges AS (
  SELECT x.doc AS a, y.doc AS b${extra} FROM members x JOIN members y ON ${on('x', 'y')} AND x.doc < y.doc WHERE x.size <= ${cap}
  UNION ALL
  SELECT x.doc AS a, y.doc AS b${extra} FROM members x JOIN members y ON ${on('x', 'y')} AND x.doc = y.center AND y.doc <> y.center WHERE y.size > ${cap}
)`;
}

/** simhash pairs within k bits through the block tables, each pair once across tables, its distance verified here. */
export function simhashCandidatesSql(k: number, cap: number, d: Dialect = DUCKDB): string {
  const distance = `bit_count(${d.xor('x_simhash', 'y_simhash')})`;
  return table('simhash_candidates', `${bucketEdges('simhash_blocks', ['tbl', 'key'], cap, ['simhash'])}
SELECT DISTINCT a, b, ${distance} AS distance FROM edges WHERE ${distance} <= ${k}`);
}

/** simhash pairs within k bits by comparing every pair: where the tables would cost more (few documents, a large k), as findNearPairs decides. */
export function simhashAllPairsSql(k: number, d: Dialect = DUCKDB): string {
  const distance = `bit_count(${d.xor('x.simhash', 'y.simhash')})`;
  return table('simhash_candidates', `SELECT x.id AS a, y.id AS b, ${distance} AS distance
FROM documents x JOIN documents y ON x.id < y.id
WHERE x.simhash IS NOT NULL AND y.simhash IS NOT NULL AND ${distance} <= ${k}`);
}

/** MinHash pairs sharing a band key (the banding of lib/scan/detectors/minhash.ts), each once. */
export function minhashCandidatesSql(cap: number): string {
  return table('minhash_candidates', `${bucketEdges('minhash_bands', ['band', 'key'], cap)}
SELECT DISTINCT a, b FROM edges`);
}

/** nilsimsa pairs with at most maxDiffer bits different (score ≥ 128 − maxDiffer): every pair compared, as in memory. */
export function nilsimsaCandidatesSql(maxDiffer: number, d: Dialect = DUCKDB): string {
  // bit_count is a TINYINT in DuckDB: four of them can overflow it
  const differ = [0, 1, 2, 3].map((w) => `CAST(bit_count(${d.xor(`x.c${w}`, `y.c${w}`)}) AS INTEGER)`).join(' + ');
  return table('nilsimsa_candidates', `SELECT x.doc AS a, y.doc AS b FROM nilsimsa_codes x JOIN nilsimsa_codes y ON x.doc < y.doc
WHERE ${differ} <= ${maxDiffer}`);
}

/** Pairs not yet reported in any of `lists` (tables of a, b). */
function unreported(from: string, lists: readonly string[]): string {
  const joins = lists.map((l, i) => `LEFT JOIN ${l} r${i} ON r${i}.a = p.a AND r${i}.b = p.b`).join(' ');
  const none = lists.map((_, i) => `r${i}.a IS NULL`).join(' AND ');
  return `SELECT p.a, p.b FROM ${from} p ${joins} WHERE ${none}`;
}

/**
 * Passage boilerplate, as lib/index/passage-index.ts judges it over every page: a hash on more than
 * maxPages pages, or on maxSitePages pages or more of one site.
 */
export function passageBoilerplateSql(maxPages: number, maxSitePages: number): string {
  return table('passage_boilerplate', `SELECT hash FROM passage_hashes GROUP BY hash HAVING count(*) > ${maxPages}
UNION
SELECT p.hash FROM passage_hashes p JOIN documents d ON d.id = p.doc WHERE d.site IS NOT NULL GROUP BY d.site, p.hash HAVING count(*) >= ${maxSitePages}`);
}

/**
 * Postings (rows of passage_hashes or rewrite_index) a part of a shared-hash self-join holds on its
 * build side. A join of every posting at once ran out of DuckDB's 1 GB at ten million documents
 * (370 million passage postings: docs/bench/2026-11-29-scan-join-10m.txt's first run, kept in
 * docs/scale.md); split by the first document's id, each part's side is about this many rows.
 */
export const POSTINGS_PER_PART = 8_000_000;

/** How many parts a self-join over `postings` rows is split into. */
export function joinParts(postings: number): number {
  return Math.max(1, Math.ceil(postings / POSTINGS_PER_PART));
}

/**
 * Pairs (a < b) of `kept` (a table of hash, doc) sharing a hash, `select` over each, into `into`:
 * in `parts` parts by a's id, each its own statement, so that no join holds every posting at once.
 * A pair lands in one part only (the part of its a), so each part's DISTINCT or GROUP BY is whole.
 */
function partedSelfJoin(into: string, kept: string, select: string, rest: string, parts: number, keys: readonly string[] = ['hash']): string {
  const on = keys.map((k) => `x.${k} = y.${k}`).join(' AND ');
  const part = (i: number): string => `${select} FROM ${kept} x JOIN ${kept} y ON ${on} AND x.doc < y.doc${parts > 1 ? ` WHERE x.doc % ${parts} = ${i}` : ''}${rest}`;
  return [table(into, part(0)), ...Array.from({ length: parts - 1 }, (_, i) => `INSERT INTO ${into} ${part(i + 1)};`)].join('\n');
}

/**
 * Pairs sharing a k-gram by a passage hash that is not boilerplate, not already in `reported`; the
 * self-join in `parts` parts. The join asks the k-gram's second hash to agree too: at a million
 * documents 32-bit winnowed hashes met by chance in 1.4 million pairs that the judge then rejected
 * one by one (docs/scale.md); the k-gram two pages share gives both the same second hash.
 */
export function passageCandidatesSql(reported: readonly string[], parts = 1): string {
  return `${table('passage_kept', 'SELECT p.hash, p.second_hash, p.doc FROM passage_hashes p LEFT JOIN passage_boilerplate x ON x.hash = p.hash WHERE x.hash IS NULL')}
${partedSelfJoin('passage_shared', 'passage_kept', 'SELECT DISTINCT x.doc AS a, y.doc AS b', '', parts, ['hash', 'second_hash'])}
${table('passage_candidates', unreported('passage_shared', reported))}
DROP TABLE passage_kept;
DROP TABLE passage_shared;`;
}

/** Rewrite index hashes on more than maxPages pages: left out of candidates and of the comparison (lib/index/rewrite-index.ts). */
export function rewriteFrequentSql(maxPages: number): string {
  return table('rewrite_frequent', `SELECT hash FROM rewrite_index GROUP BY hash HAVING count(*) > ${maxPages}`);
}

/** Pairs sharing at least minShared index hashes that are not frequent, not already in `reported`; the self-join in `parts` parts. */
export function rewriteCandidatesSql(minShared: number, reported: readonly string[], parts = 1): string {
  return `${table('rewrite_kept', 'SELECT r.hash, r.doc FROM rewrite_index r LEFT JOIN rewrite_frequent f ON f.hash = r.hash WHERE f.hash IS NULL')}
${partedSelfJoin('rewrite_shared', 'rewrite_kept', 'SELECT x.doc AS a, y.doc AS b', ` GROUP BY x.doc, y.doc HAVING count(*) >= ${minShared}`, parts)}
${table('rewrite_candidates', unreported('rewrite_shared', reported))}
DROP TABLE rewrite_kept;
DROP TABLE rewrite_shared;`;
}

/**
 * Connected components in rounds, for graphs whose union-find would not fit: every node of the
 * edges (a, b) starts labelled with the least of itself and its neighbours; each round takes the
 * least label among a node's neighbours, then jumps to its label's label. Labels only fall, and
 * stop at each component's least node. The statements: the start, one round (from cc_labels to
 * cc_next), and the count of labels a round changed; the driver (components.ts) swaps the tables.
 */
export function componentsSql(edges: string): { start: string; round: string; changed: string } {
  return {
    start: `${table('cc_edges', `SELECT a AS u, b AS v FROM ${edges} UNION ALL SELECT b AS u, a AS v FROM ${edges}`)}
${table('cc_labels', 'SELECT u AS node, least(u, min(v)) AS label FROM cc_edges GROUP BY u')}`,
    round: table('cc_next', `WITH spread AS (
  SELECT e.u AS node, min(l.label) AS label FROM cc_edges e JOIN cc_labels l ON l.node = e.v GROUP BY e.u
), hooked AS (
  SELECT l.node, least(l.label, s.label) AS label FROM cc_labels l JOIN spread s ON s.node = l.node
)
SELECT h.node, least(h.label, j.label) AS label FROM hooked h JOIN hooked j ON j.node = h.label`),
    changed: 'SELECT count(*) AS changed FROM cc_next n JOIN cc_labels l ON l.node = n.node WHERE n.label <> l.label',
  };
}

/** The documents' simhash as Spark's BIGINT (the same 64 bits, two's complement), for Parquet shards Spark reads. */
export function signedSimhash(column: string): string {
  return `CAST(CASE WHEN ${column} >= 9223372036854775808 THEN CAST(${column} AS HUGEINT) - 18446744073709551616 ELSE CAST(${column} AS HUGEINT) END AS BIGINT)`;
}
