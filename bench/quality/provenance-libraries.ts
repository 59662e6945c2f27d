// Should Doppel read a page's publication time and declared address with a maintained library
// rather than its own lib/text/provenance.ts? On the 130 pages of the Readability corpus, this
// reads each page's publication time with Doppel's publishedTimeOf, with metascraper +
// metascraper-date (its `date`, and its `datePublished` when asked for) and with Mozilla's
// page-metadata-parser (which has no date: its canonical `url` is compared with Doppel's
// declaredAddress instead); checks each against expected-metadata.json's publishedTime
// (Readability's own reading, agreeing within a day), counts the dates each finds where
// Readability has none, times each over the corpus, and bundles each for the browser with esbuild.
// The libraries are no dependency of Doppel: they are loaded from a folder of their own.
//   npx tsx bench/quality/provenance-libraries.ts [--libs /tmp/libeval]
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { parseHTML } from 'linkedom';
import { parsePageDate } from '../../lib/text/dates';
import { declaredAddress, publishedTimeOf } from '../../lib/text/provenance';

const CORPUS = new URL('../../../shared/corpus/readability-test-pages', import.meta.url);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const at = process.argv.indexOf('--libs');
const LIBS = at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : '/tmp/libeval';
const NOW = Date.UTC(2026, 10, 29);
const PAGE_URL = 'http://fakehost/';
const DAY_MS = 86_400_000;
const PASSES = 3;
const INSTALL = `mkdir -p ${LIBS} && cd ${LIBS} && npm init -y && npm install metascraper metascraper-date page-metadata-parser linkedom esbuild`;

if (!existsSync(CORPUS)) {
  console.log(`No corpus at ${fileURLToPath(CORPUS)}: nothing to compare (it comes with shared/).`);
  process.exit(0);
}
const need = createRequire(join(LIBS, 'package.json'));
type Scrape = (input: { html?: string; url: string; htmlDom?: unknown; validateUrl?: boolean }) => Promise<Record<string, string | undefined>>;
interface Libs {
  metascraper: (rules: unknown[]) => Scrape;
  metascraperDate: (options?: { datePublished?: boolean; dateModified?: boolean }) => unknown;
  cheerioLoad: (html: string, options?: object) => unknown;
  getMetadata: (doc: Document, url: string, ruleSets?: Record<string, unknown>) => Record<string, string | undefined>;
  metadataRuleSets: Record<string, unknown>;
  esbuild: { build(options: object): Promise<{ outputFiles: { contents: Uint8Array }[] }> };
}
let libs: Libs;
try {
  const needOfMetascraper = createRequire(need.resolve('metascraper'));
  libs = {
    metascraper: need('metascraper'), metascraperDate: need('metascraper-date'),
    cheerioLoad: needOfMetascraper('cheerio').load, // metascraper's own cheerio, to time its parse apart
    getMetadata: need('page-metadata-parser').getMetadata, metadataRuleSets: need('page-metadata-parser').metadataRuleSets, esbuild: need('esbuild'),
  };
} catch (error) {
  console.log(`The libraries are not installed in ${LIBS} (${(error as Error).message.split('\n')[0]}). Install them with:\n  ${INSTALL}\nthen run: npx tsx bench/quality/provenance-libraries.ts --libs ${LIBS}`);
  process.exit(0);
}

/** A package's folder as Node finds it from `from` (a folder), walking up the node_modules folders. */
function packageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = join(dir, '../..')) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === join(dir, '../..')) return undefined;
  }
}
const bytesOf = (path: string): number => (statSync(path).isDirectory() ? readdirSync(path).filter((n) => n !== 'node_modules').reduce((sum, n) => sum + bytesOf(join(path, n)), 0) : statSync(path).size);
/** The installed packages `names` need (themselves and their dependencies, each folder once), and their bytes on disk. */
function closure(names: string[]): { versions: string[]; packages: number; bytes: number } {
  const seen = new Set<string>();
  const walk = (name: string, from: string): void => {
    const dir = packageDir(name, from);
    if (dir === undefined || seen.has(dir)) return;
    seen.add(dir);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: object; optionalDependencies?: object };
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) walk(dep, dir);
  };
  for (const name of names) walk(name, LIBS);
  const versions = names.map((n) => `${n}@${(JSON.parse(readFileSync(join(packageDir(n, LIBS)!, 'package.json'), 'utf8')) as { version: string }).version}`);
  return { versions, packages: seen.size, bytes: [...seen].reduce((sum, dir) => sum + bytesOf(dir), 0) };
}

/**
 * A minified browser bundle of `contents` (an entry importing the library): its bytes and gzipped
 * bytes, or esbuild's errors; then, if it failed, the size with the Node modules it names left
 * out and `global` read as globalThis (what a shim would have to make work).
 */
async function browserBundle(contents: string, resolveDir: string): Promise<string> {
  const build = (external: string[]) => libs.esbuild.build({ stdin: { contents, resolveDir, loader: 'ts' }, bundle: true, minify: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent', external, ...(external.length > 0 ? { define: { global: 'globalThis' } } : {}) });
  const size = (code: Uint8Array): string => `${code.length.toLocaleString('en')} B (${gzipSync(code).length.toLocaleString('en')} B gzipped)`;
  try {
    return size((await build([])).outputFiles[0]!.contents);
  } catch (error) {
    const errors = (error as { errors?: { text: string }[] }).errors ?? [{ text: String(error) }];
    const modules = [...new Set(errors.map((e) => /Could not resolve "([^"]+)"/.exec(e.text)?.[1]).filter((m): m is string => m !== undefined))];
    const texts = [...new Set(errors.map((e) => e.text.replace(/\.?\s*(You can|Are you|The package).*$/s, '')))];
    let shimmed = '';
    try {
      if (modules.length > 0) shimmed = `; with ${modules.join(', ')} left out: ${size((await build(modules)).outputFiles[0]!.contents)}`;
    } catch {
      shimmed = '; not even with them left out';
    }
    return `cannot be bundled (${texts.join('; ')})${shimmed}`;
  }
}

interface Page { name: string; html: string; expected: number | null; expectedText: string | null }
const pages: Page[] = readdirSync(CORPUS).filter((n) => existsSync(new URL(`readability-test-pages/${n}/source.html`, CORPUS))).sort().map((name) => {
  const read = (file: string): string => readFileSync(new URL(`readability-test-pages/${name}/${file}`, CORPUS), 'utf8');
  const text = (JSON.parse(read('expected-metadata.json')) as { publishedTime?: string | null }).publishedTime ?? null;
  const expected = text === null ? null : parsePageDate(text, NOW) ?? (Number.isFinite(Date.parse(text)) ? Date.parse(text) : null);
  return { name, html: read('source.html'), expected, expectedText: text };
});
const dated = pages.filter((p) => p.expected !== null).length;
console.log(`Load average at the start: ${loadavg().map((l) => l.toFixed(2)).join(', ')} on ${cpus().length} cores (times vary with it).`);
console.log(`${pages.length} pages of ${fileURLToPath(CORPUS)}; ${dated} with a publishedTime in expected-metadata.json (Readability's reading). Now = ${new Date(NOW).toISOString()}.`);

const docs = pages.map((p) => parseHTML(p.html).document as unknown as Document);
const doms = pages.map((p) => libs.cheerioLoad(p.html, { baseURI: PAGE_URL }));
const scrapeDate = libs.metascraper([libs.metascraperDate()]);
const scrapeAll = libs.metascraper([libs.metascraperDate({ datePublished: true, dateModified: true })]);
const pmp = (doc: Document): string | undefined => {
  const url = libs.getMetadata(doc, PAGE_URL)['url'];
  return url === PAGE_URL ? undefined : url; // the page's own address is its default, not a declared one
};
const toTime = (iso: string | undefined): number | undefined => (iso === undefined ? undefined : Date.parse(iso));

/** The median time of PASSES passes of `run` over the corpus, after one untimed pass. */
async function timed(run: (i: number) => unknown): Promise<number> {
  const times: number[] = [];
  for (let pass = 0; pass <= PASSES; pass++) {
    const started = performance.now();
    for (let i = 0; i < pages.length; i++) await run(i);
    if (pass > 0) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const doppel = docs.map((doc) => publishedTimeOf(doc, NOW));
const scraped = await Promise.all(pages.map((p, i) => scrapeAll({ htmlDom: doms[i], url: PAGE_URL, validateUrl: false })));
const msDate = scraped.map((r) => toTime(r['date']));
const msPublished = scraped.map((r) => toTime(r['datePublished']));
const msModified = scraped.map((r) => toTime(r['dateModified']));
// Most of the corpus's JSON-LD is saved inside <![CDATA[ … ]]>, which metascraper does not read (Doppel does): the same without it
const CDATA = /(<script[^>]*application\/ld\+json[^>]*>)\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*(<\/script>)/g;
const wrapped = pages.filter((p) => p.html.match(CDATA) !== null).map((p) => p.name);
const unwrapped = await Promise.all(pages.map((p) => scrapeAll({ html: p.html.replace(CDATA, '$1$2$3'), url: PAGE_URL, validateUrl: false })));
const ms = {
  doppel: await timed((i) => publishedTimeOf(docs[i]!, NOW)),
  date: await timed((i) => scrapeDate({ htmlDom: doms[i], url: PAGE_URL, validateUrl: false })),
  all: await timed((i) => scrapeAll({ htmlDom: doms[i], url: PAGE_URL, validateUrl: false })),
  dateWithParse: await timed((i) => scrapeDate({ html: pages[i]!.html, url: PAGE_URL, validateUrl: false })),
  linkedom: await timed((i) => parseHTML(pages[i]!.html)),
  declared: await timed((i) => declaredAddress(docs[i]!, PAGE_URL)),
  pmp: await timed((i) => pmp(docs[i]!)),
  pmpUrl: await timed((i) => libs.getMetadata(docs[i]!, PAGE_URL, { url: libs.metadataRuleSets['url'] })),
};

const iso = (t: number | null | undefined): string => (t === null || t === undefined || Number.isNaN(t) ? '—' : new Date(t).toISOString().replace(':00.000Z', 'Z'));
const row = (p: Page, i: number, v: number | undefined): string => `${p.name.padEnd(28)} this: ${iso(v).padEnd(20)} Readability ${(p.expectedText ?? '—').padEnd(27)} Doppel ${iso(doppel[i]).padEnd(20)} metascraper date ${iso(msDate[i]).padEnd(20)} datePublished ${iso(msPublished[i]).padEnd(20)} dateModified ${iso(msModified[i])}`;

interface Score { method: string; agree: number; disagree: number; missing: number; extra: number; ms: string; bundle: string }
const scores: Score[] = [];
function score(method: string, values: (number | undefined)[], msText: string, bundle: string): void {
  const s: Score = { method, agree: 0, disagree: 0, missing: 0, extra: 0, ms: msText, bundle };
  const disagreements: string[] = [];
  const extras: string[] = [];
  pages.forEach((p, i) => {
    const v = values[i];
    const found = v !== undefined && !Number.isNaN(v);
    if (p.expected === null) {
      if (found) (s.extra++, extras.push(row(p, i, v)));
    } else if (!found) s.missing++;
    else if (Math.abs(v - p.expected) <= DAY_MS) s.agree++;
    else (s.disagree++, disagreements.push(row(p, i, v)));
  });
  console.log(`\n## ${method}: of ${dated} pages with a publishedTime, ${s.agree} agree within 24 h, ${s.disagree} disagree, ${s.missing} missing; a date on ${s.extra} of the ${pages.length - dated} pages without one`);
  const missing = pages.filter((p, i) => p.expected !== null && (values[i] === undefined || Number.isNaN(values[i]))).map((p) => p.name);
  if (missing.length > 0) console.log(`Missing: ${missing.join(', ')}`);
  if (disagreements.length > 0) console.log(`Disagreements:\n  ${disagreements.join('\n  ')}`);
  if (extras.length > 0) console.log(`Dates where Readability has none (${Math.min(10, extras.length)} of ${extras.length}):\n  ${extras.slice(0, 10).join('\n  ')}`);
  scores.push(s);
}

const bundles = {
  doppel: await browserBundle(`import { publishedTimeOf, declaredAddress, canonicalElsewhere } from ${JSON.stringify(join(REPO, 'lib/text/provenance.ts'))};\nexport { publishedTimeOf, declaredAddress, canonicalElsewhere };`, REPO),
  metascraper: await browserBundle(`import metascraper from 'metascraper';\nimport metascraperDate from 'metascraper-date';\nexport const scrape = metascraper([metascraperDate()]);`, LIBS),
  pmp: await browserBundle(`export { getMetadata } from 'page-metadata-parser';`, LIBS),
};
const f = (n: number): string => `${n.toFixed(1)} ms`;
score("Doppel publishedTimeOf (linkedom)", doppel, f(ms.doppel), bundles.doppel);
score('metascraper-date .date (default)', msDate, `${f(ms.date)} (${f(ms.dateWithParse)} with its cheerio parse)`, bundles.metascraper);
score('metascraper-date .datePublished (datePublished: true)', msPublished, `${f(ms.all)} (asking for datePublished and dateModified too)`, '(as above)');
console.log(`\nThe JSON-LD of ${wrapped.length} pages is inside <![CDATA[ ]]> (${wrapped.join(', ')}); metascraper again, without it:`);
score('metascraper-date .date, JSON-LD unwrapped', unwrapped.map((r) => toTime(r['date'])), '—', '(as above)');
score('metascraper-date .datePublished, JSON-LD unwrapped', unwrapped.map((r) => toTime(r['datePublished'])), '—', '(as above)');
const modifiedFirst = pages.filter((_, i) => msDate[i] !== undefined && msDate[i] === msModified[i] && msModified[i] !== msPublished[i]);
console.log(`\nmetascraper's .date is its dateModified rules first: on ${modifiedFirst.length} pages .date is the dateModified and not the datePublished${modifiedFirst.length > 0 ? ` (${modifiedFirst.map((p) => p.name).join(', ')})` : ''}.`);
const pmpKeys = Object.keys(libs.getMetadata(docs[0]!, PAGE_URL)).join(', ');
scores.push({ method: 'page-metadata-parser getMetadata (no date)', agree: NaN, disagree: NaN, missing: NaN, extra: NaN, ms: `${f(ms.pmpUrl)} (url alone; ${f(ms.pmp)} all fields)`, bundle: bundles.pmp });
console.log(`\n## page-metadata-parser: getMetadata returns {${pmpKeys}}: no publication date. Its \`url\` (a.amp-canurl, then the canonical link, then og:url, else the page's own address) against Doppel's declaredAddress (the canonical link, else og:url):`);

const declared = docs.map((doc) => declaredAddress(doc, PAGE_URL));
const pmpUrls = docs.map(pmp);
const same = pages.filter((_, i) => declared[i] === pmpUrls[i]);
const both = same.filter((p) => declared[pages.indexOf(p)] !== undefined).length;
console.log(`  same on ${same.length} of ${pages.length} pages (${both} with an address, ${same.length - both} with none); differ on ${pages.length - same.length}:`);
pages.forEach((p, i) => { if (declared[i] !== pmpUrls[i]) console.log(`  ${p.name.padEnd(34)} Doppel ${declared[i] ?? '—'}  page-metadata-parser ${pmpUrls[i] ?? '—'}`); });
console.log(`  times over the corpus: declaredAddress ${f(ms.declared)}, getMetadata ${f(ms.pmpUrl)} for its url alone, ${f(ms.pmp)} for all its fields; parsing the corpus: linkedom ${f(ms.linkedom)}.`);

console.log('\n## Installed (what each needs from the folder, itself and its dependencies)');
for (const names of [['metascraper', 'metascraper-date'], ['page-metadata-parser'], ['linkedom'], ['esbuild']]) {
  const c = closure(names);
  console.log(`  ${c.versions.join(' + ').padEnd(45)} ${String(c.packages).padStart(3)} packages, ${c.bytes < 1e6 ? `${(c.bytes / 1e3).toFixed(0)} kB` : `${(c.bytes / 1e6).toFixed(1)} MB`} on disk`);
}

console.log(`\n## Summary (${dated} pages with a publishedTime; ms: median of ${PASSES} passes over the ${pages.length} pages after a warm-up, on documents already parsed)`);
const cell = (n: number): string => (Number.isNaN(n) ? 'n/a' : String(n));
console.log('method | agree | disagree | missing | extra dates found | ms | browser bundle size');
console.log('--- | --- | --- | --- | --- | --- | ---');
for (const s of scores) console.log(`${s.method} | ${cell(s.agree)} | ${cell(s.disagree)} | ${cell(s.missing)} | ${cell(s.extra)} | ${s.ms} | ${s.bundle}`);
console.log(`Declared address: Doppel's declaredAddress (${f(ms.declared)}) and page-metadata-parser's url agree on ${same.length} of ${pages.length} pages.`);
