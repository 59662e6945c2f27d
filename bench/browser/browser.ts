// `npm run bench:browser`: Doppel's speed and size in Debian's Chromium with the built extension
// (.output/chrome-mv3; run `npm run build` first), printed beside the targets of issue 4 (`--help`: the options). This file
// writes the synthetic history, launches Chromium and runs the measurements in this order; each
// file's header says how its figures are taken:
// 1. Import (import.ts): a synthetic export of N pages imported through the history page.
// 2. Bytes per page, all-in (storage.ts): after the import, and again at the end of the history's
//    measurements.
// 3. The worker's memory after the import (memory.ts), and again after the queries and popups.
// 4. Near-duplicate queries (queries.ts): `report/get` messages timed in the worker and in the page.
// 5. The popup (popup.ts): popup.html to data-state="ready", the worker running, then stopped first.
// 5b. The history page (history-page.ts): its first screen, then scrolling.
// 6. The content script (content-script.ts): the corpus pages, each in a trace, then pages at and
//    past the caps.
// 7. A burst of 30 tabs (burst.ts), in fresh browsers of its own: the worker left running, then
//    stopped once the first page is stored.
// Beside them: options.ts (the command line and the targets), output.ts (what is printed, and the
// results for --json), processes.ts (Chromium's processes through /proc), worker-cdp.ts (CDP on
// the service worker's target, and its CPU profile).
//
// Options: --pages N (default 1000000), --queries N (200), --popups N (20 with the worker
// running; a quarter as many with it stopped), --seed N, --no-passages (the history as it was
// before passages: no passage fingerprints, no partial copies, and the targets without passages),
// --no-rewrites (the history without rewrite fingerprints and planted rewrites, and the storage
// target before them), --no-provenance (the history without what its pages say of where they
// come from: no published, source or sourceBy; the storage a page before them),
// --first-release-history (the history as the first release, 63168aa, reads it: passages in
// version 1 of their bytes, without rewrites or provenance; for its build through
// DOPPEL_EXTENSION_DIR and this one alike),
// --skip-import (only the content script and the burst),
// --skip-content, --skip-burst, --burst-runs N (1: how many times the burst runs each way), --json (one JSON object on stdout), --history-only (with an import: skip the
// queries and popups), --import-only (with an import: only the import, its storage and the worker's memory after it;
// what bench:targets runs, as the first release's history page differs), --popups-while-organising (a popup of a
// stored page opened every 5 s from the import's summary until organising is done: its time to ready, median and p99),
// --put-floor (after the import, a plain put loop writes the bytes it stored into a scratch database: its rate, and
// the import's share of it), --settle-seconds N (wait N s before storage is measured again at the end of
// the history's measurements: LevelDB reclaims the space of rewritten chunks later, if at all),
// --cpu-profile FILE (the worker's CPU profile over the queries, its top functions printed),
// --import-cpu-profile FILE (the same over the import's saving of the lines, before organising;
// with --profile-organising, over organising too),
// --store-bytes (at the end, every object store's values' bytes a page),
// --keep-profile DIR (use and keep the browser profile DIR/profile; when DIR already holds an
// import of the same --pages and --seed, skip the import and measure on it: a 1,000,000-page store
// is imported once, then each build is measured on it in minutes. Chromium
// keeps the service worker script of the build that first ran in a profile, so a reused profile
// has its "Service Worker" folder removed first: the worker then runs this build, and its first
// reply, timed, includes any schema upgrade of the kept store).
import { execSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PASSAGE_PARAMS } from '../../lib/fingerprint/passages';
import { type ExtensionSession, type Site, CHROMIUM_PATH, launchWithExtension } from '../../test/e2e/harness';
import type { SyntheticHistory } from '../data/synthetic-history';
import { sourcesNewerThan } from '../shared/built';
import { measureBursts } from './burst';
import { measureContentScript } from './content-script';
import { measureHistoryPage } from './history-page';
import { measureImport, writeHistory } from './import';
import { memoryAfterImport, memoryAfterQueries } from './memory';
import { COMMAND, EXTENSION_DIR, HISTORY_ONLY, IMPORT_ONLY, KEEP_PROFILE, PAGES, PASSAGES, PUT_FLOOR, ROOT, SEED, SKIP_BURST, SKIP_CONTENT, SKIP_IMPORT, json } from './options';
import { measurePutFloor } from './put-floor';
import { int, log, results, s } from './output';
import { measurePopups } from './popup';
import { drawPages, measureQueries, sendTimed } from './queries';
import { deleteDatabase, storageAfterImport, storageAtEnd, storageBeforeImport } from './storage';

async function main(): Promise<void> {
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) {
    console.error(`bench:browser: no built extension at ${EXTENSION_DIR}. Run \`npm run build\` first.`);
    process.exitCode = 1;
    return;
  }
  const built = statSync(join(EXTENSION_DIR, 'manifest.json')).mtimeMs;
  const stale = sourcesNewerThan(ROOT, built);
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'doppel-bench-browser-'));
  let ext: ExtensionSession | undefined;
  const sites: Site[] = [];
  try {
    log(`Browser benchmark: ${COMMAND}`);
    if (stale) log('Warning: lib/ or entrypoints/ changed after the extension was built; run `npm run build` to measure the current code.');

    // The synthetic history.
    const history: SyntheticHistory | undefined = SKIP_IMPORT ? undefined : await writeHistory(dir);

    // With --keep-profile the copy keeps one path, so the extension keeps its id and its storage.
    const extensionCopy = join(KEEP_PROFILE ?? dir, 'extension');
    rmSync(extensionCopy, { recursive: true, force: true });
    cpSync(EXTENSION_DIR, extensionCopy, { recursive: true });
    const marker = KEEP_PROFILE && join(KEEP_PROFILE, 'imported.json');
    // (a profile imported before passages, or with --no-passages, has no passages in its marker)
    const imported = JSON.stringify(PASSAGES ? { pages: PAGES, seed: SEED, passages: PASSAGE_PARAMS } : { pages: PAGES, seed: SEED });
    const reused = marker && history && existsSync(marker) && readFileSync(marker, 'utf8') === imported;
    if (KEEP_PROFILE) {
      mkdirSync(join(KEEP_PROFILE, 'profile'), { recursive: true });
      if (!reused && marker) rmSync(marker, { force: true });
      // the worker script Chromium cached from an earlier build (the extension keeps its id and storage)
      rmSync(join(KEEP_PROFILE, 'profile', 'Default', 'Service Worker'), { recursive: true, force: true });
    }
    const launchedAt = performance.now();
    ext = await launchWithExtension(extensionCopy, KEEP_PROFILE ? { userDataDir: join(KEEP_PROFILE, 'profile') } : {});
    const session = ext;
    await session.ctx.route(
      (url) => (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '127.0.0.1',
      (route) => route.abort('internetdisconnected'),
    );
    const historyPage = await session.ctx.newPage();
    await historyPage.goto(`chrome-extension://${session.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
    let chromium = '?';
    try {
      chromium = /[\d.]+/.exec(execSync(`${CHROMIUM_PATH} --version`, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))?.[0] ?? '?';
    } catch {
      // unknown
    }
    results['environment'] = { chromium, cpus: cpus().length, cpu: cpus()[0]?.model ?? '?', node: process.version };
    log(`Chromium ${chromium} (${CHROMIUM_PATH}, headless) with ${EXTENSION_DIR}; ${cpus().length} × ${cpus()[0]?.model ?? '?'}; Node ${process.version}; load average ${loadavg()[0]!.toFixed(2)} at the start.`);

    /** The origin's usage before the import; 0 on a reused profile, whose import is not in this run. */
    let storageBaseline = 0;
    if (history && reused) {
      log(`Import: skipped, the profile in ${KEEP_PROFILE} already holds these ${int(PAGES)} pages (--keep-profile).`);
      results['reusedProfile'] = KEEP_PROFILE;
      // The worker's first reply that needs the store: it opens the database (upgrading it if an
      // older build wrote it). The version is read without opening it (indexedDB.databases()).
      const version = (): Promise<number | null> =>
        historyPage.evaluate(async () => (await indexedDB.databases()).find((d) => d.name === 'doppel')?.version ?? null);
      const versionBefore = await version();
      const [first] = await sendTimed(historyPage, 'report/get', [history.sample[0] ?? null]);
      const versionAfter = await version();
      const sinceLaunch = performance.now() - launchedAt;
      results['firstReplyOnReuse'] = { ...first, versionBefore, versionAfter, sinceLaunch };
      log(
        `  the worker's first report/get: ${first ? `${int(first.ms)} ms, ${first.ok ? `state "${first.state}"` : `error ${JSON.stringify(first.error)}`}` : 'none'}, ` +
          `answered ${s(sinceLaunch / 1000)} after the launch began; ` +
          `database version ${versionBefore} before it, ${versionAfter} after${versionBefore !== versionAfter ? ' (the upgrade ran in it)' : ''}`,
      );
    } else if (history) {
      if (KEEP_PROFILE) {
        // an earlier, different import may be in it: start from an empty store
        await deleteDatabase(historyPage, 'doppel');
      }
      const storage = await storageBeforeImport(historyPage);
      storageBaseline = storage.before.usage;
      const imp = await measureImport(session, historyPage, history);

      // 2. Bytes per page
      await storageAfterImport(historyPage, history, storage);
      // 2a. The floor: a plain put loop writing those bytes
      if (PUT_FLOOR) await measurePutFloor(historyPage, history.pages, (results['storage'] as { perPage: number }).perPage, imp['rate'] as number);

      // 3. Worker memory
      await memoryAfterImport(session, historyPage);

      if (marker && !imp['error'] && imp['finalState'] === 'done') writeFileSync(marker, imported);
    }

    if (history && !IMPORT_ONLY) {
      // 4. Queries and 5. popup (not with --history-only)
      const draws = drawPages(history);
      if (!HISTORY_ONLY) {
        const plantedCount = await measureQueries(session, historyPage, history, draws);
        await measurePopups(session, draws, plantedCount);
      }

      // 5b. History page: first screen, then scrolling (chunks read as the end comes into view)
      await measureHistoryPage(session);
      await memoryAfterQueries(session);

      // 2b. Storage again, at the end: the figure right after an import includes chunks that the
      // trees' merges have deleted and LevelDB has not yet reclaimed.
      await storageAtEnd(historyPage, history, storageBaseline, launchedAt);
    }

    // 6. Content script
    if (!SKIP_CONTENT) await measureContentScript(session, sites);

    // The corpus pages' own scripts throw (their remote scripts are not loaded): only Doppel's pages count.
    const ownErrors = session.pageErrors.filter((e) => e.startsWith('chrome-extension://'));
    if (ownErrors.length) log(`\nUncaught errors in Doppel's pages: ${ownErrors.length} (first: ${ownErrors[0]})`);

    // 7. The burst, once this browser is closed
    if (!SKIP_BURST) {
      await session.close();
      await measureBursts(sites);
    }
    const seconds = (performance.now() - started) / 1000;
    results['seconds'] = seconds;
    log('');
    log(`(${s(seconds)} in all; load average ${loadavg()[0]!.toFixed(2)} at the end)  ${COMMAND}`);
    if (json) console.log(JSON.stringify(results));
  } finally {
    await ext?.close();
    for (const site of sites) await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
