// A synthetic Doppel export (lib/protocol/ndjson.ts format) for `npm run bench:browser`: N pages with
// realistic addresses and titles, dates over two years, random fingerprints, passage fingerprints
// of a synthetic article, planted near-duplicates and planted partial copies. Seeded: the same
// options give the same file, byte for byte.
//
// - Hosts (a few thousand), URLs and titles: bench/data/synthetic-addresses.ts.
// - firstSeen uniform over the two years before 2025-11-01; 70% of pages seen once, the rest seen
//   again later (lastSeen up to the end, visits 2 and more).
// - simhash and check: 64 random bits each (two mulberry32 outputs).
// - Planted near-duplicates: each page is, with probability copyRate (1%), a copy of an earlier
//   page on a different host (a new address, the original's title, first seen up to 30 days
//   later), its simhash 0 to 3 bits from the original's and its check 0 to 6 bits from the
//   original's check, so Doppel must report the pair (k = 3, check limit 16 bits).
//
// With passages (the default; `passages: false` writes the file as it was before them, byte for
// byte), the header gains `"passages":{"k":5,"w":26,"bytes":2}` (PASSAGE_PARAMS, PASSAGE_BYTES_VERSION) and each page line
// `"passages":"<base64>"`: lib/fingerprint/passage-codec.ts's bytes of the page's words, winnowed k-gram
// hashes and positions, made by the real pipeline (kgramHashes, winnowHashes) from an article:
//
// - Articles: 300 to 1,500 words (mean 700) drawn by Zipf's law, unrelated pages sharing no run of
//   words (bench/data/synthetic-articles.ts says how they are drawn).
// - The near-duplicates above copy their original's words with 0 to 2% of them replaced.
// - Planted partial copies: each other page is, with probability passageCopyRate (1%), a page on
//   another host, first seen up to 30 days after an earlier page, that holds a run of that page's
//   words: half of them an excerpt (the original's first 30 to 60%, then 20 to 60 words of its
//   own: a credit line, a promo) and half a 60-word quote from anywhere in the original, at any
//   place in an article of its own. Its title and fingerprints are its own (not a near-duplicate).
import { createWriteStream } from 'node:fs';
import { fmix32 } from '../../lib/fingerprint/hash';
import { PASSAGE_BYTES_VERSION } from '../../lib/fingerprint/passage-codec';
import { PASSAGE_PARAMS, type PassageParams } from '../../lib/fingerprint/passages';
import { REWRITE_PARAMS, REWRITE_SCHEME, sampleHashes, truncateHashes } from '../../lib/fingerprint/rewrites';
import { encodeRewriteBytes } from '../../lib/fingerprint/rewrite-codec';
import { mulberry32 } from '../../lib/random';
import { makeHosts, makeTitle, makeUrl } from './synthetic-addresses';
import { Articles, EXCERPT, NEAR, OWN, QUOTE, passageField } from './synthetic-articles';

export interface PlantedCopy {
  copy: string;
  original: string;
  simhashBits: number;
  checkBits: number;
}

/** excerpt: the original's first 30 to 60%, then words of its own; quote: 60 of its words inside an article of its own. */
export type PartialCopyKind = 'excerpt' | 'quote';

export interface PlantedPartialCopy {
  copy: string;
  original: string;
  kind: PartialCopyKind;
  /** Words of the copy that are the original's, in one run. */
  copiedWords: number;
  /** Their share of the copy's words: what report/get's `share` for the original approaches (fingerprints alone give a little less). */
  share: number;
}

export interface SyntheticHistory {
  /** Bytes of the lines' published, source and sourceBy fields (0 without them). */
  provenanceBytes: number;
  file: string;
  pages: number;
  /** File size in bytes. */
  bytes: number;
  hosts: number;
  /** Mean characters per URL and per title. */
  meanUrlChars: number;
  meanTitleChars: number;
  /** Every planted copy, in file order. */
  planted: PlantedCopy[];
  /** A seeded sample of pages that are not planted copies (their originals may be among them). */
  sample: string[];
  /** The winnowing parameters of the pages' passage fingerprints, as in the header; null: written without passages. */
  passages: (PassageParams & { bytes?: number }) | null;
  /** Every planted partial copy, in file order (none without passages). */
  partial: PlantedPartialCopy[];
  /** Mean words of a page's article and passage fingerprints a page (0 without passages). */
  meanWords: number;
  meanFingerprints: number;
  /** Every planted rewrite (a page keeping REWRITE_KEPT of an earlier page's pairs of rare words, its own words otherwise), in file order; none without rewrites. */
  rewrites: { copy: string; original: string; copyLine: number; originalLine: number }[];
  /** Bytes of the lines' `,"rewrites":"…"` fields, all pages together, and rewrite hashes a page on average. */
  rewriteBytes: number;
  meanRewriteHashes: number;
  /** Bytes of the lines' `,"passages":"…"` fields, all pages together. */
  passageBytes: number;
}

export interface SyntheticOptions {
  pages: number;
  seed: number;
  /** Share of pages that are planted copies of an earlier page (default 0.01). */
  copyRate?: number;
  /** Pages to keep in `sample` (default 400). */
  sampleSize?: number;
  hosts?: number;
  /** Passage fingerprints and planted partial copies (default true); false writes the file as before them. */
  passages?: boolean;
  /** Rewrite fingerprints and planted rewrites (default: with passages); false writes the file as before them. */
  rewrites?: boolean;
  /** Share of the pages that are neither near-duplicates nor partial copies planted as rewrites of an earlier page (default 0.005). */
  rewriteRate?: number;
  /** Share of the pages that are not near-duplicates planted as partial copies of an earlier page (default 0.01). */
  partialRate?: number;
  /** What the pages say of where they come from (published, source, sourceBy: provenanceOf; default: with rewrites); false writes the file as before it. */
  provenance?: boolean;
  /**
   * The file as the first release (63168aa) reads it: passages in version 1 of their bytes, no word
   * bits, the header's `passages` without `bytes` (and no rewrites or provenance, which it predates:
   * both default to false). Its import refuses every line of this version's bytes.
   */
  firstRelease?: boolean;
}

const END = Date.UTC(2025, 10, 1);
const DAY = 86_400_000;
const START = END - 2 * 365 * DAY;

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** (hi, lo) with `bits` distinct random bit positions flipped. */
function flip(random: () => number, hi: number, lo: number, bits: number): [number, number] {
  const chosen = new Set<number>();
  while (chosen.size < bits) chosen.add(Math.floor(random() * 64));
  for (const bit of chosen) {
    if (bit < 32) lo ^= 1 << bit;
    else hi ^= 1 << (bit - 32);
  }
  return [hi >>> 0, lo >>> 0];
}

/**
 * A page's synthetic rewrite fingerprints: pairs of rare words as 20-bit hashes, about 0.12 a word
 * (a 700-word article of the corpus has about 40 anchors and 80 pairs: bench:rewrite-params), drawn
 * from the page's own seed so that a planted rewrite can keep REWRITE_KEPT of its original's, then
 * sampled as lib/fingerprint/rewrites.ts does (at most 64 a page).
 */
const REWRITE_KEPT = 0.7;
function rewritePairs(seed: number, page: number, words: number): number[] {
  return Array.from({ length: Math.max(4, Math.round(words * 0.12)) }, (_, j) => fmix32(fmix32(seed ^ 0x27d4eb2f) ^ Math.imul(page, 0x9e3779b1) ^ j));
}
function rewriteField(pairs: readonly number[]): { base64: string; hashes: number } {
  const { hashes, limit } = sampleHashes(truncateHashes(Uint32Array.from(pairs).sort(), REWRITE_PARAMS.sample.bits), REWRITE_PARAMS.sample);
  const bytes = encodeRewriteBytes({ hashes, limit, anchors: pairs.length, lang: 'en' });
  return { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'), hashes: hashes.length };
}

/** Writes the export to `file` and returns what the benchmark needs to query it. */
export async function writeSyntheticHistory(file: string, options: SyntheticOptions): Promise<SyntheticHistory> {
  const { pages, seed, copyRate = 0.01, sampleSize = 400, partialRate = 0.01 } = options;
  const withPassages = options.passages ?? true;
  const firstRelease = options.firstRelease ?? false;
  const withRewrites = options.rewrites ?? (withPassages && !firstRelease);
  const rewriteRate = options.rewriteRate ?? 0.005;
  const withProvenance = options.provenance ?? (withPassages && !firstRelease);
  // what the pages say of where they come from, drawn apart: the other fields are the same without it
  const provenanceRandom = mulberry32(fmix32(seed ^ 0x85ebca6b));
  let provenanceBytes = 0;
  // the rewrites' own draws, apart, so that the pages' other fields are the same with and without them
  const rewriteRandom = mulberry32(fmix32(seed ^ 0x165667b1));
  const wordsOf = new Uint16Array(pages);
  const rewriteAt: { copy: string; original: number; line: number }[] = [];
  // the pairs written for each kept page planted as a rewrite: a later rewrite of it keeps these,
  // not the pairs its seed would draw (12 of 4,830 planted rewrites at a million kept 30% of those
  // and were no rewrites of what the page holds; a few hundred entries at a million)
  const writtenPairs = new Map<number, number[]>();
  let rewriteBytes = 0;
  let rewriteHashes = 0;
  const random = mulberry32(seed);
  // the partial copies' own draws, apart, so that the pages' other fields are the same with and without passages
  const partialRandom = mulberry32(fmix32(seed ^ 0x3c6ef372));
  const articles = withPassages ? new Articles(pages, seed) : null;
  const hosts = makeHosts(random, options.hosts ?? 3000);
  const simHi = new Uint32Array(pages);
  const simLo = new Uint32Array(pages);
  const checkHi = new Uint32Array(pages);
  const checkLo = new Uint32Array(pages);
  const hostOf = new Uint16Array(pages);
  const firstSeenOf = new Float64Array(pages);
  const titles: string[] = new Array<string>(pages);
  const urls = new Map<number, string>(); // only the sampled pages and the originals of copies
  const sampleAt = new Set<number>();
  while (sampleAt.size < Math.min(sampleSize, pages)) sampleAt.add(Math.floor(random() * pages));
  const plantedAt: { copy: number; original: number; simhashBits: number; checkBits: number; url: string }[] = [];
  const partialAt: { original: number; kind: PartialCopyKind; copiedWords: number; share: number; url: string }[] = [];

  const out = createWriteStream(file);
  let bytes = 0;
  const write = (text: string): Promise<void> => {
    bytes += Buffer.byteLength(text);
    return out.write(text) ? Promise.resolve() : new Promise((ok) => out.once('drain', () => ok()));
  };
  const passageParams = withPassages ? { k: PASSAGE_PARAMS.k, w: PASSAGE_PARAMS.w, ...(!firstRelease && { bytes: PASSAGE_BYTES_VERSION }) } : null;
  const rewriteHeader = withRewrites ? { scheme: REWRITE_SCHEME, bits: REWRITE_PARAMS.sample.bits, cap: REWRITE_PARAMS.sample.cap } : null;
  await write(JSON.stringify({ format: 'doppel', version: 1, exported: new Date(END).toISOString(), pages, k: 3, ...(passageParams && { passages: passageParams }), ...(rewriteHeader && { rewrites: rewriteHeader }) }) + '\n');

  let urlChars = 0;
  let titleChars = 0;
  let words = 0;
  let fingerprints = 0;
  let passageBytes = 0;
  let chunk: string[] = [];
  // Which pages are originals of a copy is only known later: remember the URL of every page an
  // upcoming copy could point at would cost a million strings, so copies point at pages whose URL
  // is kept (every 8th page, a seeded choice that does not depend on the copy).
  const KEEP_EVERY = 8;
  for (let i = 0; i < pages; i++) {
    const isCopy = i > 100 && random() < copyRate && !sampleAt.has(i);
    const isPartial = articles !== null && !isCopy && i > 100 && !sampleAt.has(i) && partialRandom() < partialRate;
    let host: number;
    let firstSeen: number;
    let title: string;
    let original = -1;
    let simhashBits = 0;
    let checkBits = 0;
    if (isCopy) {
      original = Math.floor(random() * Math.floor(i / KEEP_EVERY)) * KEEP_EVERY;
      host = Math.floor(random() * hosts.length);
      if (host === hostOf[original]) host = (host + 1) % hosts.length;
      firstSeen = Math.min(END - DAY, firstSeenOf[original]! + random() * 30 * DAY);
      title = titles[original]!;
      simhashBits = Math.floor(random() * 4);
      checkBits = Math.floor(random() * 7);
      [simHi[i], simLo[i]] = flip(random, simHi[original]!, simLo[original]!, simhashBits);
      [checkHi[i], checkLo[i]] = flip(random, checkHi[original]!, checkLo[original]!, checkBits);
    } else {
      host = Math.floor(random() * hosts.length);
      firstSeen = START + random() * (END - START - DAY);
      title = makeTitle(random);
      simHi[i] = random() * 4294967296;
      simLo[i] = random() * 4294967296;
      checkHi[i] = random() * 4294967296;
      checkLo[i] = random() * 4294967296;
      if (isPartial) {
        original = Math.floor(partialRandom() * Math.floor(i / KEEP_EVERY)) * KEEP_EVERY;
        if (host === hostOf[original]) host = (host + 1) % hosts.length;
        firstSeen = Math.min(END - DAY, firstSeenOf[original]! + partialRandom() * 30 * DAY);
      }
    }
    firstSeen = Math.floor(firstSeen);
    hostOf[i] = host;
    firstSeenOf[i] = firstSeen;
    titles[i] = title;
    const again = random() < 0.3;
    const lastSeen = again ? Math.floor(firstSeen + random() * (END - firstSeen)) : firstSeen;
    const visits = again ? 2 + Math.floor(-Math.log(1 - random()) * 3) : 1;
    const hostName = hosts[host]!;
    const url = makeUrl(random, hostName, i, firstSeen);
    if (i % KEEP_EVERY === 0 || sampleAt.has(i)) urls.set(i, url);
    if (isCopy) plantedAt.push({ copy: i, original, simhashBits, checkBits, url });
    let passages: string | undefined;
    const wordsBefore = words;
    if (articles) {
      const kind = isCopy ? NEAR : !isPartial ? OWN : partialRandom() < 0.5 ? EXCERPT : QUOTE;
      const article = articles.add(i, kind, original);
      const field = passageField(article.words, firstRelease);
      passages = field.base64;
      words += article.words.length;
      fingerprints += field.fingerprints;
      passageBytes += ',"passages":""'.length + passages.length;
      if (isPartial) {
        const share = article.copied / article.words.length;
        partialAt.push({ original, kind: kind === EXCERPT ? 'excerpt' : 'quote', copiedWords: article.copied, share, url });
      }
    }
    let rewrites: string | undefined;
    if (withRewrites) {
      const pageWords = articles ? words - wordsBefore : 700;
      wordsOf[i] = Math.min(65535, pageWords);
      let pairs = rewritePairs(seed, i, pageWords);
      if (!isCopy && !isPartial && i > 100 && !sampleAt.has(i) && rewriteRandom() < rewriteRate) {
        // a rewrite of a kept page on another host: REWRITE_KEPT of its pairs, the rest its own
        const original = Math.floor(rewriteRandom() * Math.floor(i / KEEP_EVERY)) * KEEP_EVERY;
        if (hostOf[original] !== host) {
          const theirs = writtenPairs.get(original) ?? rewritePairs(seed, original, wordsOf[original]!);
          pairs = [...theirs.filter(() => rewriteRandom() < REWRITE_KEPT), ...pairs.slice(0, Math.round(pairs.length * (1 - REWRITE_KEPT)))];
          rewriteAt.push({ copy: url, original, line: i });
          if (i % KEEP_EVERY === 0) writtenPairs.set(i, pairs);
        }
      }
      const field = rewriteField(pairs);
      rewrites = field.base64;
      rewriteHashes += field.hashes;
      rewriteBytes += ',"rewrites":""'.length + rewrites.length;
    }
    urlChars += url.length;
    titleChars += title.length;
    const claims = withProvenance ? provenanceOf(provenanceRandom, firstSeen, original >= 0 ? urls.get(original) : undefined) : {};
    if (withProvenance) provenanceBytes += JSON.stringify(claims).length - 2;
    chunk.push(
      JSON.stringify({
        url,
        title,
        site: hostName,
        simhash: hex8(simHi[i]!) + hex8(simLo[i]!),
        check: hex8(checkHi[i]!) + hex8(checkLo[i]!),
        firstSeen: new Date(firstSeen).toISOString(),
        lastSeen: new Date(lastSeen).toISOString(),
        visits,
        passages,
        rewrites,
        ...claims,
      }),
    );
    if (chunk.length === 5000) {
      await write(chunk.join('\n') + '\n');
      chunk = [];
    }
  }
  if (chunk.length > 0) await write(chunk.join('\n') + '\n');
  await new Promise<void>((ok, fail) => out.end((error?: Error | null) => (error ? fail(error) : ok())));

  return {
    file,
    pages,
    bytes,
    hosts: hosts.length,
    meanUrlChars: urlChars / pages,
    meanTitleChars: titleChars / pages,
    planted: plantedAt.map((p) => ({ copy: p.url, original: urls.get(p.original)!, simhashBits: p.simhashBits, checkBits: p.checkBits })),
    sample: [...sampleAt].sort((a, b) => a - b).map((i) => urls.get(i)!),
    passages: passageParams,
    partial: partialAt.map((p) => ({ copy: p.url, original: urls.get(p.original)!, kind: p.kind, copiedWords: p.copiedWords, share: p.share })),
    meanWords: words / pages,
    meanFingerprints: fingerprints / pages,
    passageBytes,
    rewrites: rewriteAt.map((r) => ({ copy: r.copy, original: urls.get(r.original)!, copyLine: r.line, originalLine: r.original })),
    rewriteBytes,
    meanRewriteHashes: rewriteHashes / pages,
    provenanceBytes,
  };
}

/**
 * What a synthetic page says of where it comes from (lib/text/provenance.ts): half the pages state
 * a publication time, 0 to 7 days before they were first seen (as 61 of the corpus's 130 pages
 * state one); a fifth of the copies of a known page name it as their source, by their canonical
 * link or by a credit line, and 1% of the other pages name a page of another site.
 */
function provenanceOf(random: () => number, firstSeen: number, original: string | undefined): { published?: string; source?: string; sourceBy?: 'canonical' | 'credit' } {
  const out: { published?: string; source?: string; sourceBy?: 'canonical' | 'credit' } = {};
  if (random() < 0.5) out.published = new Date(Math.floor((firstSeen - random() * 7 * DAY) / 60_000) * 60_000).toISOString();
  const names = original !== undefined ? random() < 0.2 : random() < 0.01;
  if (names) {
    out.source = original ?? `https://www.source-${Math.floor(random() * 500)}.example/story/${Math.floor(random() * 1e9).toString(36)}`;
    out.sourceBy = random() < 0.5 ? 'canonical' : 'credit';
  }
  return out;
}
