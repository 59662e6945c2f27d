// Which of scan's two paths runs a scan, decided once the input is listed and before a document is
// read: in memory (bin/scan-lists.ts, every document's fingerprints held to the end) while the input
// is small enough for that to be the better place, else on disk (bin/scan-db/, a DuckDB database
// whose joins spill past a memory limit). Both give the same output. The input's size is estimated
// from the listing alone (file sizes, by format): bytes of text the scan will fingerprint.

export type ScanPath = 'memory' | 'disk';

/** How a listed file is read, for its estimate: a page, a text, or a container of either. */
export type SizedFormat = 'html' | 'text' | 'warc' | 'wet' | 'jsonl';

/** A listed file as the estimate sees it: its format, its size in bytes, and whether it is gzipped. */
export interface SizedFile {
  format: SizedFormat;
  bytes: number;
  gzipped: boolean;
}

/**
 * A gzipped container counts this many times its size. Measured with `gzip -c FILE | wc -c`: 2.5×
 * on bench:scan-scale's JSONL, 3.8× on the article HTML of Readability's 132 test pages, 6.1× on
 * their whole pages (docs/scan.md, "In memory or on disk").
 */
export const GZIP_RATIO = 4;

/**
 * The share of an HTML page's bytes that is article text: the rest is markup, scripts and styles
 * that the reader drops before a fingerprint is made. Measured: 21.7% on bench:peers' 940 pages at
 * 1× (their .txt files' bytes over their HTML files'), whose copies are light pages; the article
 * HTML of Readability's 132 test pages is 9.8% of their whole pages. The higher share leans toward
 * the on-disk path, which costs little where memory would have done. A WARC file holds HTML
 * responses, so it counts so too; a JSONL line may hold either, so it counts whole.
 */
export const HTML_TEXT_SHARE = 0.2;

/** The bytes of text a file is expected to give the scan. */
export function textBytesOf({ format, bytes, gzipped }: SizedFile): number {
  const unpacked = gzipped ? bytes * GZIP_RATIO : bytes;
  return format === 'html' || format === 'warc' ? unpacked * HTML_TEXT_SHARE : unpacked;
}

/** What the listing says of the input: its files (pages and texts, a document each) and their text bytes. */
export interface InputEstimate {
  /** Page and text files; a container's documents are not known before it is read. */
  files: number;
  /** Bytes of text expected, containers included (textBytesOf). */
  textBytes: number;
  /** False when the estimate stopped counting early, at a limit: the input has at least this much. */
  complete: boolean;
}

/** Where the on-disk path starts: either count reached. */
export interface OnDiskFrom {
  textBytes: number;
  files: number;
}

/**
 * The on-disk path from 70 MB of text or 20,000 files: about where its peak memory falls below the
 * in-memory path's. Measured with `scan --json --jobs 2` (scripts/scan-path-figures.sh, docs/scan.md
 * "In memory or on disk"): on bench:scan-scale's documents (3.4 KB of text each on average) the
 * in-memory path grew by 12 to 14 KB a document and the on-disk one by about 5.5 KB from a start
 * 50 to 80 MiB higher, so that they crossed near 18,000 documents as JSONL (61 MB) and 20,000 as a
 * folder; on bench:scan-memory's folders of small files (1.5 KB each, docs/scan-schema.md) near
 * 20,000 files. At 10,000 documents memory took 50 to 80 MiB and 16% of CPU less; at 50,000 disk
 * took 208 to 245 MiB less, for 6% more CPU (JSONL) to 14% less (a folder).
 */
export const ON_DISK_FROM: OnDiskFrom = { textBytes: 70e6, files: 20_000 };

export interface PathRequest {
  /** --on-disk or --in-memory. */
  forced?: ScanPath;
  /** --ndjson, which streams only in memory. */
  ndjson: boolean;
}

export interface PathChoice {
  path: ScanPath;
  /** The path the input's size calls for (undefined when forced): 'disk' where --ndjson kept the scan in memory. */
  bySize?: ScanPath;
  /** Why, in words for --timings. */
  reason: string;
}

const megabytes = (bytes: number): string =>
  bytes < 1e6 ? `${Math.round(bytes / 1e3).toLocaleString('en-US')} kB` : `${(bytes / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB`;
const count = (n: number): string => n.toLocaleString('en-US');

/** The path a scan takes: the one forced, else by the input's size against `from`. */
export function chooseScanPath(input: InputEstimate, { forced, ndjson }: PathRequest, from: OnDiskFrom = ON_DISK_FROM): PathChoice {
  if (forced === 'disk') return { path: 'disk', reason: '--on-disk' };
  if (forced === 'memory') return { path: 'memory', reason: '--in-memory' };
  const atLeast = input.complete ? '' : 'at least ';
  const size = `${atLeast}${megabytes(input.textBytes)} of text expected in ${atLeast}${count(input.files)} ${input.files === 1 ? 'file' : 'files'}`;
  const over = [input.textBytes >= from.textBytes ? `${megabytes(from.textBytes)} of text` : null, input.files >= from.files ? `${count(from.files)} files` : null].filter((x) => x !== null);
  if (over.length === 0) return { path: 'memory', bySize: 'memory', reason: `${size}: under the on-disk path's ${megabytes(from.textBytes)} of text and ${count(from.files)} files` };
  const reason = `${size}: the on-disk path's ${over.join(' and ')} reached`;
  if (ndjson) return { path: 'memory', bySize: 'disk', reason: `${reason}, but --ndjson streams only in memory` };
  return { path: 'disk', bySize: 'disk', reason };
}
