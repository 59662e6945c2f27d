// Writes test/fixtures/db/version-<DB_VERSION>.json: a database written by this build (a few pages
// visited, grouped, imported without a check, revisited with a changed text, forgotten), dumped
// store by store, with this build's answers to test/db-fixtures.ts's queries. Run it once per
// schema version, when DB_VERSION goes up (before the new version's code changes the layout):
//   npx tsx scripts/db-fixture.ts
import 'fake-indexeddb/auto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IDBFactory } from 'fake-indexeddb';
import { unwrap } from 'idb';
import { asFingerprint } from '../lib/fingerprint/bits';
import { passageFingerprints } from '../lib/fingerprint/passages';
import { mulberry32 } from '../lib/random';
import { openDoppelDb } from '../lib/store/db';
import { PageStore } from '../lib/store/pages';
import { NO_CHECK } from '../lib/store/records';
import { updateMany } from '../lib/store/transfer';
import { DB_VERSION } from '../lib/store/schema';
import { FIXTURE_DIR, type DbFixture, answersOf, dumpDatabase } from '../test/support/db-fixtures';

const fp = (hex: string) => asFingerprint(BigInt('0x' + hex));
const CHECK = fp('00ff00ff00ff00ff');
const day = 86_400_000;
const t0 = Date.UTC(2026, 10, 1);
// passage fingerprints of seeded texts: the mill article; its copies hold it whole; the blog quotes 60 of its words
const random = mulberry32(2026);
const words = (n: number): string[] => Array.from({ length: n }, () => `w${Math.floor(random() * 5000)}`);
const mill = words(400);
const passages = (text: string[]) => {
  const { words: count, hashes, positions } = passageFingerprints(text.join(' '));
  return { words: count, hashes, positions };
};

const visits = [
  // an article and two near-duplicates of it on other sites (1 and 3 bits away): one group
  { url: 'https://news.example/mill-closes', title: 'The mill closes', simhash: fp('0123456789abcdef'), check: CHECK, passages: passages(mill), provenance: { published: t0 - day }, now: t0 },
  { url: 'https://copy.example/2026/mill', title: 'Mill closes (copy)', simhash: fp('0123456789abcdee'), check: CHECK, passages: passages(mill), now: t0 + day },
  { url: 'https://aggregator.example/a?id=7', title: 'Mill', simhash: fp('8123456789abcdeb'), check: CHECK, passages: passages(mill.slice(0, 250)), now: t0 + 2 * day },
  // unrelated pages, one of them on the first site; the blog quotes the mill article
  { url: 'https://news.example/weather', title: 'Weather: rain', simhash: fp('fedcba9876543210'), check: fp('1111111111111111'), passages: passages(words(300)), now: t0 + 3 * day },
  { url: 'https://blog.example/ünïcode-päth', title: '标题 · título', simhash: fp('0f0f0f0f0f0f0f0f'), check: fp('2222222222222222'), passages: passages([...words(150), ...mill.slice(100, 160), ...words(150)]), now: t0 + 4 * day },
  { url: 'https://gone.example/', title: 'Forgotten', simhash: fp('3333333333333333'), check: CHECK, passages: passages(mill.slice(200)), now: t0 + 5 * day },
  // (version 2) a partner's copy naming the article as its source by its canonical link, and a
  // farm's copy naming it in a credit line, claiming an earlier date (it is a copy all the same)
  { url: 'https://partner.example/mill', title: 'The mill closes (partner)', simhash: fp('0123456789abcdff'), check: CHECK, passages: passages(mill), provenance: { published: t0 - day, source: 'https://news.example/mill-closes', sourceBy: 'canonical' as const }, now: t0 + 7 * day },
  { url: 'https://farm.example/mill', title: 'Mill!', simhash: fp('0123456789abcfef'), check: CHECK, passages: passages(mill), provenance: { published: t0 - 9 * day, source: 'https://news.example/mill-closes', sourceBy: 'credit' as const }, now: t0 + 8 * day },
];

const factory = new IDBFactory();
const db = await openDoppelDb('doppel', { factory });
const store = await PageStore.open(db);
for (const visit of visits) await store.record({ ...visit, site: new URL(visit.url).host });
// a revisit whose text changed: it leaves its group
await store.record({ ...visits[2]!, site: 'aggregator.example', simhash: fp('7777777777777777'), passages: passages(mill.slice(0, 300)), now: t0 + 6 * day });
// an imported page, whose check is unknown, 2 bits from the weather page
await updateMany(store, ['https://imported.example/weather'], () => [
  { url: 'https://imported.example/weather', title: 'Imported', site: 'imported.example', simhash: 'fedcba9876543213', check: NO_CHECK, firstSeen: t0 - day, lastSeen: t0 - day, visits: 2 },
]);
await store.forget('https://gone.example/');

const urls = [...visits.map((visit) => visit.url), 'https://imported.example/weather'];
const fixture: DbFixture = {
  version: DB_VERSION,
  writtenBy: 'npx tsx scripts/db-fixture.ts',
  ...(await dumpDatabase(unwrap(db) as IDBDatabase)),
  answers: await answersOf(store, urls),
};
db.close();
const path = join(FIXTURE_DIR, `version-${DB_VERSION}.json`);
writeFileSync(path, JSON.stringify(fixture, null, 1) + '\n');
console.log(`wrote ${path}: ${fixture.answers.count} pages, ${Object.values(fixture.records).reduce((n, r) => n + r.length, 0)} records`);
