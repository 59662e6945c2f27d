// Random rewrite fingerprints for the matcher's tests: pages drawing their hashes (cut to 20 bits,
// as the store keeps them) from one pool of 300, so that many share several.
import type { RewriteLanguage } from '../../lib/fingerprint/rewrite-anchors';
import { type RewriteFingerprints, sampleHashes } from '../../lib/fingerprint/rewrites';
import { mulberry32, pick, uint32s } from '../../lib/random';

export function randomRewritePages(seed: number, count: number, { caps = [16, 64, 1000], languages = ['en'] }: { caps?: readonly number[]; languages?: readonly RewriteLanguage[] } = {}): RewriteFingerprints[] {
  const next = uint32s(seed);
  const random = mulberry32(seed);
  const pool = Array.from({ length: 300 }, () => Math.floor(next() / 4096) * 4096);
  return Array.from({ length: count }, () => {
    const share = random();
    const all = Uint32Array.from(new Set(pool.filter(() => random() < share * 0.4))).sort();
    const { hashes, limit } = sampleHashes(all, { share: 1, cap: pick(random, caps), bits: 20 });
    return { hashes, limit, anchors: hashes.length, lang: languages.length === 1 ? languages[0]! : pick(random, languages) };
  });
}
