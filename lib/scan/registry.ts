// `scan`'s detectors. DETECTORS are the near-duplicate methods `--method` chooses from, in the order
// `--help` lists them, the first the default; COPY_DETECTORS always run beside it, each with a list
// of its own, a pair reported by an earlier one left out of the later ones. A new detector is a
// file under lib/scan/detectors/ and a line here: `scan`, its help text, `--explain` and
// `npm run bench:quality` read these lists.
import type { CopyDetector, Detector } from './detector';
import { minhash } from './detectors/minhash';
import { nilsimsa } from './detectors/nilsimsa';
import { passages } from './detectors/passages';
import { rewrites } from './detectors/rewrites';
import { simhash } from './detectors/simhash';

export const DETECTORS: readonly Detector[] = [simhash, minhash, nilsimsa];

export const COPY_DETECTORS: readonly CopyDetector[] = [passages, rewrites];

export const DEFAULT_DETECTOR: Detector = DETECTORS[0]!;

/** The detector `--method` names; a RangeError listing them otherwise. */
export function detectorNamed(name: string): Detector {
  const found = DETECTORS.find((d) => d.name === name);
  if (found === undefined) throw new RangeError(`--method must be one of ${DETECTORS.map((d) => d.name).join(', ')}: got ${JSON.stringify(name)}`);
  return found;
}
