// Shared passages (lib/scan/reuse.ts): the pairs of documents that share a run of 30 words or
// more, each side's share of words in them. Every document's passage fingerprints with a hash of
// each word are kept to the end, so `--ndjson` does not list them.
import type { WordPassageFingerprints } from '../../fingerprint/passages';
import type { CopyDetector, CopyPair } from '../detector';
import { type ScanReuse, findScanReuse, formatReuse, reuseDocument } from '../reuse';

interface PassagesCode {
  fingerprints: WordPassageFingerprints;
  site: string | null;
}

export const passages: CopyDetector = {
  name: 'passages',
  key: 'reuse',
  streams: false,
  code: (text, site): PassagesCode => {
    const { fingerprints } = reuseDocument('', text, site);
    return { fingerprints: fingerprints!, site };
  },
  entry: 'reuse',
  async find(documents, reported) {
    const reuse = await findScanReuse(
      documents.map(({ path, code }) => ({ path, fingerprints: (code as PassagesCode | null)?.fingerprints ?? null, site: (code as PassagesCode | null)?.site ?? null })),
      reported,
    );
    return reuse as unknown as CopyPair[];
  },
  section: (pairs, numberOf) => formatReuse(pairs as unknown as ScanReuse[], numberOf),
};
