// Seeded random edits of a fingerprint, for the tests that draw pages near one another.
import { type Fingerprint, asFingerprint } from '../../lib/fingerprint/bits';

/** fp with n distinct random bits flipped (positions drawn over all 64 bits). */
export function flipRandomBits(fp: Fingerprint, n: number, random: () => number): Fingerprint {
  const positions = new Set<number>();
  while (positions.size < n) positions.add(Math.floor(random() * 64));
  let out = fp as bigint;
  for (const pos of positions) out ^= 1n << BigInt(pos);
  return asFingerprint(out);
}
