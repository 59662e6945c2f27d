// `npm run bench:passage-params`: the measurements behind the passage parameters (k words per
// k-gram, w k-grams per window, w + k − 1 = 30 so that any shared run of 30 words is found).
// For each k, on the real articles of Readability's test pages (../shared/corpus):
//   - fingerprints kept per 100 words (what an index stores);
//   - pairs of different articles sharing a fingerprint (chance matches: candidates to compare)
//     and sharing a passage of 30 words or more (false passages);
//   - lightly edited copies (2% and 5% of words dropped or replaced, seeded): the share of the
//     original inside passages, from fingerprints alone (no text: what the extension will have)
//     and extended over both texts (scan);
//   - fingerprinting speed.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { extractArticle } from '../../lib/text/extract';
import { type PassageParams, passageFingerprints } from '../../lib/fingerprint/passages';
import { coveredShare, sharedPassages } from '../../lib/index/passage-match';
import { comparePassages } from '../../lib/index/passage-index';
import { mulberry32, pick } from '../../lib/random';
import { CORPUS_DIR, isLoremIpsum } from '../data/republish';

const SUBSTITUTES = ['also', 'very', 'new', 'said', 'now', 'many', 'some', 'still', 'really', 'just', 'major', 'local', 'recent', 'often'];

function articles(): string[] {
  const texts = new Set<string>();
  for (const name of readdirSync(CORPUS_DIR).sort()) {
    const file = join(CORPUS_DIR, name, 'source.html');
    if (!existsSync(file)) continue;
    const e = extractArticle(parseHTML(readFileSync(file, 'utf8')).document as unknown as Document);
    if (e.ok && !isLoremIpsum(e.text)) texts.add(e.text);
  }
  return [...texts];
}

/** The text with a share of its words dropped or replaced (half each), seeded. */
function edited(text: string, rate: number, seed: number): string {
  const random = mulberry32(seed);
  return text.replace(/[\p{L}\p{N}]+/gu, (word) => (random() >= rate ? word : random() < 0.5 ? '' : pick(random, SUBSTITUTES)));
}

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

function measure(texts: string[], params: PassageParams) {
  const t0 = performance.now();
  const fps = texts.map((t) => passageFingerprints(t, params));
  const ms = performance.now() - t0;
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const words = fps.reduce((n, f) => n + f.words, 0);
  const kept = fps.reduce((n, f) => n + f.hashes.length, 0);

  let chancePairs = 0;
  let falsePassages = 0;
  const postings = new Map<number, number[]>();
  fps.forEach((f, i) => {
    for (const h of new Set(f.hashes)) (postings.get(h) ?? postings.set(h, []).get(h)!).push(i);
  });
  const candidates = new Set<number>();
  for (const ids of postings.values()) for (let x = 0; x < ids.length; x++) for (let y = x + 1; y < ids.length; y++) candidates.add(ids[x]! * 100000 + ids[y]!);
  chancePairs = candidates.size;
  for (const key of candidates) {
    const a = Math.floor(key / 100000);
    const b = key % 100000;
    if (comparePassages(fps[a]!, fps[b]!, { params }).passages.length) falsePassages++;
  }

  const editedShares = (rate: number) => {
    const fromFingerprints: number[] = [];
    const extended: number[] = [];
    texts.forEach((t, i) => {
      const copy = passageFingerprints(edited(t, rate, 1000 + i), params);
      fromFingerprints.push(coveredShare(sharedPassages(fps[i]!, copy, { params }).map((p) => p.a), fps[i]!.words));
      extended.push(comparePassages(fps[i]!, copy, { params }).share);
    });
    return { fromFingerprints: mean(fromFingerprints), extended: mean(extended) };
  };
  return { params, perHundredWords: (100 * kept) / words, chancePairs, falsePassages, edited2: editedShares(0.02), edited5: editedShares(0.05), mbPerS: bytes / 1e6 / (ms / 1000) };
}

function main(): void {
  if (!existsSync(CORPUS_DIR)) {
    console.log(`bench:passage-params skipped: the corpus is not at ${CORPUS_DIR}.`);
    return;
  }
  const texts = articles();
  const pairs = (texts.length * (texts.length - 1)) / 2;
  console.log(`Passage parameters: npm run bench:passage-params  (${texts.length} distinct article texts, lorem ipsum fixtures left out, ${pairs} pairs of different articles)`);
  console.log('w + k − 1 = 30 throughout. Edited copies: share of the original inside passages, from fingerprints alone / extended over both texts.\n');
  const head = ['k', 'w', 'fp/100 words', 'pairs sharing a fp', 'false passages', 'edited 2%', 'edited 5%', 'MB/s (one pass)'];
  console.log(head.map((h, i) => (i < 2 ? h.padStart(3) : h.padStart(19))).join(''));
  for (const k of [2, 3, 4, 5, 6, 8, 10, 13]) {
    const r = measure(texts, { k, w: 31 - k });
    const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
    console.log(
      [String(k).padStart(3), String(31 - k).padStart(3), r.perHundredWords.toFixed(2).padStart(19), String(r.chancePairs).padStart(19), String(r.falsePassages).padStart(19),
        `${pct(r.edited2.fromFingerprints)} / ${pct(r.edited2.extended)}`.padStart(19), `${pct(r.edited5.fromFingerprints)} / ${pct(r.edited5.extended)}`.padStart(19), r.mbPerS.toFixed(1).padStart(19)].join(''),
    );
  }
}

main();
