// The `scan` command's first steps, without the file system: a document in, its extracted text
// and simhash out (fingerprintDocument), and the simhash pairs within k through permuted-block
// tables (findNearPairs). The detectors (lib/scan/detectors/) find pairs from here; the CLI
// (bin/scan.ts) reads the files.
import { extractArticle } from '../text/extract';
import { type Provenance, type SourceKind, declaredAddress } from '../text/provenance';
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
  /** The page's own address, when the input says it (else addressOfPath's, if any). */
  url?: string;
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
  /** Its own address when known: the input's, or its path's when the path starts with a host (addressOfPath). */
  url?: string;
  /** The address it declares for itself: its canonical link, or else its og:url. */
  address?: string;
  /** When it says it was published (ISO 8601), and the address it names as its source on another site, and how (lib/text/provenance.ts). */
  published?: string;
  source?: string;
  sourceBy?: SourceKind;
}

export interface ScanPair {
  a: string;
  b: string;
  distance: number;
}

/** Which document of a pair or a cluster is the original, and why (lib/scan/original.ts): the fields scan adds to every entry of its lists. */
export interface OriginalOf {
  /** The original's path; null when only an order of reading could say (a folder has none). */
  original: string | null;
  evidence: 'canonical' | 'credit' | 'published' | null;
}

/** One entry of `scan --json`'s `clusters`: its members' paths in documents order, and its original. */
export interface ScanCluster extends OriginalOf {
  members: string[];
}

/** The report, exactly as `scan --json` prints it (before the copy detectors' lists). */
export interface ScanReport {
  k: number;
  documents: ScannedDocument[];
  pairs: (ScanPair & OriginalOf)[];
  /** Clusters ordered by their first member. */
  clusters: ScanCluster[];
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
 * The address a file's path gives it: `https://PATH` when its first folder is named like a host
 * (`news.example.com/2024/story.html`, as a crawl saves pages), else undefined.
 */
export function addressOfPath(path: string): string | undefined {
  const [first, ...rest] = path.split('/');
  if (rest.length === 0 || first === undefined || !/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}(?::\d{1,5})?$/i.test(first)) return undefined;
  if (/\.(?:html?|txt|md|json|xml|php|aspx?|jsp|d|old|bak|tmp)$/i.test(first)) return undefined; // a folder named like a file
  try {
    return new URL(`https://${first}/${rest.map(encodeURIComponent).join('/')}`).href;
  } catch {
    return undefined;
  }
}

/** What a document's page says of where it comes from, as the report gives it (ScannedDocument's url … sourceBy fields). */
type Claimed = Pick<ScannedDocument, 'url' | 'address' | 'published' | 'source' | 'sourceBy'>;

/**
 * Extracts (HTML) and fingerprints one document. Never throws for bad input. `onText` gets the
 * text that was fingerprinted (other methods fingerprint the same text: lib/scan/registry.ts).
 * An HTML page's own address (the input's, or its path's) and the address it declares decide
 * which links are on another site; dates in the future of `now` are no dates.
 */
export function fingerprintDocument(
  input: ScanInput,
  parseHtml: (html: string) => Document,
  extract: ExtractOptions = {},
  onText?: (text: string) => void,
  now = Date.now(),
): FingerprintedDocument {
  const { path, kind } = input;
  const content = input.content.replace(/^\ufeff/, '');
  let title: string;
  let text: string;
  let claimed: Claimed = {};
  if (kind === 'html') {
    let extraction;
    try {
      const doc = parseHtml(content);
      const url = input.url ?? addressOfPath(path);
      const address = declaredAddress(doc, url ?? 'file:///');
      // without its own address, a page is where it says it is: its canonical link is then never another site's
      const pageUrl = url ?? address ?? `file:///${encodeURI(path)}`;
      // the document was parsed for this reading alone: Readability may change it, no copy needed
      extraction = extractArticle(doc, { cloneFirst: false, ...extract }, { url: pageUrl, now });
      if (extraction.ok) claimed = claimedBy(url, address, extraction.provenance ?? {});
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
    return { document: { path, title, simhash: null, words: 0, note: NO_TEXT_NOTE, ...claimed }, fingerprints: null };
  }
  onText?.(text);
  return { document: { path, title, simhash: fingerprintToHex(simhash), words: tokens, ...claimed }, fingerprints: { simhash, check } };
}

/** The report's fields of what a page says, only those it has. */
function claimedBy(url: string | undefined, address: string | undefined, { published, source, sourceBy }: Provenance): Claimed {
  return {
    ...(url === undefined ? {} : { url }),
    ...(address === undefined ? {} : { address }),
    ...(published === undefined ? {} : { published: new Date(published).toISOString() }),
    ...(source === undefined || sourceBy === undefined ? {} : { source, sourceBy }),
  };
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
