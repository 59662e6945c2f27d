// What marking shared passages costs the page's thread, and how whole the marks are, over the
// corpus pages (../shared/corpus/readability-test-pages/*/source.html served on 127.0.0.1), in
// Debian's Chromium without the extension: a bundle of lib/content/highlight.ts runs the content
// script's three steps in each page, each timed with performance.now(), median of 3 runs.
//
// The set is the worst case, a whole copy: every passage fingerprint of the page's Readability text
// (read in Node with linkedom, as the reader document reads it). So it also counts in how many
// ranges each page's article is marked: one where the live text inside the article holds the same
// words as Readability's, more where the page shows something inside the article that Readability
// dropped (docs/passages.md, "Marking passages on the page").
//
// `npm run bench:passage-marks` (`-- --json` for one JSON object). Not part of `npm test`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { readHtml } from '../../lib/background/html-reader';
import { passageFingerprints } from '../../lib/fingerprint/passages';
import { CHROMIUM_PATH } from '../../test/e2e/harness';
import { CORPUS_DIR, openCorpusInChromium } from './corpus-chromium';
import { max, median, percentile } from '../shared/stats';

const json = process.argv.includes('--json');

const STEPS = {
  collect: "collectPageText(document.body, probablyHidden): the page's text and its map to text nodes",
  locate: 'locatePassages: passage fingerprints of that text, the set looked up, chains, word offsets',
  ranges: 'toDomRanges (live Ranges) and CSS.highlights.set',
  total: 'all three',
} as const;
type Step = keyof typeof STEPS;
interface Row extends Record<Step, number> {
  page: string;
  chars: number;
  ranges: number;
}

const PAGE_ENTRY = `
import { collectPageText, liveRange, locatePassages, probablyHidden, toDomRanges } from './lib/content/highlight';
globalThis.__doppelMark = (hashes) => {
  const t0 = performance.now();
  const page = collectPageText(document.body, probablyHidden);
  const t1 = performance.now();
  const [set] = locatePassages(page.text, [{ id: 'copy', hashes }]);
  const t2 = performance.now();
  const ranges = toDomRanges(page, set.passages, liveRange(document));
  CSS.highlights.set('doppel-bench', new Highlight(...ranges));
  const t3 = performance.now();
  CSS.highlights.delete('doppel-bench');
  return { collect: t1 - t0, locate: t2 - t1, ranges: t3 - t2, total: t3 - t0, chars: page.text.length, count: ranges.length };
};
`;

async function main(): Promise<void> {
  const corpus = await openCorpusInChromium('bench:passage-marks', PAGE_ENTRY, json);
  if (corpus === null) return;
  const { script, names, site, ctx } = corpus;
  const rows: Row[] = [];
  const skipped: string[] = [];
  try {
    for (const name of names) {
      const url = site.url(`/${name}/source.html`);
      const read = readHtml(readFileSync(join(CORPUS_DIR, name, 'source.html'), 'utf8'), url, (html) => parseHTML(html).document as unknown as Document);
      const hashes = read.outcome.kind === 'article' ? [...passageFingerprints(read.outcome.text).hashes] : [];
      if (hashes.length === 0) {
        skipped.push(`${name}: no article`);
        continue;
      }
      const page = await ctx.newPage();
      try {
        await page.goto(url, { waitUntil: 'load', timeout: 20_000 });
        await page.addScriptTag({ content: script });
        const runs: (Record<Step, number> & { chars: number; count: number })[] = [];
        for (let i = 0; i < 3; i++) runs.push(await page.evaluate((h) => (globalThis as unknown as { __doppelMark(h: number[]): (typeof runs)[number] }).__doppelMark(h), hashes));
        runs.sort((a, b) => a.total - b.total);
        const { count, ...mid } = runs[1]!;
        rows.push({ page: name, ...mid, ranges: count });
      } catch (error) {
        skipped.push(`${name}: ${(error as Error).message.split('\n')[0]}`);
      } finally {
        await page.close();
      }
    }
  } finally {
    await corpus.close();
  }
  const figures = Object.fromEntries((Object.keys(STEPS) as Step[]).map((step) => {
    const values = rows.map((r) => r[step]);
    const slowest = rows.find((r) => r[step] === max(values));
    return [step, { median: median(values), p95: percentile(values, 95), max: max(values), slowest: slowest ? `${slowest.page}, ${slowest.chars} characters` : '' }];
  }));
  const ranges = { one: rows.filter((r) => r.ranges === 1).length, twoToThree: rows.filter((r) => r.ranges >= 2 && r.ranges <= 3).length, more: rows.filter((r) => r.ranges > 3).length, none: rows.filter((r) => r.ranges === 0).length };
  if (json) {
    console.log(JSON.stringify({ pages: rows.length, skipped, figures, ranges, rows }));
    return;
  }
  console.log(`bench:passage-marks: ${rows.length} of ${names.length} corpus pages in ${CHROMIUM_PATH}, the whole article's fingerprints as the set; ms per page (performance.now() in the page, median of 3 runs)`);
  if (skipped.length > 0) console.log(`  not measured: ${skipped.join('; ')}`);
  console.log(`  ${'step'.padEnd(92)} median     p95     max  slowest`);
  for (const step of Object.keys(STEPS) as Step[]) {
    const f = figures[step]!;
    console.log(`  ${STEPS[step].padEnd(92)} ${f.median.toFixed(1).padStart(6)} ${f.p95.toFixed(1).padStart(7)} ${f.max.toFixed(1).padStart(7)}  ${f.slowest}`);
  }
  console.log(`  the article marked in 1 range on ${ranges.one} pages, 2–3 on ${ranges.twoToThree}, 4 or more on ${ranges.more}, none on ${ranges.none}`);
  for (const r of rows.filter((x) => x.ranges !== 1)) console.log(`    ${r.page}: ${r.ranges} ranges`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
