// Organising killed, end to end in Chromium: a seeded history (bench:browser's generator: planted
// near-duplicates, partial copies and rewrites) is imported through the history page, and the
// browser is SIGKILLed while the worker organises it: in the regroup, while the passage index's
// postings are written, while the copies are marked. Started again on the same profile, the
// worker resumes organising at start-up (entrypoints/background/index.ts), and the store ends as
// an uninterrupted import leaves it: every record (its groups and contentCopy, in `blocks`), the
// passage index and its marks, the rewrite index, the counts, compared store by store. Only the
// trees' layout in runs may differ (the entries are the records').
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeSyntheticHistory } from '../../bench/data/synthetic-history';
import { EXTENSION_DIR, type ExtensionSession, launchWithExtension, sleep } from './harness';

const MESSAGES = JSON.parse(readFileSync(new URL('../../public/_locales/en/messages.json', import.meta.url), 'utf8')) as Record<string, { message: string }>;
const COMPARED = ['blocks', 'meta', 'siteCounts', 'passages', 'postings', 'passageMarks', 'rewrites', 'rewritePostings'];
const LAYOUT_KEYS = ['runs', 'runsStamp'];

let dir: string;
let file: string;
let uninterrupted: Record<string, string>;

/** Each compared store's values, counted and hashed in the worker; and whether organising is done. */
async function storeState(session: ExtensionSession): Promise<{ stores: Record<string, string>; groupsComplete: boolean; pending: boolean }> {
  const worker = await session.getWorker();
  return worker.evaluate(
    async ({ stores, layoutKeys }) => {
      const done = <T,>(request: IDBRequest<T>): Promise<T> => new Promise((resolve, reject) => ((request.onsuccess = () => resolve(request.result)), (request.onerror = () => reject(request.error))));
      const db = await done(indexedDB.open('doppel'));
      const out: Record<string, string> = {};
      let meta: [IDBValidKey, unknown][] = [];
      for (const name of stores) {
        const store = db.transaction(name, 'readonly').objectStore(name);
        const [keys, values] = await Promise.all([done(store.getAllKeys()), done(store.getAll())]);
        const rows = keys.map((key, i) => [key, values[i]] as [IDBValidKey, unknown]).filter(([key]) => name !== 'meta' || !layoutKeys.includes(String(key)));
        if (name === 'meta') meta = rows;
        const text = JSON.stringify(rows, (_key, value: unknown) => (ArrayBuffer.isView(value) ? Array.from(value as Uint8Array) : value));
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
        out[name] = `${rows.length} values, sha-256 ${Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join('')}`;
      }
      db.close();
      const groups = meta.find(([key]) => key === 'groups')?.[1] as { complete?: boolean } | undefined;
      return { stores: out, groupsComplete: groups?.complete !== false, pending: meta.some(([key]) => key === 'passagePending') };
    },
    { stores: COMPARED, layoutKeys: LAYOUT_KEYS },
  );
}

/** Opens the history page and starts importing the history; resolves once the import runs. */
async function startImport(session: ExtensionSession): Promise<Page> {
  const page = await session.ctx.newPage();
  await page.goto(`chrome-extension://${session.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
  await page.locator('#import-file').setInputFiles(file);
  await page.waitForFunction(() => !(document.getElementById('import') as HTMLButtonElement).disabled);
  await page.locator('#import').click();
  return page;
}

/** The browser's own process (not a renderer or a helper) of the profile `profile`. */
function browserPid(profile: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone
    }
    if (args.includes(`--user-data-dir=${profile}`) && !args.some((a) => a.startsWith('--type='))) return Number(entry);
  }
  throw new Error(`no browser process runs the profile ${profile}`);
}

async function waitUntilOrganised(session: ExtensionSession, timeout = 180_000): Promise<Record<string, string>> {
  const start = Date.now();
  for (;;) {
    const state = await storeState(session);
    if (state.groupsComplete && !state.pending) return state.stores;
    if (Date.now() - start > timeout) throw new Error(`organising did not finish within ${timeout / 1000} s`);
    await sleep(1000);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'doppel-organise-kill-'));
  const history = await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: 2000, seed: 13, copyRate: 0.03, rewriteRate: 0.03, partialRate: 0.03 });
  expect(Math.min(history.planted.length, history.partial.length, history.rewrites.length)).toBeGreaterThan(20);
  file = history.file;
  const session = await launchWithExtension(EXTENSION_DIR);
  try {
    const page = await startImport(session);
    await page.waitForFunction(() => ['done', 'failed'].includes(document.getElementById('import-form')?.dataset['state'] ?? ''), undefined, { timeout: 180_000 });
    expect(await page.locator('#import-form').getAttribute('data-state')).toBe('done');
    uninterrupted = await waitUntilOrganised(session);
  } finally {
    await session.close();
  }
}, 300_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('organising killed part way resumes when the browser starts again, to the store an uninterrupted import leaves', () => {
  // 2,000 pages make one passage pass: six steps (lib/organise/passage-organise.ts): the count, the
  // pass's read, its write, the marks and rewrites, the copies, the list; the bar shows step/6, and
  // the copies' step its four parts under words of their own
  const passages = (step: number): string => `${MESSAGES['organisePassages']!.message} ${Math.floor((100 * step) / 6)}%`;
  const POINTS = [
    { where: 'in the regroup', texts: [MESSAGES['organiseComparing']!.message, MESSAGES['organiseRewrites']!.message] },
    { where: "while the passage index's postings are written", texts: [passages(2)] },
    { where: 'while the copies are marked', texts: [MESSAGES['organiseCopies']!.message] },
  ];
  test.each(POINTS)('SIGKILL $where', { timeout: 400_000 }, async ({ texts }) => {
    const profile = mkdtempSync(join(dir, 'profile-'));
    let session = await launchWithExtension(EXTENSION_DIR, { userDataDir: profile });
    try {
      const page = await startImport(session);
      await page.waitForFunction(
        (prefixes) => prefixes.some((prefix) => (document.getElementById('import-progress')?.getAttribute('aria-valuetext') ?? '').startsWith(prefix)),
        texts,
        { polling: 'raf', timeout: 180_000 },
      );
      const pid = browserPid(profile);
      process.kill(pid, 'SIGKILL');
      for (let waited = 0; existsSync(`/proc/${pid}`) && waited < 10_000; waited += 50) await sleep(50);
      await session.close().catch(() => undefined);

      session = await launchWithExtension(EXTENSION_DIR, { userDataDir: profile });
      // cut off: what was pending is still pending (organising takes many seconds to reach the end)
      expect((await storeState(session)).pending).toBe(true);
      expect(await waitUntilOrganised(session)).toEqual(uninterrupted);
      expect(session.pageErrors).toEqual([]);
    } finally {
      await session.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
