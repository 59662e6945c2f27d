// `npx tsx bench/speed/nilsimsa-scale.ts`: how fast nilsimsa's all-pairs scan (lib/fingerprint/nilsimsa.ts)
// compares codes, for the figures in `scan --help`. Seeded random codes, so no pair passes the cut-off
// and the time is the scan's alone.
import { nilsimsaPairs } from '../../lib/fingerprint/nilsimsa';
import { uint32s } from '../../lib/random';

for (const n of [10_000, 30_000]) {
  const next = uint32s(n);
  const codes = Array.from({ length: n }, () => new Uint8Array(new Uint32Array(Array.from({ length: 8 }, next)).buffer));
  const started = performance.now();
  const pairs = nilsimsaPairs(codes, 100);
  const seconds = (performance.now() - started) / 1000;
  const comparisons = (n * (n - 1)) / 2;
  console.log(`${n} codes: ${seconds.toFixed(1)} s, ${(comparisons / seconds / 1e6).toFixed(0)} million comparisons a second, ${pairs.length} pairs`);
}
