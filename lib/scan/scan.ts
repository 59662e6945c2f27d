// The `scan` command's first steps, without the file system: a document in, its extracted text
// and simhash out (fingerprintDocument), and the simhash pairs within k through permuted-block
// tables (findNearPairs). The detectors (lib/scan/detectors/) find pairs from here; the CLI
// (bin/scan.ts) reads the files.
import { extractArticle } from '../text/extract';
import type { ExtractOptions } from '../text/reading';
import { type TextFingerprints, fingerprintText } from '../fingerprint/features';
import { type Fingerprint, fingerprintToHex, hammingDistance } from '../fingerprint/bits';
import { MemoryIndex } from '../index/near';
import { DEFAULT_K, type TableDesign, chooseDesign } from '../index/tables';

export type ScanKind = 'html' | 'text';

export interface ScanInput {
  /** How the document is named in the report (the CLI: relative to the scanned folder, `/`). */
  path: string;
  kind: ScanKind;
  content: string;
}

export interface ScannedDocument {
  path: string;
  title: string;
  /** 16 hex digits, or null when the document has no comparable text (see note). */
  simhash: string | null;
  /** Token count of the fingerprinted text (0 without one). */
  words: number;
  /** Why there is no simhash; absent when there is one. */
  note?: string;
  /** Why its rare words cannot show a rewrite well (lib/scan/detectors/rewrites.ts); absent when they can. */
  rewriteNote?: string;
}

export interface ScanPair {
  a: string;
  b: string;
  distance: number;
}

/** The report, exactly as `scan --json` prints it. */
export interface ScanReport {
  k: number;
  documents: ScannedDocument[];
  pairs: ScanPair[];
  /** Paths, each cluster in documents order, clusters ordered by their first member. */
  clusters: string[][];
}

/** A document and its fingerprints (null when it has none). */
export interface FingerprintedDocument {
  document: ScannedDocument;
  fingerprints: Pick<TextFingerprints, 'simhash' | 'check'> | null;
}

export { DEFAULT_K };
export const MAX_K = 16;
export const TITLE_MAX_CHARS = 200;
export const NO_TEXT_NOTE = 'The file has no text.';

/** First non-empty line, trimmed, at most TITLE_MAX_CHARS characters. */
export function titleOfText(text: string): string {
  for (const line of text.split(/\r\n|\r|\n/)) {
    const trimmed = line.trim();
    if (trimmed) return [...trimmed].slice(0, TITLE_MAX_CHARS).join('').trimEnd();
  }
  return '';
}

/**
 * Extracts (HTML) and fingerprints one document. Never throws for bad input. `onText` gets the
 * text that was fingerprinted (other methods fingerprint the same text: lib/scan/registry.ts).
 */
export function fingerprintDocument(
  input: ScanInput,
  parseHtml: (html: string) => Document,
  extract: ExtractOptions = {},
  onText?: (text: string) => void,
): FingerprintedDocument {
  const { path, kind } = input;
  const content = input.content.replace(/^\ufeff/, '');
  let title: string;
  let text: string;
  if (kind === 'html') {
    let extraction;
    try {
      // the document was parsed for this reading alone: Readability may change it, no copy needed
      extraction = extractArticle(parseHtml(content), { cloneFirst: false, ...extract });
    } catch (error) {
      const note = `The page could not be read: ${error instanceof Error ? error.message : String(error)}`;
      return { document: { path, title: '', simhash: null, words: 0, note }, fingerprints: null };
    }
    if (!extraction.ok) {
      return { document: { path, title: extraction.title, simhash: null, words: 0, note: extraction.message }, fingerprints: null };
    }
    title = extraction.title;
    text = extraction.text;
  } else {
    title = titleOfText(content);
    text = content;
  }
  const { simhash, check, tokens } = fingerprintText(text);
  if (tokens === 0) {
    return { document: { path, title, simhash: null, words: 0, note: NO_TEXT_NOTE }, fingerprints: null };
  }
  onText?.(text);
  return { document: { path, title, simhash: fingerprintToHex(simhash), words: tokens }, fingerprints: { simhash, check } };
}

export interface IndexPair {
  /** Indices into the fingerprints array, a < b. */
  a: number;
  b: number;
  distance: number;
}

/** Reference answer: compares every pair. Same output as findNearPairs. */
export function bruteForcePairs(fingerprints: readonly (Fingerprint | null)[], k: number): IndexPair[] {
  const pairs: IndexPair[] = [];
  for (let a = 0; a < fingerprints.length; a++) {
    const fa = fingerprints[a];
    if (fa == null) continue;
    for (let b = a + 1; b < fingerprints.length; b++) {
      const fb = fingerprints[b];
      if (fb == null) continue;
      const distance = hammingDistance(fa, fb);
      if (distance <= k) pairs.push({ a, b, distance });
    }
  }
  return pairs;
}

/**
 * Every pair of fingerprints within k bits, a < b, sorted by a then b. Null entries (documents
 * without a fingerprint) pair with nothing. Uses the permuted-block tables (MemoryIndex) unless
 * comparing every pair is expected to be cheaper (few documents, or a k so large that the
 * design needs a great many tables).
 */
export function findNearPairs(fingerprints: readonly (Fingerprint | null)[], k: number): IndexPair[] {
  checkK(k);
  const present = fingerprints.reduce((n, fp) => (fp == null ? n : n + 1), 0);
  let design: TableDesign;
  try {
    design = chooseDesign({ k, expectedSize: present }).design;
  } catch {
    return bruteForcePairs(fingerprints, k);
  }
  // Work per document: one lookup per table plus the random candidates of each bucket.
  const indexCost = present * design.tables.reduce((sum, t) => sum + 1 + present / 2 ** t.keyBits, 0);
  const bruteCost = (present * (present - 1)) / 2;
  if (bruteCost <= indexCost) return bruteForcePairs(fingerprints, k);
  const index = new MemoryIndex<number>(design, Math.max(1, present));
  fingerprints.forEach((fp, i) => {
    if (fp != null) index.add(i, fp);
  });
  return index.pairs(k).map(({ a, b, distance }) => ({ a, b, distance }));
}

export function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 0 || k > MAX_K) throw new RangeError(`k must be an integer from 0 to ${MAX_K}: got ${k}`);
}
