// Where the content script's main-thread time goes, step by step, over the 130 corpus pages
// (../shared/corpus/readability-test-pages/*/source.html served on 127.0.0.1), in Debian's Chromium
// without the extension: each page is loaded in a fresh tab, and a bundle of lib/text/extract.ts runs the
// steps of extractArticle one after another, each timed with performance.now() in the page.
//
// It answers one question: would moving Readability off the page's thread (the page's HTML sent to
// an extension document that parses it) cut the page's share? So beside the steps it times what
// the page would still do then (serialise its HTML), what the other document would do (parse that
// HTML), and a second Readability run on the same page: the content script runs in a new JavaScript
// world on every page, so its Readability is always run cold, while a long-lived extension document
// would run it warm. Every step runs on every page, the pages past the content script's caps
// included (the content script gives those the simple reading instead of Readability).
//
// `npm run bench:content-split` (`-- --json` for one JSON object). Not part of `npm test`.

import { CHROMIUM_PATH } from '../../test/e2e/harness';
import { openCorpusInChromium } from './corpus-chromium';
import { max, median, percentile } from '../shared/stats';

const json = process.argv.includes('--json');

/** The steps, in the order they run in each page. */
const STEPS = {
  outerHtml: 'serialise the page: documentElement.outerHTML (what the page would still do)',
  domParser: 'DOMParser.parseFromString of that HTML (what an extension document would do first)',
  depthCheck: "the depth cap's selector query",
  elementCount: "the element cap's querySelectorAll('*').length",
  bodyText: "the text cap's body.textContent",
  clone: 'document.cloneNode(true)',
  readabilityCold: 'Readability.parse on the clone, the first run in this page',
  blockText: 'blockText of the article (lib/text/extract.ts)',
  readabilityWarm: 'Readability.parse on a second clone, run again in the same page',
} as const;
type Step = keyof typeof STEPS;

// The code run in each page: lib/text/extract.ts and Readability, bundled.
const PAGE_ENTRY = `
import { Readability } from '@mozilla/readability';
import { blockText, deeperThanSelector } from './lib/text/reading';
import { MAX_DEPTH, MAX_ELEMS_TO_PARSE } from './lib/content/page-reader';
globalThis.__doppelSplit = () => {
  const out = {};
  const time = (step, f) => { const start = performance.now(); const value = f(); out[step] = performance.now() - start; return value; };
  const html = time('outerHtml', () => document.documentElement.outerHTML);
  time('domParser', () => new DOMParser().parseFromString(html, 'text/html'));
  time('depthCheck', () => document.querySelector(deeperThanSelector(MAX_DEPTH)));
  time('elementCount', () => document.querySelectorAll('*').length);
  time('bodyText', () => document.body?.textContent ?? '');
  const clone = time('clone', () => document.cloneNode(true));
  const parsed = time('readabilityCold', () => new Readability(clone, { maxElemsToParse: MAX_ELEMS_TO_PARSE, serializer: (node) => node }).parse());
  time('blockText', () => (parsed && parsed.content ? blockText(parsed.content) : ''));
  const again = document.cloneNode(true);
  time('readabilityWarm', () => new Readability(again, { maxElemsToParse: MAX_ELEMS_TO_PARSE, serializer: (node) => node }).parse());
  return { ...out, htmlBytes: html.length * 2 };
};
`;

async function main(): Promise<void> {
  const corpus = await openCorpusInChromium('bench:content-split', PAGE_ENTRY, json);
  if (corpus === null) return;
  const { script, names, site, ctx } = corpus;
  const rows: (Record<Step, number> & { page: string; htmlBytes: number })[] = [];
  const failed: string[] = [];
  try {
    for (const name of names) {
      const page = await ctx.newPage();
      try {
        await page.goto(site.url(`/${name}/source.html`), { waitUntil: 'load', timeout: 20_000 });
        await page.addScriptTag({ content: script });
        rows.push({ page: name, ...(await page.evaluate(() => (globalThis as unknown as { __doppelSplit(): Record<Step, number> & { htmlBytes: number } }).__doppelSplit())) });
      } catch (error) {
        failed.push(`${name}: ${(error as Error).message.split('\n')[0]}`);
      } finally {
        await page.close();
      }
    }
  } finally {
    await corpus.close();
  }
  const figures = Object.fromEntries(
    (Object.keys(STEPS) as Step[]).map((step) => {
      const values = rows.map((r) => r[step]);
      return [step, { median: median(values), p95: percentile(values, 95), max: max(values), total: values.reduce((a, b) => a + b, 0) }];
    }),
  );
  const htmlKb = median(rows.map((r) => r.htmlBytes / 1024));
  if (json) {
    console.log(JSON.stringify({ pages: rows.length, failed, medianHtmlKiB: htmlKb, figures, rows }));
    return;
  }
  console.log(`bench:content-split: ${rows.length} of ${names.length} corpus pages, each in a fresh tab of ${CHROMIUM_PATH}; ms per page (performance.now() in the page)`);
  if (failed.length > 0) console.log(`  not measured: ${failed.join('; ')}`);
  console.log(`  ${'step'.padEnd(86)} median     p95     max   total`);
  for (const step of Object.keys(STEPS) as Step[]) {
    const f = figures[step]!;
    console.log(`  ${STEPS[step].padEnd(86)} ${f.median.toFixed(1).padStart(6)} ${f.p95.toFixed(1).padStart(7)} ${f.max.toFixed(1).padStart(7)} ${f.total.toFixed(0).padStart(7)}`);
  }
  console.log(`  the page's HTML: median ${htmlKb.toFixed(0)} KiB as a UTF-16 string`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
