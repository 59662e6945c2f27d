// What `scan`'s inputs yield (bin/scan-sources.ts): documents with their content and where each came
// from, notes on what could not be read, and a tally for each container file (WARC, WET, JSONL).
import type { ScanKind } from '../../lib/scan/scan';

/**
 * Documents larger than this (a WARC record's HTTP body, raw or decoded, or a JSONL line) are
 * skipped with a note, read past without being held: a crawl's pages are rarely over 2 MiB
 * (Common Crawl cuts its records at 1 MiB), and extracting a page of many megabytes takes seconds.
 */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;

/** Header lines longer than this, or WARC or HTTP header blocks longer than MAX_HEADER_BYTES, are not WARC. */
export const MAX_HEADER_LINE_BYTES = 64 * 1024;
export const MAX_HEADER_BYTES = 1024 * 1024;

/**
 * Where a document, or a problem, is in its input: stable from run to run over the same file, so
 * that a resumed run can start after what it has read.
 */
export interface Position {
  /** The file's absolute path. */
  file: string;
  /**
   * The WARC record's number in its file, or the JSONL line's, from 0; every record counts, the
   * skipped ones too, as does every line, blank ones too. 0 for a file read whole.
   */
  index: number;
  /**
   * The byte where the record or the line starts in the file, when reading may start there: null in
   * a gzipped JSONL file (one gzip stream), and in a gzipped WARC file for a record that does not
   * start a gzip member (a WARC gzipped whole rather than record by record).
   */
  offset: number | null;
}

/** A document read from an input, its content decoded. */
export interface SourceDocument {
  /** Its name in the report: a folder's file's path, a WARC record's WARC-Target-URI, a JSONL line's id or url (else FILE:LINE). */
  name: string;
  kind: ScanKind;
  content: string;
  /** Its own address when the input says it (a WARC-Target-URI, a JSONL url): for lib/scan/original.ts. */
  url?: string;
  position: Position;
  /** Where it came from, for notes: `crawl.warc.gz record 12`, `set.jsonl line 5`, or a file's path. */
  where: string;
}

/** Something that could not be read, named by file and record or line; the reading went on. */
export interface SourceNote {
  /** `crawl.warc.gz record 12 (http://…)`, `set.jsonl line 5`, or a file's path. */
  where: string;
  message: string;
  position: Position;
}

export type ContainerFormat = 'warc' | 'jsonl';

/** What one container file held, once it has been read (or given up on). */
export interface ContainerSummary {
  /** The file's path as the notes name it. */
  where: string;
  file: string;
  format: ContainerFormat;
  /** WARC records or JSONL lines seen (from the starting index on). */
  entries: number;
  documents: number;
  /** Records not read as documents, by kind (`request`, `response: image/png`, `response: status 404`…): not errors. */
  skipped: Record<string, number>;
  /** Entries skipped with a note (bad, cut, too large). */
  notes: number;
  /** Whether the reading reached the file's end (false: a note says where it stopped). */
  complete: boolean;
}

/** A folder's (or the command line's) .html, .htm or .txt file, read by whoever fingerprints it. */
export interface SourceFile {
  /** Its name in the report. */
  name: string;
  absolute: string;
  kind: ScanKind;
}

export type SourceItem =
  | { type: 'document'; document: SourceDocument }
  | { type: 'file'; file: SourceFile }
  | { type: 'note'; note: SourceNote }
  | { type: 'container'; summary: ContainerSummary };

/** Where to start reading a container: at record or line `index`, from byte `offset` when given (a Position's). */
export interface StartAt {
  index: number;
  offset?: number | null;
}

export interface ContainerOptions {
  /** Where to start in this file; records or lines before `index` are read past, not yielded. */
  startAt?: StartAt;
  maxDocumentBytes?: number;
  /** Given the file's read stream once, as reading starts: its bytesRead says how much is consumed (compressed bytes for gzip), for the progress line. */
  onStream?: (stream: { readonly bytesRead: number }) => void;
}
