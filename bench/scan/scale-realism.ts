// `npm run check:scale-text [-- --documents N]`: how much bench:scan-scale's synthetic articles
// (bench/scan/scale-data.ts) look like real ones to the detectors. Beside the real articles of
// Readability's test pages (../shared/corpus, where present), it prints for as many synthetic
// originals: the share of words among SUBTLEX-US's first 100 and 1,000, the distinct share of a
// text's first 400 words, and the simhash and check distances between two texts (mean and first
// percentile); then, over the first N documents' originals (default 20,000), how many pairs lie
// within 4, 5 and 6 bits on the simhash and how close their check fingerprints come: the tail from
// which false near-duplicate pairs come as N grows (scan pairs within 3 bits and 16 on the check).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { type Fingerprint, hammingDistance } from '../../lib/fingerprint/bits';
import { fingerprintText } from '../../lib/fingerprint/features';
import { extractArticle } from '../../lib/text/extract';
import { SCALE_OPTIONS, scaleDocuments } from './scale-data';
import { englishWords } from './scale-words';

const CORPUS = new URL('../../../shared/corpus/readability-test-pages', import.meta.url).pathname;

/** The English articles of the corpus (150 words or more), extracted as scan extracts them. */
function realTexts(): string[] {
  if (!existsSync(CORPUS)) return [];
  const out: string[] = [];
  for (const name of readdirSync(CORPUS).sort()) {
    const file = join(CORPUS, name, 'source.html');
    if (!existsSync(file)) continue;
    const extraction = extractArticle(parseHTML(readFileSync(file, 'utf8')).document);
    if (extraction.ok && extraction.text.split(/\s+/).length > 150 && /\b(the|and)\b/.test(extraction.text)) out.push(extraction.text);
  }
  return out;
}

const { words } = englishWords();
const rank = new Map(words.map((w, i) => [w, i]));
const mean = (a: readonly number[]): number => a.reduce((x, y) => x + y, 0) / a.length;
const percentile = (a: readonly number[], p: number): number => [...a].sort((x, y) => x - y)[Math.floor(p * (a.length - 1))]!;

function describe(label: string, texts: readonly string[]): void {
  const fingerprints = texts.map((t) => fingerprintText(t));
  const simhash: number[] = [];
  const check: number[] = [];
  for (let i = 0; i < fingerprints.length; i++) {
    for (let j = i + 1; j < fingerprints.length; j++) {
      simhash.push(hammingDistance(fingerprints[i]!.simhash, fingerprints[j]!.simhash));
      check.push(hammingDistance(fingerprints[i]!.check, fingerprints[j]!.check));
    }
  }
  let tokens = 0;
  let top100 = 0;
  let top1000 = 0;
  let distinct = 0;
  for (const text of texts) {
    const all = text.toLowerCase().match(/[a-z]+/g) ?? [];
    distinct += new Set(all.slice(0, 400)).size / Math.min(400, all.length);
    for (const w of all) {
      const r = rank.get(w) ?? Infinity;
      tokens++;
      if (r < 100) top100++;
      if (r < 1000) top1000++;
    }
  }
  const share = (n: number): string => `${((100 * n) / tokens).toFixed(1)}%`;
  console.log(
    `${label.padEnd(10)} ${String(texts.length).padStart(5)} texts  top 100 ${share(top100)}  top 1,000 ${share(top1000)}  distinct ${(distinct / texts.length).toFixed(2)}  ` +
      `simhash mean ${mean(simhash).toFixed(1)} p1 ${percentile(simhash, 0.01)}  check mean ${mean(check).toFixed(1)} p1 ${percentile(check, 0.01)}`,
  );
}

/** Pairs of originals within 6 bits on the simhash, by distance, and the least check distance among them. */
function tail(documents: number): void {
  const halves: number[] = [];
  const checks: Fingerprint[] = [];
  for (const d of scaleDocuments({ ...SCALE_OPTIONS, documents, seed: 1, htmlShare: 0 })) {
    if (d.kind !== 'original') continue;
    const f = fingerprintText(d.content);
    halves.push(Number(BigInt.asUintN(32, f.simhash >> 32n)), Number(BigInt.asUintN(32, f.simhash)));
    checks.push(f.check);
  }
  const pop = (x: number): number => {
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
  };
  const n = checks.length;
  const within = [0, 0, 0, 0, 0, 0, 0];
  const closeChecks: number[] = [];
  for (let i = 0; i < n; i++) {
    const hi = halves[2 * i]!;
    const lo = halves[2 * i + 1]!;
    for (let j = i + 1; j < n; j++) {
      const d = pop(hi ^ halves[2 * j]!) + pop(lo ^ halves[2 * j + 1]!);
      if (d > 6) continue;
      within[d]!++;
      closeChecks.push(hammingDistance(checks[i]!, checks[j]!));
    }
  }
  const upTo = (k: number): number => within.slice(0, k + 1).reduce((a, b) => a + b, 0);
  console.log(`${n} originals of ${documents} documents, ${((n * (n - 1)) / 2).toExponential(2)} pairs: within 3 bits ${upTo(3)}, 4 ${upTo(4)}, 5 ${upTo(5)}, 6 ${upTo(6)}`);
  if (closeChecks.length) console.log(`check distance of those within 6 bits: least ${Math.min(...closeChecks)}, at most 16 (scan's cut) ${closeChecks.filter((c) => c <= 16).length}, at most 20 ${closeChecks.filter((c) => c <= 20).length}`);
}

function main(): void {
  const at = process.argv.indexOf('--documents');
  const documents = at >= 0 ? Number(process.argv[at + 1]) : 20_000;
  if (!Number.isInteger(documents) || documents < 100) throw new Error(`--documents needs an integer of at least 100: got ${process.argv[at + 1]}`);
  const real = realTexts();
  if (real.length) describe('real', real);
  else console.log(`(no real articles: ${CORPUS} is absent)`);
  const synthetic: string[] = [];
  for (const d of scaleDocuments({ ...SCALE_OPTIONS, documents: 400, seed: 7, htmlShare: 0 })) if (d.kind === 'original' && synthetic.length < Math.max(80, real.length)) synthetic.push(d.content);
  describe('synthetic', synthetic);
  tail(documents);
}

main();
