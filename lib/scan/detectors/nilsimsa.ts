// nilsimsa: 256-bit codes (lib/fingerprint/nilsimsa.ts), every pair scoring at least `threshold` on
// the −128…128 scale, found by comparing every pair of codes.
//
// Default 100: pairs of different long articles score up to 97 (48 ± 16 on average) on
// `npm run bench:quality`, so 98 is the loosest cut-off without false pairs; 100 keeps a margin at
// no cost to verbatim or lightly edited recall there.
import { NILSIMSA_THREE_SIGMA, nilsimsaOfText, nilsimsaPairs } from '../../fingerprint/nilsimsa';
import type { Detector } from '../detector';

/** The text nilsimsa reads: the extracted text with each run of whitespace made one space. */
export function nilsimsaText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export const nilsimsa: Detector = {
  name: 'nilsimsa',
  help: [
    '256-bit nilsimsa codes; a pair when the score (-128..128) is at least',
    'T. Pairs carry `score`. Compares every pair of codes, n²/2 comparisons',
    'at about 14 million a second on one core: 10,000 pages take 4 s,',
    '100,000 pages about 6 minutes, a million about 10 hours. Use simhash',
    'or minhash beyond 100,000 pages.',
  ],
  measure: 'score',
  formatMeasure: String,
  defaultThreshold: 100,
  threshold: { ok: (v) => Number.isInteger(v) && v >= -128 && v <= 128, says: "nilsimsa's threshold is the least score, an integer from -128 to 128" },
  passes: (m, t) => m >= t,
  curve: [90, 94, 96, 97, 98, 99, 100, 102, 104, 106, 108, 110, 115, 120],
  nested: true,
  about: '32 bytes a page, but every pair is compared (n²/2), and unrelated long articles score about 48 ± 16, so its margin is thin',
  head: (threshold) => ({ method: 'nilsimsa', threshold }),
  cutOff: (t) => `with score ≥ ${t}`,
  code: (text) => nilsimsaOfText(nilsimsaText(text)),
  pairs: (_documents, codes, threshold) => nilsimsaPairs(codes as readonly (Uint8Array | null)[], threshold).map(({ a, b, score }) => ({ a, b, measure: score })),
  explain: (threshold) =>
    [
      `nilsimsa: a pair when two 256-bit codes score at least ${threshold} (128 − the bits that differ), over all pairs.`,
      `Unrelated texts score about 0 with a standard deviation of 8; above ${NILSIMSA_THREE_SIGMA} is 3 sigma.`,
    ].join('\n') + '\n',
};
