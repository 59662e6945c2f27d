// `scan`'s partial copies: the pairs of documents that share passages of at least 30 words, found by
// the extension's own matcher (lib/index/passage-index.ts) over the documents' postings in memory,
// beside the near-duplicate pairs of lib/scan/scan.ts. Pairs already in `pairs` are not repeated
// here. Pure: the CLI (bin/scan.ts) passes each document's fingerprints (taken where the file is
// read, on a worker thread with --jobs) and site.
import { MIN_PASSAGE_WORDS, type WordPassageFingerprints, wordPassageFingerprints } from '../fingerprint/passages';
import { BOILERPLATE, type BoilerplateRule, PassageIndex, findSharedPassages } from '../index/passage-index';
import type { Passage } from '../index/passage-match';
import { type OriginalOf, originalWords } from './original';

export interface PageForReuse {
  fingerprints: WordPassageFingerprints | null;
  site: string | null;
}

export interface Reuse {
  /** Indices into the pages, a < b. */
  a: number;
  b: number;
  /** Fraction of each page's words inside the passages they share. */
  aShare: number;
  bShare: number;
  passages: Passage[];
}

/**
 * Every pair of pages sharing passages (boilerplate left out by document frequency over these
 * pages), sorted by a then b, except the pairs `skip` says no to.
 */
export async function findReuse(pages: readonly PageForReuse[], skip: (a: number, b: number) => boolean = () => false, rule: BoilerplateRule = BOILERPLATE): Promise<Reuse[]> {
  const index = new PassageIndex(rule);
  pages.forEach((p, i) => {
    if (p.fingerprints) index.add(i, p.fingerprints, p.site);
  });
  const out: Reuse[] = [];
  for (let a = 0; a < pages.length; a++) {
    const own = pages[a]!.fingerprints;
    if (!own) continue;
    const found = await findSharedPassages(index, own, a, { exclude: (b) => b <= a || skip(a, b), marks: false });
    for (const m of found.sort((x, y) => x.id - y.id)) out.push({ a, b: m.id, aShare: m.share, bShare: m.otherShare, passages: m.passages });
  }
  return out;
}

/** One entry of `scan --json`'s `reuse`: a pair sharing passages, each side's share of words. */
export interface ScanReuse {
  a: string;
  b: string;
  /** Fraction of a's words inside the passages (3 decimals). */
  aShare: number;
  bShare: number;
  /** How many passages they share. */
  passages: number;
}

export interface ReuseDocument {
  path: string;
  /** The passage fingerprints of its fingerprinted text (null: the document has none). */
  fingerprints: WordPassageFingerprints | null;
  /** Its site (boilerplate is also counted per site), null when unknown. */
  site: string | null;
}

/** A document's entry for findScanReuse, from its fingerprinted text (null: none). */
export function reuseDocument(path: string, text: string | null, site: string | null): ReuseDocument {
  return { path, fingerprints: text === null ? null : wordPassageFingerprints(text), site };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Every unordered pair of documents sharing passages, except those `reported` already (near-duplicates), in documents order. */
export async function findScanReuse(documents: readonly ReuseDocument[], reported: (a: string, b: string) => boolean = () => false): Promise<ScanReuse[]> {
  const paths = documents.map((d) => d.path);
  const skip = (a: number, b: number): boolean => reported(paths[a]!, paths[b]!);
  return (await findReuse(documents, skip)).map((r) => reuseEntry(paths[r.a]!, paths[r.b]!, r));
}

/** The list's entry for two documents (a before b) sharing passages. */
export function reuseEntry(a: string, b: string, shared: Pick<Reuse, 'aShare' | 'bShare' | 'passages'>): ScanReuse {
  return { a, b, aShare: round3(shared.aShare), bShare: round3(shared.bShare), passages: shared.passages.length };
}

/**
 * The site an HTML page names for itself: the host of its canonical link or og:url, else its
 * og:site_name; null when it names none. Read from the markup (no network).
 */
export function siteOfHtml(html: string): string | null {
  const head = html.slice(0, 65536);
  const attr = (tag: string, name: string): string | undefined => new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'i').exec(tag)?.slice(1).find((v) => v !== undefined);
  for (const tag of head.match(/<(?:link|meta)\b[^>]*>/gi) ?? []) {
    const rel = attr(tag, 'rel')?.toLowerCase();
    const property = (attr(tag, 'property') ?? attr(tag, 'name'))?.toLowerCase();
    const url = rel === 'canonical' ? attr(tag, 'href') : property === 'og:url' ? attr(tag, 'content') : undefined;
    if (url) {
      try {
        return new URL(url).host.replace(/^www\./, '') || null;
      } catch {
        // Not an absolute URL: look further.
      }
    }
  }
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    if ((attr(tag, 'property') ?? attr(tag, 'name'))?.toLowerCase() === 'og:site_name') {
      const name = attr(tag, 'content')?.trim();
      if (name) return name;
    }
  }
  return null;
}

/** The text report's section: each pair sharing passages, with its shares (and its original, when the pair says: lib/scan/original.ts). */
export function formatReuse(reuse: readonly (ScanReuse & Partial<OriginalOf>)[], numberOf: (path: string) => string = () => ''): string {
  const out = [`Pairs sharing passages of ${MIN_PASSAGE_WORDS} words or more (${reuse.length})`];
  if (reuse.length) out.push(`  passages  share of a  share of b  a / b`);
  for (const r of reuse) {
    const pct = (x: number): string => `${(100 * x).toFixed(0)}%`.padStart(10);
    const original = r.original === undefined ? '' : `  ${originalWords({ original: r.original, evidence: r.evidence ?? null }, numberOf)}`;
    out.push(`  ${String(r.passages).padStart(8)}  ${pct(r.aShare)}  ${pct(r.bShare)}  ${[numberOf(r.a), r.a].filter(Boolean).join(' ')}  /  ${[numberOf(r.b), r.b].filter(Boolean).join(' ')}${original}`);
  }
  if (reuse.length) out.push('  (npm run scan -- --compare A B shows them side by side)');
  return out.join('\n') + '\n';
}
