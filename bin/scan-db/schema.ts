// The on-disk scan's tables (docs/scan-schema.md describes each column): the documents and one table
// per fingerprint kind, appended to as documents are read (bin/scan-db/ingest.ts). The tables the
// join makes from them (block keys, buckets, candidates, boilerplate) are in candidates.ts; the
// lists it reports are the OUTPUT tables below.

/** The tables fingerprints are appended to, in DuckDB's types. Typed arrays are stored as little-endian BLOBs. */
export const INPUT_TABLES = `
CREATE TABLE IF NOT EXISTS documents (
  id UINTEGER NOT NULL,
  path VARCHAR NOT NULL,
  kind VARCHAR,
  title VARCHAR NOT NULL,
  simhash UBIGINT,
  check_simhash UBIGINT,
  words UINTEGER NOT NULL,
  note VARCHAR,
  rewrite_note VARCHAR,
  url VARCHAR,
  address VARCHAR,
  published VARCHAR,
  source VARCHAR,
  source_by VARCHAR,
  site VARCHAR
);
CREATE TABLE IF NOT EXISTS minhash_bands (band USMALLINT NOT NULL, key BIGINT NOT NULL, doc UINTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS minhash_signatures (doc UINTEGER NOT NULL, signature BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS nilsimsa_codes (doc UINTEGER NOT NULL, c0 UBIGINT NOT NULL, c1 UBIGINT NOT NULL, c2 UBIGINT NOT NULL, c3 UBIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS passage_hashes (hash UINTEGER NOT NULL, second_hash UINTEGER NOT NULL, doc UINTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS passage_texts (doc UINTEGER NOT NULL, words UINTEGER NOT NULL, hashes BLOB NOT NULL, positions BLOB NOT NULL, word_hashes BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS rewrite_index (hash UINTEGER NOT NULL, doc UINTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rewrite_samples (doc UINTEGER NOT NULL, hashes BLOB NOT NULL, sample_limit UBIGINT NOT NULL, anchors UINTEGER NOT NULL, lang VARCHAR NOT NULL, wide_hashes BLOB, wide_limit UBIGINT);
`;

/**
 * The lists the join reports, by document ids (a < b); paths are joined in when they are written
 * out. `measure` is the method's column: distance (simhash), jaccard (minhash) or score (nilsimsa).
 */
export function outputTables(measure: { name: string; type: 'INTEGER' | 'DOUBLE' }): string {
  return `
CREATE OR REPLACE TABLE out_pairs (a UINTEGER NOT NULL, b UINTEGER NOT NULL, ${measure.name} ${measure.type} NOT NULL, original VARCHAR, evidence VARCHAR);
CREATE OR REPLACE TABLE out_reuse (a UINTEGER NOT NULL, b UINTEGER NOT NULL, "aShare" DOUBLE NOT NULL, "bShare" DOUBLE NOT NULL, passages INTEGER NOT NULL, original VARCHAR, evidence VARCHAR);
CREATE OR REPLACE TABLE out_rewrites (a UINTEGER NOT NULL, b UINTEGER NOT NULL, share DOUBLE NOT NULL, translated BOOLEAN NOT NULL, original VARCHAR, evidence VARCHAR);
CREATE OR REPLACE TABLE cluster_members (doc UINTEGER NOT NULL, cluster UINTEGER NOT NULL);
CREATE OR REPLACE TABLE out_clusters (cluster UINTEGER NOT NULL, members VARCHAR[] NOT NULL, original VARCHAR, evidence VARCHAR);
`;
}

/** Each method's measure column: its name in the report (Detector.measure) and its type. */
export const MEASURE_TYPES: Readonly<Record<string, 'INTEGER' | 'DOUBLE'>> = { distance: 'INTEGER', jaccard: 'DOUBLE', score: 'INTEGER' };
