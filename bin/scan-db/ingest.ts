// Appends documents and their fingerprints to the on-disk scan's tables as they are read: one
// DuckDB appender per table, flushed (committed) every FLUSH_EVERY documents, so that nothing of a
// document stays in this process once it is appended. A document's id is its place in the input.
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { minhashBanding } from '../../lib/scan/detectors/minhash';
import { PASSAGE_PARAMS, type WordPassageFingerprints } from '../../lib/fingerprint/passages';
import { kgramSecondHashes } from '../../lib/fingerprint/winnow';
import type { ScanCode } from '../../lib/scan/detectors/rewrites';
import { indexHashes, REWRITE_RULE } from '../../lib/fingerprint/rewrites';
import { bandKey } from '../../lib/index/lsh';
import type { CopyDetector } from '../../lib/scan/detector';
import type { ScanKind, ScannedDocument } from '../../lib/scan/scan';
import { type ReadDocument, noteCopies } from '../scan-lists';
import { bytesOf, nilsimsaWords } from './codec';

/** Documents between commits: the appenders' buffers stay small, and a commit per document would cost more than the appends. */
export const FLUSH_EVERY = 4096;

/** A document to append: what readDocument returns, and the kind of file it was when known. */
export type OnDiskDocument = ReadDocument & { kind?: ScanKind };

/** The tables a document's rows go to; each but `documents` names the document in its `doc` column. */
export const FINGERPRINT_TABLES = ['documents', 'minhash_bands', 'minhash_signatures', 'nilsimsa_codes', 'passage_hashes', 'passage_texts', 'rewrite_index', 'rewrite_samples'] as const;
type Table = (typeof FINGERPRINT_TABLES)[number];

export class FingerprintWriter {
  private readonly banding: { bands: number; rows: number } | null;

  private constructor(
    private readonly appenders: Record<Table, DuckDBAppender>,
    private readonly method: string,
    threshold: number,
    private readonly copyDetectors: readonly CopyDetector[],
    private next: number,
  ) {
    this.banding = method === 'minhash' ? minhashBanding(threshold) : null;
  }

  /**
   * Appenders on `connection` for the documents of a scan by `method` at `threshold`, the first
   * one's id `firstId`: the database holds that many documents (a resumed run's, bin/scan-db/state.ts).
   */
  static async open(connection: DuckDBConnection, method: string, threshold: number, copyDetectors: readonly CopyDetector[], firstId = 0): Promise<FingerprintWriter> {
    const [row] = (await connection.runAndReadAll('SELECT count(*)::INTEGER AS n, coalesce(max(id) + 1, 0)::INTEGER AS next FROM documents')).getRowObjectsJS();
    if (row?.n !== firstId || row?.next !== firstId) throw new Error(`the database holds ${String(row?.n)} documents: this scan appends after ${firstId}`);
    const entries = await Promise.all(FINGERPRINT_TABLES.map(async (t) => [t, await connection.createAppender(t)] as const));
    return new FingerprintWriter(Object.fromEntries(entries) as Record<Table, DuckDBAppender>, method, threshold, copyDetectors, firstId);
  }

  /** Documents appended so far. */
  get count(): number {
    return this.next;
  }

  /** Appends a document and its fingerprints; its report entry, with its copy detectors' notes. */
  add(read: OnDiskDocument): ScannedDocument {
    const id = this.next++;
    const { document, fingerprints } = read.fingerprinted;
    noteCopies(document, read.copies, this.copyDetectors);
    const passages = (read.copies.passages ?? null) as { fingerprints: WordPassageFingerprints; site: string | null } | null;
    this.appendDocument(id, read, passages?.site ?? null);
    if (fingerprints !== null) {
      if (this.method === 'minhash' && read.code !== null) this.appendMinhash(id, read.code as Uint32Array);
      if (this.method === 'nilsimsa' && read.code !== null) this.appendNilsimsa(id, read.code as Uint8Array);
      if (passages !== null) this.appendPassages(id, passages.fingerprints);
      const rewrite = (read.copies.rewrites ?? null) as ScanCode | null;
      if (rewrite !== null) this.appendRewrites(id, rewrite);
    }
    if (this.next % FLUSH_EVERY === 0) this.flush();
    return document;
  }

  /** Commits what was appended. */
  flush(): void {
    for (const t of FINGERPRINT_TABLES) this.appenders[t].flushSync();
  }

  close(): void {
    for (const t of FINGERPRINT_TABLES) this.appenders[t].closeSync();
  }

  private appendDocument(id: number, { fingerprinted, kind }: OnDiskDocument, site: string | null): void {
    const { document: d, fingerprints } = fingerprinted;
    const app = this.appenders.documents;
    app.appendUInteger(id);
    app.appendVarchar(d.path);
    text(app, kind);
    app.appendVarchar(d.title);
    if (fingerprints === null) {
      app.appendNull();
      app.appendNull();
    } else {
      app.appendUBigInt(fingerprints.simhash);
      app.appendUBigInt(fingerprints.check);
    }
    app.appendUInteger(d.words);
    for (const value of [d.note, d.rewriteNote, d.url, d.address, d.published, d.source, d.sourceBy, site]) text(app, value);
    app.endRow();
  }

  private appendMinhash(id: number, signature: Uint32Array): void {
    const { bands, rows } = this.banding!;
    const app = this.appenders.minhash_bands;
    for (let band = 0; band < bands; band++) {
      app.appendUSmallInt(band);
      app.appendBigInt(BigInt(bandKey(signature, band, rows)));
      app.appendUInteger(id);
      app.endRow();
    }
    const sig = this.appenders.minhash_signatures;
    sig.appendUInteger(id);
    sig.appendBlob(bytesOf(signature));
    sig.endRow();
  }

  private appendNilsimsa(id: number, code: Uint8Array): void {
    const app = this.appenders.nilsimsa_codes;
    app.appendUInteger(id);
    for (const word of nilsimsaWords(code)) app.appendUBigInt(word);
    app.endRow();
  }

  private appendPassages(id: number, f: WordPassageFingerprints): void {
    const app = this.appenders.passage_hashes;
    // each (hash, second hash) once a document: the postings count pages, not repeats
    const seconds = kgramSecondHashes(f.wordHashes, f.positions, PASSAGE_PARAMS.k);
    // sorted by (hash, second hash) through their indices: the two as one number would pass 2^53
    const order = Array.from(f.hashes.keys()).sort((a, b) => f.hashes[a]! - f.hashes[b]! || seconds[a]! - seconds[b]!);
    for (let i = 0; i < order.length; i++) {
      const at = order[i]!;
      if (i > 0 && f.hashes[at] === f.hashes[order[i - 1]!] && seconds[at] === seconds[order[i - 1]!]) continue;
      app.appendUInteger(f.hashes[at]!);
      app.appendUInteger(seconds[at]!);
      app.appendUInteger(id);
      app.endRow();
    }
    const texts = this.appenders.passage_texts;
    texts.appendUInteger(id);
    texts.appendUInteger(f.words);
    texts.appendBlob(bytesOf(f.hashes));
    texts.appendBlob(bytesOf(f.positions));
    texts.appendBlob(bytesOf(f.wordHashes));
    texts.endRow();
  }

  private appendRewrites(id: number, code: ScanCode): void {
    const app = this.appenders.rewrite_index;
    for (const hash of indexHashes(code, REWRITE_RULE.indexShare)) {
      app.appendUInteger(hash);
      app.appendUInteger(id);
      app.endRow();
    }
    const samples = this.appenders.rewrite_samples;
    samples.appendUInteger(id);
    samples.appendBlob(bytesOf(code.hashes));
    samples.appendUBigInt(BigInt(code.limit));
    samples.appendUInteger(code.anchors);
    samples.appendVarchar(code.lang);
    if (code.wide === undefined) {
      samples.appendNull();
      samples.appendNull();
    } else {
      samples.appendBlob(bytesOf(code.wide.hashes));
      samples.appendUBigInt(BigInt(code.wide.limit));
    }
    samples.endRow();
  }
}

function text(app: DuckDBAppender, value: string | undefined | null): void {
  if (value === undefined || value === null) app.appendNull();
  else app.appendVarchar(value);
}
