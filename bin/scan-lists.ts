// `scan`'s lists from documents read and fingerprinted (bin/scan-read.ts readDocument), in memory:
// every document's codes are held to the end, then each detector finds its pairs (lib/scan/). The
// on-disk path (bin/scan-db/) gives the same ScanResult from a DuckDB database.
import type { FingerprintedDocument, ScanCluster, ScannedDocument, OriginalOf } from '../lib/scan/scan';
import { type CopyDetector, type CopyDocument, type CopyPair, type Detector, type DetectorCode, buildDetectorReport } from '../lib/scan/detector';
import { withOriginals } from '../lib/scan/original';
import type { ReadResult } from './scan-read';

/** A document read and fingerprinted: what readDocument returns for a file it could read. */
export type ReadDocument = Extract<ReadResult, { ok: true }>;

/** A near-duplicate pair as `scan --json` lists it: paths, the method's measure, the original. */
export type ScanPairEntry = { a: string; b: string } & Record<string, string | number> & OriginalOf;

/** What `scan` reports, whichever path found it. */
export interface ScanResult {
  /** The report's first fields: {k} for simhash, {method, threshold} for the others. */
  head: Record<string, string | number>;
  documents: ScannedDocument[];
  pairs: ScanPairEntry[];
  /** Ordered by their first member. */
  clusters: ScanCluster[];
  /** Each copy detector's list under its key (reuse, rewrites), in the registry's order. */
  lists: [string, CopyPair[]][];
}

/** `scan --json`'s object. */
export function scanJson({ head, documents, pairs, clusters, lists }: ScanResult): Record<string, unknown> {
  return { ...head, documents, pairs, clusters, ...Object.fromEntries(lists) };
}

/** Gives a document the notes its copy detectors' codes carry (rewriteNote: too few rare words), when it has text. */
export function noteCopies(document: ScannedDocument, copies: Record<string, unknown>, detectors: readonly CopyDetector[]): void {
  for (const d of detectors) {
    const note = document.simhash === null ? undefined : d.noteOf?.(copies[d.name] ?? null);
    if (note !== undefined && d.noteKey !== undefined) Object.assign(document, { [d.noteKey]: note });
  }
}

/** The in-memory scan: documents added in order, then the lists. */
export class MemoryScan {
  private readonly fingerprinted: FingerprintedDocument[] = [];
  private readonly codes: (DetectorCode | null)[] = [];
  private readonly copyDocuments: CopyDocument[][];

  /** `slim`: keep of each document only what the pairs and originals need, not its title (--ndjson, which printed it already). */
  constructor(
    readonly method: Detector,
    readonly threshold: number,
    readonly copyDetectors: readonly CopyDetector[],
    private readonly slim = false,
  ) {
    this.copyDocuments = copyDetectors.map(() => []);
  }

  /** Adds the next document; its report entry, with its notes. */
  add(read: ReadDocument): ScannedDocument {
    const { document } = read.fingerprinted;
    this.copyDetectors.forEach((d, i) => this.copyDocuments[i]!.push({ path: document.path, code: read.copies[d.name] ?? null }));
    noteCopies(document, read.copies, this.copyDetectors);
    if (this.slim) {
      const { path, simhash, words, url, address, published, source, sourceBy } = document;
      this.fingerprinted.push({ document: { path, title: '', simhash, words, url, address, published, source, sourceBy }, fingerprints: read.fingerprinted.fingerprints });
    } else this.fingerprinted.push(read.fingerprinted);
    this.codes.push(read.code);
    return document;
  }

  /** The method's pairs and clusters, then each copy detector's list without the pairs listed before it; `begin` is told each step as it begins, `lap` as it ends. */
  async result(lap: (step: string) => void = () => {}, begin: (step: string) => void = () => {}): Promise<ScanResult> {
    begin(`${this.method.name} pairs`);
    const report = buildDetectorReport(this.method, this.fingerprinted, this.codes, this.threshold);
    lap(`${this.method.name} pairs`);
    // each pair's and cluster's original, by what the pages say (lib/scan/original.ts)
    const originals = withOriginals(report.documents);
    const reported = new Set<string>();
    const markReported = (pairs: readonly { a: string; b: string }[]): void => {
      for (const { a, b } of pairs) reported.add(`${a}\n${b}`).add(`${b}\n${a}`);
    };
    markReported(report.pairs);
    const lists: [string, CopyPair[]][] = [];
    for (const [i, detector] of this.copyDetectors.entries()) {
      begin(`${detector.name} pairs`);
      const pairs = (await detector.find(this.copyDocuments[i]!, (a, b) => reported.has(`${a}\n${b}`))).map(originals.pair);
      lap(`${detector.name} pairs`);
      markReported(pairs);
      lists.push([detector.key, pairs]);
    }
    return {
      head: this.method.head(this.threshold),
      documents: report.documents,
      pairs: report.pairs.map(originals.pair) as ScanPairEntry[],
      clusters: report.clusters.map(originals.cluster),
      lists,
    };
  }
}
