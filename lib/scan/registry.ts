// `scan`'s detectors, in the order `--help` lists them; the first is the default. A new detector is
// a file under lib/scan/detectors/ and a line here: `scan --method`, its help text, `--explain`
// and `npm run bench:quality` read this list.
import type { Detector } from './detector';
import { minhash } from './detectors/minhash';
import { nilsimsa } from './detectors/nilsimsa';
import { simhash } from './detectors/simhash';

export const DETECTORS: readonly Detector[] = [simhash, minhash, nilsimsa];

export const DEFAULT_DETECTOR: Detector = DETECTORS[0]!;

/** The detector `--method` names; a RangeError listing them otherwise. */
export function detectorNamed(name: string): Detector {
  const found = DETECTORS.find((d) => d.name === name);
  if (found === undefined) throw new RangeError(`--method must be one of ${DETECTORS.map((d) => d.name).join(', ')}: got ${JSON.stringify(name)}`);
  return found;
}
