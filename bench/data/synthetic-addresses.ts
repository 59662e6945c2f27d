// The addresses and titles of the synthetic history's pages (bench/data/synthetic-history.ts), from
// its seeded draws:
//
// - Hosts: a few thousand (`www.harbour-ledger.com`, `news.copperfield.org`, …).
// - URLs: https://HOST/SECTION/YYYY/MM/slug-words-ID, 60 to 90 characters (uniform), the ID the
//   page's number in base 36, so every URL is distinct. Titles: 40 to 80 characters (uniform).
import { pick } from '../../lib/random';

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

export function makeHosts(random: () => number, count: number): string[] {
  const hosts = new Set<string>();
  while (hosts.size < count) {
    const a = pick(random, NAME_PARTS);
    let b = pick(random, NAME_PARTS);
    while (b === a) b = pick(random, NAME_PARTS);
    const joiner = random() < 0.5 ? '-' : '';
    const number = random() < 0.15 ? String(Math.floor(random() * 99) + 1) : '';
    hosts.add(`${pick(random, SUBDOMAINS)}${a}${joiner}${b}${number}.${pick(random, TLDS)}`);
  }
  return [...hosts];
}

export function makeUrl(random: () => number, host: string, index: number, firstSeen: number): string {
  const date = new Date(firstSeen);
  const prefix = `https://${host}/${pick(random, SECTIONS)}/${date.getUTCFullYear()}/${String(date.getUTCMonth() + 1).padStart(2, '0')}/`;
  const id = `-${index.toString(36)}`;
  const target = 60 + Math.floor(random() * 31); // 60 … 90 characters
  let slug = pick(random, WORDS);
  for (let tries = 0; prefix.length + slug.length + id.length < target && tries < 20; tries++) {
    const word = pick(random, WORDS);
    if (prefix.length + slug.length + 1 + word.length + id.length <= 90) slug += `-${word}`;
  }
  return prefix + slug + id;
}

export function makeTitle(random: () => number): string {
  const target = 40 + Math.floor(random() * 41); // 40 … 80 characters
  const words: string[] = [];
  let length = -1;
  for (;;) {
    const word = pick(random, WORDS);
    if (length + 1 + word.length > target && length >= 40) break;
    words.push(words.length === 0 ? word[0]!.toUpperCase() + word.slice(1) : word);
    length += 1 + word.length;
    if (length >= target) break;
  }
  return words.join(' ').slice(0, 80);
}
