// A full disk, end to end in Chromium. Doppel asks for `unlimitedStorage` (docs/architecture.md, permissions):
// without it Chromium keeps an extension's data as "best effort" and, under disk pressure, was
// seen deleting all of it. With it there is no quota short of the disk, so what a person meets is
// a full disk: here the profile sits on a 200 MB tmpfs (mounted here, root only; or an existing
// small filesystem named by DOPPEL_SMALL_DISK; skipped with a message otherwise) that a file of
// another program fills to the last byte.
//
// What Chromium 156 does then: the write fails with an I/O error ("FILE_ERROR_NO_SPACE"), and it
// closes every connection of the extension's origin ("The database connection is closing"),
// reads included, until there is room. What Doppel must do: say so in words (lib/background/storage-full.ts,
// STORAGE_UNAVAILABLE_TEXT, or its storage-full state), lose nothing already stored, and record
// again once the file is gone. The forgetting rule for a quota (Firefox, or Chromium without
// `unlimitedStorage`) is tested on fakes (test/storage-full.test.ts).
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dumpStore, storeProblems } from './consistency';
import { type ExtensionSession, popupUrl, type Session, type Site, sleep, startSession, visit, waitForPopupState } from './harness';

const OLD_PAGES = 1_000;

/** A small filesystem for the profile: DOPPEL_SMALL_DISK, or a 200 MB tmpfs mounted now. */
function smallDisk(): { dir: string; mounted: boolean; skip: null } | { skip: string } {
  const given = process.env.DOPPEL_SMALL_DISK;
  if (given) return { dir: given, mounted: false, skip: null };
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return { skip: 'needs root to mount a small tmpfs (or DOPPEL_SMALL_DISK=<a ~200 MB filesystem>)' };
  const dir = mkdtempSync(join(tmpdir(), 'doppel-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=200m', 'tmpfs', dir], { stdio: 'pipe' });
    return { dir, mounted: true, skip: null };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `could not mount a tmpfs: ${(error as Error).message.split('\n')[0]}` };
  }
}

const disk = smallDisk();
if (disk.skip !== null) console.warn(`storage-full e2e skipped: ${disk.skip}`);

/** An article of its own: words no other article here has, so no two are near-duplicates. */
function articleHtml(i: number): string {
  const paragraphs = Array.from({ length: 5 }, (_, p) => {
    const words = Array.from({ length: 45 }, (_, w) => `w${(i * 7919 + p * 131 + w * 17) % 5003}x${i}`);
    return `<p>The harbour committee met again on day ${i} to discuss paragraph ${p}: ${words.join(' ')}.</p>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harbour story ${i}</title></head><body><main><article><h1>Harbour story ${i}</h1>${paragraphs.join('\n')}</article></main></body></html>`;
}

let session: Session<'site'>;
let site: Site;
let ext: ExtensionSession;
let history: Page;
let popup: Page;
let tab: Page;
const address = (i: number): string => site.url(`/story/${i}.html`);
const oldUrl = (i: number): string => `https://old.example/page/${String(i).padStart(4, '0')}`;

/** The 1,000 old pages: each a simhash of its own, last seen in 2020, one minute apart (page 0 first). */
function oldPagesFile(): Buffer {
  const lines = [JSON.stringify({ format: 'doppel', version: 1, exported: '2024-01-01T00:00:00Z', pages: OLD_PAGES, k: 3 })];
  for (let i = 0; i < OLD_PAGES; i++) {
    const hex = ((BigInt(i + 1) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn).toString(16).padStart(16, '0');
    const seen = new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString();
    lines.push(JSON.stringify({ url: oldUrl(i), title: `Old page ${i}`, simhash: hex, check: hex, firstSeen: seen, lastSeen: seen, visits: 1 }));
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

async function importOldPages(): Promise<string> {
  await history.locator('#import-file').setInputFiles({ name: 'old.ndjson', mimeType: 'application/x-ndjson', buffer: oldPagesFile() });
  await expect.poll(() => history.locator('#import').isEnabled()).toBe(true);
  await history.locator('#import').click();
  await history.waitForFunction(() => ['done', 'failed'].includes(document.getElementById('import-form')?.dataset['state'] ?? ''), null, { timeout: 60_000 });
  return (await history.locator('#import-summary').textContent()) ?? '';
}

const FILLER = (): string => join((disk as { dir: string }).dir, 'other-program.bin');

/** Fills the disk with one file (1 MB writes, then 4 KB ones) until the filesystem refuses: ENOSPC. */
function fillDisk(): { bytes: number; refusedWith: string } {
  const fd = openSync(FILLER(), 'w');
  let bytes = 0;
  let refusedWith = '';
  try {
    for (const size of [1 << 20, 1 << 12]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          writeSync(fd, chunk);
          bytes += size;
        } catch (error) {
          refusedWith = (error as NodeJS.ErrnoException).code ?? String(error);
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, refusedWith };
}

/** The popup's settled state for `url` and its visible text. */
async function popupOutcome(url: string): Promise<{ state: string; text: string }> {
  await popup.goto(popupUrl(ext.extensionId, url), { waitUntil: 'domcontentloaded' });
  await popup.waitForFunction(() => (document.getElementById('report')?.dataset['state'] ?? 'loading') !== 'loading', null, { timeout: 20_000 });
  return { state: (await popup.locator('#report').getAttribute('data-state')) ?? '', text: await popup.locator('body').innerText() };
}

async function usage(): Promise<{ usage: number; quota: number }> {
  const session = await ext.ctx.newCDPSession(history);
  try {
    return (await session.send('Storage.getUsageAndQuota', { origin: `chrome-extension://${ext.extensionId}` })) as { usage: number; quota: number };
  } finally {
    await session.detach().catch(() => {});
  }
}

beforeAll(async () => {
  if (disk.skip !== null) return;
  session = await startSession({ site: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`/story/${i}.html`, articleHtml(i)])) }, { launch: { userDataParent: disk.dir } });
  ({ site } = session.sites);
  ext = session.ext!;
  history = await ext.ctx.newPage();
  await history.goto(`chrome-extension://${ext.extensionId}/history.html`, { waitUntil: 'domcontentloaded' });
  popup = await ext.ctx.newPage();
  tab = await ext.ctx.newPage();
});

afterAll(async () => {
  if (disk.skip !== null) return;
  await session?.close();
  if (disk.mounted) {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        execFileSync('umount', [disk.dir], { stdio: 'pipe' });
        break;
      } catch {
        await sleep(500); // Chromium's last processes still hold files
      }
    }
    rmSync(disk.dir, { recursive: true, force: true });
  }
});

describe.skipIf(disk.skip !== null)('a full disk in Chromium', () => {
  test('the disk fills up: the popup says so in words, nothing stored is lost, and recording resumes once there is room', async () => {
    expect(await importOldPages()).toBe(`${OLD_PAGES.toLocaleString('en-US')} pages added, 0 merged, 0 unchanged, 0 lines rejected.`);
    for (const i of [0, 1]) {
      await visit(tab, address(i));
      await waitForPopupState(popup, address(i), 'ready');
    }
    const before = await dumpStore(history);
    expect(before.records).toHaveLength(OLD_PAGES + 2);
    expect(storeProblems(before)).toEqual([]);

    const filled = fillDisk();
    console.info(`disk filled: ${filled.bytes} bytes, then ${filled.refusedWith}; quota now ${(await usage()).quota} bytes`);
    expect(filled.refusedWith).toBe('ENOSPC');

    // Pages visited now cannot all be stored: the last bytes of a file already open may still take
    // a page or two. At the first one refused, the popup says why in words (storage full, or the
    // storage unavailable sentence), never only the browser's raw message.
    let refused = -1;
    let full = { state: '', text: '' };
    for (let i = 10; i < 40 && refused < 0; i++) {
      await visit(tab, address(i));
      await sleep(300);
      full = await popupOutcome(address(i));
      if (full.state !== 'ready') refused = i;
    }
    console.info(`first page refused: ${refused - 10 + 1} visits after the disk filled; popup: ${full.state}: ${full.text.replace(/\s+/g, ' ').slice(0, 300)}`);
    expect(refused, 'a page was refused while the disk is full').toBeGreaterThanOrEqual(10);
    if (full.state === 'storage-full') {
      expect(full.text).toContain('Not recorded: storage is full.');
    } else {
      expect(full.state).toBe('error');
      expect(full.text).toContain('The browser cannot write to Doppel’s storage right now; the disk is probably full. Nothing already stored is lost');
    }

    // Room again (the other program's file deleted): within a minute a visit is recorded.
    // Chromium closed the worker's connection; Doppel opens the database again at the next message
    // (lib/store/db.ts getDb), with no restart of the worker. (When the recorder kept its first
    // store, the visits were still refused a minute later, until the worker was stopped.)
    rmSync(FILLER());
    const deadline = Date.now() + 60_000;
    let recovered = { state: '', text: '' };
    for (;;) {
      await visit(tab, address(4));
      await sleep(500);
      recovered = await popupOutcome(address(4));
      if (recovered.state === 'ready' || Date.now() > deadline) break;
      await sleep(2_000);
    }
    expect(recovered.state, recovered.text).toBe('ready');

    // Nothing stored before was lost (the forgetting rule applies to a quota; on a full disk even
    // forgetting cannot be written, and if it could, only the 100 pages seen longest ago go).
    const after = await dumpStore(history);
    const urls = new Set(after.records.map((r) => r['url'] as string));
    const forgotten = Array.from({ length: OLD_PAGES }, (_, i) => oldUrl(i)).filter((u) => !urls.has(u));
    console.info(`pages forgotten: ${forgotten.length}`);
    expect([0, 100]).toContain(forgotten.length);
    expect(forgotten).toEqual(Array.from({ length: forgotten.length }, (_, i) => oldUrl(i)));
    expect(urls.has(address(0)) && urls.has(address(1)) && urls.has(address(4))).toBe(true);
    for (let i = 10; i < refused; i++) expect(urls.has(address(i)), `${address(i)}, recorded before the refusal`).toBe(true);
    expect(storeProblems(after)).toEqual([]);

    // The page refused while the disk was full is recorded when visited again, unless its content
    // script, sending it again until acknowledged (lib/content/delivery.ts), recorded it already.
    const resent = urls.has(address(refused));
    console.info(`the refused page ${resent ? 'was recorded by its content script sending it again' : 'was not recorded until visited again'}`);
    await visit(tab, address(refused));
    await waitForPopupState(popup, address(refused), 'ready', 30_000);
    const final = await dumpStore(history);
    expect(final.records).toHaveLength(after.records.length + (resent ? 0 : 1));
    expect(storeProblems(final)).toEqual([]);
    expect(ext.pageErrors.filter((e) => e.startsWith('chrome-extension://')), 'extension page errors').toEqual([]);
  });
});
