// `npm run bench:quality`: how well `scan` finds republished copies of real articles.
//
// Takes the real articles of Readability's test pages (../shared/corpus), makes copies of each
// the way republishers do (bench/data/republish.ts), writes every page as an HTML file, runs the
// `scan` command on the folder with --json, and scores its pairs: the share of copies paired with
// their original at k = 3, by kind, and the pairs between different articles (false pairs).
// A plain term-frequency simhash on the same extracted texts is scored in the same run as the
// baseline. Then every `scan --method` side by side at its default, with trade-off curves
// (bench/quality/quality-methods.ts).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';
import { extractArticle } from '../../lib/text/extract';
import { PLAIN_TF_FEATURES, fingerprintText } from '../../lib/fingerprint/features';
import { type Fingerprint, hammingDistance } from '../../lib/fingerprint/bits';
import { type Result, pct, runScan, score, writePages } from './quality-score';
import { compareMethods, printComparison } from './quality-methods';
import { COPY_KINDS, CORPUS_DIR, KIND_GROUP, type QualityPage, buildQualitySet } from '../data/republish';
import { buildPartialCopies } from '../data/republish';
import { printPartial, scorePartial, writePartialPages } from './quality-partial';
import { buildRewritePages, printRewrites, rewriteCurve, scoreRewrites } from './quality-rewrites';
import { loadRewriteSet } from '../data/rewrite-set';
import { printProvenance, scoreProvenance } from './quality-provenance';

const K = 3;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const json = process.argv.includes('--json');

/** The baseline: plain tf simhash of the same extracted text, every pair within k, no check. */
function baselinePairs(pages: readonly QualityPage[]): { a: string; b: string; distance: number }[] {
  const fps: (Fingerprint | null)[] = pages.map((p) => {
    const e = extractArticle(parseHTML(p.html).document);
    return e.ok ? fingerprintText(e.text, PLAIN_TF_FEATURES).simhash : null;
  });
  const pairs = [];
  for (let i = 0; i < pages.length; i++) {
    for (let j = i + 1; j < pages.length; j++) {
      const a = fps[i];
      const b = fps[j];
      if (a == null || b == null) continue;
      const distance = hammingDistance(a, b);
      if (distance <= K) pairs.push({ a: pages[i]!.path, b: pages[j]!.path, distance });
    }
  }
  return pairs;
}


function main(): void {
  if (!existsSync(CORPUS_DIR)) {
    console.log(`bench:quality skipped: the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`);
    return;
  }
  const started = performance.now();
  const set = buildQualitySet();
  const dir = mkdtempSync(join(tmpdir(), 'doppel-quality-'));
  try {
    writePages(set.pages, dir);
    // every method on the same built pages (the partial copies are the passages' own test, below)
    const methods = compareMethods(ROOT, dir, set.pages);
    const partialPages = buildPartialCopies(set);
    writePartialPages(partialPages, dir);
    const report = runScan(dir, K);
    const partial = scorePartial(set, partialPages, report);
    // The near-duplicate table scores the pages it built (partial copies are scored below).
    const built = new Set(set.pages.map((p) => p.path));
    const doppel = score(set.pages, report.pairs.filter(({ a, b }) => built.has(a) && built.has(b)));
    const baseline = score(set.pages, baselinePairs(set.pages));
    // rewritten and translated copies: the rewrites the run above listed must all join pages that
    // hold one article (a quote's page holds its host article whole, and the quoted one in part)
    const articleOf = new Map([...set.pages.map((p) => [p.path, p.article] as const), ...partialPages.map((p) => [p.path, [...p.sources, ...p.related].join('+')] as const)]);
    const mainRewrites = (report as { rewrites?: { a: string; b: string }[] }).rewrites ?? [];
    const mainRunFalse = mainRewrites.filter(({ a, b }) => {
      const x = articleOf.get(a)!.split('+');
      return !articleOf.get(b)!.split('+').some((article) => x.includes(article));
    });
    const rewritePages = buildRewritePages(loadRewriteSet(), set.pages);
    const rewriteDir = mkdtempSync(join(tmpdir(), 'doppel-quality-rewrites-'));
    writePages(rewritePages, rewriteDir);
    const rewriteScore = scoreRewrites(rewritePages, runScan(rewriteDir, K));
    rmSync(rewriteDir, { recursive: true, force: true });
    const curve = rewriteCurve(rewritePages, [0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5]);
    const provenance = scoreProvenance(K);
    const seconds = (performance.now() - started) / 1000;

    if (json) {
      console.log(JSON.stringify({ k: K, articles: set.articles.length, pages: set.pages.length, dropped: set.dropped, doppel, baseline, partial, rewrites: { score: rewriteScore, curve, mainRunFalse }, provenance: { ...provenance, orders: { ...provenance.orders, honestFlaggedSites: Object.fromEntries(provenance.orders.honestFlaggedSites), farmsMissedSites: Object.fromEntries(provenance.orders.farmsMissedSites) } }, seconds, methods }));
      return;
    }
    console.log(`Quality: npm run bench:quality (k = ${K})`);
    console.log(`${set.articles.length} real articles from ${CORPUS_DIR}`);
    console.log(`${set.dropped.length} pages dropped: ${summarizeDropped(set.dropped)}`);
    console.log(`${set.pages.length} pages scanned: each original and 3 variants of each copy kind, written as HTML and read by \`scan --json\`.\n`);
    const rows: [string, (r: Result) => string][] = [
      ...COPY_KINDS.map((k): [string, (r: Result) => string] => [`  ${k} (${KIND_GROUP[k]})`, (r) => pct(r.byKind[k])]),
      ['verbatim copies found', (r) => pct(r.byGroup['verbatim']!)],
      ['lightly edited copies found', (r) => pct(r.byGroup['lightly edited']!)],
      ['excerpts found (reported, not targeted)', (r) => pct(r.byGroup['excerpt']!)],
      ['false pairs (different articles)', (r) => String(r.falsePairs.length)],
    ];
    console.log(`${''.padEnd(42)}${'Doppel scan'.padEnd(22)}baseline (plain tf simhash)`);
    for (const [label, cell] of rows) console.log(`${label.padEnd(42)}${cell(doppel).padEnd(22)}${cell(baseline)}`);
    console.log('\nTargets: verbatim ≥ 98%, lightly edited ≥ 90%, 0 false pairs.');
    const ok = doppel.byGroup['verbatim']!.found / doppel.byGroup['verbatim']!.total >= 0.98 &&
      doppel.byGroup['lightly edited']!.found / doppel.byGroup['lightly edited']!.total >= 0.9 &&
      doppel.falsePairs.length === 0;
    console.log(ok ? 'All targets met.' : 'Targets NOT met.');
    for (const p of doppel.falsePairs) console.log(`  false pair: ${p.a} ~ ${p.b} (${p.distance} bits)`);
    printPartial(partial, partialPages.length);
    printRewrites(rewriteScore, curve, rewritePages.length, mainRunFalse, mainRewrites.length);
    printProvenance(provenance);
    console.log(`(${seconds.toFixed(0)} s)`);
    printComparison(methods, set.pages.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function summarizeDropped(dropped: { reason: string }[]): string {
  const counts = new Map<string, number>();
  for (const { reason } of dropped) {
    const key = reason.startsWith('The article is too short') ? 'too short to compare' : reason.startsWith('same text') ? 'same text as another page' : reason;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
}

main();
