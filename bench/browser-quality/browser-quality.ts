// `npm run bench:browser-quality`: the quality benchmark measured as a user would see it.
//
// The pages of `npm run bench:quality` (bench/data/republish.ts: real articles from ../shared/corpus,
// republished copies of each, and partial copies: excerpt-30, stitched, quote) are written to a
// temporary folder and served on 127.0.0.1: the originals on one port, each republishing site
// (its og:site_name, which `scan` takes as its site) on a port of its own, so that the browser
// sees the same sites as `scan`. Chromium with the built extension (.output/chrome-mv3) visits
// every page, a few tabs at a time, in three rounds: the originals, the whole copies, the partial
// copies (so every copy comes after the pages it copies), and each page's popup
// (popup.html?url=…) is polled until the page is recorded or known as not-article. Then every
// page's popup is read once more. Whole copies: each link in `#matches` is a pair, and the pairs
// are scored with the same `score()` as `scan`. Partial copies (and the whole copies' excerpt of
// 60%): a copy is found with a source when its own popup links that source's original, in
// `#matches` or `#passages`; `scan` finds it when the pair is in `pairs` or `reuse`; false links
// are links in any popup between pages with no article in common (bench/quality/quality-partial.ts's
// rules). `scan` runs on the same written pages in the same run.
//
// Then the rewritten and translated copies (bench/browser-quality/browser-quality-rewrites.ts): bench:quality's
// rewrite set (the articles of bench/data/rewrites/ with their rewrite, Spanish and Chinese
// translations and an independent article on the same subject, among the corpus's other
// originals) is written to a folder of its own, read by `scan --json`, and visited in a fresh
// profile of the extension, the originals (on one port) before the texts (each on its republishing
// site's port, never its original's). A text is found when its own popup links its original in
// `#matches`, `#passages` or `#rewrites`; the section prints, per kind, Chromium's and scan's
// shares against the targets (rewrites ≥ 90%, Spanish ≥ 70%, Chinese ≥ 50%, independent articles
// linked ≤ 3%, 0 false links).
//
// The built extension is copied to a temporary folder first, so that a rebuild of .output during
// the run does not pull the files from under Chromium.
//
// Requests to anything but 127.0.0.1 are aborted (the saved originals reference remote scripts,
// fonts and images): the browser reads the pages as an offline user would, and the run does not
// depend on the network.
//
// The promo kind is served in three variants (bench:quality's copy-promo-1 to -3, the same pages),
// the other kinds in --variants. Each promo copy carries one of three promo paragraphs (31 to 38
// words) in its site's template; with one variant a promo is on 28 to 37 pages, at most 11 of one site, under
// both boilerplate limits (more than 100 pages overall, 20 of one site: lib/index/passage-index.ts), so
// `scan` and the extension, which count alike, took it for a passage shared by different articles
// (1,450 false links in the first run). A site repeats its promo on many of its pages; with
// bench:quality's three variants each is on 89 to 98 pages, 20 or more on three or four of the
// four sites, past the per-site limit, and is boilerplate as it is there. The whole-copy table scores promo over its three variants.
//
// Options: --variants N (copies of each kind, whole and partial, per article; default 1; the promo
// kind max(3, N)), --tabs N (default 3), --json (one JSON object instead of the table),
// --rewrites-only (the rewrite set's section alone, a few minutes).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { parseHTML } from 'linkedom';
import { CHECK_MAX_DISTANCE } from '../../lib/fingerprint/features';
import { fingerprintToHex } from '../../lib/fingerprint/bits';
import { type ScanReport, fingerprintDocument } from '../../lib/scan/scan';
import { type ScanReuse, siteOfHtml } from '../../lib/scan/reuse';
import { sourcesNewerThan } from '../shared/built';
import { readStoredPages } from '../../test/e2e/blocks';
import { CHROMIUM_PATH, type ExtensionSession, type Site, launchWithExtension, servePages } from '../../test/e2e/harness';
import type { PopupRead } from './popup-read';
import { type Visit, offline, openTabs, pool, readSettledPopup, visitAndWait } from './browser-visit';
import { type BrowserRewrites, measureRewritesInBrowser, printBrowserRewrites } from './browser-quality-rewrites';
import { type Result, pct, runScan, score, writePages } from '../quality/quality-score';
import { partialPageSources, writePartialPages } from '../quality/quality-partial';
import { type PopupLinks, printPartialSideBySide, scorePartialSideBySide } from './browser-quality-partial';
import { COPY_KINDS, CORPUS_DIR, KIND_GROUP, type PartialPage, type QualityPage, buildPartialCopies, buildQualitySet } from '../data/republish';

const K = 3;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EXTENSION_DIR = resolve(ROOT, process.env.DOPPEL_EXTENSION_DIR ?? '.output/chrome-mv3');
const EXAMPLES = 12;

const argv = process.argv.slice(2);
const json = argv.includes('--json');
/** Only the rewrite set's section (bench/browser-quality/browser-quality-rewrites.ts): a quicker check of it. */
const REWRITES_ONLY = argv.includes('--rewrites-only');
function intOption(name: string, fallback: number): number {
  const at = argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} takes a positive whole number`);
    process.exit(2);
  }
  return value;
}
const VARIANTS = intOption('--variants', 1);
/** Variants of the promo kind: at least bench:quality's three, so that its promos are boilerplate there and here alike (see above). */
const PROMO_VARIANTS = Math.max(3, VARIANTS);
const TABS = intOption('--tabs', 3);
const COMMAND = `npm run bench:browser-quality --${argv.length ? ' ' + argv.join(' ') : ''}`.replace(/ --$/, '');

type Pair = { a: string; b: string; distance: number };

interface Fingerprints {
  simhash: string;
  check: string;
}

/** The extension's recorded pages (url → fingerprints), read from its IndexedDB (the `blocks` store, decoded here) in an extension page. */
async function recordedFingerprints(popup: Page): Promise<Map<string, Fingerprints>> {
  const rows = await readStoredPages(popup);
  return new Map(rows.map((r) => [r.url, { simhash: r.simhash, check: r.check }]));
}

function hexDistance(a: string, b: string): number {
  let x = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let n = 0;
  while (x) {
    n += Number(x & 1n);
    x >>= 1n;
  }
  return n;
}

/** The Chromium binary's version ("156.0.7455.1"), or "?". */
function chromiumVersion(): string {
  try {
    return /\d+(?:\.\d+)+/.exec(execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))?.[0] ?? '?';
  } catch {
    return '?';
  }
}

function countBy<T>(items: readonly T[], key: (t: T) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].sort((x, y) => y[1] - x[1]);
}

/** The rewrite set's section (bench/browser-quality/browser-quality-rewrites.ts), or what stopped it: the other sections stand without it. */
async function rewriteSection(dir: string, extensionDir: string, corpusOriginals: readonly QualityPage[]): Promise<BrowserRewrites | { error: string }> {
  try {
    return await measureRewritesInBrowser({ dir, extensionDir, corpusOriginals, tabs: TABS, k: K, progress: !json && process.stderr.isTTY });
  } catch (error) {
    process.exitCode = 1;
    return { error: error instanceof Error ? error.stack ?? error.message : String(error) };
  }
}

function printRewriteSection(r: BrowserRewrites | { error: string }): void {
  if ('error' in r) console.log(`\nRewritten and translated copies in Chromium's popups: not measured: ${r.error}`);
  else printBrowserRewrites(r, EXAMPLES);
}

/** --rewrites-only: the rewrite set's section alone (its originals are the corpus's, as in the full run). */
async function rewritesOnly(sourcesNewer: boolean): Promise<void> {
  const started = performance.now();
  const originals = buildQualitySet(CORPUS_DIR, 1).pages.filter((p) => p.kind === 'original');
  const dir = mkdtempSync(join(tmpdir(), 'doppel-browser-quality-'));
  try {
    const extensionCopy = join(dir, '.extension');
    cpSync(EXTENSION_DIR, extensionCopy, { recursive: true });
    const rewrites = await rewriteSection(join(dir, 'rewrites'), extensionCopy, originals);
    const seconds = (performance.now() - started) / 1000;
    if (json) {
      console.log(JSON.stringify({ k: K, tabs: TABS, chromiumVersion: chromiumVersion(), extensionDir: EXTENSION_DIR, extensionOlderThanSources: sourcesNewer, rewrites, seconds, command: COMMAND }));
      return;
    }
    console.log(`Quality in the browser, the rewrite set only: ${COMMAND} (k = ${K})`);
    console.log(`Chromium ${chromiumVersion()} (${CHROMIUM_PATH}, headless) with ${EXTENSION_DIR}; requests off 127.0.0.1 are aborted.`);
    if (sourcesNewer) console.log('Warning: lib/ or entrypoints/ changed after the extension was built; run `npm run build` to measure the current code.');
    printRewriteSection(rewrites);
    console.log(`\n(${seconds.toFixed(0)} s)  ${COMMAND}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!existsSync(CORPUS_DIR)) {
    const message = `bench:browser-quality skipped: the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`;
    console.log(json ? JSON.stringify({ skipped: message }) : message);
    return;
  }
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) {
    const message = `bench:browser-quality: no built extension at ${EXTENSION_DIR}. Run \`npm run build\` first.`;
    console.error(json ? JSON.stringify({ error: message }) : message);
    process.exitCode = 1;
    return;
  }
  const built = statSync(join(EXTENSION_DIR, 'manifest.json')).mtimeMs;
  const sourcesNewer = sourcesNewerThan(ROOT, built);
  if (REWRITES_ONLY) return rewritesOnly(sourcesNewer);

  const started = performance.now();
  const chromium = chromiumVersion();
  // bench:quality's set with PROMO_VARIANTS variants: its first VARIANTS variants of each kind are
  // the pages buildQualitySet(…, VARIANTS) writes (each article's draws go variant by variant).
  const fullSet = buildQualitySet(CORPUS_DIR, PROMO_VARIANTS);
  const variantOf = (page: QualityPage): number => Number(/-(\d+)\.html$/.exec(page.path)?.[1] ?? 0);
  const set = { ...fullSet, pages: fullSet.pages.filter((p) => p.kind === 'original' || p.kind === 'promo' || variantOf(p) <= VARIANTS) };
  const partialPages = buildPartialCopies(set, CORPUS_DIR, VARIANTS);
  /** Every page served: the originals, the whole copies, the partial copies. */
  const served: (QualityPage | PartialPage)[] = [...set.pages, ...partialPages];
  const byPath = new Map(set.pages.map((p) => [p.path, p]));
  const dir = mkdtempSync(join(tmpdir(), 'doppel-browser-quality-'));
  const pagesDir = join(dir, 'pages');
  let originalSite: Site | undefined;
  const copySites = new Map<string, Site>();
  let ext: ExtensionSession | undefined;
  try {
    writePages(set.pages, pagesDir);
    writePartialPages(partialPages, pagesDir);

    // scan, on the same files.
    const scanStarted = performance.now();
    const report: ScanReport & { reuse?: ScanReuse[] } = runScan(pagesDir, K);
    const scanSeconds = (performance.now() - scanStarted) / 1000;
    const scanResult = score(set.pages, report.pairs.filter(({ a, b }) => byPath.has(a) && byPath.has(b)));
    const scanDocs = new Map(report.documents.map((d) => [d.path, d]));

    // The browser: the originals on one origin, each republishing site on its own.
    const browserStarted = performance.now();
    originalSite = await servePages(pagesDir);
    const siteNameOf = (page: QualityPage | PartialPage): string => siteOfHtml(page.html) ?? 'copies';
    for (const page of served) {
      if (page.kind !== 'original' && !copySites.has(siteNameOf(page))) copySites.set(siteNameOf(page), await servePages(pagesDir));
    }
    const urlOf = (page: QualityPage | PartialPage): string =>
      (page.kind === 'original' ? originalSite! : copySites.get(siteNameOf(page))!).url('/' + page.path.split('/').map(encodeURIComponent).join('/'));
    const pathOfUrl = new Map(served.map((p) => [urlOf(p), p.path]));

    const extensionCopy = join(dir, '.extension');
    cpSync(EXTENSION_DIR, extensionCopy, { recursive: true });
    ext = await launchWithExtension(extensionCopy);
    await offline(ext);
    const tabs = await openTabs(ext, TABS);

    const visits = new Map<string, Visit>();
    const originals = set.pages.filter((p) => p.kind === 'original');
    const copies = set.pages.filter((p) => p.kind !== 'original');
    let done = 0;
    const progress = (): void => {
      done++;
      if (!json && process.stderr.isTTY) process.stderr.write(`\r  visited ${done}/${served.length}`);
    };
    // Originals, whole copies, partial copies: a popup lists the earlier pages sharing passages, so every copy comes after what it copies.
    const rounds: (QualityPage | PartialPage)[][] = [originals, copies, partialPages];
    for (const batch of rounds) {
      await pool(batch, tabs, async (page, { tab, popup }) => {
        visits.set(page.path, await visitAndWait(ext!, tab, popup, urlOf(page)));
        progress();
      });
    }
    if (!json && process.stderr.isTTY) process.stderr.write('\r' + ' '.repeat(40) + '\r');
    // Leave the last pages, so that nothing is read again while the popups are.
    await Promise.all(tabs.map(({ tab }) => tab.goto('about:blank').catch(() => {})));

    // Every page's popup, read once all pages are visited.
    const reads = new Map<string, PopupRead>();
    await pool(served, tabs, async (page, { popup }) => {
      reads.set(page.path, (await readSettledPopup(ext!, popup, urlOf(page))).read);
    });
    let fingerprintError = '';
    const fingerprints = await tabs[0]!.popup
      .goto(ext.popupUrl(urlOf(set.pages[0]!)), { waitUntil: 'domcontentloaded' })
      .then(() => recordedFingerprints(tabs[0]!.popup))
      .catch((error: Error) => {
        fingerprintError = error.message.split('\n')[0]!;
        return new Map<string, Fingerprints>();
      });
    const browserSeconds = (performance.now() - browserStarted) / 1000;
    // Done with this profile: the rewrite set is visited in a fresh one (below).
    const dialogs = ext.dialogs.length;
    const pageErrors = ext.pageErrors.length;
    await ext.close();
    ext = undefined;

    const pairKey = (a: string, b: string): string => (a < b ? `${a}\n${b}` : `${b}\n${a}`);
    const pairs = new Map<string, Pair>();
    const directed = new Set<string>();
    const unknownLinks: string[] = [];
    const popups: PopupLinks[] = [];
    for (const [path, read] of reads) {
      const known = (href: string): string | undefined => {
        const other = pathOfUrl.get(href);
        if (other === undefined) unknownLinks.push(`${path} → ${href}`);
        return other;
      };
      const popupLinks: PopupLinks = { path, state: read.state, matches: [], passages: [] };
      for (const { href, distance } of read.links) {
        const other = known(href);
        if (other === undefined) continue;
        popupLinks.matches.push(other);
        directed.add(`${path}\n${other}`);
        // The whole-copy table scores the links between the whole pages.
        if (!byPath.has(path) || !byPath.has(other)) continue;
        const [a, b] = path < other ? [path, other] : [other, path];
        pairs.set(pairKey(a, b), { a, b, distance });
      }
      for (const { href, share } of read.passages) {
        const other = known(href);
        if (other !== undefined) popupLinks.passages.push({ path: other, share });
      }
      popups.push(popupLinks);
    }
    const oneWay = [...directed].filter((d) => {
      const [a, b] = d.split('\n');
      return !directed.has(`${b}\n${a}`);
    });
    const browserResult = score(set.pages, [...pairs.values()]);
    const kindOfPath = new Map(served.map((p) => [p.path, p.kind]));
    const partial = scorePartialSideBySide(partialPageSources(set, partialPages), (path) => kindOfPath.get(path) ?? '?', report, popups);

    // Pages the browser did not record, and why.
    const notRecorded = served
      .map((p) => ({ path: p.path, kind: p.kind, read: reads.get(p.path)!, visit: visits.get(p.path)! }))
      .filter(({ read }) => read.state !== 'ready')
      .map(({ path, kind, read, visit }) => {
        if (read.state === 'not-article') return { path, kind, state: read.state, reason: read.detail || '(no reason)' };
        if (visit.state === 'timeout' || visit.state === 'load-failed') return { path, kind, state: visit.state, reason: visit.detail };
        if (!read.state) return { path, kind, state: 'popup-unreadable', reason: read.detail || 'no [data-state]' };
        return { path, kind, state: read.state, reason: read.detail || (read.state === 'unknown' ? 'recorded during the visit, gone when read back' : '') };
      });
    const notRecordedSummary = countBy(notRecorded, (n) => `${n.state}: ${n.reason}`);
    const scanNoFingerprint = report.documents.filter((d) => d.simhash === null);

    // Copies found by one and not the other.
    const foundIn = (pairList: readonly Pair[]): Set<string> => new Set(pairList.map(({ a, b }) => pairKey(a, b)));
    const scanFound = foundIn(report.pairs);
    const browserFound = foundIn([...pairs.values()]);
    /** scan's fingerprints of a page, recomputed in-process the way bin/scan.ts does (linkedom). */
    const scanFingerprintsOf = new Map(
      set.pages.map((p) => {
        const f = fingerprintDocument({ path: p.path, kind: 'html', content: p.html }, (html) => parseHTML(html).document as unknown as Document).fingerprints;
        return [p.path, f ? { simhash: fingerprintToHex(f.simhash), check: fingerprintToHex(f.check) } : null];
      }),
    );
    const scanFingerprints = (path: string): Fingerprints | null => scanFingerprintsOf.get(path) ?? null;
    const distances = (x: Fingerprints | null | undefined, y: Fingerprints | null | undefined) =>
      x && y ? { simhash: hexDistance(x.simhash, y.simhash), check: hexDistance(x.check, y.check) } : null;
    const same = (x: Fingerprints | null | undefined, y: Fingerprints | null | undefined): boolean | null =>
      x && y ? x.simhash === y.simhash && x.check === y.check : null;
    const disagreements = copies.flatMap((page) => {
      const original = `${page.article}/original.html`;
      const key = pairKey(original, page.path);
      const s = scanFound.has(key);
      const b = browserFound.has(key);
      if (s === b) return [];
      const scanA = scanFingerprints(original);
      const scanB = scanFingerprints(page.path);
      const browserA = fingerprints.get(urlOf(byPath.get(original)!));
      const browserB = fingerprints.get(urlOf(page));
      return [{
        path: page.path,
        kind: page.kind,
        foundBy: s ? 'scan' : 'Chromium',
        scan: distances(scanA, scanB),
        chromium: distances(browserA, browserB),
        originalSameFingerprints: same(scanA, browserA),
        copySameFingerprints: same(scanB, browserB),
        popupStates: `${reads.get(original)?.state || '?'} / ${reads.get(page.path)?.state || '?'}`,
      }];
    });
    // Pages whose fingerprints (simhash or check) differ between scan (linkedom) and Chromium (real DOM).
    const fingerprintDiffers = set.pages.filter((p) => same(scanFingerprints(p.path), fingerprints.get(urlOf(p))) === false);
    const simhashDiffers = served.filter((p) => {
      const s = scanDocs.get(p.path)?.simhash;
      const b = fingerprints.get(urlOf(p))?.simhash;
      return s && b && s !== b;
    });

    const recordedWhole = set.pages.filter((p) => fingerprints.has(urlOf(p))).length;

    // The rewrite set, its own pages on their own sites, read by scan and visited in a fresh profile.
    const rewrites = await rewriteSection(join(dir, 'rewrites'), extensionCopy, set.pages);
    const seconds = (performance.now() - started) / 1000;

    const targetsMet = (r: Result): boolean =>
      r.byGroup['verbatim']!.found / r.byGroup['verbatim']!.total >= 0.98 &&
      r.byGroup['lightly edited']!.found / r.byGroup['lightly edited']!.total >= 0.9 &&
      r.falsePairs.length === 0;

    if (json) {
      console.log(JSON.stringify({
        k: K,
        variants: VARIANTS,
        promoVariants: PROMO_VARIANTS,
        tabs: TABS,
        articles: set.articles.length,
        pages: set.pages.length,
        partialPages: partialPages.length,
        dropped: set.dropped,
        chromiumVersion: chromium,
        extensionDir: EXTENSION_DIR,
        extensionOlderThanSources: sourcesNewer,
        scan: { ...scanResult, targetsMet: targetsMet(scanResult), noFingerprint: scanNoFingerprint.map((d) => ({ path: d.path, note: d.note })), seconds: scanSeconds },
        chromium: {
          ...browserResult,
          targetsMet: targetsMet(browserResult),
          recorded: served.length - notRecorded.length,
          notRecorded,
          oneWayLinks: oneWay.map((d) => d.replace('\n', ' → ')),
          unknownLinks,
          fingerprintsDifferFromScan: fingerprintDiffers.map((p) => p.path),
          simhashDiffersFromScan: simhashDiffers.map((p) => p.path),
          dialogs,
          pageErrors,
          seconds: browserSeconds,
        },
        disagreements,
        partial,
        rewrites,
        seconds,
        command: COMMAND,
      }));
      return;
    }

    console.log(`Quality in the browser: ${COMMAND} (k = ${K})`);
    console.log(`Chromium ${chromium} (${CHROMIUM_PATH}, headless) with ${EXTENSION_DIR}`);
    console.log(`${set.articles.length} real articles from ${CORPUS_DIR} (${set.dropped.length} dropped)`);
    console.log(
      `${served.length} pages (${originals.length} originals + ${copies.length} whole copies + ${partialPages.length} partial copies: ${VARIANTS} variant${VARIANTS === 1 ? '' : 's'} of each kind, ` +
        `${PROMO_VARIANTS} of promo as in bench:quality, so that its promo paragraphs are on as many pages of a site as there), ` +
        `served on 127.0.0.1 (originals ${originalSite.origin}; copies on each republishing site's own port: ` +
        `${[...copySites].map(([name, site]) => `${name} :${site.port}`).join(', ')}), visited in Chromium, originals, then whole copies, then partial copies, ${TABS} tabs at a time;`,
    );
    console.log('the same files read by `scan --json`. Requests off 127.0.0.1 are aborted.');
    if (sourcesNewer) console.log('Warning: lib/ or entrypoints/ changed after the extension was built; run `npm run build` to measure the current code.');
    console.log('');
    const rows: [string, (r: Result) => string][] = [
      ...COPY_KINDS.map((k): [string, (r: Result) => string] => [`  ${k} (${KIND_GROUP[k]})`, (r) => pct(r.byKind[k])]),
      ['verbatim copies found', (r) => pct(r.byGroup['verbatim']!)],
      ['lightly edited copies found', (r) => pct(r.byGroup['lightly edited']!)],
      ['excerpts found (reported, not targeted)', (r) => pct(r.byGroup['excerpt']!)],
      ['false links (different articles)', (r) => String(r.falsePairs.length)],
    ];
    console.log(`${''.padEnd(42)}${'scan'.padEnd(22)}Chromium (popup)`);
    for (const [label, cell] of rows) console.log(`${label.padEnd(42)}${cell(scanResult).padEnd(22)}${cell(browserResult)}`);
    console.log(
      `${'pages not fingerprinted / not recorded'.padEnd(42)}${String(scanNoFingerprint.length).padEnd(22)}${notRecorded.length} ` +
        `(${notRecorded.filter((n) => n.kind === 'original').length} originals, ${notRecorded.filter((n) => n.kind !== 'original').length} copies)`,
    );
    if (PROMO_VARIANTS !== VARIANTS) {
      console.log(
        `promo is scored over its ${PROMO_VARIANTS} variants (${scanResult.byKind.promo.total} copies), the other kinds over ${VARIANTS}; ` +
          `"lightly edited" counts all ${scanResult.byGroup['lightly edited']!.total} of its copies.`,
      );
    }
    console.log('\nTargets: verbatim ≥ 98%, lightly edited ≥ 90%, 0 false links.');
    console.log(`scan: ${targetsMet(scanResult) ? 'all targets met' : 'targets NOT met'}. Chromium: ${targetsMet(browserResult) ? 'all targets met' : 'targets NOT met'}.`);
    for (const p of scanResult.falsePairs) console.log(`  scan false pair: ${p.a} ~ ${p.b} (${p.distance} bits)`);
    for (const p of browserResult.falsePairs) console.log(`  Chromium false link: ${p.a} ~ ${p.b} (${p.distance} bits)`);
    printPartialSideBySide(partial, { partialPages: partialPages.length, variants: VARIANTS, popups: popups.length, examples: EXAMPLES });

    if (notRecorded.length) {
      console.log('\nNot recorded in Chromium, by popup state and reason:');
      for (const [why, n] of notRecordedSummary) console.log(`  ${String(n).padStart(4)}  ${why}`);
      const originalsMissing = notRecorded.filter((n) => n.kind === 'original');
      if (originalsMissing.length) console.log(`  originals: ${originalsMissing.slice(0, EXAMPLES).map((n) => n.path).join(', ')}${originalsMissing.length > EXAMPLES ? ', …' : ''}`);
    }
    if (scanNoFingerprint.length) {
      console.log('\nNo fingerprint in scan, by note:');
      for (const [note, n] of countBy(scanNoFingerprint, (d) => d.note ?? '(no note)')) console.log(`  ${String(n).padStart(4)}  ${note}`);
    }
    if (oneWay.length) console.log(`\n${oneWay.length} links shown in one popup only (not in the other page's): ${oneWay.slice(0, 5).map((d) => d.replace('\n', ' → ')).join('; ')}`);
    if (unknownLinks.length) console.log(`\n${unknownLinks.length} links to pages outside the set: ${unknownLinks.slice(0, 5).join('; ')}`);

    if (fingerprintError) console.log(`\nCould not read the extension's fingerprints: ${fingerprintError}`);
    console.log(
      `\nFingerprints (simhash or check) differ between scan (linkedom) and Chromium (real DOM) on ${fingerprintDiffers.length} of ${recordedWhole} recorded originals and whole copies; ` +
        `simhash on ${simhashDiffers.length} of all ${fingerprints.size} recorded pages.`,
    );
    if (fingerprintDiffers.length) console.log(`  ${fingerprintDiffers.slice(0, EXAMPLES).map((p) => p.path).join(', ')}${fingerprintDiffers.length > EXAMPLES ? ', …' : ''}`);
    if (disagreements.length) {
      console.log(`\nCopies where scan and Chromium disagree: ${disagreements.length} (found by scan only: ${disagreements.filter((d) => d.foundBy === 'scan').length}, by Chromium only: ${disagreements.filter((d) => d.foundBy === 'Chromium').length})`);
      console.log(`  (d = Hamming distance to the original: simhash ≤ ${K} and check ≤ ${CHECK_MAX_DISTANCE} make a pair; "same" = the page's simhash and check are equal in scan and Chromium)`);
      console.log(`  ${'copy'.padEnd(40)}${'found by'.padEnd(10)}${'scan d'.padEnd(18)}${'Chromium d'.padEnd(18)}${'same (orig/copy)'.padEnd(18)}popups (orig / copy)`);
      const yn = (v: boolean | null): string => (v === null ? '–' : v ? 'yes' : 'no');
      const dd = (d: { simhash: number; check: number } | null): string => (d ? `${d.simhash} (check ${d.check})` : '–');
      for (const d of disagreements.slice(0, EXAMPLES)) {
        console.log(
          `  ${d.path.padEnd(40)}${d.foundBy.padEnd(10)}${dd(d.scan).padEnd(18)}${dd(d.chromium).padEnd(18)}` +
            `${`${yn(d.originalSameFingerprints)} / ${yn(d.copySameFingerprints)}`.padEnd(18)}${d.popupStates}`,
        );
      }
      if (disagreements.length > EXAMPLES) console.log(`  … and ${disagreements.length - EXAMPLES} more (--json lists them all)`);
    } else {
      console.log('\nscan and Chromium agree on every copy.');
    }
    if (dialogs || pageErrors) console.log(`\nPages showed ${dialogs} dialogs (dismissed) and threw ${pageErrors} uncaught errors.`);
    printRewriteSection(rewrites);
    const rewriteSeconds = 'error' in rewrites ? '' : `, rewrite set ${rewrites.seconds.toFixed(0)} s`;
    console.log(`\n(${seconds.toFixed(0)} s: scan ${scanSeconds.toFixed(0)} s, Chromium ${browserSeconds.toFixed(0)} s${rewriteSeconds})  ${COMMAND}`);
  } finally {
    await ext?.close();
    await originalSite?.close();
    for (const site of copySites.values()) await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack ?? error.message : String(error));
  process.exitCode = 1;
});
