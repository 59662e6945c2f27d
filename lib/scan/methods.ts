// The three detectors `scan --method` offers, side by side on the same extracted texts:
// - simhash (lib/scan.ts): 64-bit simhash, pairs within k bits, confirmed by the check simhash;
// - minhash: MinHash signatures of word shingles (lib/fingerprint/minhash.ts), candidates from LSH
//   banding (lib/index/lsh.ts), kept when the signatures agree on at least `threshold` of rows;
// - nilsimsa: 256-bit nilsimsa codes (lib/fingerprint/nilsimsa.ts), every pair scoring at least
//   `threshold` on the −128…128 scale, found by an all-pairs scan.
// Each pair carries its method's measure: `distance` (bits), `jaccard` (estimated) or `score`.
import { clustersOf } from '../report/clusters';
import { DEFAULT_HASHES, minhashOfText } from '../fingerprint/minhash';
import { NILSIMSA_THREE_SIGMA, nilsimsaOfText, nilsimsaPairs } from '../fingerprint/nilsimsa';
import { type Banding, chooseBanding, lshPairs, sCurve } from '../index/lsh';
import {
  DEFAULT_K,
  type FingerprintedDocument,
  MAX_K,
  type ScanInput,
  type ScanPair,
  type ScanReport,
  type ScannedDocument,
  buildReport,
  fingerprintDocument,
} from './scan';
import type { ExtractOptions } from '../text/reading';
import { CHECK_MAX_DISTANCE } from '../fingerprint/features';

export const SCAN_METHODS = ['simhash', 'minhash', 'nilsimsa'] as const;
export type ScanMethod = (typeof SCAN_METHODS)[number];

/**
 * Each method's default cut-off, measured on `npm run bench:quality` (docs/methods.md):
 * - simhash: k = 3, as before (0 false pairs there; 5 bits is the closest false pair);
 * - minhash: 0.3, the middle of the gap between the most similar pair of different articles
 *   (Jaccard 0.16) and the least similar lightly edited copy (0.45);
 * - nilsimsa: 100. Pairs of different long articles score up to 97 (48 ± 16 on average), so 98 is
 *   the loosest cut-off without false pairs; 100 keeps a margin at no cost to verbatim or lightly
 *   edited recall there.
 */
export const DEFAULT_THRESHOLDS: Record<ScanMethod, number> = { simhash: DEFAULT_K, minhash: 0.3, nilsimsa: 100 };

/** A document's code for minhash (a signature) or nilsimsa (32 bytes); simhash needs none. */
export type MethodCode = Uint32Array | Uint8Array;

export interface JaccardScanPair {
  a: string;
  b: string;
  /** The share of agreeing signature rows: the estimated Jaccard similarity of the word shingles. */
  jaccard: number;
}

export interface ScoreScanPair {
  a: string;
  b: string;
  /** Nilsimsa score, −128…128. */
  score: number;
}

/** The report of minhash and nilsimsa: simhash's shape, with the method and its cut-off first. */
export interface MethodReport {
  method: 'minhash' | 'nilsimsa';
  threshold: number;
  documents: ScannedDocument[];
  pairs: JaccardScanPair[] | ScoreScanPair[];
  clusters: string[][];
}

export type AnyScanReport = ScanReport | MethodReport;
export type AnyScanPair = ScanPair | JaccardScanPair | ScoreScanPair;

export function parseMethod(text: string): ScanMethod {
  if ((SCAN_METHODS as readonly string[]).includes(text)) return text as ScanMethod;
  throw new RangeError(`--method must be one of ${SCAN_METHODS.join(', ')}: got ${JSON.stringify(text)}`);
}

const THRESHOLD_RULES: Record<ScanMethod, { ok: (value: number) => boolean; says: string }> = {
  simhash: { ok: (v) => Number.isInteger(v) && v >= 0 && v <= MAX_K, says: `simhash's threshold is the most bits that may differ, an integer from 0 to ${MAX_K}` },
  minhash: { ok: (v) => v > 0 && v < 1, says: "minhash's threshold is the least Jaccard similarity, a number between 0 and 1 (exclusive)" },
  nilsimsa: { ok: (v) => Number.isInteger(v) && v >= -128 && v <= 128, says: "nilsimsa's threshold is the least score, an integer from -128 to 128" },
};

/** Throws a RangeError that says what the method accepts. */
export function checkThreshold(method: ScanMethod, value: number): void {
  const rule = THRESHOLD_RULES[method];
  if (!rule.ok(value)) throw new RangeError(`${rule.says}: got ${value}`);
}

/** The cut-off as typed on the command line. */
export function parseThreshold(method: ScanMethod, text: string): number {
  const value = /^-?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!THRESHOLD_RULES[method].ok(value)) throw new RangeError(`${THRESHOLD_RULES[method].says}: got ${JSON.stringify(text)}`);
  return value;
}

/** The text nilsimsa reads: the extracted text with each run of whitespace made one space. */
export function nilsimsaText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function methodCode(method: ScanMethod, text: string): MethodCode | null {
  if (method === 'minhash') return minhashOfText(text);
  if (method === 'nilsimsa') return nilsimsaOfText(nilsimsaText(text));
  return null;
}

/** b bands of r rows of the default signature for a Jaccard threshold. */
export function minhashBanding(threshold: number): Banding {
  const { bands, rows } = chooseBanding(threshold, DEFAULT_HASHES);
  return { bands, rows };
}

/** Extracts and fingerprints one document for a method: simhash always, plus the method's code. */
export function fingerprintForMethod(
  input: ScanInput,
  method: ScanMethod,
  parseHtml: (html: string) => Document,
  extract: ExtractOptions = {},
  onText?: (text: string) => void,
): { fingerprinted: FingerprintedDocument; code: MethodCode | null } {
  let code: MethodCode | null = null;
  const fingerprinted = fingerprintDocument(input, parseHtml, extract, (text) => {
    code = methodCode(method, text);
    onText?.(text);
  });
  return { fingerprinted, code };
}

/** Pairs and clusters of fingerprinted documents (in report order) by one method. */
export function buildMethodReport(
  method: ScanMethod,
  fingerprinted: readonly FingerprintedDocument[],
  codes: readonly (MethodCode | null)[],
  threshold = DEFAULT_THRESHOLDS[method],
): AnyScanReport {
  if (method === 'simhash') return buildReport(fingerprinted, threshold);
  checkThreshold(method, threshold);
  const documents = fingerprinted.map((f) => f.document);
  const pathOf = (i: number): string => documents[i]!.path;
  let indexPairs: { a: number; b: number; measure: number }[];
  if (method === 'minhash') {
    indexPairs = lshPairs(codes as readonly (Uint32Array | null)[], threshold, minhashBanding(threshold)).map(({ a, b, jaccard }) => ({ a, b, measure: jaccard }));
  } else {
    indexPairs = nilsimsaPairs(codes as readonly (Uint8Array | null)[], threshold).map(({ a, b, score }) => ({ a, b, measure: score }));
  }
  return {
    method,
    threshold,
    documents,
    pairs:
      method === 'minhash'
        ? indexPairs.map(({ a, b, measure }) => ({ a: pathOf(a), b: pathOf(b), jaccard: measure }))
        : indexPairs.map(({ a, b, measure }) => ({ a: pathOf(a), b: pathOf(b), score: measure })),
    clusters: clustersOf(documents.length, indexPairs.map(({ a, b }) => [a, b] as const)).map((c) => c.map(pathOf)),
  };
}

/** Fingerprints every input (in the given order) and reports its pairs by one method. */
export function scanDocumentsBy(
  inputs: readonly ScanInput[],
  method: ScanMethod,
  options: { parseHtml: (html: string) => Document; threshold?: number; extract?: ExtractOptions },
): AnyScanReport {
  const results = inputs.map((input) => fingerprintForMethod(input, method, options.parseHtml, options.extract));
  return buildMethodReport(method, results.map((r) => r.fingerprinted), results.map((r) => r.code), options.threshold);
}

export function methodOf(report: AnyScanReport): ScanMethod {
  return 'method' in report ? report.method : 'simhash';
}

export function thresholdOf(report: AnyScanReport): number {
  return 'method' in report ? report.threshold : report.k;
}

/** A pair's measure, as the tables print it. */
export function pairMeasure(pair: AnyScanPair): string {
  if ('distance' in pair) return String(pair.distance);
  if ('jaccard' in pair) return pair.jaccard.toFixed(3);
  return String(pair.score);
}

/** The measure's column name and what a pair satisfies, e.g. "jaccard ≥ 0.5". */
export function measureName(method: ScanMethod): string {
  return method === 'simhash' ? 'distance' : method === 'minhash' ? 'jaccard' : 'score';
}

export function cutOffPhrase(method: ScanMethod, threshold: number): string {
  if (method === 'simhash') return `within ${threshold} ${threshold === 1 ? 'bit' : 'bits'}`;
  return `with ${measureName(method)} ≥ ${threshold}`;
}

/** What `--explain` prints: how the method decides, with its numbers. */
export function explainMethod(method: ScanMethod, threshold: number): string {
  if (method === 'simhash') {
    return [
      `simhash: a pair when the 64-bit simhashes differ in at most ${threshold} bits (permuted-block tables find them),`,
      `confirmed when the check simhashes differ in at most ${CHECK_MAX_DISTANCE} bits.`,
    ].join('\n') + '\n';
  }
  if (method === 'nilsimsa') {
    return [
      `nilsimsa: a pair when two 256-bit codes score at least ${threshold} (128 − the bits that differ), over all pairs.`,
      `Unrelated texts score about 0 with a standard deviation of 8; above ${NILSIMSA_THREE_SIGMA} is 3 sigma.`,
    ].join('\n') + '\n';
  }
  const banding = minhashBanding(threshold);
  const lines = [
    `minhash: ${DEFAULT_HASHES} hash functions over 3-word shingles; LSH with b = ${banding.bands} bands of r = ${banding.rows} rows.`,
    `A pair at Jaccard s is a candidate with probability P(s) = 1 − (1 − s^${banding.rows})^${banding.bands}; candidates are kept`,
    `when their signatures agree on at least ${threshold} of the ${DEFAULT_HASHES} rows.`,
    '',
    '     s   P(candidate)',
  ];
  const steps = Array.from({ length: 19 }, (_, i) => Math.round((i + 1) * 5) / 100);
  for (const { s, p } of sCurve(banding, steps)) {
    const bar = '#'.repeat(Math.round(p * 40));
    lines.push(`  ${s.toFixed(2)}   ${p.toFixed(4)}  ${bar}${Math.abs(s - threshold) < 0.025 ? '   ← threshold' : ''}`.trimEnd());
  }
  return lines.join('\n') + '\n';
}
