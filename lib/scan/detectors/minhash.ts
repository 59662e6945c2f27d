// MinHash: signatures of 3-word shingles (lib/fingerprint/minhash.ts), candidates from LSH banding
// (lib/index/lsh.ts), kept when the signatures agree on at least `threshold` of their rows.
//
// Default 0.3: the middle of the gap on `npm run bench:quality` between the most similar pair of
// different articles (Jaccard 0.16) and the least similar lightly edited copy (0.45).
import { DEFAULT_HASHES, minhashOfText } from '../../fingerprint/minhash';
import { type Banding, chooseBanding, lshPairs, sCurve } from '../../index/lsh';
import type { Detector } from '../detector';

/** b bands of r rows of the default signature for a Jaccard threshold. */
export function minhashBanding(threshold: number): Banding {
  const { bands, rows } = chooseBanding(threshold, DEFAULT_HASHES);
  return { bands, rows };
}

export const minhash: Detector = {
  name: 'minhash',
  help: [
    `${DEFAULT_HASHES} MinHash rows over 3-word shingles, candidates from LSH banding,`,
    'verified on the signatures; a pair when the estimated Jaccard',
    'similarity is at least T. Pairs carry `jaccard`.',
  ],
  measure: 'jaccard',
  formatMeasure: (m) => m.toFixed(3),
  defaultThreshold: 0.3,
  threshold: { ok: (v) => v > 0 && v < 1, says: "minhash's threshold is the least Jaccard similarity, a number between 0 and 1 (exclusive)" },
  passes: (m, t) => m >= t,
  curve: [0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9],
  nested: false,
  about: '512 bytes a page; LSH banding finds candidates without comparing every pair, and the Jaccard it reports is easy to read',
  head: (threshold) => ({ method: 'minhash', threshold }),
  cutOff: (t) => `with jaccard ≥ ${t}`,
  code: (text) => minhashOfText(text),
  pairs: (_documents, codes, threshold) =>
    lshPairs(codes as readonly (Uint32Array | null)[], threshold, minhashBanding(threshold)).map(({ a, b, jaccard }) => ({ a, b, measure: jaccard })),
  explain(threshold) {
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
  },
};
