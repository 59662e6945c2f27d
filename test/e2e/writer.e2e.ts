// One writer, end to end in Chromium: the service worker is the only context that writes the
// database. The history page imports, forgets, regroups and clears through the worker's writer
// port and opens only readonly IndexedDB transactions itself (IDBDatabase.prototype.transaction
// is wrapped in the page before its scripts run). A worker stopped in the middle of an import
// (CDP, as Chrome stops a worker) gives a clear error, keeps what was saved, and importing again
// completes it.
import type { Page } from 'playwright-core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXTENSION_DIR, type ExtensionSession, launchWithExtension, stopServiceWorker } from './harness';


let ext: ExtensionSession | undefined;
let dir: string;

/** An export of `count` pages whose simhashes are far apart (each page its own article). */
function exportFile(name: string, count: number): string {
  const lines = [JSON.stringify({ format: 'doppel', version: 1 })];
  for (let n = 0; n < count; n++) {
    const simhash = ((BigInt(n + 1) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn).toString(16).padStart(16, '0');
    lines.push(JSON.stringify({ url: `https://writer.example/articles/${n}.html`, title: `Article number ${n}`, simhash, check: null, visits: 1 }));
  }
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The history page, with every IndexedDB transaction it opens recorded in window.doppelModes. */
async function openHistory(session: ExtensionSession): Promise<Page> {
  const page = await session.ctx.newPage();
  await page.addInitScript(() => {
    const modes: string[] = [];
    (window as unknown as { doppelModes: string[] }).doppelModes = modes;
    const transaction = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
      modes.push(args[1] ?? 'readonly');
      return transaction.apply(this, args);
    } as IDBDatabase['transaction'];
  });
  await page.goto(`chrome-extension://${session.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
  return page;
}

const modesOf = (page: Page): Promise<string[]> => page.evaluate(() => (window as unknown as { doppelModes: string[] }).doppelModes);

async function startImport(page: Page, file: string): Promise<void> {
  await page.locator('#import-file').setInputFiles(file);
  await expect.poll(() => page.locator('#import').isEnabled()).toBe(true);
  await page.locator('#import').click();
}

async function importEnd(page: Page, timeout = 120_000): Promise<{ state: string; summary: string; error: string }> {
  await page.waitForFunction(() => ['done', 'failed'].includes(document.getElementById('import-form')?.dataset['state'] ?? ''), undefined, { timeout });
  return {
    state: (await page.locator('#import-form').getAttribute('data-state')) ?? '',
    summary: (await page.locator('#import-summary').textContent()) ?? '',
    error: (await page.locator('#import-error').textContent()) ?? '',
  };
}

/** "12 pages added, 0 merged, 3 unchanged, 0 lines rejected." as numbers. */
function counts(summary: string): { added: number; merged: number; unchanged: number } {
  const match = /^([\d,]+) pages? added, ([\d,]+) merged, ([\d,]+) unchanged/.exec(summary);
  if (!match) throw new Error(`not an import summary: ${JSON.stringify(summary)}`);
  const n = (s: string): number => Number(s.replaceAll(',', ''));
  return { added: n(match[1]!), merged: n(match[2]!), unchanged: n(match[3]!) };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'doppel-writer-'));
});

afterAll(async () => {
  await ext?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the worker is the only writer', () => {
  test('import, forget, regroup and clear from the history page: the page opens readonly transactions only', async () => {
    ext = await launchWithExtension(EXTENSION_DIR);
    const history = await openHistory(ext);
    await startImport(history, exportFile('three-hundred.ndjson', 300));
    expect(await importEnd(history)).toEqual({ state: 'done', summary: '300 pages added, 0 merged, 0 unchanged, 0 lines rejected.', error: '' });
    await history.locator('#list[data-state="ready"]').waitFor();

    // forget the first entry of the list
    const first = history.locator('article.entry[data-page]').first();
    const forgottenUrl = await first.getAttribute('data-page');
    await first.locator('.entry-head > input.pick').check();
    await history.locator('#forget-selected').click();
    await history.locator('#forget-selected').click();
    await expect.poll(() => history.locator('#selection-count').textContent()).toBe('Forgot 1 page.');
    await expect.poll(() => history.locator(`a[href="${forgottenUrl}"]`).count()).toBe(0);

    // a change of k regroups through the worker
    await history.locator('#k').fill('2');
    await history.locator('#k-status', { hasText: 'within 2 bits' }).waitFor({ timeout: 30_000 });

    // clear everything
    await history.locator('#clear-all').click();
    await history.locator('#clear-dialog').getByRole('button', { name: 'Forget everything' }).click();
    await expect.poll(() => history.locator('#settings-status').textContent()).toBe('Forgot 299 pages.');
    await history.locator('#list[data-state="empty"]').waitFor({ state: 'attached' });

    const modes = await modesOf(history);
    expect(modes.length, 'the page read the database itself').toBeGreaterThan(0);
    expect(modes.filter((mode) => mode !== 'readonly')).toEqual([]);
    expect(ext.pageErrors).toEqual([]);
    await ext.close();
    ext = undefined;
  });

  test('a worker stopped mid-import: a clear error, what was saved stays, importing again completes it', async () => {
    ext = await launchWithExtension(EXTENSION_DIR);
    const total = 100_000;
    const file = exportFile('hundred-thousand.ndjson', total);
    const history = await openHistory(ext);
    await startImport(history, file);
    // the first batches are saved: the progress bar says how many lines
    await history.waitForFunction(() => /^[\d,]+ lines read$/.test(document.getElementById('import-progress')?.getAttribute('aria-valuetext') ?? ''), undefined, { timeout: 60_000 });
    await stopServiceWorker(ext.ctx, ext.extensionId);
    const stopped = await importEnd(history);
    expect(stopped.state).toBe('failed');
    expect(stopped.error).toMatch(/^Doppel’s background worker stopped during the import, after [\d,]+ lines; the pages saved until then are kept\. Import the file again to finish: the pages already saved are not counted twice\.$/);
    const saved = counts(stopped.summary);
    expect(saved.added).toBeGreaterThan(0);
    expect(saved.added).toBeLessThan(total);

    // the worker starts again for the next job: every page saved before the stop is there
    await startImport(history, file);
    const again = await importEnd(history);
    expect(again.state).toBe('done');
    const second = counts(again.summary);
    expect(second.added + second.unchanged).toBe(total);
    expect(second.merged).toBe(0);
    expect(second.unchanged).toBeGreaterThanOrEqual(saved.added);
    expect((await modesOf(history)).filter((mode) => mode !== 'readonly')).toEqual([]);
    expect(ext.pageErrors).toEqual([]);
  });
});
