// The seeded synthetic pages bench:passage-layout writes (bench/layout/passage-layout-page.ts): each
// page's record for the store, drawn as bench:layout draws its pages, and its passage fingerprints
// (52 random hashes at increasing word positions, 1% of pages sharing a run with an earlier page).
import { mulberry32 } from '../../lib/random';
import type { PageRecord } from '../../lib/store/schema';

/** Fingerprints a page: 7.3 per 100 words of a 700-word article. */
export const FINGERPRINTS = 52;

const WORDS = 'harbour river council budget school vote winter summer market price energy grid train ferry bridge museum library garden forest coast island storm flood drought harvest farmer bakery festival concert election minister court judge'.split(' ');

/** Page i's record, as the import would store it (seeded by i alone). */
export function pageRecord(i: number): PageRecord {
  const random = mulberry32(0x5eed0000 ^ i);
  const word = (): string => WORDS[Math.floor(random() * WORDS.length)]!;
  const hex = (): string => Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0') + Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
  const site = `www.${word()}-${word()}${Math.floor(random() * 3000)}.com`;
  let slug = '';
  while (slug.length < 30 + random() * 30) slug += `${word()}-`;
  const url = `https://${site}/${word()}/2025/${String(1 + Math.floor(random() * 12)).padStart(2, '0')}/${slug}${i.toString(36)}`;
  let title = '';
  while (title.length < 40 + random() * 40) title += `${word()} `;
  const lastSeen = 1.7e12 + Math.floor(random() * 6e10);
  return { id: i, url, title: title.trim(), site, simhash: hex(), check: hex(), firstSeen: lastSeen, lastSeen, visits: 1 };
}

export interface PageFingerprints {
  hashes: Uint32Array;
  /** Word position of each, increasing: gaps of 1 to 26 words (winnowing's w), about 700 words in all. */
  positions: Uint16Array;
  /** The earlier page it shares a run of fingerprints with (1% of pages), and how many; else undefined. */
  source?: { page: number; shared: number };
}

/** Page i's passage fingerprints: 52 uniform random hashes, 1% of pages sharing a run of 10–30 with an earlier page. */
export function pageFingerprints(i: number): PageFingerprints {
  const random = mulberry32(0xf1a9e000 ^ Math.imul(i, 0x9e3779b1));
  const hashes = new Uint32Array(FINGERPRINTS);
  const positions = new Uint16Array(FINGERPRINTS);
  let at = Math.floor(random() * 13);
  for (let f = 0; f < FINGERPRINTS; f++) {
    hashes[f] = Math.floor(random() * 2 ** 32);
    positions[f] = at;
    at += 1 + Math.floor(random() * 26);
  }
  if (i > 0 && random() < 0.01) {
    const page = Math.floor(random() * i);
    const shared = 10 + Math.floor(random() * 21);
    const from = pageFingerprints(page).hashes;
    const src = Math.floor(random() * (FINGERPRINTS - shared + 1));
    const dst = Math.floor(random() * (FINGERPRINTS - shared + 1));
    hashes.set(from.subarray(src, src + shared), dst);
    return { hashes, positions, source: { page, shared } };
  }
  return { hashes, positions };
}
