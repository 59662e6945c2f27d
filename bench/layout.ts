// Which IndexedDB layout could bring Doppel's store to the 300 bytes a page? A prototype
// measure, not the product: the same synthetic pages are written in Debian's Chromium under
// several layouts, each in an origin of its own (its own LevelDB), and for each the write rate and
// navigator.storage.estimate().usage per page are printed, beside the layout Doppel ships
// (schema version 2), in the same run.
//
// Layouts:
// - v2 (shipped): keyPath `url`; indexes `keys` (multiEntry, "t:hhhh" strings), `site`, `lastSeen`.
//   Chromium's index entries carry the primary key, so each of the 6 entries holds the URL again.
// - int-key: an autoIncrement number as the key; a unique `url` index; table keys as numbers
//   (table × 2^32 + key); short field names. Every index entry then carries a small number.
// - int-key-lean: int-key without the `site` index (sites counted from a per-site meta count).
//
// Usage: npm run bench:layout [-- --pages N (100000) --batch N (1000)]
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const argv = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const PAGES = option('pages', 100_000);
const BATCH = option('batch', 1_000);
const LAYOUTS = ['v2', 'int-key', 'int-key-lean'] as const;
type Layout = (typeof LAYOUTS)[number];

/** Runs in the page: creates the layout's database and writes PAGES seeded synthetic pages. */
async function writeLayout({ layout, pages, batch }: { layout: Layout; pages: number; batch: number }): Promise<{ ms: number; usage: number; base: number }> {
  let seed = 4;
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const words = 'harbour river council budget school vote winter summer market price energy grid train ferry bridge museum library garden forest coast island storm flood drought harvest farmer bakery festival concert election minister court judge'.split(' ');
  const word = (): string => words[Math.floor(random() * words.length)]!;
  const hex = (): string => Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0') + Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
  const base = (await navigator.storage.estimate()).usage ?? 0;
  const db: IDBDatabase = await new Promise((resolve, reject) => {
    const open = indexedDB.open(layout, 1);
    open.onupgradeneeded = () => {
      const d = open.result;
      if (layout === 'v2') {
        const s = d.createObjectStore('pages', { keyPath: 'url' });
        s.createIndex('keys', 'keys', { multiEntry: true });
        s.createIndex('site', 'site');
        s.createIndex('lastSeen', 'lastSeen');
      } else {
        const s = d.createObjectStore('pages', { keyPath: 'id', autoIncrement: true });
        s.createIndex('url', 'u', { unique: true });
        s.createIndex('keys', 'k', { multiEntry: true });
        if (layout === 'int-key') s.createIndex('site', 's');
        s.createIndex('lastSeen', 'l');
      }
    };
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  const started = performance.now();
  for (let from = 0; from < pages; from += batch) {
    const tx = db.transaction('pages', 'readwrite');
    const store = tx.objectStore('pages');
    for (let i = from; i < Math.min(pages, from + batch); i++) {
      const host = `www.${word()}-${word()}${Math.floor(random() * 3000)}.com`;
      let slug = '';
      while (slug.length < 30 + random() * 30) slug += `${word()}-`;
      const url = `https://${host}/${word()}/2025/${String(1 + Math.floor(random() * 12)).padStart(2, '0')}/${slug}${i.toString(36)}`;
      let title = '';
      while (title.length < 40 + random() * 40) title += `${word()} `;
      const simhash = hex();
      const check = hex();
      const lastSeen = 1.7e12 + Math.floor(random() * 6e10);
      const tableKeys = [0, 1, 2, 3].map((t) => parseInt(simhash.slice(t * 4, t * 4 + 4), 16));
      if (layout === 'v2') {
        store.put({ url, title, site: host, simhash, check, firstSeen: lastSeen, lastSeen, visits: 1, keys: tableKeys.map((k, t) => `${t}:${k.toString(16).padStart(4, '0')}`) });
      } else {
        store.put({ u: url, t: title, s: host, h: simhash, c: check, f: lastSeen, l: lastSeen, v: 1, k: tableKeys.map((k, t) => t * 2 ** 32 + k) });
      }
    }
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(tx.error);
    });
  }
  const ms = performance.now() - started;
  db.close();
  return { ms, usage: (await navigator.storage.estimate()).usage ?? 0, base };
}

async function main(): Promise<void> {
  // one server per layout: a port of its own is an origin of its own, with its own LevelDB
  const servers = LAYOUTS.map(() => createServer((_, res) => res.end('<!doctype html><title>layout</title>')));
  const ports: number[] = [];
  for (const server of servers) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports.push((server.address() as { port: number }).port);
  }
  const dir = mkdtempSync(join(tmpdir(), 'doppel-layout-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  console.log(`IndexedDB layouts in Chromium ${ctx.browser()?.version() ?? ''}: ${PAGES.toLocaleString('en')} synthetic pages each (URLs ~78, titles ~58 characters), ${BATCH} a transaction`);
  const results: { layout: Layout; rate: number; perPage: number; settled: number }[] = [];
  try {
    for (const [n, layout] of LAYOUTS.entries()) {
      const page = await ctx.newPage();
      await page.addInitScript('globalThis.__name = (f) => f'); // tsx's keepNames helper, for writeLayout's inner functions
      await page.goto(`http://127.0.0.1:${ports[n]}/`);
      const { ms, usage, base } = await page.evaluate(writeLayout, { layout, pages: PAGES, batch: BATCH });
      await page.waitForTimeout(10_000); // LevelDB compacts in the background
      const settled = (await page.evaluate(() => navigator.storage.estimate())).usage ?? 0;
      results.push({ layout, rate: PAGES / (ms / 1000), perPage: (usage - base) / PAGES, settled: (settled - base) / PAGES });
      console.log(
        `  ${layout.padEnd(13)} ${Math.round(PAGES / (ms / 1000)).toLocaleString('en').padStart(7)} pages/s   ${((usage - base) / PAGES).toFixed(0).padStart(5)} B/page at the end   ${((settled - base) / PAGES).toFixed(0).padStart(5)} B/page 10 s later`,
      );
      await page.close();
    }
    const v2 = results.find((r) => r.layout === 'v2')!;
    for (const r of results.filter((x) => x.layout !== 'v2')) {
      console.log(`  ${r.layout} against v2: ${(r.rate / v2.rate).toFixed(2)}× the write rate, ${(r.settled / v2.settled).toFixed(2)}× the bytes a page`);
    }
  } finally {
    await ctx.close();
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
