// `npm run bench:browser`: Doppel's speed and size in Debian's Chromium with the built extension
// (.output/chrome-mv3; run `npm run build` first), printed beside the targets of issue 4.
//
// 1. Import. A synthetic export of N pages (bench/data/synthetic-history.ts: 1,000,000 by default,
//    realistic URLs and titles, 1% planted near-duplicates; each page's passage fingerprints, those
//    of a synthetic article of about 700 words, and 1% planted partial copies: excerpts and
//    quotes of an earlier page on another host) is written to a temporary folder and
//    imported through the real history page (history.html: #import-file, then #import). A
//    MutationObserver in the page timestamps every change of #import-form's data-state and of the
//    summary line, from the click. Import rate = pages / (click → data-state leaves "importing");
//    the time to "done" is printed too, and, inside it, the moment the summary line appears (the
//    lines are all written) and what comes after it (today: the table-design migration). CPU time
//    of each Chromium process over the import comes from /proc, and the history page's script
//    time from CDP Performance.getMetrics, to show where the time goes.
// 2. Bytes per page, all-in (the store and, with passages, its passage index):
//    navigator.storage.estimate().usage from an extension page after the import minus before it,
//    divided by the page count; the IndexedDB folder's size on disk beside it.
// 3. The worker's memory after the import: CDP Runtime.getHeapUsage on the service worker's own
//    target (attached through Target.attachToTarget from a page session), before and after a
//    HeapProfiler.collectGarbage.
// 4. Near-duplicate queries: 200 `report/get` messages (what the popup sends; the worker answers
//    through lib/background/recorder.ts: PageStore.getWithNear) sent one after another from an extension page
//    with chrome.runtime.sendMessage. Each is timed twice: in the worker, from its listener's call
//    to the reply (the User Timing measures of lib/background/timing.ts, read from the worker afterwards: the
//    issue's "in the worker"), and in the page, from send to reply (the round trip a popup waits).
//    The round trip of `settings/get` (which does no store work) is printed as the messaging
//    floor, and the CPU of each Chromium process over the queries shows what else is busy. The
//    200 pages are a seeded choice of imported URLs, 50 of them planted near-duplicates, whose
//    originals must be in the reply's `matches`, and (with passages) 50 planted partial copies,
//    whose originals must be in its `passages`, and (with rewrites) 25 planted rewrites, whose
//    originals must be in its `rewrites` (taken from the other pages: 75 of them then).
// 5. The popup: popup.html?url=<a stored page> opened in a new tab; time from navigation start
//    (performance.timeOrigin) to data-state="ready", taken in the page by a MutationObserver
//    installed before the popup's own script runs. With the worker running, then with the worker
//    stopped first over CDP (as Chrome stops an idle worker after 30 s); for those, the steps on the
//    way, placed on the popup's clock by the two time origins: the popup's script, the worker's
//    start, its marks doppel:worker-main and doppel:worker-listening, its report/get measure.
// 5b. The history page: history.html opened five times; navigation start → the performance mark
//    "doppel:history-first-screen" (the first chunk of entries drawn). Then 20 scrolls to the end
//    of the list, each timed until the next chunk is drawn, with a longtask observer.
// 6. The content script: the 130 pages of ../shared/corpus/readability-test-pages/*/source.html
//    served on 127.0.0.1 and visited one by one, each in a trace (CDP Tracing) until the worker
//    has its outcome; bench/browser/main-thread.ts counts the page main-thread tasks that ran content
//    script code. Then a few pages at and past the caps (elements, depth, text length).
//
// Options: --pages N (default 1000000), --queries N (200), --popups N (20 with the worker
// running; a quarter as many with it stopped), --seed N, --no-passages (the history as it was
// before passages: no passage fingerprints, no partial copies, and the targets without passages),
// --no-rewrites (the history without rewrite fingerprints and planted rewrites, and the storage
// target before them), --no-provenance (the history without what its pages say of where they
// come from: no published, source or sourceBy; the storage a page before them),
// --skip-import (only the content script),
// --skip-content, --json (one JSON object on stdout), --history-only (with an import: skip the
// queries and popups), --settle-seconds N (wait N s before storage is measured again at the end of
// the history's measurements: LevelDB reclaims the space of rewritten chunks later, if at all),
// --cpu-profile FILE (the worker's CPU profile over the queries, its top functions printed),
// --import-cpu-profile FILE (the same over the import's saving of the lines, before organising),
// --store-bytes (at the end, every object store's values' bytes a page),
// --keep-profile DIR (use and keep the browser profile DIR/profile; when DIR already holds an
// import of the same --pages and --seed, skip the import and measure on it: a 1,000,000-page store
// is imported once, then each build is measured on it in minutes. Chromium
// keeps the service worker script of the build that first ran in a profile, so a reused profile
// has its "Service Worker" folder removed first: the worker then runs this build, and its first
// reply, timed, includes any schema upgrade of the kept store).
import { execSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { deeperThanSelector, readabilityWork } from '../../lib/text/reading';
import { MAX_DEPTH, MAX_ELEMS_TO_PARSE, MAX_READABILITY_WORK, MAX_TEXT_CHARS } from '../../lib/content/page-reader';
import { mulberry32 } from '../../lib/random';
import { BLOCK_PAGES } from '../../lib/rows/blocks';
import { FIELD_TREES, textKey } from '../../lib/rows/page-rows';
import { PASSAGE_PARAMS } from '../../lib/fingerprint/passages';
import { canonicalUrl } from '../../lib/url';
import { sourcesNewerThan } from '../shared/built';
import { hugeTextPage, manyElementsPage } from '../../test/e2e/generated-pages';
import { type ExtensionSession, type Site, CHROMIUM_PATH, launchWithExtension, servePages, sleep, stopServiceWorker } from '../../test/e2e/harness';
import { max, median, percentile } from '../shared/stats';
import { type ScriptTasks, type TraceEvent, TRACE_CATEGORIES, contentScriptTasks } from './main-thread';
import { type SyntheticHistory, writeSyntheticHistory } from '../data/synthetic-history';
import { rewriteFolding } from './rewrite-folding';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EXTENSION_DIR = resolve(ROOT, process.env.DOPPEL_EXTENSION_DIR ?? '.output/chrome-mv3');
const CORPUS_DIR = resolve(ROOT, '../shared/corpus/readability-test-pages');
const HOSTILE_DIR = resolve(ROOT, 'test/e2e/pages/hostile');

// ---------------------------------------------------------------------------------------------
// Options

const argv = process.argv.slice(2);
const json = argv.includes('--json');
function intOption(name: string, fallback: number, min = 1): number {
  const at = argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < min) {
    console.error(`${name} takes a whole number from ${min}`);
    process.exit(2);
  }
  return value;
}
const PAGES = intOption('--pages', 1_000_000, 1000);
const QUERIES = intOption('--queries', 200);
const POPUPS = intOption('--popups', 20);
const SEED = intOption('--seed', 4, 0);
/** Seconds to wait, at the end of the history's measurements, before storage is measured again. */
const SETTLE_SECONDS = intOption('--settle-seconds', 0, 0);
const SKIP_IMPORT = argv.includes('--skip-import');
const SKIP_CONTENT = argv.includes('--skip-content');
const HISTORY_ONLY = argv.includes('--history-only');
/** --store-bytes: at the end, the bytes of every object store's values, read in history.html. */
const STORE_BYTES = argv.includes('--store-bytes');
/** --cpu-profile FILE: the worker's V8 CPU profile over the report/get queries, written to FILE (a .cpuprofile), its top functions by self time printed. */
const CPU_PROFILE = fileOption('--cpu-profile', 'report-get.cpuprofile');
/** --import-cpu-profile FILE: the worker's V8 CPU profile while the import saves the lines (to the first poll after "importing"), its top functions printed. */
const IMPORT_CPU_PROFILE = fileOption('--import-cpu-profile', 'import.cpuprofile');
/** The file an option names (resolved), `fallback` when the option has none; undefined without the option. */
function fileOption(name: string, fallback: string): string | undefined {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : resolve(argv[at + 1] ?? fallback);
}
const KEEP_PROFILE = ((): string | undefined => {
  const at = argv.indexOf('--keep-profile');
  if (at === -1) return undefined;
  const value = argv[at + 1];
  if (value === undefined || value.startsWith('--')) {
    console.error('--keep-profile takes a folder');
    process.exit(2);
  }
  return resolve(value);
})();
const COMMAND = `npm run bench:browser${argv.length ? ' -- ' + argv.join(' ') : ''}`;
/** Passage fingerprints in the history, and the targets of "Passages, part 2"; --no-passages: the history and targets before it. */
const PASSAGES = !argv.includes('--no-passages');
/** Rewrite fingerprints in the history (with passages), and the storage target of "Rewrites, part 2"; --no-rewrites: as before them. */
const REWRITES = PASSAGES && !argv.includes('--no-rewrites');
/** What the pages say of where they come from (bench/data/synthetic-history.ts provenanceOf); --no-provenance: the history as before it. */
const PROVENANCE = PASSAGES && !argv.includes('--no-provenance');

const TARGETS = {
  importRate: 10_000, // pages/s, at least
  queryMedianMs: PASSAGES ? 15 : 10, // report/get with passages : without
  queryP99Ms: PASSAGES ? 50 : 40,
  popupReadyMs: 150,
  bytesPerPage: REWRITES ? 950 : PASSAGES ? 800 : 300, // all-in, the rewrite and passage indexes included : the passage index : the store alone
  contentMedianMs: 15,
  contentP95Ms: 60,
  longestTaskMs: 200,
  historyFirstScreenMs: 300,
  historyTaskMs: 50,
};

// ---------------------------------------------------------------------------------------------
// Output

const results: Record<string, unknown> = { command: COMMAND };
const log = (line = ''): void => {
  if (!json) console.log(line);
};
const progress = (line: string): void => {
  console.error(line);
};
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(1)) + ' ms';
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const s = (seconds: number): string => `${seconds.toFixed(1)} s`;

/** "met", or "MISSED by …" for a value that must stay at most `target`. */
function atMost(value: number, target: number, unit: (n: number) => string): string {
  return value <= target ? 'met' : `MISSED by ${unit(value - target)} (${(value / target).toFixed(2)}× the target)`;
}
/** "met", or "MISSED by …" for a value that must reach at least `target`. */
function atLeast(value: number, target: number, unit: (n: number) => string): string {
  return value >= target ? 'met' : `MISSED by ${unit(target - value)} (${((value / target) * 100).toFixed(0)}% of the target)`;
}

// ---------------------------------------------------------------------------------------------
// Processes (/proc): Chromium's processes are descendants of this one (Playwright spawns it).

interface ProcInfo {
  pid: number;
  kind: string;
  /** CPU seconds, user + system. */
  cpu: number;
  rssBytes: number;
}
const CLK_TCK = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function kindOf(cmdline: string[]): string {
  const type = cmdline.find((a) => a.startsWith('--type='))?.slice(7);
  if (!type) return 'browser process';
  if (type === 'renderer') return cmdline.includes('--extension-process') ? 'extension renderer (history page, popup, worker)' : 'page renderers';
  if (type === 'utility') return `utility: ${cmdline.find((a) => a.startsWith('--utility-sub-type='))?.slice(19) ?? '?'}`;
  return type;
}

function chromiumProcesses(): ProcInfo[] {
  const parents = new Map<number, number>();
  const stats = new Map<number, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(rest[1]));
      stats.set(Number(entry), rest);
    } catch {
      // gone
    }
  }
  const mine = new Set<number>([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!mine.has(pid) && mine.has(ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  mine.delete(process.pid);
  const out: ProcInfo[] = [];
  for (const pid of mine) {
    try {
      // Zygote-forked processes rewrite their command line into one space-separated string.
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      if (!/chrom/i.test(cmdline[0] ?? '')) continue;
      const rest = stats.get(pid)!;
      out.push({ pid, kind: kindOf(cmdline), cpu: (Number(rest[11]) + Number(rest[12])) / CLK_TCK, rssBytes: Number(rest[21]) * 4096 });
    } catch {
      // gone
    }
  }
  return out;
}

/** Each thread of Chromium's processes ("pid tid"): its name ("kind: thread name") and CPU seconds so far (/proc/PID/task/TID). */
function chromiumThreads(): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  for (const p of chromiumProcesses()) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${p.pid}/task`);
    } catch {
      continue; // gone
    }
    for (const tid of tasks) {
      try {
        const stat = readFileSync(`/proc/${p.pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(`${p.pid} ${tid}`, { name: `${p.kind.split(' (')[0]}: ${name}`, cpu: (Number(rest[11]) + Number(rest[12])) / CLK_TCK });
      } catch {
        // gone
      }
    }
  }
  return out;
}

/** CPU seconds by thread name between two chromiumThreads() snapshots, the busiest first. */
function threadCpuBetween(before: Map<string, { cpu: number }>, after: Map<string, { name: string; cpu: number }>): [string, number][] {
  const byName = new Map<string, number>();
  for (const [key, { name, cpu }] of after) byName.set(name, (byName.get(name) ?? 0) + cpu - (before.get(key)?.cpu ?? 0));
  return [...byName].filter(([, cpu]) => cpu >= 0.5).sort((a, b) => b[1] - a[1]);
}

/** CPU seconds per process kind between two snapshots (processes that ended in between are lost). */
function cpuBetween(before: ProcInfo[], after: ProcInfo[]): [string, number][] {
  const start = new Map(before.map((p) => [p.pid, p.cpu]));
  const byKind = new Map<string, number>();
  for (const p of after) byKind.set(p.kind, (byKind.get(p.kind) ?? 0) + p.cpu - (start.get(p.pid) ?? 0));
  return [...byKind].filter(([, cpu]) => cpu >= 0.05).sort((a, b) => b[1] - a[1]);
}

/** Each Chromium process kind's largest peak resident memory (VmHWM in /proc/PID/status), the largest first. */
function peakResident(): [string, number][] {
  const byKind = new Map<string, number>();
  for (const p of chromiumProcesses()) {
    try {
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'))?.[1] ?? NaN);
      if (Number.isFinite(kb)) byKind.set(p.kind, Math.max(byKind.get(p.kind) ?? 0, kb * 1024));
    } catch {
      // gone
    }
  }
  return [...byKind].sort((a, b) => b[1] - a[1]);
}

/** CPU seconds the whole machine has spent busy since boot (/proc/stat). */
function machineBusy(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return (user + nice + system + irq + softirq + steal) / CLK_TCK;
}

const ownCpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

function userDataDir(): string | null {
  for (const p of chromiumProcesses()) {
    if (p.kind !== 'browser process') continue;
    const arg = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split(/\0/).find((a) => a.startsWith('--user-data-dir='));
    if (arg) return arg.slice('--user-data-dir='.length);
  }
  return null;
}

function folderBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// CDP on the service worker's target. Playwright opens CDP sessions on pages only, so this
// attaches to the worker from a page session (Target.attachToTarget without flatten) and talks
// to it through Target.sendMessageToTarget.

interface RawSession {
  send(method: string, params?: object): Promise<any>;
  on(event: string, listener: (payload: any) => void): void;
  off(event: string, listener: (payload: any) => void): void;
  detach(): Promise<void>;
}

async function withWorkerTarget<T>(ctx: BrowserContext, extensionId: string, fn: (send: (method: string, params?: object) => Promise<any>) => Promise<T>): Promise<T> {
  const page = ctx.pages().find((p) => !p.isClosed()) ?? (await ctx.newPage());
  const session = (await ctx.newCDPSession(page)) as unknown as RawSession;
  try {
    const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: { targetId: string; type: string; url: string }[] };
    const target = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extensionId}/`));
    if (!target) throw new Error('the service worker is not running');
    const { sessionId } = (await session.send('Target.attachToTarget', { targetId: target.targetId, flatten: false })) as { sessionId: string };
    let nextId = 1;
    const pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
    const listener = (event: { sessionId: string; message: string }): void => {
      if (event.sessionId !== sessionId) return;
      const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: { message: string } };
      const waiting = message.id === undefined ? undefined : pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id!);
      if (message.error) waiting.fail(new Error(message.error.message));
      else waiting.ok(message.result);
    };
    session.on('Target.receivedMessageFromTarget', listener);
    const send = (method: string, params: object = {}): Promise<any> =>
      new Promise((ok, fail) => {
        const id = nextId++;
        pending.set(id, { ok, fail });
        session.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(fail);
      });
    try {
      return await fn(send);
    } finally {
      session.off('Target.receivedMessageFromTarget', listener);
      await session.send('Target.detachFromTarget', { sessionId }).catch(() => {});
    }
  } finally {
    await session.detach().catch(() => {});
  }
}

/** Runs `work` with the worker's V8 profiler on, until it ends or calls `stopProfile`; writes the profile to `file` and logs the top functions by self time and the IndexedDB reads, naming them as over `what`. */
async function profiledInWorker<T>(ext: ExtensionSession, file: string, what: string, work: (stopProfile: () => Promise<void>) => Promise<T>): Promise<T> {
  const worker = await ext.getWorker();
  // the IndexedDB reads by object store, counted by wrapping the prototypes' methods for the run
  await worker.evaluate(() => {
    const counts: Record<string, number> = {};
    (globalThis as unknown as { __idbReads: Record<string, number> }).__idbReads = counts;
    for (const method of ['get', 'getAll', 'getAllKeys', 'openCursor', 'count'] as const) {
      const original = IDBObjectStore.prototype[method] as (...args: unknown[]) => IDBRequest;
      (IDBObjectStore.prototype as unknown as Record<string, unknown>)[method] = function (this: IDBObjectStore, ...args: unknown[]) {
        counts[`${this.name}.${method}`] = (counts[`${this.name}.${method}`] ?? 0) + 1;
        return original.apply(this, args);
      };
    }
  });
  const result = await withWorkerTarget(ext.ctx, ext.extensionId, async (send) => {
    await send('Profiler.enable');
    await send('Profiler.setSamplingInterval', { interval: 100 });
    await send('Profiler.start');
    let stopped: Promise<void> | undefined;
    // `work` may stop the profile early (the import: once every line is saved, before organising)
    const stopProfile = (): Promise<void> =>
      (stopped ??= (async () => {
        const { profile } = (await send('Profiler.stop')) as { profile: CpuProfile };
        writeFileSync(file, JSON.stringify(profile));
        const self = new Map<string, number>();
        const byId = new Map(profile.nodes.map((n) => [n.id, n]));
        profile.samples.forEach((id, i) => {
          const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
          const name = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
          self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
        });
        const total = [...self.values()].reduce((a, b) => a + b, 0);
        log(`  worker CPU profile over ${what} (${file}): ${(total / 1000).toFixed(0)} ms sampled; by self time:`);
        for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) log(`    ${(us / 1000).toFixed(1).padStart(8)} ms  ${name}`);
        const reads = await worker.evaluate(() => (globalThis as unknown as { __idbReads: Record<string, number> }).__idbReads);
        log(`  IndexedDB requests in the worker over ${what}, by object store: ${Object.entries(reads).sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${int(n)}`).join(', ')}`);
      })());
    const result = await work(stopProfile);
    await stopProfile();
    return result;
  });
  return result;
}

/** In history.html: each object store of Doppel's database, its values' count and bytes (before LevelDB's compression). */
async function storeValueBytes(): Promise<Record<string, { values: number; bytes: number }>> {
  const db = await new Promise<IDBDatabase>((ok, fail) => {
    const open = indexedDB.open('doppel');
    open.onsuccess = () => ok(open.result);
    open.onerror = () => fail(open.error);
  });
  const out: Record<string, { values: number; bytes: number }> = {};
  for (const name of Array.from(db.objectStoreNames)) {
    out[name] = await new Promise((ok, fail) => {
      let values = 0;
      let bytes = 0;
      const cursor = db.transaction(name, 'readonly').objectStore(name).openCursor();
      cursor.onerror = () => fail(cursor.error);
      cursor.onsuccess = () => {
        const at = cursor.result;
        if (at === null) return ok({ values, bytes });
        values++;
        // byte arrays as their length, strings as theirs, numbers as 8 bytes, objects as the sum of their fields
        // (no named inner function: the bench's compiler would wrap it in a helper the page lacks)
        const stack: unknown[] = [at.value];
        while (stack.length > 0) {
          const value = stack.pop();
          if (ArrayBuffer.isView(value)) bytes += value.byteLength;
          else if (value instanceof ArrayBuffer) bytes += value.byteLength;
          else if (typeof value === 'string') bytes += value.length;
          else if (typeof value === 'number') bytes += 8;
          else if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
          else bytes += 1;
        }
        at.continue();
      };
    });
  }
  db.close();
  return out;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

interface HeapUsage {
  usedSize: number;
  totalSize: number;
}

async function workerHeap(ext: ExtensionSession): Promise<{ before: HeapUsage; afterGc: HeapUsage }> {
  await ext.getWorker(); // started if it was stopped
  return withWorkerTarget(ext.ctx, ext.extensionId, async (send) => {
    const before = (await send('Runtime.getHeapUsage')) as HeapUsage;
    await send('HeapProfiler.collectGarbage');
    const afterGc = (await send('Runtime.getHeapUsage')) as HeapUsage;
    return { before, afterGc };
  });
}

// ---------------------------------------------------------------------------------------------
// In the worker: whether a page has been handled (recorded, or a not-article outcome).

type Handled = { state: 'recorded' } | { state: string; reason: string } | null;

async function handledInWorker(worker: Worker, url: string): Promise<Handled> {
  // Version 7 keeps a page in a block of 64 (lib/rows/blocks.ts), found through the url tree of
  // sorted runs (lib/rows/page-rows.ts): a lookup of the URL's hash in each run of the tree gives
  // candidate ids, and each candidate's block is read and its slot's URL compared. lib/ is not
  // importable in the worker: the hash is taken here, the rest is lib/index/runs.ts's `lookup`
  // written out (a key's entries in a run are all in the last chunk whose first key is at most it).
  const key = textKey(url);
  const spec = { tree: FIELD_TREES.url.tree, stride: FIELD_TREES.url.stride, blockPages: BLOCK_PAGES };
  return worker.evaluate(
    async ({ address, key, spec }) => {
      // (no named functions in here: tsx, which runs this file, would wrap them in a helper the worker lacks)
      type ChromeLike = { chrome: { storage: { session: { get(key: string): Promise<Record<string, { state: string; reason: string } | undefined>> } } } };
      type Run = { tree: number; level: number; run: number; firsts: number[] };
      const { chrome } = globalThis as unknown as ChromeLike;
      // Never open (and so create) the database if it is not there yet.
      if ((await indexedDB.databases()).some((d) => d.name === 'doppel')) {
        const db = await new Promise<IDBDatabase>((ok, fail) => {
          const open = indexedDB.open('doppel');
          open.onsuccess = () => ok(open.result);
          open.onerror = () => fail(open.error);
        });
        try {
          if (db.objectStoreNames.contains('blocks')) {
            // the run index, then the chunk of each run of the url tree that can hold the key, then the
            // candidates' blocks, in one readonly transaction (each step is started from the last one's
            // success event); the inflating after it
            const candidates = await new Promise<{ slot: number; value: unknown }[]>((ok, fail) => {
              const tx = db.transaction(['meta', 'runs', 'blocks'], 'readonly');
              const reads: { slot: number; request: IDBRequest }[] = [];
              tx.oncomplete = () => ok(reads.map(({ slot, request }) => ({ slot, value: request.result as unknown })));
              tx.onerror = () => fail(tx.error);
              const index = tx.objectStore('meta').get('runs');
              index.onsuccess = () => {
                for (const run of ((index.result as { runs?: Run[] } | undefined)?.runs ?? []).filter((r) => r.tree === spec.tree)) {
                  let c = -1;
                  while (c + 1 < run.firsts.length && run.firsts[c + 1]! <= key) c++;
                  if (c < 0) continue;
                  const chunk = tx.objectStore('runs').get([run.tree, run.level, run.run, c]);
                  chunk.onsuccess = () => {
                    // the chunk's bytes (lib/index/run-chunks.ts, for the url tree's entries of 2 words): varint
                    // entries · byte stride · 4 bytes first key · byte k · 4 bytes smallest id · byte width ·
                    // Rice(k) key gaps · ids as width-bit offsets, read a bit at a time
                    const b = (chunk.result as Uint8Array | undefined) ?? Uint8Array.from([0, 2]);
                    let at = 0;
                    let entries = 0;
                    for (let scale = 1; ; scale *= 0x80) {
                      const byte = b[at++]!;
                      entries += (byte & 0x7f) * scale;
                      if (byte < 0x80) break;
                    }
                    if (entries === 0) return;
                    at++; // the stride: 2
                    let k0 = (((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0);
                    const k = b[at + 4]!;
                    const smallest = ((b[at + 5]! << 24) | (b[at + 6]! << 16) | (b[at + 7]! << 8) | b[at + 8]!) >>> 0;
                    const width = b[at + 9]!;
                    let bit = (at + 10) * 8;
                    const keys = [k0];
                    for (let e = 1; e < entries; e++) {
                      let q = 0;
                      while ((b[bit >> 3]! >> (7 - (bit & 7))) & 1) (q++, bit++);
                      bit++;
                      let r = 0;
                      for (let i = 0; i < k; i++, bit++) r = r * 2 + ((b[bit >> 3]! >> (7 - (bit & 7))) & 1);
                      k0 += q * 2 ** k + r;
                      keys.push(k0);
                    }
                    for (let e = 0; e < entries; e++) {
                      let offset = 0;
                      for (let i = 0; i < width; i++, bit++) offset = offset * 2 + ((b[bit >> 3]! >> (7 - (bit & 7))) & 1);
                      if (keys[e] !== key) continue;
                      const id = smallest + offset;
                      reads.push({ slot: id % spec.blockPages, request: tx.objectStore('blocks').get(Math.floor(id / spec.blockPages)) });
                    }
                  };
                }
              };
            });
            for (const { slot, value } of candidates) {
              if (!Array.isArray(value) || !(value[1] instanceof Uint8Array)) continue;
              // [format, raw deflate of the slots' JSON, fingerprints]: a slot's entry starts with its URL
              const text = await new Response(new Blob([value[1] as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).text();
              const entry = (JSON.parse(text) as unknown[])[slot];
              if (Array.isArray(entry) && entry[0] === address) return { state: 'recorded' };
            }
          }
        } finally {
          db.close();
        }
      }
      const outcomeKey = `outcome:${address}`;
      const outcome = (await chrome.storage.session.get(outcomeKey))[outcomeKey];
      return outcome ? { state: outcome.state, reason: outcome.reason } : null;
    },
    { address: url, key, spec },
  );
}

/** Polls the worker until `url` is handled or `timeout` ms pass. */
async function waitHandled(ext: ExtensionSession, url: string, timeout: number): Promise<Handled> {
  const deadline = Date.now() + timeout;
  let worker = ext.worker;
  for (;;) {
    const read = await Promise.race([handledInWorker(worker, url).catch(() => undefined), sleep(3000).then(() => undefined)]);
    if (read === undefined) worker = await ext.getWorker();
    else if (read !== null) return read;
    if (Date.now() > deadline) return null;
    await sleep(50);
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Import

interface ImportTimes {
  /** data-state changes of #import-form, ms after the click. */
  states: [string, number][];
  /** The summary line's texts, ms after the click. */
  summaries: [string, number][];
  /** Where the click happened, performance.now() in the page. */
  clickAt: number;
}

async function importThroughHistoryPage(history: Page, file: string, pages: number, onSaved?: () => Promise<void>): Promise<Record<string, unknown>> {
  await history.evaluate(() => {
    const w = window as unknown as { __bench: ImportTimes };
    w.__bench = { states: [], summaries: [], clickAt: NaN };
    const form = document.getElementById('import-form')!;
    const summary = document.getElementById('import-summary')!;
    document.getElementById('import')!.addEventListener('click', () => (w.__bench.clickAt = performance.now()), { capture: true });
    new MutationObserver(() => w.__bench.states.push([form.dataset['state'] ?? '', performance.now()])).observe(form, { attributes: true, attributeFilter: ['data-state'] });
    new MutationObserver(() => w.__bench.summaries.push([summary.textContent ?? '', performance.now()])).observe(summary, { childList: true, characterData: true, subtree: true });
  });
  await history.locator('#import-file').setInputFiles(file);
  await history.waitForFunction(() => !(document.getElementById('import') as HTMLButtonElement).disabled);

  const cdp = await history.context().newCDPSession(history);
  await cdp.send('Performance.enable');
  const metrics = async (): Promise<Map<string, number>> => new Map((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const metricsBefore = await metrics();
  const procsBefore = chromiumProcesses();
  const threadsBefore = chromiumThreads();
  let threadsSaving: [string, number][] = [];
  let procsSaving: [string, number][] = [];
  let savingWall = NaN;
  const busyBefore = machineBusy();
  const ownBefore = ownCpu();
  const loads: number[] = [];
  const wallStart = performance.now();
  await history.locator('#import').click();

  let lastReport = performance.now();
  for (;;) {
    await sleep(1000);
    const { state, value, max: total } = await history.evaluate(() => {
      const form = document.getElementById('import-form')!;
      const bar = document.getElementById('import-progress') as HTMLProgressElement;
      return { state: form.dataset['state'] ?? '', value: bar.value, max: bar.max };
    });
    loads.push(loadavg()[0]!);
    if (state !== 'importing' && Number.isNaN(savingWall)) {
      // every line saved (to within the 1 s poll): the CPU of that phase alone, before organising
      savingWall = (performance.now() - wallStart) / 1000;
      procsSaving = cpuBetween(procsBefore, chromiumProcesses());
      threadsSaving = threadCpuBetween(threadsBefore, chromiumThreads());
      await onSaved?.();
    }
    if (state === 'done' || state === 'failed') break;
    if (performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      const renderer = chromiumProcesses().filter((p) => p.kind.startsWith('extension renderer')).reduce((sum, p) => sum + p.rssBytes, 0);
      progress(`  importing: ${((value / Math.max(total, 1)) * 100).toFixed(0)}% of the file read, data-state "${state}", ${s((performance.now() - wallStart) / 1000)}; extension renderer resident ${mb(renderer)}`);
    }
    if (performance.now() - wallStart > 4 * 3600_000) throw new Error('the import did not finish within 4 hours');
  }
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const procsAfter = chromiumProcesses();
  const busy = machineBusy() - busyBefore;
  const own = ownCpu() - ownBefore;
  const metricsAfter = await metrics();
  await cdp.detach().catch(() => {});
  const times = await history.evaluate(() => (window as unknown as { __bench: ImportTimes }).__bench);
  const rel = (t: number): number => (t - times.clickAt) / 1000;
  const states = times.states.map(([state, t]) => [state, rel(t)] as [string, number]);
  const left = states.find(([state]) => state !== 'importing' && states.some(([x]) => x === 'importing'));
  const done = states.find(([state]) => state === 'done' || state === 'failed');
  const finalSummary = times.summaries.filter(([text]) => text !== '' && !text.startsWith('Importing')).at(0);
  const error = await history.locator('#import-error').textContent();
  const metric = (name: string): number => (metricsAfter.get(name) ?? 0) - (metricsBefore.get(name) ?? 0);
  return {
    states,
    leftImportingS: left?.[1] ?? NaN,
    doneS: done?.[1] ?? NaN,
    finalState: done?.[0] ?? 'none',
    summary: finalSummary?.[0] ?? '',
    summaryS: finalSummary ? rel(finalSummary[1]) : NaN,
    error: error ?? '',
    rate: pages / (left?.[1] ?? NaN),
    wallSeconds,
    cpu: cpuBetween(procsBefore, procsAfter),
    savingWall,
    cpuSaving: procsSaving,
    threadsSaving,
    /** CPU seconds of everything else on the machine (not Chromium, not this process) over the import. */
    otherCpu: busy - own - cpuBetween(procsBefore, procsAfter).reduce((sum, [, c]) => sum + c, 0),
    meanLoad: loads.reduce((a, b) => a + b, 0) / Math.max(loads.length, 1),
    historyScriptS: metric('ScriptDuration'),
    historyTaskS: metric('TaskDuration'),
  };
}

// ---------------------------------------------------------------------------------------------
// 4. Queries

interface QueryResult {
  ms: number;
  ok: boolean;
  state: string;
  matches: string[];
  /** report.passages: the pages sharing passages with this one, and this page's share in them. */
  passages: { url: string; share: number }[];
  /** report.rewrites: the pages this one rewrites or that rewrite it. */
  rewrites: string[];
  error: string;
}

async function sendTimed(page: Page, type: string, urls: readonly (string | null)[]): Promise<QueryResult[]> {
  return page.evaluate(
    async ({ type, urls }) => {
      type Reply = { ok: boolean; value?: { state?: string; matches?: { url: string }[]; passages?: { url: string; share: number }[]; rewrites?: { url: string }[] }; error?: string } | undefined;
      const { chrome } = globalThis as unknown as { chrome: { runtime: { sendMessage(message: unknown): Promise<Reply> } } };
      const out: QueryResult[] = [];
      for (const url of urls) {
        const started = performance.now();
        const reply = await chrome.runtime.sendMessage({ type, payload: url === null ? {} : { url } });
        const ms = performance.now() - started;
        const passages = (reply?.value?.passages ?? []).map((m) => ({ url: m.url, share: m.share }));
        out.push({ ms, ok: reply?.ok === true, state: reply?.value?.state ?? '', matches: (reply?.value?.matches ?? []).map((m) => m.url), passages, rewrites: (reply?.value?.rewrites ?? []).map((m) => m.url), error: reply?.error ?? '' });
      }
      return out;
    },
    { type, urls },
  );
}

// ---------------------------------------------------------------------------------------------
// 5. Popup

/** Opens popup.html?url= in a new tab; ms from navigation start to the first settled data-state. */
/** A popup load: its first settled state and when (ms from navigation start), its time origin, and when its script ran (the navigation's domInteractive). */
interface PopupLoad {
  state: string;
  ms: number;
  origin: number;
  scriptAt: number;
}

async function popupLoad(ext: ExtensionSession, url: string): Promise<PopupLoad> {
  const page = await ext.ctx.newPage();
  try {
    await page.addInitScript(() => {
      const w = window as unknown as { __states: [string, number][] };
      w.__states = [];
      new MutationObserver((records) => {
        for (const r of records) w.__states.push([(r.target as Element).getAttribute('data-state') ?? '', performance.now()]);
      }).observe(document, { attributes: true, attributeFilter: ['data-state'], subtree: true });
    });
    await page.goto(ext.popupUrl(url), { waitUntil: 'domcontentloaded' });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { states, origin, scriptAt } = await page.evaluate(() => ({
        states: (window as unknown as { __states: [string, number][] }).__states,
        origin: performance.timeOrigin,
        scriptAt: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.domInteractive ?? NaN,
      }));
      const settled = states.find(([state]) => state !== 'loading');
      if (settled) return { state: settled[0], ms: settled[1], origin, scriptAt };
      if (Date.now() > deadline) return { state: 'timeout', ms: NaN, origin, scriptAt };
      await sleep(10);
    }
  } finally {
    await page.close();
  }
}

// ---------------------------------------------------------------------------------------------
// 6. Content script

interface TracedVisit {
  name: string;
  url: string;
  outcome: string;
  tasks: ScriptTasks;
  /** Whether the page is past the content script's caps (so it got the simple reading), judged after the visit. */
  pastCaps: boolean;
}

async function traceVisit(cdp: CDPSession, ext: ExtensionSession, tab: Page, name: string, url: string, timeout: number): Promise<TracedVisit> {
  const raw = cdp as unknown as RawSession;
  await tab.goto('about:blank');
  const events: TraceEvent[] = [];
  const collect = (e: { value: TraceEvent[] }): void => {
    for (const event of e.value) events.push(event);
  };
  raw.on('Tracing.dataCollected', collect);
  let completed = (): void => {};
  const complete = new Promise<void>((ok) => (completed = ok));
  const onComplete = (): void => completed();
  raw.on('Tracing.tracingComplete', onComplete);
  await raw.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: TRACE_CATEGORIES, excludedCategories: ['*'] } });
  let outcome = '';
  let pastCaps = false;
  try {
    await tab.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    const handled = await waitHandled(ext, canonicalUrl(url), timeout);
    outcome = handled === null ? `not handled within ${timeout / 1000} s` : handled.state === 'recorded' ? 'recorded' : `${handled.state}: ${(handled as { reason: string }).reason}`;
    await sleep(300);
    // The caps of lib/content/page-reader.ts, judged the way lib/text/extract.ts does, on the page as it is now.
    const size = await tab.evaluate(
      (tooDeep) => ({
        elements: document.querySelectorAll('*').length,
        chars: document.body?.textContent?.length ?? 0,
        deep: document.querySelector(tooDeep) !== null,
      }),
      deeperThanSelector(MAX_DEPTH),
    );
    pastCaps = size.elements > MAX_ELEMS_TO_PARSE || readabilityWork(size.elements, size.chars) > MAX_READABILITY_WORK || size.deep;
  } catch (error) {
    outcome = `load failed: ${(error as Error).message.split('\n')[0]}`;
  }
  await raw.send('Tracing.end');
  await complete;
  raw.off('Tracing.dataCollected', collect);
  raw.off('Tracing.tracingComplete', onComplete);
  const scriptUrl = `chrome-extension://${ext.extensionId}/content-scripts/content.js`;
  return { name, url, outcome, pastCaps, tasks: contentScriptTasks(events, scriptUrl) };
}

// ---------------------------------------------------------------------------------------------

function shuffle<T>(random: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

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
    let history: SyntheticHistory | undefined;
    if (!SKIP_IMPORT) {
      const t0 = performance.now();
      history = await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: PAGES, seed: SEED, passages: PASSAGES, rewrites: REWRITES, provenance: PROVENANCE });
      const seconds = (performance.now() - t0) / 1000;
      const { partial } = history;
      const excerpts = partial.filter((p) => p.kind === 'excerpt').length;
      const meanShare = partial.reduce((sum, p) => sum + p.share, 0) / partial.length;
      results['synthetic'] = {
        pages: history.pages,
        bytes: history.bytes,
        bytesPerLine: history.bytes / history.pages,
        hosts: history.hosts,
        planted: history.planted.length,
        meanUrlChars: history.meanUrlChars,
        meanTitleChars: history.meanTitleChars,
        passages: history.passages,
        partial: { count: partial.length, excerpts, quotes: partial.length - excerpts, meanShare },
        meanWords: history.meanWords,
        meanFingerprints: history.meanFingerprints,
        passageBytesPerLine: history.passageBytes / history.pages,
        seconds,
      };
      log(
        `Synthetic history (seed ${SEED}): ${int(history.pages)} pages on ${int(history.hosts)} hosts, ${int(history.planted.length)} of them planted near-duplicates ` +
          `of an earlier page on another host (simhash 0–3 bits, check 0–6 bits away); URLs ${history.meanUrlChars.toFixed(1)} and titles ` +
          `${history.meanTitleChars.toFixed(1)} characters on average; NDJSON ${mb(history.bytes)} (${(history.bytes / history.pages).toFixed(0)} bytes a line), written in ${s(seconds)}.`,
      );
      if (history.passages) {
        log(
          `  passages (header "passages":${JSON.stringify(history.passages)}): each page the fingerprints of a synthetic article, mean ${history.meanWords.toFixed(0)} words (300–1,500), ` +
            `${history.meanFingerprints.toFixed(1)} fingerprints a page (${((history.meanFingerprints / history.meanWords) * 100).toFixed(2)} per 100 words), ` +
            `${(history.passageBytes / history.pages).toFixed(0)} of the bytes a line; ${int(partial.length)} planted partial copies of an earlier page on another host ` +
            `(${int(excerpts)} excerpts: its first 30–60% and 20–60 words of their own; ${int(partial.length - excerpts)} 60-word quotes in an article of their own; ` +
            `the copied words' share of the copy: mean ${(meanShare * 100).toFixed(1)}%).`,
        );
      } else {
        log('  no passage fingerprints and no partial copies (--no-passages): the history as it was before passages.');
      }
      if (REWRITES) {
        log(
          `  rewrites (header "rewrites":{"scheme":1,"bits":20,"cap":64}): each page 0.12 pairs of rare words a word, sampled to at most 64 hashes (${history.meanRewriteHashes.toFixed(1)} a page), ` +
            `${(history.rewriteBytes / history.pages).toFixed(0)} of the bytes a line; ${int(history.rewrites.length)} planted rewrites of an earlier page on another host (70% of its pairs kept, its own otherwise).`,
        );
      }
      log(
        PROVENANCE
          ? `  provenance: half the pages state a publication time (0–7 days before first seen), a fifth of the planted copies name their original by canonical link or credit line, 1% of the others another site's page; ${(history.provenanceBytes / history.pages).toFixed(1)} of the bytes a line.`
          : '  no published, source or sourceBy (--no-provenance): the history as it was before them.',
      );
    }

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

    const estimate = (): Promise<{ usage: number; usageDetails?: Record<string, number> }> =>
      historyPage.evaluate(() => navigator.storage.estimate() as Promise<{ usage: number; usageDetails?: Record<string, number> }>);
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
        await historyPage.evaluate(() => new Promise<void>((done, fail) => {
          const request = indexedDB.deleteDatabase('doppel');
          request.onsuccess = () => done();
          request.onerror = () => fail(request.error);
        }));
      }
      const before = await estimate();
      storageBaseline = before.usage;
      const profile = userDataDir();
      const idbDir = profile ? join(profile, 'Default', 'IndexedDB') : null;
      const diskBefore = idbDir ? folderBytes(idbDir) : NaN;
      progress(`Importing ${int(history.pages)} pages through history.html …`);
      const imp =
        IMPORT_CPU_PROFILE === undefined
          ? await importThroughHistoryPage(historyPage, history.file, history.pages)
          : await profiledInWorker(session, IMPORT_CPU_PROFILE, "the import's saving of the lines", (stopProfile) => importThroughHistoryPage(historyPage, history.file, history.pages, stopProfile));
      results['import'] = imp;
      log('');
      log('Import (history.html: #import-file, #import; times from the click, taken in the page)');
      const rate = imp['rate'] as number;
      log(`  import rate                     ${int(rate)} pages/s   (${int(history.pages)} pages, click → data-state leaves "importing" after ${s(imp['leftImportingS'] as number)})   target ≥ ${int(TARGETS.importRate)} pages/s: ${atLeast(rate, TARGETS.importRate, (n) => `${int(n)} pages/s`)}`);
      log(`  total, to data-state "${imp['finalState'] as string}"        ${s(imp['doneS'] as number)}`);
      log(`  data-state sequence             ${(imp['states'] as [string, number][]).map(([st, t]) => `"${st}" at ${s(t)}`).join(' → ')}`);
      const summaryS = imp['summaryS'] as number;
      log(`  summary line shown at           ${s(summaryS)} (${int(history.pages / summaryS)} pages/s: every line read and written); after it, until "done": ${s((imp['doneS'] as number) - summaryS)} (organising: the table design if the size calls for another, the groups, the trees merged; lib/store/regroup.ts organise)`);
      log(`  summary                         ${JSON.stringify(imp['summary'])}${imp['error'] ? `; error: ${JSON.stringify(imp['error'])}` : ''}`);
      log(`  CPU over the import (/proc)     ${(imp['cpu'] as [string, number][]).map(([k, c]) => `${k} ${s(c)}`).join('; ')}  (wall ${s(imp['wallSeconds'] as number)}, ${cpus().length} cores)`);
      log(`  of it, saving the lines          ${(imp['cpuSaving'] as [string, number][]).map(([k, c]) => `${k} ${s(c)}`).join('; ')}  (wall ${s(imp['savingWall'] as number)}, to the first poll after "importing")`);
      log(`  the same by thread (≥ 0.5 s)    ${(imp['threadsSaving'] as [string, number][]).map(([k, c]) => `${k} ${s(c)}`).join('; ')}`);
      log(`  the rest of the machine         ${s(imp['otherCpu'] as number)} of CPU in other processes over the import; mean load average ${(imp['meanLoad'] as number).toFixed(1)}`);
      log(`  history page's main thread      script ${s(imp['historyScriptS'] as number)}, all tasks ${s(imp['historyTaskS'] as number)} (CDP Performance.getMetrics ScriptDuration, TaskDuration)`);
      const peaks = peakResident();
      results['peakResident'] = peaks;
      log(`  peak resident memory (VmHWM)    ${peaks.map(([kind, bytes]) => `${kind} ${mb(bytes)}`).join('; ')}  (each process's most since it started: the import and organising, for the extension renderer)`);
      if (REWRITES && imp['finalState'] === 'done') {
        const folding = await rewriteFolding(historyPage, history.rewrites);
        results['rewriteFolding'] = folding;
        log(`  planted rewrites, after organising  ${int(folding.folded)} of ${int(folding.located)} in their original's group (the history page folds them); the later-seen page of ${int(folding.laterMarkedCopy)} marked a copy (Sites that copy); ${int(folding.planted)} planted, ${int(folding.located)} found in the store at their lines' ids`);
      }

      // 2. Bytes per page
      await sleep(2000);
      const after = await estimate();
      const diskAfter = idbDir ? folderBytes(idbDir) : NaN;
      const perPage = (after.usage - before.usage) / history.pages;
      results['storage'] = { before, after, perPage, diskBefore, diskAfter, diskPerPage: (diskAfter - diskBefore) / history.pages };
      log('');
      log(`Storage${PASSAGES ? ', all-in: the store and its passage index' : ''}`);
      log(`  bytes per page                  ${perPage.toFixed(0)} B   (navigator.storage.estimate().usage ${mb(after.usage)} after − ${mb(before.usage)} before, ÷ ${int(history.pages)})   target ≤ ${TARGETS.bytesPerPage} B${REWRITES ? ' with passages and rewrites' : PASSAGES ? ' with passages' : ''}: ${atMost(perPage, TARGETS.bytesPerPage, (n) => `${n.toFixed(0)} B`)}`);
      log(`  usageDetails after              ${Object.entries(after.usageDetails ?? {}).map(([k, v]) => `${k} ${mb(v)}`).join(', ')}`);
      if (idbDir) log(`  IndexedDB folder on disk        ${mb(diskAfter)} (${((diskAfter - diskBefore) / history.pages).toFixed(0)} B per page; ${idbDir.replace(profile!, '<profile>')})`);
      log(`  the records hold                URL ${history.meanUrlChars.toFixed(0)} + title ${history.meanTitleChars.toFixed(0)} characters on average, two fingerprints, dates, visits, deflated 64 pages to a block; and one entry per table and per page-field tree (url, site, lastSeen; group and copySite when set) in sorted runs (schema version 1)`);
      log(`  the file imported               ${(history.bytes / history.pages).toFixed(0)} B a line${history.passages ? `, of which the passages field ${(history.passageBytes / history.pages).toFixed(0)} B (${history.meanFingerprints.toFixed(1)} fingerprints a page, in base64)` : ' (no passages)'}`);

      // 3. Worker memory
      const heap = await workerHeap(session);
      results['workerHeapAfterImport'] = heap;
      log('');
      log("Worker memory after the import (CDP Runtime.getHeapUsage on the service worker's target)");
      log(`  JS heap used                    ${mb(heap.before.usedSize)} of ${mb(heap.before.totalSize)} allocated; ${mb(heap.afterGc.usedSize)} after HeapProfiler.collectGarbage`);
      const pageHeap = await historyPage.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? NaN);
      // performance.memory counts garbage not yet collected: the heap the import keeps is what is left after a collection
      const pageCdp = await historyPage.context().newCDPSession(historyPage);
      await pageCdp.send('HeapProfiler.collectGarbage');
      const { usedSize: pageHeapAfterGc } = await pageCdp.send('Runtime.getHeapUsage');
      await pageCdp.detach();
      log(`  (the history page, which read the file: its JS heap ${mb(pageHeap)} after the import, performance.memory; ${mb(pageHeapAfterGc)} after a GC, Runtime.getHeapUsage)`);
      results['historyPageHeap'] = pageHeap;
      results['historyPageHeapAfterGc'] = pageHeapAfterGc;

      if (marker && !imp['error'] && imp['finalState'] === 'done') writeFileSync(marker, imported);
    }

    if (history) {
      // 4. Queries (not with --history-only)
      const random = mulberry32(SEED + 1);
      const planted = shuffle(random, [...history.planted]);
      const others = shuffle(random, [...history.sample]);
      const partial = shuffle(random, [...history.partial]); // none without passages: the draws after it are as before
      if (!HISTORY_ONLY) {
        const plantedCount = Math.min(Math.round(QUERIES / 4), planted.length);
        const partialCount = Math.min(Math.round(QUERIES / 4), partial.length);
        const rewritten = shuffle(mulberry32(SEED + 2), [...history.rewrites]); // its own draws: the others are as before rewrites
        const rewriteCount = Math.min(Math.round(QUERIES / 8), rewritten.length);
        const othersCount = QUERIES - plantedCount - partialCount - rewriteCount;
        const queries = shuffle(random, [...planted.slice(0, plantedCount).map((p) => p.copy), ...partial.slice(0, partialCount).map((p) => p.copy), ...others.slice(0, othersCount), ...rewritten.slice(0, rewriteCount).map((r) => r.copy)]);
        const warmups = others.slice(othersCount, othersCount + 5);
        const worker = await session.getWorker();
        // the worker's own time for each message (lib/background/timing.ts): its measures, cleared first
        await worker.evaluate(() => performance.clearMeasures());
        const procsBefore = chromiumProcesses();
        const wallStart = performance.now();
        const warm = await sendTimed(historyPage, 'report/get', warmups);
        const replies = CPU_PROFILE === undefined ? await sendTimed(historyPage, 'report/get', queries) : await profiledInWorker(session, CPU_PROFILE, 'the queries', () => sendTimed(historyPage, 'report/get', queries));
        const wallSeconds = (performance.now() - wallStart) / 1000;
        const cpu = cpuBetween(procsBefore, chromiumProcesses());
        const floor = await sendTimed(historyPage, 'settings/get', Array.from({ length: QUERIES }, () => null));
        const handled = await worker.evaluate(() => ({
          report: performance.getEntriesByName('doppel:report/get').map((e) => e.duration),
          settings: performance.getEntriesByName('doppel:settings/get').map((e) => e.duration),
        }));
        if (handled.report.length !== warmups.length + queries.length || handled.settings.length !== QUERIES) {
          throw new Error(`the worker measured ${handled.report.length} report/get and ${handled.settings.length} settings/get messages, not ${warmups.length + queries.length} and ${QUERIES}`);
        }
        const inWorker = handled.report.slice(warmups.length);
        const times = replies.map((r) => r.ms);
        const failed = replies.filter((r) => !r.ok || r.state !== 'recorded');
        const originalOf = new Map(planted.map((p) => [p.copy, p.original]));
        const plantedQueries = queries.filter((q) => originalOf.has(q));
        const foundOriginal = plantedQueries.filter((q) => replies[queries.indexOf(q)]!.matches.includes(originalOf.get(q)!)).length;
        const matchCounts = replies.map((r) => r.matches.length);
        // planted partial copies: is the original among the pages sharing passages, and with what share of the copy
        const partialFound = partial.slice(0, partialCount).map((p) => ({ ...p, reported: replies[queries.indexOf(p.copy)]!.passages.find((m) => m.url === p.original) }));
        const found = partialFound.filter((p) => p.reported !== undefined);
        const foundOf = (kind: string): string => `${found.filter((p) => p.kind === kind).length}/${partialFound.filter((p) => p.kind === kind).length}`;
        const passageCounts = replies.map((r) => r.passages.length);
        const passages = {
          planted: partialFound.length,
          found: found.length,
          excerpts: foundOf('excerpt'),
          quotes: foundOf('quote'),
          /** Reported share of the copy in its original's passages ÷ the planted share (from fingerprints alone a passage may start up to w − 1 words late and end early). */
          shareRatio: found.reduce((sum, p) => sum + p.reported!.share / p.share, 0) / found.length,
          listedMean: passageCounts.reduce((a, b) => a + b, 0) / passageCounts.length,
        };
        const q = { inWorker: { median: median(inWorker), p99: percentile(inWorker, 99), max: max(inWorker), settingsMedian: median(handled.settings) }, cpu, wallSeconds, count: times.length, median: median(times), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length, max: max(times), floorMedian: median(floor.map((r) => r.ms)), floorP99: percentile(floor.map((r) => r.ms), 99), warmups: warm.map((r) => r.ms), failed: failed.length, planted: plantedQueries.length, foundOriginal, matchesMean: matchCounts.reduce((a, b) => a + b, 0) / matchCounts.length, passages: PASSAGES ? passages : null };
        results['queries'] = q;
        const withPassages = PASSAGES ? ' with passages' : '';
        log('');
        log(
          PASSAGES
            ? `report/get with passages: ${q.count} messages (${plantedCount} planted near-duplicates, ${partialCount} planted partial copies, ${othersCount} other pages), one after another, sent with chrome.runtime.sendMessage from an extension page`
            : `Near-duplicate queries: ${q.count} report/get messages, one after another, sent with chrome.runtime.sendMessage from an extension page`,
        );
        log(`  in the worker: the listener's call to its reply (lib/background/timing.ts measures, read from the worker), the issue's measure`);
        log(`    median                        ${ms(q.inWorker.median)}   target ≤ ${TARGETS.queryMedianMs} ms${withPassages}: ${atMost(q.inWorker.median, TARGETS.queryMedianMs, ms)}`);
        log(`    p99 (${Math.ceil(0.99 * q.count)}th of ${q.count})`.padEnd(34) + `${ms(q.inWorker.p99)}   target ≤ ${TARGETS.queryP99Ms} ms${withPassages}: ${atMost(q.inWorker.p99, TARGETS.queryP99Ms, ms)}`);
        log(`    max                           ${ms(q.inWorker.max)}; settings/get in the worker (no store work): median ${ms(q.inWorker.settingsMedian)}`);
        log(`  round trip: sendMessage to its reply, timed in the page (what the popup waits)`);
        log(`    median                        ${ms(q.median)}   (against the same ${TARGETS.queryMedianMs} ms: ${atMost(q.median, TARGETS.queryMedianMs, ms)})`);
        log(`    p99 (${Math.ceil(0.99 * q.count)}th of ${q.count})`.padEnd(34) + `${ms(q.p99)}   (against the same ${TARGETS.queryP99Ms} ms: ${atMost(q.p99, TARGETS.queryP99Ms, ms)})`);
        log(`    mean, max                     ${ms(q.mean)}, ${ms(q.max)}; the first 5 (warm-up, not counted): ${q.warmups.map((x) => x.toFixed(1)).join(', ')} ms`);
        log(`    messaging floor               settings/get round trip (no store work): median ${ms(q.floorMedian)}, p99 ${ms(q.floorP99)}`);
        log(`  CPU over the ${q.count + q.warmups.length} queries (/proc)  ${q.cpu.map(([k, c]) => `${k} ${s(c)}`).join('; ')}  (wall ${s(q.wallSeconds)}, ${cpus().length} cores)`);
        log(`  answers                         ${q.count - q.failed} of ${q.count} recorded; planted copies whose original was listed: ${q.foundOriginal}/${q.planted}; ${q.matchesMean.toFixed(2)} matches per query on average`);
        if (PASSAGES) {
          log(
            `  passages                        ${passages.found}/${passages.planted} planted partial copies found (their original in report.passages: excerpts ${passages.excerpts}, quotes ${passages.quotes})` +
              `${found.length ? `; reported share ÷ planted share, mean ${passages.shareRatio.toFixed(2)}` : ''}; ${passages.listedMean.toFixed(2)} pages in report.passages per query on average` +
              `${passageCounts.every((n) => n === 0) ? ' (no reply listed any: either the worker does not look passages up yet, and the times above hold no such work, or it found none)' : ''}`,
          );
        }
        if (REWRITES) {
          const rewriteFound = rewritten.slice(0, rewriteCount).filter((r) => replies[queries.indexOf(r.copy)]!.rewrites.includes(r.original)).length;
          const rewriteCounts = replies.map((r) => r.rewrites.length);
          results['rewrites'] = { planted: rewriteCount, found: rewriteFound, listedMean: rewriteCounts.reduce((a, b) => a + b, 0) / rewriteCounts.length };
          log(`  rewrites                        ${rewriteFound}/${rewriteCount} planted rewrites found (their original in report.rewrites); ${(rewriteCounts.reduce((a, b) => a + b, 0) / rewriteCounts.length).toFixed(2)} pages in report.rewrites per query on average`);
        }
        if (failed.length) log(`  not recorded                    ${failed.length}; the first: ${JSON.stringify({ state: failed[0]!.state, error: failed[0]!.error })}`);

        // 5. Popup
        const popupUrls = shuffle(random, [...planted.slice(plantedCount, plantedCount + POPUPS).map((p) => p.copy), ...others.slice(QUERIES, QUERIES + POPUPS)]).slice(0, POPUPS + Math.ceil(POPUPS / 4));
        const warmPopups: PopupLoad[] = [];
        for (const url of popupUrls.slice(0, POPUPS)) warmPopups.push(await popupLoad(session, url));
        const coldPopups: PopupLoad[] = [];
        // Where a stopped-first load's time goes, from the popup's navigation start: its script runs;
        // the worker starts (its time origin), its bundle's modules are evaluated and its main runs
        // (the marks doppel:worker-main and doppel:worker-listening); its listener gets report/get
        // and replies (the doppel:report/get measure); the popup is ready.
        const coldSteps: { script: number; workerStart: number; workerMain: number; workerListening: number; received: number; replied: number; ready: number }[] = [];
        for (const url of popupUrls.slice(POPUPS)) {
          await stopServiceWorker(session.ctx, session.extensionId);
          const load = await popupLoad(session, url);
          coldPopups.push(load);
          const seen = await (await session.getWorker()).evaluate(() => {
            const measures = performance.getEntriesByName('doppel:report/get', 'measure');
            const first = measures[0];
            const [main, listening] = ['doppel:worker-main', 'doppel:worker-listening'].map((name) => performance.getEntriesByName(name, 'mark')[0]?.startTime ?? NaN);
            return { origin: performance.timeOrigin, start: first?.startTime ?? NaN, duration: first?.duration ?? NaN, main: main!, listening: listening! };
          });
          const workerStart = seen.origin - load.origin;
          coldSteps.push({
            script: load.scriptAt,
            workerStart,
            workerMain: workerStart + seen.main,
            workerListening: workerStart + seen.listening,
            received: workerStart + seen.start,
            replied: workerStart + seen.start + seen.duration,
            ready: load.ms,
          });
        }
        await session.getWorker();
        const warmMs = warmPopups.filter((p) => p.state === 'ready').map((p) => p.ms);
        const coldMs = coldPopups.filter((p) => p.state === 'ready').map((p) => p.ms);
        const popup = { warm: warmPopups, cold: coldPopups, warmMedian: median(warmMs), warmMax: max(warmMs), coldMedian: median(coldMs), coldMax: max(coldMs) };
        results['popup'] = popup;
        const notReady = [...warmPopups, ...coldPopups].filter((p) => p.state !== 'ready');
        log('');
        log('Popup: popup.html?url=<a stored page> in a new tab, navigation start → data-state="ready" (MutationObserver in the page)');
        log(`  worker running (${warmMs.length} loads)       median ${ms(popup.warmMedian)}, max ${ms(popup.warmMax)}   target ≤ ${TARGETS.popupReadyMs} ms (median): ${atMost(popup.warmMedian, TARGETS.popupReadyMs, ms)}`);
        log(`  worker stopped first (${coldMs.length} loads)  median ${ms(popup.coldMedian)}, max ${ms(popup.coldMax)}   (Chrome stops an idle worker after 30 s: the usual case for a click on the icon)`);
        const step = (key: keyof (typeof coldSteps)[number]): string => ms(median(coldSteps.map((c) => c[key]).filter(Number.isFinite)));
        log(`    on the way (median, from the popup's navigation start): popup script ${step('script')} → worker started ${step('workerStart')} → its script's main ${step('workerMain')} → listening ${step('workerListening')} → report/get received ${step('received')} → replied ${step('replied')} → ready ${step('ready')}`);
        if (notReady.length) log(`  not ready: ${notReady.map((p) => p.state).join(', ')}`);
      }

      // 5b. History page: first screen, then scrolling (chunks read as the end comes into view)
      const HISTORY_LOADS = 5;
      const firstScreens: number[] = [];
      const phases: Record<string, number[]> = {}; // the page's own marks on the way to its first screen
      let scroll: { chunkMs: number[]; longestTask: number; entries: number } | undefined;
      let afterFirst: Record<string, number> = {};
      let longTasks: [number, number][] = []; // [start, duration] of every task over 50 ms in the last load
      for (let i = 0; i < HISTORY_LOADS; i++) {
        const tab = await session.ctx.newPage();
        await tab.addInitScript(() => {
          const w = window as unknown as { __longest: number; __longTasks: [number, number][] };
          w.__longest = 0;
          w.__longTasks = [];
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) {
              w.__longest = Math.max(w.__longest, entry.duration);
              w.__longTasks.push([entry.startTime, entry.duration]);
            }
          }).observe({ type: 'longtask', buffered: true });
        });
        await tab.goto(`chrome-extension://${session.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
        await tab.locator('#list[data-state="ready"]').waitFor({ state: 'attached', timeout: 60_000 });
        firstScreens.push(await tab.evaluate(() => performance.getEntriesByName('doppel:history-first-screen')[0]?.startTime ?? NaN));
        const marks = await tab.evaluate(() => performance.getEntriesByType('mark').filter((m) => m.name.startsWith('doppel:history-')).map((m) => [m.name, m.startTime] as [string, number]));
        for (const [name, at] of marks) (phases[name] ??= []).push(at);
        if (i === HISTORY_LOADS - 1) {
          await tab.evaluate(() => ((window as unknown as { __longest: number }).__longest = 0));
          const chunkMs: number[] = [];
          for (let c = 0; c < 20; c++) {
            const before = await tab.locator('#list .chunk').count();
            const started = Date.now();
            await tab.locator('#list-end').scrollIntoViewIfNeeded();
            await tab.waitForFunction((n) => document.querySelectorAll('#list .chunk').length > n, before, { timeout: 30_000 });
            chunkMs.push(Date.now() - started);
          }
          scroll = {
            chunkMs,
            longestTask: await tab.evaluate(() => (window as unknown as { __longest: number }).__longest),
            entries: await tab.locator('#list .entry').count(),
          };
          // what the page reads after its first screen: the counts and the sites table
          await tab.waitForFunction(() => ['doppel:history-overview', 'doppel:history-sites'].every((n) => performance.getEntriesByName(n).length > 0), null, { timeout: 120_000 }).catch(() => {});
          longTasks = await tab.evaluate(() => (window as unknown as { __longTasks: [number, number][] }).__longTasks);
          afterFirst = await tab.evaluate(() => Object.fromEntries(['doppel:history-overview', 'doppel:history-sites'].map((n) => [n.slice('doppel:history-'.length), performance.getEntriesByName(n)[0]?.startTime ?? NaN])));
        }
        await tab.close();
      }
      results['historyPage'] = { firstScreens, phases, scroll, afterFirst, longTasks };
      log('');
      log('History page: history.html in a new tab, navigation start → first screen drawn (performance mark "doppel:history-first-screen")');
      log(`  first screen (${HISTORY_LOADS} loads)            median ${ms(median(firstScreens))}, max ${ms(max(firstScreens))} (in order: ${firstScreens.map((x) => x.toFixed(0)).join(', ')} ms)   target ≤ ${TARGETS.historyFirstScreenMs} ms: ${atMost(median(firstScreens), TARGETS.historyFirstScreenMs, ms)}`);
      log(`  on the way (marks, median)      ${Object.entries(phases).sort((a, b) => median(a[1]) - median(b[1])).map(([name, at]) => `${name.slice('doppel:history-'.length)} ${ms(median(at))}`).join(' → ')}`);
      if (scroll) {
        log(`  scrolling: 20 chunks of 40 entries, scroll → next chunk drawn: median ${ms(median(scroll.chunkMs))}, max ${ms(max(scroll.chunkMs))}; ${int(scroll.entries)} entries drawn`);
        log(`  longest main-thread task while scrolling (longtask observer; 0 = none over 50 ms): ${ms(scroll.longestTask)}   target ≤ ${TARGETS.historyTaskMs} ms: ${atMost(scroll.longestTask, TARGETS.historyTaskMs, ms)}`);
        log(`  after the first screen (last load, from navigation start): counts shown at ${ms(afterFirst['overview'] ?? NaN)}, sites table at ${ms(afterFirst['sites'] ?? NaN)}`);
        log(`  tasks over 50 ms in the last load (start: duration) ${longTasks.length ? longTasks.map(([at, d]) => `${ms(at)}: ${ms(d)}`).join(', ') : 'none'}`);
      }

      const heapLater = await workerHeap(session);
      results['workerHeapAfterQueries'] = heapLater;
      log(`  worker JS heap after the queries and popups: ${mb(heapLater.before.usedSize)} used, ${mb(heapLater.afterGc.usedSize)} after a GC`);

      // 2b. Storage again, at the end: the figure right after an import includes chunks that the
      // trees' merges have deleted and LevelDB has not yet reclaimed.
      if (SETTLE_SECONDS > 0) {
        progress(`Waiting ${SETTLE_SECONDS} s before measuring storage again (--settle-seconds) …`);
        await sleep(SETTLE_SECONDS * 1000);
      }
      const atEnd = await estimate();
      const endPerPage = (atEnd.usage - storageBaseline) / history.pages;
      const minutesIn = (performance.now() - launchedAt) / 60_000;
      results['storageAtEnd'] = { usage: atEnd.usage, baseline: storageBaseline, perPage: endPerPage, minutesSinceLaunch: minutesIn, settleSeconds: SETTLE_SECONDS };
      log('');
      log(`Storage at the end of these measurements (${minutesIn.toFixed(1)} min after the launch${SETTLE_SECONDS > 0 ? `, after a wait of ${SETTLE_SECONDS} s` : ''})${PASSAGES ? ', all-in: the store and its passage index' : ''}`);
      log(`  bytes per page                  ${endPerPage.toFixed(0)} B   (navigator.storage.estimate().usage ${mb(atEnd.usage)}${storageBaseline > 0 ? ` − ${mb(storageBaseline)} before the import` : ', the whole origin (the import was an earlier run\'s)'}, ÷ ${int(history.pages)})   target ≤ ${TARGETS.bytesPerPage} B${REWRITES ? ' with passages and rewrites' : PASSAGES ? ' with passages' : ''}: ${atMost(endPerPage, TARGETS.bytesPerPage, (n) => `${n.toFixed(0)} B`)}`);
      if (STORE_BYTES) {
        const sizes = await historyPage.evaluate(storeValueBytes);
        results['storeValueBytes'] = sizes;
        log(`  values by object store (--store-bytes: every value's bytes, read with a cursor in history.html, before LevelDB compresses them; keys and LevelDB's overhead not counted), a page:`);
        for (const [name, { values, bytes }] of Object.entries(sizes)) log(`    ${name.padEnd(16)} ${(bytes / history.pages).toFixed(1).padStart(7)} B   (${int(values)} values, ${mb(bytes)})`);
      }
    }

    // 6. Content script
    if (!SKIP_CONTENT) {
      log('');
      if (!existsSync(CORPUS_DIR)) {
        log(`Content script: skipped, the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`);
      } else {
        const names = readdirSync(CORPUS_DIR).filter((n) => existsSync(join(CORPUS_DIR, n, 'source.html'))).sort();
        const corpusSite = await servePages(CORPUS_DIR);
        sites.push(corpusSite);
        const tab = await session.ctx.newPage();
        const cdp = await session.ctx.newCDPSession(tab);
        const visits: TracedVisit[] = [];
        progress(`Visiting ${names.length} corpus pages with tracing …`);
        for (const name of names) visits.push(await traceVisit(cdp, session, tab, name, corpusSite.url(`/${encodeURIComponent(name)}/source.html`), 20_000));
        const ran = visits.filter((v) => v.tasks.ran);
        const totals = ran.map((v) => v.tasks.totalMs);
        const longest = ran.reduce<TracedVisit | undefined>((m, v) => (!m || v.tasks.longestMs > m.tasks.longestMs ? v : m), undefined);
        const outcomes = new Map<string, number>();
        for (const v of visits) outcomes.set(v.outcome, (outcomes.get(v.outcome) ?? 0) + 1);
        const c = {
          pages: visits.length,
          ran: ran.length,
          median: median(totals),
          p95: percentile(totals, 95),
          max: max(totals),
          longestTask: longest?.tasks.longestMs ?? NaN,
          longestTaskPage: longest?.name ?? '',
          sampledMedian: median(ran.map((v) => v.tasks.sampledMs)),
          injectionMedian: median(ran.map((v) => v.tasks.tasks[0] ?? 0)),
          longestTaskMedian: median(ran.map((v) => v.tasks.longestMs)),
          tasksPerPage: median(ran.map((v) => v.tasks.tasks.length)),
          outcomes: [...outcomes].sort((a, b) => b[1] - a[1]),
          slowest: [...ran].sort((a, b) => b.tasks.totalMs - a.tasks.totalMs).slice(0, 5).map((v) => ({ name: v.name, totalMs: v.tasks.totalMs, longestMs: v.tasks.longestMs, outcome: v.outcome })),
          simpleReading: ran.filter((v) => v.pastCaps).map((v) => v.name),
          perPage: visits.map((v) => ({ name: v.name, outcome: v.outcome, totalMs: v.tasks.totalMs, longestMs: v.tasks.longestMs, sampledMs: v.tasks.sampledMs, tasks: v.tasks.tasks.length })),
        };
        results['contentScript'] = c;
        log(`Content script: ${c.pages} corpus pages (${CORPUS_DIR}) served on 127.0.0.1, each visited in a CDP trace until the worker had its outcome (+0.3 s);`);
        log('  per page, the main-thread tasks that ran content-script code (bench/browser/main-thread.ts), summed');
        log(`  median                          ${ms(c.median)}   target ≤ ${TARGETS.contentMedianMs} ms: ${atMost(c.median, TARGETS.contentMedianMs, ms)}`);
        log(`  p95                             ${ms(c.p95)}   target ≤ ${TARGETS.contentP95Ms} ms: ${atMost(c.p95, TARGETS.contentP95Ms, ms)}`);
        log(`  max                             ${ms(c.max)}`);
        log(`  longest single task             ${ms(c.longestTask)} (${c.longestTaskPage})   target ≤ ${TARGETS.longestTaskMs} ms: ${atMost(c.longestTask, TARGETS.longestTaskMs, ms)}`);
        log(`  tasks per page (median)         ${c.tasksPerPage}: injection (compile and run the bundle) median ${ms(c.injectionMedian)}; the page's longest task median ${ms(c.longestTaskMedian)} (the capture: the caps' checks and the page's HTML, or the simple reading past the caps, then the message; builds before d3410d6 ran Readability on a clone here)`);
        log(`  CPU-profile time in content-script frames: median ${ms(c.sampledMedian)} per page`);
        log(`  content script ran on           ${c.ran} of ${c.pages} pages; outcomes: ${c.outcomes.map(([o, n]) => `${n} ${o}`).join('; ')}`);
        log(`  past the caps (simple reading)  ${c.simpleReading.length} of ${c.ran}${c.simpleReading.length ? `: ${c.simpleReading.join(', ')}` : ''}`);
        log(`  slowest pages                   ${c.slowest.map((v) => `${v.name} ${ms(v.totalMs)} (longest task ${ms(v.longestMs)})`).join('; ')}`);

        // Pages at and past the caps.
        const capSite = await servePages({
          '/elements-19000.html': manyElementsPage(19_000),
          '/elements-200000.html': manyElementsPage(200_000),
          '/text-20mb.html': hugeTextPage(20_000_000),
          '/text-450k.html': hugeTextPage(450_000),
          '/text-2mb.html': hugeTextPage(2_000_000),
          '/deep.html': readFileSync(join(HOSTILE_DIR, 'deep.html'), 'utf8'),
        });
        sites.push(capSite);
        const caps: [string, string][] = [
          [`19,000 elements (under the ${MAX_ELEMS_TO_PARSE.toLocaleString('en')}-element cap: Readability)`, '/elements-19000.html'],
          ['200,000 elements (past it: the simple reading)', '/elements-200000.html'],
          [`450 kB of text (under the work cap of ${MAX_READABILITY_WORK.toLocaleString('en')}: Readability)`, '/text-450k.html'],
          [`2 MB of text (past it: the simple reading, text cut at ${MAX_TEXT_CHARS.toLocaleString('en')})`, '/text-2mb.html'],
          ['20 MB of text (past it: the simple reading, cut)', '/text-20mb.html'],
          [`190 levels deep (under the ${MAX_DEPTH}-level cap: Readability)`, '/deep.html?levels=190&rendered'],
          ['500 levels deep (past it, laid out: the simple reading)', '/deep.html?levels=500&rendered'],
          ['5,000 levels deep (past it, not laid out: the simple reading)', '/deep.html?levels=5000'],
        ];
        const capVisits: TracedVisit[] = [];
        progress('Visiting the pages at and past the caps …');
        for (const [name, path] of caps) capVisits.push(await traceVisit(cdp, session, tab, name, capSite.url(path), 60_000));
        results['caps'] = capVisits.map((v) => ({ name: v.name, outcome: v.outcome, totalMs: v.tasks.totalMs, longestMs: v.tasks.longestMs, tasks: v.tasks.tasks }));
        log('');
        log('Pages at and past the caps (not in the figures above): outcome; content-script main-thread time; longest task');
        for (const v of capVisits) log(`  ${v.name.padEnd(66)} ${v.outcome}; ${ms(v.tasks.totalMs)}; longest ${ms(v.tasks.longestMs)}`);
        await cdp.detach().catch(() => {});
      }
    }

    // The corpus pages' own scripts throw (their remote scripts are not loaded): only Doppel's pages count.
    const ownErrors = session.pageErrors.filter((e) => e.startsWith('chrome-extension://'));
    if (ownErrors.length) log(`\nUncaught errors in Doppel's pages: ${ownErrors.length} (first: ${ownErrors[0]})`);
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
