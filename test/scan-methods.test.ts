// lib/scan/registry.ts and `scan --method/--threshold/--jobs/--ndjson/--explain`: each detector
// through the same scan, checked against brute force, and the CLI's output the same on any
// number of jobs.
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { compareNilsimsa } from '../lib/fingerprint/nilsimsa';
import { bandingProbability, bruteForceJaccardPairs } from '../lib/index/lsh';
import { type ScanInput, bruteForcePairs } from '../lib/scan/scan';
import { buildDetectorReport, fingerprintFor, parseThreshold, scanDocumentsBy } from '../lib/scan/detector';
import { COPY_DETECTORS, DETECTORS, detectorNamed } from '../lib/scan/registry';
import { passages } from '../lib/scan/detectors/passages';
import { readFileSync } from 'node:fs';
import { REWRITE_PARAMS, REWRITE_RULE, compareRewrites, indexHashes, isRewritePair, rewriteFingerprints, sampleHashes, truncateHashes } from '../lib/fingerprint/rewrites';
import { CHANCE_FREE_UP_TO, rewriteEntry, rewrites, scanRewriteCode, scanRewriteRule, verifiedComparison } from '../lib/scan/detectors/rewrites';
import { mulberry32, uint32s } from '../lib/random';
import { simhash } from '../lib/scan/detectors/simhash';
import { minhash, minhashBanding } from '../lib/scan/detectors/minhash';
import { nilsimsa } from '../lib/scan/detectors/nilsimsa';
import { hammingDistance } from '../lib/fingerprint/bits';
import { KITE, SOUP } from './support/scan-texts';

const parseHtml = (html: string): Document => parseHTML(html).document as unknown as Document;

const KITE_EDITED = KITE.map((p) => p.replace('fifteen years', 'sixteen years').replace('flying teapot', 'flying kettle'));

const page = (title: string, paragraphs: string[], site: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title} - ${site}</title></head><body>
<header><a href="/">${site}</a><nav><a href="/news">News</a> <a href="/about">About</a></nav></header>
<main><article><h1>${title}</h1>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</article></main><footer><p>Copyright ${site}.</p></footer></body></html>`;

const INPUTS: ScanInput[] = [
  { path: 'news/kites.html', kind: 'html', content: page('Kites fill the sky', KITE, 'Valley News') },
  { path: 'soup.txt', kind: 'text', content: SOUP.join('\n\n') },
  { path: 'empty.txt', kind: 'text', content: ' \n\t\n' },
  { path: 'mirror/kites.html', kind: 'html', content: page('Kites fill the sky', KITE, 'Mirror Site') },
  { path: 'edited/kites.txt', kind: 'text', content: `Kites fill the sky\n\n${KITE_EDITED.join('\n\n')}` },
];

const pairKeys = (pairs: readonly { a: string; b: string }[]): string[] => pairs.map((p) => `${p.a} ~ ${p.b}`).sort();
const familyPairs = [
  'mirror/kites.html ~ edited/kites.txt',
  'news/kites.html ~ edited/kites.txt',
  'news/kites.html ~ mirror/kites.html',
].sort();

describe('scanDocumentsBy', () => {
  it('simhash: {k, documents, pairs, clusters}, its pairs those of comparing every simhash within k', () => {
    for (const k of [3, 1]) {
      const report = scanDocumentsBy(INPUTS, simhash, { parseHtml, threshold: k });
      expect(Object.keys(report)).toEqual(['k', 'documents', 'pairs', 'clusters']);
      expect(report.k).toBe(k);
      const fingerprints = INPUTS.map((input) => fingerprintFor(simhash, input, parseHtml).fingerprinted.fingerprints);
      // no check refutes a pair of these (the copies share their words)
      const brute = bruteForcePairs(fingerprints.map((f) => f?.simhash ?? null), k).map(({ a, b, distance }) => ({ a: INPUTS[a]!.path, b: INPUTS[b]!.path, distance }));
      expect(report.pairs).toEqual(brute);
      for (const { a, b } of brute) expect(hammingDistance(fingerprints[INPUTS.findIndex((i) => i.path === a)]!.check, fingerprints[INPUTS.findIndex((i) => i.path === b)]!.check)).toBeLessThanOrEqual(16);
    }
    expect(pairKeys(scanDocumentsBy(INPUTS, simhash, { parseHtml }).pairs)).toEqual(familyPairs);
  });

  it('minhash: pairs the copies and the edited copy with their estimated Jaccard, as brute force does', () => {
    const report = scanDocumentsBy(INPUTS, minhash, { parseHtml });
    expect(report.method).toBe('minhash');
    expect(report.threshold).toBe(minhash.defaultThreshold);
    expect(Object.keys(report)).toEqual(['method', 'threshold', 'documents', 'pairs', 'clusters']);
    expect(report.documents.map((d) => d.path)).toEqual(INPUTS.map((i) => i.path));
    expect(report.documents[2]).toMatchObject({ simhash: null, words: 0 });
    const pairs = report.pairs as { a: string; b: string; jaccard: number }[];
    expect(pairKeys(pairs)).toEqual(familyPairs);
    const exact = pairs.find((p) => p.a === 'news/kites.html' && p.b === 'mirror/kites.html')!;
    expect(exact.jaccard).toBe(1);
    const edited = pairs.find((p) => p.a === 'news/kites.html' && p.b === 'edited/kites.txt')!;
    expect(edited.jaccard).toBeGreaterThanOrEqual(0.5);
    expect(edited.jaccard).toBeLessThan(1);
    // Every brute-force pair above the threshold, with the same estimate.
    const codes = INPUTS.map((input) => fingerprintFor(minhash, input, parseHtml).code as Uint32Array | null);
    const brute = bruteForceJaccardPairs(codes, report.threshold as number).map(({ a, b, jaccard }) => ({ a: INPUTS[a]!.path, b: INPUTS[b]!.path, jaccard }));
    expect(pairs).toEqual(brute);
    expect(report.clusters).toEqual([['news/kites.html', 'mirror/kites.html', 'edited/kites.txt']]);
  });

  it('nilsimsa: pairs the copies and the edited copy with their score, as comparing every code does', () => {
    const report = scanDocumentsBy(INPUTS, nilsimsa, { parseHtml });
    expect(report.method).toBe('nilsimsa');
    expect(report.threshold).toBe(nilsimsa.defaultThreshold);
    const pairs = report.pairs as { a: string; b: string; score: number }[];
    expect(pairKeys(pairs)).toEqual(familyPairs);
    expect(pairs.find((p) => p.a === 'news/kites.html' && p.b === 'mirror/kites.html')!.score).toBe(128);
    const codes = INPUTS.map((input) => fingerprintFor(nilsimsa, input, parseHtml).code as Uint8Array | null);
    expect(codes[2]).toBeNull();
    for (const p of pairs) {
      const a = INPUTS.findIndex((i) => i.path === p.a);
      const b = INPUTS.findIndex((i) => i.path === p.b);
      expect(p.score).toBe(compareNilsimsa(codes[a]!, codes[b]!));
    }
    // Kites and soup are unrelated: near 0, far below the cut-off.
    expect(Math.abs(compareNilsimsa(codes[0]!, codes[1]!))).toBeLessThan(40);
  });

  it('a stricter threshold drops the edited copy; a looser one keeps it', () => {
    for (const [method, strict] of [[minhash, 0.99], [nilsimsa, 127]] as const) {
      const report = scanDocumentsBy(INPUTS, method, { parseHtml, threshold: strict });
      expect(pairKeys(report.pairs), method.name).toEqual(['news/kites.html ~ mirror/kites.html']);
    }
  });

  it('rejects a threshold outside the method\'s range, saying what it accepts', () => {
    expect(() => parseThreshold(minhash, '1.5')).toThrow(/between 0 and 1/);
    expect(() => parseThreshold(minhash, 'x')).toThrow(/between 0 and 1/);
    expect(() => parseThreshold(nilsimsa, '129')).toThrow(/-128 to 128/);
    expect(() => parseThreshold(nilsimsa, '80.5')).toThrow(/integer/);
    expect(() => parseThreshold(simhash, '17')).toThrow(/0 to 16/);
    expect(parseThreshold(minhash, '.75')).toBe(0.75);
    expect(parseThreshold(nilsimsa, '-10')).toBe(-10);
    expect(() => buildDetectorReport(minhash, [], [], 0)).toThrow(RangeError);
  });
});

describe('the rewrite rule by the number of documents', () => {
  it.each([
    [2, 3],
    [CHANCE_FREE_UP_TO, 3],
    [CHANCE_FREE_UP_TO + 1, 4],
    [1_000_000, 4],
    [3_000_000, 4],
    [3_000_001, 5],
    [10_000_000, 5],
    [30_000_001, 6],
  ])('among %i documents a rewrite shares at least %i pairs; the rest of REWRITE_RULE is kept', (documents, minShared) => {
    expect(scanRewriteRule(documents)).toEqual({ ...REWRITE_RULE, minShared });
  });

  it('two unrelated articles of bench:scan-scale sharing 3 pairs by chance are a rewrite among a few documents, not among a million', () => {
    // documents 0029321 and 0114994 of `npm run bench:scan-scale -- --documents 1000000` (seed 1): "2025 Vetouuine … 2020" in both
    const code = (name: string) => scanRewriteCode(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures/scale-chance', name), 'utf8'));
    const [a, b] = [code('0029321.txt'), code('0114994.txt')];
    expect(rewriteEntry('a', 'b', a, b)).toEqual({ a: 'a', b: 'b', share: 0.3, translated: false });
    expect(rewriteEntry('a', 'b', a, b, scanRewriteRule(2))).not.toBeNull();
    expect(rewriteEntry('a', 'b', a, b, scanRewriteRule(1_000_000))).toBeNull();
  });
});

describe("scan's rewrite codes keep whole hashes", () => {
  it('a short page: the extension\'s code is scan\'s cut to 20 bits; scan\'s hashes keep their low bits', () => {
    const text = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures/scale-chance', '0029321.txt'), 'utf8');
    const scan = scanRewriteCode(text);
    const extension = rewriteFingerprints(text);
    expect(scan.hashes.length).toBeGreaterThanOrEqual(10);
    expect(scan.hashes.length).toBeLessThan(REWRITE_PARAMS.sample.cap); // not capped: both keep every pair
    expect(Array.from(truncateHashes(scan.hashes, REWRITE_PARAMS.sample.bits))).toEqual(Array.from(extension.hashes));
    expect(Array.from(scan.hashes).filter((h) => h % 2 ** 12 !== 0).length).toBeGreaterThan(scan.hashes.length / 2);
  });

  it('long unrelated pages meet on index hashes by chance 129,065 times under 20 bits, 80 times under 32', () => {
    // 3,000 seeded pages of 1,000 pairs each: 64 kept, the index hashes the smallest half of them
    const next = uint32s(48);
    const pages = Array.from({ length: 3000 }, () => Uint32Array.from({ length: 1000 }, () => next() >>> 0).sort());
    const meetings = (bits: number): number => {
      const holders = new Map<number, number>();
      let met = 0;
      for (const pairs of pages) {
        const { hashes, limit } = sampleHashes(truncateHashes(pairs, bits), REWRITE_PARAMS.sample);
        for (const h of indexHashes({ hashes, limit }, REWRITE_RULE.indexShare)) {
          const before = holders.get(h) ?? 0;
          met += before; // this page meets every page that holds h already
          holders.set(h, before + 1);
        }
      }
      return met;
    };
    const [cut, whole] = [meetings(20), meetings(32)];
    expect(cut).toBe(129_065);
    expect(whole).toBe(80);
  });
});

describe('explain', () => {
  it('minhash prints b, r and the S-curve 1 − (1 − s^r)^b at each similarity', () => {
    const { bands, rows } = minhashBanding(0.5);
    const text = minhash.explain(0.5);
    expect(text).toContain(`b = ${bands} bands of r = ${rows} rows`);
    expect(text).toContain(`P(s) = 1 − (1 − s^${rows})^${bands}`);
    const rowsOfCurve = text.split('\n').filter((l) => /^\s+0\.\d\d\s+\d\.\d{4}/.test(l));
    expect(rowsOfCurve).toHaveLength(19);
    for (const line of rowsOfCurve) {
      const [s, p] = line.trim().split(/\s+/).map(Number);
      expect(p).toBeCloseTo(bandingProbability(s!, { bands, rows }), 4);
    }
    expect(rowsOfCurve.find((l) => l.includes('← threshold'))).toMatch(/^\s+0\.50/);
  });

  it('nilsimsa and simhash say what their cut-off means', () => {
    expect(nilsimsa.explain(80)).toMatch(/score at least 80/);
    expect(simhash.explain(3)).toMatch(/at most 3 bits/);
  });
});

describe('the registry', () => {
  it('runs the copy detectors in order, passages then rewrites, each with its own list', async () => {
    expect(COPY_DETECTORS).toEqual([passages, rewrites]);
    expect(COPY_DETECTORS.map((d) => [d.key, d.streams])).toEqual([['reuse', false], ['rewrites', true]]);
    const original = 'On December 15, 2016, Yahoo said Verizon would buy its business for $4.8 billion. Marissa Mayer, Tim Armstrong and AOL met in New York. The deal closed in June 2017, and Oath was born with 8,500 staff.';
    const spanish = 'El 15 de diciembre de 2016, Yahoo dijo que Verizon compraría su negocio por 4.800 millones de dólares. Marissa Mayer, Tim Armstrong y AOL se reunieron en Nueva York. El acuerdo se cerró en junio de 2017, y Oath nació con 8.500 empleados.';
    const documents = [
      { path: 'a.txt', code: rewrites.code(original, null) },
      { path: 'b.txt', code: rewrites.code(spanish, null) },
      { path: 'c.txt', code: null },
    ];
    const found = await rewrites.find(documents, () => false);
    expect(found).toEqual([{ a: 'a.txt', b: 'b.txt', share: expect.any(Number), translated: true }]);
    expect(found[0]!['share']).toBeGreaterThanOrEqual(0.3);
    expect(await rewrites.find(documents, (a, b) => a === 'a.txt' && b === 'b.txt')).toEqual([]);
    expect(rewrites.section(found, (path) => (path === 'a.txt' ? '#1' : '#2'))).toMatch(/Rewritten or translated copies \(1\)[\s\S]*translated  #1 a\.txt  \/  #2 b\.txt/);
    expect(rewrites.noteOf!(rewrites.code('Just a few plain words, nothing more.', null))).toBe('no names, rare words or numbers: nothing to compare');
  });

  it('judges a candidate rewrite on the wide samples of long pages: chance sharing under a small limit is dropped, a rewrite that the 64 hashes understate is kept', async () => {
    const random = mulberry32(47);
    const taken = new Set<number>();
    // n distinct values in [from, to), none used before
    const draw = (n: number, from: number, to: number): number[] => {
      const out: number[] = [];
      while (out.length < n) {
        const v = from + Math.floor(random() * (to - from));
        if (!taken.has(v)) {
          taken.add(v);
          out.push(v);
        }
      }
      return out;
    };
    const sorted = (xs: number[]): Uint32Array => Uint32Array.from(xs).sort();
    const page = (hashes: number[], limit: number, wide?: { hashes: number[]; limit: number }) => ({
      hashes: sorted(hashes),
      limit,
      anchors: 100,
      lang: 'en' as const,
      ...(wide ? { wide: { hashes: sorted(wide.hashes), limit: wide.limit } } : {}),
    });
    // Two long pages dense with numbers: 3 of the 10 hashes of one under the other's small limit
    // are shared (0.3), and nothing more under their wide limits (3 of 64)
    const shared = draw(3, 0, 2 ** 23);
    const aSmall = [...shared, ...draw(7, 2 ** 23, 2 ** 24), ...draw(54, 2 ** 24, 2 ** 26)];
    const bSmall = [...shared, ...draw(61, 0, 2 ** 24)];
    const dense = [page(aSmall, 2 ** 26, { hashes: [...aSmall, ...draw(192, 2 ** 26, 2 ** 28)], limit: 2 ** 28 }), page(bSmall, 2 ** 24, { hashes: [...bSmall, ...draw(192, 2 ** 24, 2 ** 26)], limit: 2 ** 26 })];
    expect(isRewritePair(compareRewrites(dense[0]!, dense[1]!))).toBe(true); // what the samples alone would say
    expect(verifiedComparison(dense[0]!, dense[1]!)).toEqual({ aInB: 3 / 64, bInA: 3 / 256, shared: 3 });
    // A long rewrite: a quarter of its 64 hashes shared, 110 of its 256
    const both = [...draw(4, 0, 2 ** 23), ...draw(12, 2 ** 23, 2 ** 24)];
    const cSmall = [...both, ...draw(48, 0, 2 ** 24)];
    const dSmall = [...both, ...draw(48, 0, 2 ** 24)];
    const wideBoth = draw(94, 2 ** 24, 2 ** 26);
    const rewrite = [page(cSmall, 2 ** 24, { hashes: [...cSmall, ...wideBoth, ...draw(98, 2 ** 24, 2 ** 26)], limit: 2 ** 26 }), page(dSmall, 2 ** 24, { hashes: [...dSmall, ...wideBoth, ...draw(98, 2 ** 24, 2 ** 26)], limit: 2 ** 26 })];
    expect(isRewritePair(compareRewrites(rewrite[0]!, rewrite[1]!))).toBe(false);
    const documents = [...dense, ...rewrite].map((code, i) => ({ path: `${i}.txt`, code }));
    expect(await rewrites.find(documents, () => false)).toEqual([{ a: '2.txt', b: '3.txt', share: 0.43, translated: false }]);
  });

  it('lists simhash first (the default), each detector once, each found by its name', () => {
    expect(DETECTORS.map((d) => d.name)).toEqual(['simhash', 'minhash', 'nilsimsa']);
    for (const d of DETECTORS) expect(detectorNamed(d.name)).toBe(d);
    expect(() => detectorNamed('shingles')).toThrow('--method must be one of simhash, minhash, nilsimsa: got "shingles"');
  });

  it.each(DETECTORS.map((d) => [d.name, d] as const))('%s: its default passes its own check, its curve runs loosest first and holds the default', (_name, d) => {
    expect(d.threshold.ok(d.defaultThreshold)).toBe(true);
    expect(d.curve).toContain(d.defaultThreshold);
    for (let i = 1; i < d.curve.length; i++) {
      // a pair at the looser point's cut-off passes the looser one but not every stricter one
      expect(d.passes(d.curve[i - 1]!, d.curve[i - 1]!)).toBe(true);
      expect(d.passes(d.curve[i - 1]!, d.curve[i]!)).toBe(false);
    }
  });
});

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const SAMPLES = join(ROOT, 'samples');

function runScan(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [TSX, join(ROOT, 'bin', 'scan.ts'), ...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('bin/scan.ts --method, --jobs, --ndjson', () => {
  for (const detector of DETECTORS) {
    const method = detector.name;
    it(`${method}: --jobs 2 prints exactly what --jobs 1 prints, and finds the sample family`, async () => {
      const [one, two] = await Promise.all([runScan([SAMPLES, '--method', method, '--jobs', '1', '--json']), runScan([SAMPLES, '--method', method, '--jobs', '2', '--json'])]);
      expect(one.code).toBe(0);
      expect(one.stderr).toBe('');
      expect(two.stdout).toBe(one.stdout);
      const report = JSON.parse(one.stdout) as { pairs: object[]; clusters: { members: string[]; original: string | null }[] };
      expect(report.clusters).toHaveLength(1);
      expect(report.clusters[0]!.members).toContain('original-site/2024/05/wrenmouth-tide-mill-turns-again.html');
      expect(report.clusters[0]!.original).toBe('original-site/2024/05/wrenmouth-tide-mill-turns-again.html');
      for (const pair of report.pairs) expect(Object.keys(pair)).toEqual(['a', 'b', detector.measure, 'original', 'evidence']);
    }, 60_000);
  }

  it('--ndjson streams a header, one line per document, then the pairs, clusters and rewrites of --json', async () => {
    const [json, ndjson] = await Promise.all([runScan([SAMPLES, '--method', 'minhash', '--json']), runScan([SAMPLES, '--method', 'minhash', '--ndjson', '--jobs', '2'])]);
    expect(ndjson.code).toBe(0);
    const report = JSON.parse(json.stdout) as { documents: object[]; pairs: object[]; clusters: string[][]; rewrites: object[] };
    expect(report.rewrites.length).toBeGreaterThan(0);
    const lines = ndjson.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const expected = [
      { method: 'minhash', threshold: minhash.defaultThreshold },
      ...report.documents.map((document) => ({ document })),
      ...report.pairs.map((pair) => ({ pair })),
      ...report.clusters.map((cluster) => ({ cluster })),
      ...report.rewrites.map((rewrite) => ({ rewrite })),
    ];
    expect(lines).toEqual(expected);
  }, 60_000);

  it('--explain prints the S-curve; --help says how far nilsimsa scales', async () => {
    const [explain, help] = await Promise.all([runScan(['--method', 'minhash', '--threshold', '0.8', '--explain']), runScan(['--help'])]);
    expect(explain.stdout).toBe(minhash.explain(0.8));
    expect(help.stdout).toMatch(/nilsimsa[\s\S]*Compares every pair[\s\S]*100,000 pages/);
  }, 60_000);

  it('exits 2 with one line for a bad method, threshold or job count', async () => {
    const runs = await Promise.all([
      runScan([SAMPLES, '--method', 'tlsh']),
      runScan([SAMPLES, '--method', 'minhash', '--threshold', '2']),
      runScan([SAMPLES, '--method', 'nilsimsa', '--k', '3']),
      runScan([SAMPLES, '--jobs', '0']),
      runScan([SAMPLES, '--json', '--ndjson']),
    ]);
    for (const { code, stdout, stderr } of runs) {
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(runs[0]!.stderr).toMatch(/--method must be one of simhash, minhash, nilsimsa: got "tlsh"/);
    expect(runs[1]!.stderr).toMatch(/--threshold: .*between 0 and 1/);
    expect(runs[2]!.stderr).toMatch(/--k is simhash's threshold/);
    expect(runs[3]!.stderr).toMatch(/--jobs must be an integer from 1/);
    expect(runs[4]!.stderr).toMatch(/choose one/);
  }, 60_000);
});
