// simhash, `scan`'s default and the extension's detector: 64-bit term-frequency simhashes
// (lib/fingerprint/features.ts), pairs within k bits found through permuted-block tables, each
// confirmed by the check simhash. Every document's simhash is taken anyway (the report prints it),
// so this detector needs no code of its own.
import { CHECK_MAX_DISTANCE, confirmsNearDuplicate } from '../../fingerprint/features';
import type { Detector } from '../detector';
import { DEFAULT_K, MAX_K, checkK, findNearPairs } from '../scan';

export const simhash: Detector = {
  name: 'simhash',
  help: [`64-bit simhash; a pair when at most T bits differ (0..${MAX_K}).`, 'Pairs carry `distance`. Indexed (permuted-block tables), no all-pairs scan.'],
  measure: 'distance',
  formatMeasure: String,
  defaultThreshold: DEFAULT_K,
  threshold: { ok: (v) => Number.isInteger(v) && v >= 0 && v <= MAX_K, says: `simhash's threshold is the most bits that may differ, an integer from 0 to ${MAX_K}` },
  passes: (m, t) => m <= t,
  curve: [8, 7, 6, 5, 4, 3, 2, 1, 0],
  nested: true,
  about: '8 bytes a page and an exact index (permuted-block tables) instead of comparing every pair; the extension uses it',
  head: (k) => ({ k }),
  cutOff: (k) => `within ${k} ${k === 1 ? 'bit' : 'bits'}`,
  code: () => null,
  pairs(documents, _codes, k) {
    checkK(k);
    // candidates within k bits on the simhash, confirmed by the check fingerprint
    return findNearPairs(documents.map((f) => f.fingerprints?.simhash ?? null), k)
      .filter(({ a, b }) => confirmsNearDuplicate(documents[a]!.fingerprints!.check, documents[b]!.fingerprints!.check))
      .map(({ a, b, distance }) => ({ a, b, measure: distance }));
  },
  explain: (k) =>
    [
      `simhash: a pair when the 64-bit simhashes differ in at most ${k} bits (permuted-block tables find them),`,
      `confirmed when the check simhashes differ in at most ${CHECK_MAX_DISTANCE} bits.`,
    ].join('\n') + '\n',
};
