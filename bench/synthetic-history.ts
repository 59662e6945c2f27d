// A synthetic Doppel export (lib/ndjson.ts format) for `npm run bench:browser`: N pages with
// realistic addresses and titles, dates over two years, random fingerprints, and planted
// near-duplicates. Seeded: the same options give the same file, byte for byte.
//
// - Hosts: a few thousand (`www.harbour-ledger.com`, `news.copperfield.org`, …).
// - URLs: https://HOST/SECTION/YYYY/MM/slug-words-ID, 60 to 90 characters (uniform), the ID the
//   page's number in base 36, so every URL is distinct. Titles: 40 to 80 characters (uniform).
// - firstSeen uniform over the two years before 2025-11-01; 70% of pages seen once, the rest seen
//   again later (lastSeen up to the end, visits 2 and more).
// - simhash and check: 64 random bits each (two mulberry32 outputs).
// - Planted near-duplicates: each page is, with probability copyRate (1%), a copy of an earlier
//   page on a different host (a new address, the original's title, first seen up to 30 days
//   later), its simhash 0 to 3 bits from the original's and its check 0 to 6 bits from the
//   original's check, so Doppel must report the pair (k = 3, check limit 16 bits).
import { createWriteStream } from 'node:fs';
import { mulberry32 } from '../lib/random';

export interface PlantedCopy {
  copy: string;
  original: string;
  simhashBits: number;
  checkBits: number;
}

export interface SyntheticHistory {
  file: string;
  pages: number;
  /** File size in bytes. */
  bytes: number;
  hosts: number;
  /** Mean characters per URL and per title. */
  meanUrlChars: number;
  meanTitleChars: number;
  /** Every planted copy, in file order. */
  planted: PlantedCopy[];
  /** A seeded sample of pages that are not planted copies (their originals may be among them). */
  sample: string[];
}

export interface SyntheticOptions {
  pages: number;
  seed: number;
  /** Share of pages that are planted copies of an earlier page (default 0.01). */
  copyRate?: number;
  /** Pages to keep in `sample` (default 400). */
  sampleSize?: number;
  hosts?: number;
}

const WORDS = (
  'harbour river council budget school vote winter summer market price energy grid train ferry bridge ' +
  'museum library garden forest coast island storm flood drought harvest farmer bakery festival concert ' +
  'election minister court judge police hospital nurse doctor vaccine study report survey census housing ' +
  'rent mortgage bank loan tax wage strike union factory mine port airport airline route tunnel road ' +
  'cycle lane tram bus station village city county region border trade export import tariff steel ' +
  'copper wool cotton coffee tea cocoa wine cheese fishing whale seal bird eagle wolf bear salmon ' +
  'reef glacier volcano quake rescue mountain valley lake canal dam reservoir water solar wind nuclear ' +
  'battery chip software startup robot drone satellite rocket telescope planet comet archive letter ' +
  'diary painting sculpture theatre opera film novel poet author history castle cathedral chapel mill ' +
  'lighthouse orchard vineyard dairy cattle sheep horse race match league cup final coach player ' +
  'record season stadium pool marathon climber sailor pilot engineer teacher student parents children'
).split(/\s+/);
const NAME_PARTS = (
  'harbour ledger copper field north star river gate bay mill stone brook oak ash ridge lantern post ' +
  'herald tribune courier gazette chronicle daily weekly signal beacon echo mirror times observer ' +
  'sentinel record journal review digest wire dispatch bulletin voice press view point lens window ' +
  'compass anchor atlas meridian summit valley plain hill coast shore cliff island haven port crown'
).split(/\s+/);
const TLDS = ['com', 'com', 'com', 'org', 'net', 'co.uk', 'de', 'io', 'news', 'info', 'fr', 'ca', 'com.au', 'nl'];
const SUBDOMAINS = ['www.', 'www.', 'www.', '', '', 'news.', 'blog.', 'en.', 'magazine.'];
const SECTIONS = ['world', 'politics', 'business', 'tech', 'science', 'health', 'culture', 'sport', 'opinion', 'travel', 'food', 'local', 'environment', 'education', 'books', 'money'];

const END = Date.UTC(2025, 10, 1);
const DAY = 86_400_000;
const START = END - 2 * 365 * DAY;

const pickOf = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

function makeHosts(random: () => number, count: number): string[] {
  const hosts = new Set<string>();
  while (hosts.size < count) {
    const a = pickOf(random, NAME_PARTS);
    let b = pickOf(random, NAME_PARTS);
    while (b === a) b = pickOf(random, NAME_PARTS);
    const joiner = random() < 0.5 ? '-' : '';
    const number = random() < 0.15 ? String(Math.floor(random() * 99) + 1) : '';
    hosts.add(`${pickOf(random, SUBDOMAINS)}${a}${joiner}${b}${number}.${pickOf(random, TLDS)}`);
  }
  return [...hosts];
}

function makeUrl(random: () => number, host: string, index: number, firstSeen: number): string {
  const date = new Date(firstSeen);
  const prefix = `https://${host}/${pickOf(random, SECTIONS)}/${date.getUTCFullYear()}/${String(date.getUTCMonth() + 1).padStart(2, '0')}/`;
  const id = `-${index.toString(36)}`;
  const target = 60 + Math.floor(random() * 31); // 60 … 90 characters
  let slug = pickOf(random, WORDS);
  for (let tries = 0; prefix.length + slug.length + id.length < target && tries < 20; tries++) {
    const word = pickOf(random, WORDS);
    if (prefix.length + slug.length + 1 + word.length + id.length <= 90) slug += `-${word}`;
  }
  return prefix + slug + id;
}

function makeTitle(random: () => number): string {
  const target = 40 + Math.floor(random() * 41); // 40 … 80 characters
  const words: string[] = [];
  let length = -1;
  for (;;) {
    const word = pickOf(random, WORDS);
    if (length + 1 + word.length > target && length >= 40) break;
    words.push(words.length === 0 ? word[0]!.toUpperCase() + word.slice(1) : word);
    length += 1 + word.length;
    if (length >= target) break;
  }
  return words.join(' ').slice(0, 80);
}

/** (hi, lo) with `bits` distinct random bit positions flipped. */
function flip(random: () => number, hi: number, lo: number, bits: number): [number, number] {
  const chosen = new Set<number>();
  while (chosen.size < bits) chosen.add(Math.floor(random() * 64));
  for (const bit of chosen) {
    if (bit < 32) lo ^= 1 << bit;
    else hi ^= 1 << (bit - 32);
  }
  return [hi >>> 0, lo >>> 0];
}

/** Writes the export to `file` and returns what the benchmark needs to query it. */
export async function writeSyntheticHistory(file: string, options: SyntheticOptions): Promise<SyntheticHistory> {
  const { pages, seed, copyRate = 0.01, sampleSize = 400 } = options;
  const random = mulberry32(seed);
  const hosts = makeHosts(random, options.hosts ?? 3000);
  const simHi = new Uint32Array(pages);
  const simLo = new Uint32Array(pages);
  const checkHi = new Uint32Array(pages);
  const checkLo = new Uint32Array(pages);
  const hostOf = new Uint16Array(pages);
  const firstSeenOf = new Float64Array(pages);
  const titles: string[] = new Array<string>(pages);
  const urls = new Map<number, string>(); // only the sampled pages and the originals of copies
  const sampleAt = new Set<number>();
  while (sampleAt.size < Math.min(sampleSize, pages)) sampleAt.add(Math.floor(random() * pages));
  const plantedAt: { copy: number; original: number; simhashBits: number; checkBits: number; url: string }[] = [];

  const out = createWriteStream(file);
  let bytes = 0;
  const write = (text: string): Promise<void> => {
    bytes += Buffer.byteLength(text);
    return out.write(text) ? Promise.resolve() : new Promise((ok) => out.once('drain', () => ok()));
  };
  await write(JSON.stringify({ format: 'doppel', version: 1, exported: new Date(END).toISOString(), pages, k: 3 }) + '\n');

  let urlChars = 0;
  let titleChars = 0;
  let chunk: string[] = [];
  // Which pages are originals of a copy is only known later: remember the URL of every page an
  // upcoming copy could point at would cost a million strings, so copies point at pages whose URL
  // is kept (every 8th page, a seeded choice that does not depend on the copy).
  const KEEP_EVERY = 8;
  for (let i = 0; i < pages; i++) {
    const isCopy = i > 100 && random() < copyRate && !sampleAt.has(i);
    let host: number;
    let firstSeen: number;
    let title: string;
    let original = -1;
    let simhashBits = 0;
    let checkBits = 0;
    if (isCopy) {
      original = Math.floor(random() * Math.floor(i / KEEP_EVERY)) * KEEP_EVERY;
      host = Math.floor(random() * hosts.length);
      if (host === hostOf[original]) host = (host + 1) % hosts.length;
      firstSeen = Math.min(END - DAY, firstSeenOf[original]! + random() * 30 * DAY);
      title = titles[original]!;
      simhashBits = Math.floor(random() * 4);
      checkBits = Math.floor(random() * 7);
      [simHi[i], simLo[i]] = flip(random, simHi[original]!, simLo[original]!, simhashBits);
      [checkHi[i], checkLo[i]] = flip(random, checkHi[original]!, checkLo[original]!, checkBits);
    } else {
      host = Math.floor(random() * hosts.length);
      firstSeen = START + random() * (END - START - DAY);
      title = makeTitle(random);
      simHi[i] = random() * 4294967296;
      simLo[i] = random() * 4294967296;
      checkHi[i] = random() * 4294967296;
      checkLo[i] = random() * 4294967296;
    }
    firstSeen = Math.floor(firstSeen);
    hostOf[i] = host;
    firstSeenOf[i] = firstSeen;
    titles[i] = title;
    const again = random() < 0.3;
    const lastSeen = again ? Math.floor(firstSeen + random() * (END - firstSeen)) : firstSeen;
    const visits = again ? 2 + Math.floor(-Math.log(1 - random()) * 3) : 1;
    const hostName = hosts[host]!;
    const url = makeUrl(random, hostName, i, firstSeen);
    if (i % KEEP_EVERY === 0 || sampleAt.has(i)) urls.set(i, url);
    if (isCopy) plantedAt.push({ copy: i, original, simhashBits, checkBits, url });
    urlChars += url.length;
    titleChars += title.length;
    chunk.push(
      JSON.stringify({
        url,
        title,
        site: hostName,
        simhash: hex8(simHi[i]!) + hex8(simLo[i]!),
        check: hex8(checkHi[i]!) + hex8(checkLo[i]!),
        firstSeen: new Date(firstSeen).toISOString(),
        lastSeen: new Date(lastSeen).toISOString(),
        visits,
      }),
    );
    if (chunk.length === 5000) {
      await write(chunk.join('\n') + '\n');
      chunk = [];
    }
  }
  if (chunk.length > 0) await write(chunk.join('\n') + '\n');
  await new Promise<void>((ok, fail) => out.end((error?: Error | null) => (error ? fail(error) : ok())));

  return {
    file,
    pages,
    bytes,
    hosts: hosts.length,
    meanUrlChars: urlChars / pages,
    meanTitleChars: titleChars / pages,
    planted: plantedAt.map((p) => ({ copy: p.url, original: urls.get(p.original)!, simhashBits: p.simhashBits, checkBits: p.checkBits })),
    sample: [...sampleAt].sort((a, b) => a - b).map((i) => urls.get(i)!),
  };
}
