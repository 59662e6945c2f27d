// How far deflating pages a block at a time (lib/rows/blocks.ts) shrinks their URLs and titles,
// on bench:browser's synthetic history and on real URLs: the links of the 130 corpus pages, with
// their link texts and the pages' titles as titles, shuffled (a history is not one site's links in
// a row). Prints bytes a page for blocks of 32 to 256 pages, and what encodeBlock stores (V8's
// serialization, as IndexedDB writes values) against version 6's records of the same pages, and
// the time to encode and decode one block.
// The URLs are canonical (lib/url.ts), as Doppel stores them; links that are not URLs are left out.
//
// Usage: npm run bench:block-text [-- --pages N (20000)]
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { deflateSync, strToU8 } from 'fflate';
import { BLOCK_PAGES, decodeBlock, encodeBlock } from '../../lib/rows/blocks';
import type { PageValue } from '../../lib/rows/codec';
import { asFingerprint, fingerprintToHex } from '../../lib/fingerprint/bits';
import { mulberry32, splitmix64 } from '../../lib/random';
import { canonicalUrl, isRecordableUrl, siteOf } from '../../lib/url';
import { writeSyntheticHistory } from '../data/synthetic-history';

const argv = process.argv.slice(2);
const at = argv.indexOf('--pages');
const PAGES = at >= 0 ? Number(argv[at + 1]) : 20_000;
const CORPUS = join(import.meta.dirname, '../../../shared/corpus/readability-test-pages');

type Titled = [url: string, title: string];

async function synthetic(): Promise<Titled[]> {
  const dir = mkdtempSync(join(tmpdir(), 'doppel-block-text-'));
  try {
    await writeSyntheticHistory(join(dir, 'history.ndjson'), { pages: PAGES, seed: 7, passages: false });
    return readFileSync(join(dir, 'history.ndjson'), 'utf8').trim().split('\n').slice(1).map((line) => {
      const { url, title } = JSON.parse(line) as { url: string; title: string };
      return [url, title];
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function corpusLinks(): Titled[] | undefined {
  if (!existsSync(CORPUS)) return undefined;
  const urls = new Set<string>();
  const titles = new Set<string>();
  for (const name of readdirSync(CORPUS)) {
    const dir = join(CORPUS, name);
    if (!statSync(dir).isDirectory()) continue;
    const html = readFileSync(join(dir, 'source.html'), 'utf8');
    for (const m of html.matchAll(/href=["'](https?:\/\/[^"'\s]{10,300})["']/gi)) {
      const href = m[1]!.replace(/&amp;/g, '&');
      if (isRecordableUrl(href)) urls.add(canonicalUrl(href)); // as Doppel stores them
    }
    for (const m of html.matchAll(/<a\b[^>]*>([\s\S]{0,400}?)<\/a>/gi)) {
      const text = m[1]!.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
      if (text.length >= 25 && !text.includes('&')) titles.add(text.slice(0, 120));
    }
    const { title } = JSON.parse(readFileSync(join(dir, 'expected-metadata.json'), 'utf8')) as { title?: string };
    if (title) titles.add(title);
  }
  const titleList = [...titles];
  const random = mulberry32(3);
  const pairs: Titled[] = [...urls].map((url, i) => [url, titleList[i % titleList.length]!]);
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!];
  }
  return pairs;
}

function report(name: string, pairs: Titled[]): void {
  const random = mulberry32(5);
  const fingerprints = splitmix64(5n);
  const hex = (): string => fingerprintToHex(asFingerprint(fingerprints()));
  const chars = pairs.reduce((n, [url, title]) => n + url.length + title.length, 0) / pairs.length;
  console.log(`${name}: ${pairs.length.toLocaleString('en')} pages, URL and title ${chars.toFixed(0)} characters a page`);
  for (const size of [32, 64, 128, 256]) {
    let bytes = 0;
    const whole = Math.floor(pairs.length / size) * size;
    for (let i = 0; i < whole; i += size) bytes += deflateSync(strToU8(JSON.stringify(pairs.slice(i, i + size))), { level: 6 }).length;
    console.log(`  URLs and titles deflated ${String(size).padStart(3)} pages at a time: ${(bytes / whole).toFixed(1)} B a page`);
  }
  let records = 0;
  let blocks = 0;
  let first: PageValue[] = [];
  const whole = Math.floor(pairs.length / BLOCK_PAGES) * BLOCK_PAGES;
  for (let i = 0; i < whole; i += BLOCK_PAGES) {
    const pages: PageValue[] = pairs.slice(i, i + BLOCK_PAGES).map(([url, title], slot) => {
      const seen = 1.7e12 + Math.floor(random() * 6e10);
      return { id: i + slot, url, title, site: siteOf(url), simhash: hex(), check: hex(), firstSeen: seen, lastSeen: seen, visits: 1 };
    });
    if (i === 0) first = pages;
    records += pages.reduce((n, page) => n + serialize(page).length, 0);
    blocks += serialize(encodeBlock(i / BLOCK_PAGES, pages)).length;
  }
  console.log(`  encodeBlock, ${BLOCK_PAGES} pages a block: ${(blocks / whole).toFixed(1)} B a page; version 6's records: ${(records / whole).toFixed(1)} B a page (${(blocks / records).toFixed(2)}×)`);
  // what a visit pays to rewrite its block, and a query to read a match's: median of 2,000 runs on the first block
  const stored = encodeBlock(0, first);
  const timed = (run: () => unknown): number => {
    const times: number[] = [];
    for (let i = 0; i < 2_200; i++) {
      const started = performance.now();
      run();
      if (i >= 200) times.push(performance.now() - started); // the first 200 warm the JIT
    }
    return times.sort((a, b) => a - b)[times.length >> 1]!;
  };
  console.log(`  one block of ${BLOCK_PAGES}: encodeBlock ${timed(() => encodeBlock(0, first)).toFixed(3)} ms, decodeBlock ${timed(() => decodeBlock(0, stored)).toFixed(3)} ms (medians)`);
}

report('bench:browser synthetic history', await synthetic());
const links = corpusLinks();
if (links) report('corpus links (real URLs, link texts as titles), shuffled', links);
else console.log(`corpus links: skipped, no corpus at ${CORPUS}`);
