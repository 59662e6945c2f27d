// Query speed of the in-memory near-duplicate index at 1,000,000 fingerprints, k = 3.
//   npx tsx bench/speed/index-bench.ts
import { pathToFileURL } from 'node:url';
import { type Fingerprint, fingerprintFromHalves, fingerprintHalves } from '../../lib/fingerprint/bits';
import { MemoryIndex } from '../../lib/index/near';
import { uint32s } from '../../lib/random';
import { chooseDesign, describeDesign } from '../../lib/index/tables';

const SIZE = 1_000_000;
const K = 3;
const BASES = 2_000; // stored fingerprints that get planted neighbours at distances 1..K+1
const QUERIES = 10_000;
const WARMUP = 3_000;

export interface IndexBenchResult {
  size: number;
  k: number;
  design: string;
  buildMs: number;
  medianQueryUs: number;
  p99QueryUs: number;
  meanCandidates: number;
}

function randomFp(next: () => number): Fingerprint {
  return fingerprintFromHalves(next(), next());
}

/** fp with `count` distinct random bits flipped (anywhere in the 64). */
function flip(fp: Fingerprint, count: number, next: () => number): Fingerprint {
  let { hi, lo } = fingerprintHalves(fp);
  const used = new Set<number>();
  while (used.size < count) {
    const bit = next() % 64;
    if (used.has(bit)) continue;
    used.add(bit);
    if (bit < 32) hi ^= 1 << bit;
    else lo ^= 1 << (bit - 32);
  }
  return fingerprintFromHalves(hi >>> 0, lo >>> 0);
}

export async function benchIndex(): Promise<IndexBenchResult> {
  const next = uint32s(2007);
  const fps: Fingerprint[] = [];
  for (let i = 0; i < SIZE; i++) fps.push(randomFp(next));
  const bases: Fingerprint[] = [];
  for (let i = 0; i < BASES; i++) {
    const base = fps[Math.floor((i * SIZE) / BASES)]!;
    bases.push(base);
    for (let d = 1; d <= K + 1; d++) fps.push(flip(base, d, next));
  }

  const { design } = chooseDesign({ k: K, expectedSize: fps.length });
  const index = new MemoryIndex<number>(design);
  const t0 = performance.now();
  for (let i = 0; i < fps.length; i++) index.add(i, fps[i]!);
  const buildMs = performance.now() - t0;

  // Half the queries are near a planted base (distance 0..K: several hits each), half random.
  const makeQuery = (i: number): Fingerprint =>
    i % 2 === 0 ? flip(bases[(i >> 1) % BASES]!, (i >> 1) % (K + 1), next) : randomFp(next);
  const warm = Array.from({ length: WARMUP }, (_, i) => makeQuery(i));
  const queries = Array.from({ length: QUERIES }, (_, i) => makeQuery(i));

  let sink = 0;
  for (const q of warm) sink += index.query(q).length;
  const before = index.candidatesExamined;
  const times = new Float64Array(QUERIES);
  for (let i = 0; i < QUERIES; i++) {
    const q = queries[i]!;
    const start = process.hrtime.bigint();
    sink += index.query(q).length;
    times[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  if (sink === 0) throw new Error('benchmark queries found nothing: planted neighbours are missing');
  times.sort();
  const at = (q: number): number => times[Math.min(QUERIES - 1, Math.floor(q * QUERIES))]!;
  const round = (x: number, places: number): number => Number(x.toFixed(places));
  return {
    size: fps.length,
    k: K,
    design: describeDesign(design),
    buildMs: round(buildMs, 0),
    medianQueryUs: round(at(0.5), 2),
    p99QueryUs: round(at(0.99), 2),
    meanCandidates: round((index.candidatesExamined - before) / QUERIES, 1),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await benchIndex();
  console.log(
    `index: ${r.size.toLocaleString('en')} fingerprints, ${r.design}; build ${r.buildMs} ms; ` +
      `query median ${r.medianQueryUs} µs, p99 ${r.p99QueryUs} µs; ${r.meanCandidates} candidates/query`,
  );
}
