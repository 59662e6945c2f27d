// What a `scan` detector is: one method of finding near-duplicate pairs among fingerprinted
// documents, chosen with `--method`, or a detector of the copies near-duplicate methods miss,
// always run beside it (CopyDetector; lib/scan/registry.ts lists both kinds). A detector says what a
// document's code is (taken from its fingerprinted text, on the worker threads with --jobs), how
// pairs are found from the codes, what its cut-off is and means, and how `--explain` words it.
// Everything per method lives in its file under lib/scan/detectors/; the report, the help text,
// the bench and the checks read it from here.
import { clustersOf } from '../report/clusters';
import type { ExtractOptions } from '../text/reading';
import { type FingerprintedDocument, type ScanInput, type ScannedDocument, fingerprintDocument } from './scan';

/** A document's code for a detector: the typed array it compares (null: it reads the document's simhash, or the document has no text). */
export type DetectorCode = Uint8Array | Uint32Array;

/** A pair found by a detector: indices into the documents (a < b) and the measure. */
export interface DetectorPair {
  a: number;
  b: number;
  measure: number;
}

export interface Detector {
  /** What `--method` takes. */
  readonly name: string;
  /** The help text's lines after the name, without the cut-off's default (added from defaultThreshold). */
  readonly help: readonly string[];
  /** The field each pair of the report carries its measure in. */
  readonly measure: string;
  /** A measure as the text report prints it. */
  formatMeasure(m: number): string;
  readonly defaultThreshold: number;
  /** Whether a cut-off is one this detector can use, and what it accepts, in words. */
  readonly threshold: { ok(value: number): boolean; says: string };
  /** Whether a pair at measure `m` passes cut-off `t`. */
  passes(m: number, t: number): boolean;
  /** Cut-offs for bench:quality's trade-off curve, loosest first. */
  readonly curve: readonly number[];
  /**
   * Whether one run at a loose cut-off finds every pair a run at a stricter one would (simhash,
   * nilsimsa); false when the candidates depend on the cut-off (MinHash's banding).
   */
  readonly nested: boolean;
  /** What a page costs and how pairs are found, in a sentence (bench:quality prints it). */
  readonly about: string;
  /** The report's first fields ({k} for simhash, {method, threshold} for the others). */
  head(threshold: number): Record<string, string | number>;
  /** "within 3 bits", "with jaccard ≥ 0.3". */
  cutOff(threshold: number): string;
  /** The code of a document from its fingerprinted text; null when the detector needs none. */
  code(text: string): DetectorCode | null;
  /** Every pair within the cut-off, sorted by a then b. */
  pairs(documents: readonly FingerprintedDocument[], codes: readonly (DetectorCode | null)[], threshold: number): DetectorPair[];
  /** What `--explain` prints. */
  explain(threshold: number): string;
}

/** The report of a scan by one detector, as `scan --json` prints it (before `reuse`). */
export type DetectorReport = Record<string, unknown> & {
  documents: ScannedDocument[];
  pairs: ({ a: string; b: string } & Record<string, string | number>)[];
  clusters: string[][];
};

/** Throws a RangeError that says what the detector accepts. */
export function checkThreshold(detector: Detector, value: number): void {
  if (!detector.threshold.ok(value)) throw new RangeError(`${detector.threshold.says}: got ${value}`);
}

/** The cut-off as typed on the command line. */
export function parseThreshold(detector: Detector, text: string): number {
  const value = /^-?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!detector.threshold.ok(value)) throw new RangeError(`${detector.threshold.says}: got ${JSON.stringify(text)}`);
  return value;
}

/** Pairs and clusters of fingerprinted documents (in report order) by one detector. */
export function buildDetectorReport(detector: Detector, fingerprinted: readonly FingerprintedDocument[], codes: readonly (DetectorCode | null)[], threshold = detector.defaultThreshold): DetectorReport {
  checkThreshold(detector, threshold);
  const documents = fingerprinted.map((f) => f.document);
  const pathOf = (i: number): string => documents[i]!.path;
  const pairs = detector.pairs(fingerprinted, codes, threshold);
  return {
    ...detector.head(threshold),
    documents,
    pairs: pairs.map(({ a, b, measure }) => ({ a: pathOf(a), b: pathOf(b), [detector.measure]: measure })),
    clusters: clustersOf(documents.length, pairs.map(({ a, b }) => [a, b] as const)).map((c) => c.map(pathOf)),
  };
}

/** A pair's measure as the text report prints it. */
export function pairMeasure(detector: Detector, pair: Record<string, string | number>): string {
  return detector.formatMeasure(pair[detector.measure] as number);
}

/** Extracts and fingerprints one document for a detector: its simhash always, and the detector's code. */
export function fingerprintFor(
  detector: Detector,
  input: ScanInput,
  parseHtml: (html: string) => Document,
  extract: ExtractOptions = {},
  onText?: (text: string) => void,
): { fingerprinted: FingerprintedDocument; code: DetectorCode | null } {
  let code: DetectorCode | null = null;
  const fingerprinted = fingerprintDocument(input, parseHtml, extract, (text) => {
    code = detector.code(text);
    onText?.(text);
  });
  return { fingerprinted, code };
}

/** Fingerprints every input (in the given order) and reports its pairs by one detector. */
export function scanDocumentsBy(
  inputs: readonly ScanInput[],
  detector: Detector,
  options: { parseHtml: (html: string) => Document; threshold?: number; extract?: ExtractOptions },
): DetectorReport {
  const results = inputs.map((input) => fingerprintFor(detector, input, options.parseHtml, options.extract));
  return buildDetectorReport(detector, results.map((r) => r.fingerprinted), results.map((r) => r.code), options.threshold);
}

/** A document as a copy detector sees it: its path and the code the detector took of its text. */
export interface CopyDocument {
  path: string;
  /** What CopyDetector.code gave (null: the document has no text). */
  code: unknown;
}

/** A pair a copy detector reports: two paths (a before b in the documents' order) and what it measured. */
export type CopyPair = { a: string; b: string } & Record<string, unknown>;

/**
 * A detector of the copies that near-duplicate methods miss, always run beside the chosen method,
 * its pairs in a list of its own: passages (excerpts, stitched pages, quotes) and rewrites (copies
 * reworded or translated). A pair already reported (a near-duplicate, or by a detector before it
 * in the registry) is not reported again.
 */
export interface CopyDetector {
  readonly name: string;
  /** Its list's key in `scan --json`. */
  readonly key: string;
  /** Whether `--ndjson` streams its list too (the documents' codes are then kept to the end), each pair a line {[entry]: pair}. */
  readonly streams: boolean;
  readonly entry: string;
  /** The code of a document's fingerprinted text, with its site (null when unknown); plain data, as it crosses from a worker thread. */
  code(text: string, site: string | null): unknown;
  /** Why a document's code cannot show such copies well (too few rare words, a script without capitals); undefined when it can. The document carries it as noteKey. */
  noteOf?(code: unknown): string | undefined;
  readonly noteKey?: string;
  /** Its pairs among the documents, in the documents' order, those `reported` already left out. */
  find(documents: readonly CopyDocument[], reported: (a: string, b: string) => boolean): Promise<CopyPair[]>;
  /** The text report's section for its pairs; numberOf gives a document's number ("#3"). */
  section(pairs: readonly CopyPair[], numberOf: (path: string) => string): string;
}
