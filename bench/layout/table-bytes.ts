// What the permuted-block tables cost a page in the `runs` store: N synthetic pages (seeded) are
// written through PageStore.updateMany into fake-indexeddb, the trees merged into one run each
// (compactTables, as organise does), and the table trees' chunks read back. Prints their entries
// and bytes, as stored values (Uint32Array bytes, and the V8 serialization IndexedDB writes),
// per page. Chromium's LevelDB adds its keys and compression on top; this counts the values.
//   npx tsx bench/layout/table-bytes.ts [pages, default 20000]
import 'fake-indexeddb/auto';
import { serialize } from 'node:v8';
import { fingerprintToHex } from '../../lib/fingerprint/bits';
import { randomFingerprints } from '../../lib/fingerprint/bits';
import { openDoppelDb } from '../../lib/store/db';
import { FIELD_TREE_BASE } from '../../lib/rows/page-rows';
import { PageStore } from '../../lib/store/pages';
import { TABLE_STRIDE } from '../../lib/index/table-runs';
import { updateMany } from '../../lib/store/transfer';
import { compactTables } from '../../lib/organise/migrate';

const pages = Number(process.argv[2] ?? 20_000);
if (!Number.isInteger(pages) || pages < 1) throw new Error(`pages must be a whole number from 1: got ${process.argv[2]}`);

const db = await openDoppelDb('table-bytes');
const store = await PageStore.open(db);
const simhashes = randomFingerprints(1n, pages);
const checks = randomFingerprints(2n, pages);
for (let start = 0; start < pages; start += 2_000) {
  const urls = Array.from({ length: Math.min(2_000, pages - start) }, (_, i) => `https://site${(start + i) % 97}.example/page/${start + i}`);
  await updateMany(store, urls, () =>
    urls.map((url, i) => ({
      url,
      title: `Page ${start + i}`,
      site: new URL(url).host,
      simhash: fingerprintToHex(simhashes[start + i]!),
      check: fingerprintToHex(checks[start + i]!),
      firstSeen: start + i,
      lastSeen: start + i,
      visits: 1,
    })),
  );
}
await compactTables(store, 2);

const tx = db.transaction('runs', 'readonly');
let words = 0;
let serialized = 0;
for (let cursor = await tx.store.openCursor(IDBKeyRange.upperBound([FIELD_TREE_BASE], true)); cursor !== null; cursor = await cursor.continue()) {
  words += cursor.value.length;
  serialized += serialize(cursor.value).length;
}
const tables = store.design.tables.length;
const perPage = (n: number): string => (n / pages).toFixed(1);
console.log(`${pages} pages, ${tables} tables, ${TABLE_STRIDE} words an entry: ${words / TABLE_STRIDE} entries`);
console.log(`table entries: ${words * 4} bytes (${perPage(words * 4)} a page); as V8 serializes the chunks: ${serialized} bytes (${perPage(serialized)} a page)`);
