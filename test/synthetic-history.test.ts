// bench/data/synthetic-history.ts, the history bench:browser imports: a seeded history is the same file
// every time (and without passages the file written before them); each line's rewrite
// fingerprints decode, and a planted rewrite is linked to its original by the detector; each line's passage
// fingerprints decode, at winnowing's density; a planted partial copy shares fingerprints with its
// original, and pages that copy nothing from each other share (almost) none.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SyntheticHistory, writeSyntheticHistory } from '../bench/data/synthetic-history';
import { base64ToBytes, bytesToBase64, decodePassageBytes, passageBytesFromVersion1 } from '../lib/fingerprint/passage-codec';
import { PASSAGE_PARAMS, type PassageFingerprints } from '../lib/fingerprint/passages';
import { decodeRewriteBytes } from '../lib/fingerprint/rewrite-codec';
import { compareRewrites, isRewritePair } from '../lib/fingerprint/rewrites';
import { PackedRewriteIndex } from '../lib/index/packed-rewrites';
import { findRewriteMatches } from '../lib/index/rewrite-index';
import { REWRITE_MAX_PAGES } from '../lib/index/rewrite-store';

const { k, w } = PASSAGE_PARAMS;
const OPTIONS = { pages: 3000, seed: 7, sampleSize: 50 };

interface Line {
  url: string;
  site: string;
  firstSeen: string;
  passages?: string;
}

let dir: string;
let history: SyntheticHistory;
let header: Record<string, unknown>;
let lines: Line[];
let byUrl: Map<string, { line: Line; fingerprints: PassageFingerprints }>;

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'doppel-synthetic-'));
  history = await writeSyntheticHistory(join(dir, 'a.ndjson'), OPTIONS);
  const [first, ...rest] = readFileSync(history.file, 'utf8').trimEnd().split('\n');
  header = JSON.parse(first!) as Record<string, unknown>;
  lines = rest.map((text) => JSON.parse(text) as Line);
  byUrl = new Map(lines.map((line) => [line.url, { line, fingerprints: decodePassageBytes(base64ToBytes(line.passages ?? '')) }]));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How many of `a`'s fingerprints have a hash that `b` holds. */
function sharedCount(a: PassageFingerprints, b: PassageFingerprints): number {
  const hashes = new Set(b.hashes);
  return a.hashes.filter((h) => hashes.has(h)).length;
}

describe('writeSyntheticHistory', () => {
  it('writes the same file for the same options, another for another seed', async () => {
    const again = await writeSyntheticHistory(join(dir, 'b.ndjson'), OPTIONS);
    const other = await writeSyntheticHistory(join(dir, 'c.ndjson'), { ...OPTIONS, seed: 8 });
    expect(sha256(again.file)).toBe(sha256(history.file));
    expect(again.partial).toEqual(history.partial);
    expect(sha256(other.file)).not.toBe(sha256(history.file));
  });

  it('without passages writes the file written before them, byte for byte', async () => {
    const old = await writeSyntheticHistory(join(dir, 'old.ndjson'), { ...OPTIONS, passages: false });
    // the generator of d0a6511, before passages, wrote this file for these options
    expect(sha256(old.file)).toBe('8d5b519ce20b5360d952f4ab3d956368f2da3124c929fec6dfd1a663bae33772');
    expect(readFileSync(old.file, 'utf8')).not.toContain('passages');
    expect(old.planted).toEqual(history.planted);
    expect(old).toMatchObject({ passages: null, partial: [], meanFingerprints: 0 });
  });

  it('names the winnowing parameters and the version of the passage bytes in the header', () => {
    expect(header['passages']).toEqual({ k, w, bytes: 2 });
    expect(history.passages).toEqual({ k, w, bytes: 2 });
  });

  it("gives every page its article's fingerprints: about 7.3 per 100 words, inside its words", () => {
    let words = 0;
    let fingerprints = 0;
    for (const line of lines) {
      const bytes = base64ToBytes(line.passages!);
      expect(bytesToBase64(bytes)).toBe(line.passages); // the generator's base64 is codec.ts's
      const f = decodePassageBytes(bytes);
      expect(f.wordBits?.length).toBe(Math.ceil(f.words / 8));
      expect(f.words).toBeGreaterThanOrEqual(110); // the shortest: an excerpt of 30% of 300 words and 20 of its own
      expect(f.words).toBeLessThanOrEqual(1560); // the longest: a quote of 60 words in 1,500
      expect(f.positions[0]).toBeGreaterThanOrEqual(0);
      expect(f.positions.at(-1)).toBeLessThanOrEqual(f.words - k);
      // a page's own density varies (3.9 to 10.7 per 100 words over 100,000 pages), the shortest most
      expect((f.hashes.length / f.words) * 100).toBeGreaterThan(3);
      expect((f.hashes.length / f.words) * 100).toBeLessThan(12);
      words += f.words;
      fingerprints += f.hashes.length;
    }
    expect(words / lines.length).toBeGreaterThan(650);
    expect(words / lines.length).toBeLessThan(750);
    expect((fingerprints / words) * 100).toBeGreaterThan(7);
    expect((fingerprints / words) * 100).toBeLessThan(7.6);
    expect(history.meanFingerprints).toBeCloseTo(fingerprints / lines.length, 9);
  });

  it("keeps winnowing's skew: the hashes are window minima, far below uniform values", () => {
    const hashes = lines.flatMap((line) => [...byUrl.get(line.url)!.fingerprints.hashes]);
    const mean = hashes.reduce((a, b) => a + b, 0) / hashes.length;
    // the least of 26 uniform values averages 1/27 of the range; uniform hashes would average 1/2
    expect(mean / 2 ** 32).toBeGreaterThan(0.02);
    expect(mean / 2 ** 32).toBeLessThan(0.08);
  });

  it('plants partial copies of both kinds, each sharing fingerprints with its earlier original on another host', () => {
    const { partial } = history;
    expect(partial.length).toBeGreaterThan(15);
    expect(new Set(partial.map((p) => p.kind))).toEqual(new Set(['excerpt', 'quote']));
    for (const p of partial) {
      const copy = byUrl.get(p.copy)!;
      const original = byUrl.get(p.original)!;
      expect(copy.line.site).not.toBe(original.line.site);
      expect(Date.parse(copy.line.firstSeen)).toBeGreaterThanOrEqual(Date.parse(original.line.firstSeen));
      expect(p.share).toBe(p.copiedWords / copy.fingerprints.words);
      if (p.kind === 'quote') expect(p.copiedWords).toBe(60);
      else expect(p.copiedWords / original.fingerprints.words).toBeGreaterThanOrEqual(0.3 - 1 / original.fingerprints.words);
      // every window of w k-grams inside the copied run selects the same k-gram in both pages
      expect(sharedCount(copy.fingerprints, original.fingerprints)).toBeGreaterThanOrEqual(Math.floor((p.copiedWords - k + 1) / w));
    }
  });

  it('gives every page rewrite fingerprints and plants rewrites the detector links to their original; without them the other fields are unchanged', async () => {
    expect(header['rewrites']).toEqual({ scheme: 1, bits: 20, cap: 64 });
    const raw = readFileSync(history.file, 'utf8').trimEnd().split('\n').slice(1).map((text) => JSON.parse(text) as Line & { rewrites: string });
    const rewritesOf = new Map(raw.map((line) => [line.url, decodeRewriteBytes(base64ToBytes(line.rewrites))]));
    expect(history.meanRewriteHashes).toBeGreaterThan(30);
    expect(history.meanRewriteHashes).toBeLessThanOrEqual(64);
    expect(history.rewrites.length).toBeGreaterThan(5);
    for (const r of history.rewrites) {
      const copy = rewritesOf.get(r.copy)!;
      const original = rewritesOf.get(r.original)!;
      expect(isRewritePair(compareRewrites(copy, original)), r.copy).toBe(true);
      expect(byUrl.get(r.copy)!.line.site).not.toBe(byUrl.get(r.original)!.line.site);
      // the pages' lines (0 = the first page, after the header): where bench:browser finds them in the store
      expect([raw[r.copyLine]!.url, raw[r.originalLine]!.url]).toEqual([r.copy, r.original]);
    }
    // pages that rewrite nothing: no pair among a sample of them
    const plain = raw.filter((line) => !history.rewrites.some((r) => r.copy === line.url || r.original === line.url)).slice(0, 300);
    let linked = 0;
    for (let a = 0; a < plain.length; a++) for (let b = a + 1; b < plain.length; b++) if (isRewritePair(compareRewrites(rewritesOf.get(plain[a]!.url)!, rewritesOf.get(plain[b]!.url)!))) linked++;
    expect(linked).toBe(0);
    const without = await writeSyntheticHistory(join(dir, 'no-rewrites.ndjson'), { ...OPTIONS, rewrites: false });
    const withoutLines = readFileSync(without.file, 'utf8').trimEnd().split('\n');
    expect(withoutLines.slice(1)).toEqual(raw.map(({ rewrites: _, ...line }) => JSON.stringify(line)));
    expect(without).toMatchObject({ rewrites: [], rewriteBytes: 0 });
  });

  it('a rewrite of a planted rewrite keeps the pairs that page holds: every planted rewrite is one by the rule, in the packed index too', async () => {
    // one page in ten a rewrite: 274 planted, 17 of a page that is itself planted (before the
    // mend, 269 and 19: 12 of those kept 70% of pairs their original's line did not hold, as 12 of 4,830 did
    // in bench:browser's million)
    const dense = await writeSyntheticHistory(join(dir, 'dense-rewrites.ndjson'), { ...OPTIONS, rewriteRate: 0.1 });
    const raw = readFileSync(dense.file, 'utf8').trimEnd().split('\n').slice(1).map((text) => JSON.parse(text) as Line & { rewrites: string });
    const bytes = raw.map((line) => base64ToBytes(line.rewrites));
    const planted = new Set(dense.rewrites.map((r) => r.copyLine));
    const index = new PackedRewriteIndex(REWRITE_MAX_PAGES);
    bytes.forEach((b, line) => index.add(line, b));
    index.seal();
    const unlinked: number[] = [];
    for (const r of dense.rewrites) {
      expect(isRewritePair(compareRewrites(decodeRewriteBytes(bytes[r.copyLine]!), decodeRewriteBytes(bytes[r.originalLine]!))), r.copy).toBe(true);
      const found = await findRewriteMatches(index, index.fingerprintsOf(r.copyLine)!, r.copyLine);
      if (!found.some((m) => m.id === r.originalLine)) unlinked.push(r.copyLine);
    }
    expect(unlinked).toEqual([]);
    expect(dense.rewrites.length).toBe(274);
    expect(dense.rewrites.filter((r) => planted.has(r.originalLine)).length).toBe(17);
  });

  it('leaves pages that copy nothing from each other (almost) without a shared fingerprint', () => {
    // pages joined by a planted copy (near-duplicate or partial), directly or through others, may share
    const group = new Map<string, string>();
    const find = (url: string): string => {
      const up = group.get(url);
      return up === undefined || up === url ? url : find(up);
    };
    for (const { copy, original } of [...history.planted, ...history.partial]) group.set(find(copy), find(original));
    const holders = new Map<number, string[]>();
    for (const [url, { fingerprints }] of byUrl) for (const h of new Set(fingerprints.hashes)) holders.set(h, [...(holders.get(h) ?? []), url]);
    const pairs = new Map<string, number>();
    for (const urls of holders.values()) {
      for (let a = 0; a < urls.length; a++) {
        for (let b = a + 1; b < urls.length; b++) {
          if (find(urls[a]!) === find(urls[b]!)) continue;
          const pair = `${urls[a]} ${urls[b]}`;
          pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
        }
      }
    }
    const allPairs = (lines.length * (lines.length - 1)) / 2;
    // 34 of 4.5 million pairs here: equal 32-bit minima, and repeated k-grams of common words
    expect(pairs.size / allPairs).toBeLessThan(2e-5);
    expect(Math.max(0, ...pairs.values())).toBeLessThanOrEqual(1); // never two: no passage
  });

  it('says where half the pages come from: a date before they were first seen, a fifth of the copies naming their original; without it, the same file but those fields', async () => {
    const raw = readFileSync(history.file, 'utf8').trimEnd().split('\n').slice(1).map((text) => JSON.parse(text) as Line & { published?: string; source?: string; sourceBy?: string });
    const dated = raw.filter((line) => line.published !== undefined);
    expect(dated.length / raw.length).toBeGreaterThan(0.45);
    expect(dated.length / raw.length).toBeLessThan(0.55);
    for (const line of dated) {
      const before = Date.parse(line.firstSeen) - Date.parse(line.published!);
      expect(before).toBeGreaterThanOrEqual(0);
      expect(before).toBeLessThanOrEqual(7 * 86_400_000);
      expect(Date.parse(line.published!) % 60_000).toBe(0);
    }
    const copies = new Map([...history.planted, ...history.partial].map((p) => [p.copy, p.original]));
    const naming = raw.filter((line) => line.source !== undefined);
    const namingOriginal = naming.filter((line) => copies.get(line.url) === line.source);
    expect(namingOriginal.length).toBeGreaterThan(0);
    expect(namingOriginal.length / copies.size).toBeLessThan(0.35);
    for (const line of naming) expect(['canonical', 'credit']).toContain(line.sourceBy);
    expect(history.provenanceBytes).toBeGreaterThan(0);
    const without = await writeSyntheticHistory(join(dir, 'no-provenance.ndjson'), { ...OPTIONS, provenance: false });
    const withoutLines = readFileSync(without.file, 'utf8').trimEnd().split('\n').slice(1);
    expect(withoutLines).toEqual(raw.map(({ published: _p, source: _s, sourceBy: _b, ...line }) => JSON.stringify(line)));
    expect(without.provenanceBytes).toBe(0);
  });

  it("writes the first release's file: passages in version 1 of their bytes (the same fingerprints, no word bits), no rewrites or provenance, the rest unchanged", async () => {
    const first = await writeSyntheticHistory(join(dir, 'first-release.ndjson'), { ...OPTIONS, firstRelease: true });
    const [firstHeader, ...firstLines] = readFileSync(first.file, 'utf8').trimEnd().split('\n');
    expect((JSON.parse(firstHeader!) as Record<string, unknown>)['passages']).toEqual({ k, w });
    expect(JSON.parse(firstHeader!)).not.toHaveProperty('rewrites');
    expect(first.passages).toEqual({ k, w });
    expect(firstLines).toHaveLength(lines.length);
    let fingerprints = 0;
    firstLines.forEach((text, i) => {
      const line = JSON.parse(text) as Line & Record<string, unknown>;
      for (const field of ['rewrites', 'published', 'source', 'sourceBy']) expect(line).not.toHaveProperty(field);
      const { passages: oldBytes, ...rest } = line;
      const { passages: newBytes, rewrites: _r, published: _p, source: _s, sourceBy: _b, ...want } = lines[i]! as Line & Record<string, unknown>;
      expect(rest).toEqual(want);
      const now = decodePassageBytes(base64ToBytes(newBytes as string));
      const read = decodePassageBytes(passageBytesFromVersion1(base64ToBytes(oldBytes as string)));
      expect(read.wordBits).toBeUndefined();
      expect({ words: read.words, hashes: [...read.hashes], positions: [...read.positions] }).toEqual({ words: now.words, hashes: [...now.hashes], positions: [...now.positions] });
      fingerprints += read.hashes.length;
    });
    expect(fingerprints).toBeGreaterThan(20 * lines.length);
  });
});
