// Databases written by earlier builds, kept as files (test/fixtures/db/version-N.json): every
// store's layout and records exactly as that build wrote them, and the answers that build gave to
// a fixed set of queries. scripts/db-fixture.ts writes the fixture of the current DB_VERSION;
// test/schema-fixtures.test.ts loads each one, raw, into a fresh fake-indexeddb at its version,
// opens it with the current code (which upgrades it) and asks the same queries.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readHistory, readOverview } from '../../lib/ui/history-data';
import type { PageStore } from '../../lib/store/pages';
import { nearDuplicatesOf } from './store-queries';

export const FIXTURE_DIR = new URL('../fixtures/db/', import.meta.url).pathname;

/** A store's layout: what createObjectStore and createIndex were given. */
export interface StoreLayout {
  name: string;
  keyPath: string | string[] | null;
  autoIncrement: boolean;
  indexes: { name: string; keyPath: string | string[]; unique: boolean; multiEntry: boolean }[];
}

/** What a build answered (see answersOf). */
export interface Answers {
  count: number;
  overview: { pages: number; articles: number; groups: number };
  /** Each page by URL, as `get` returns it. */
  pages: Record<string, unknown>;
  /** Each page's near-duplicates within 3 bits: [url, distance], nearest first. */
  near: Record<string, [string, number][]>;
  /** Each page's pages sharing passages (not near-duplicates): [url, share, otherShare, this page's hashes inside], the largest share first. */
  passages: Record<string, [string, number, number, number[]][]>;
  /** The ids of the history's entries, newest first. */
  history: string[];
}

export interface DbFixture {
  version: number;
  /** How it was made. */
  writtenBy: string;
  stores: StoreLayout[];
  /** Each store's records as [key, value], in key order, encoded (encodeValue). */
  records: Record<string, [unknown, unknown][]>;
  answers: Answers;
}

/** JSON for the structured-clone values Doppel stores: typed arrays become tagged objects. */
export function encodeValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $u8: Buffer.from(value).toString('base64') };
  if (value instanceof Uint32Array) return { $u32: Array.from(value) };
  if (Array.isArray(value)) return value.map(encodeValue);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeValue(v)]));
  return value;
}

export function decodeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value !== null && typeof value === 'object') {
    const tagged = value as { $u8?: string; $u32?: number[] };
    if (typeof tagged.$u8 === 'string') return new Uint8Array(Buffer.from(tagged.$u8, 'base64'));
    if (Array.isArray(tagged.$u32)) return Uint32Array.from(tagged.$u32);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeValue(v)]));
  }
  return value;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Every store of an open database: its layout and its records, encoded. */
export async function dumpDatabase(db: IDBDatabase): Promise<Pick<DbFixture, 'stores' | 'records'>> {
  const names = [...db.objectStoreNames];
  const tx = db.transaction(names, 'readonly');
  const stores: StoreLayout[] = [];
  const records: Record<string, [unknown, unknown][]> = {};
  for (const name of names) {
    const store = tx.objectStore(name);
    stores.push({
      name,
      keyPath: store.keyPath,
      autoIncrement: store.autoIncrement,
      indexes: [...store.indexNames].map((index) => {
        const i = store.index(index);
        return { name: index, keyPath: i.keyPath, unique: i.unique, multiEntry: i.multiEntry };
      }),
    });
    const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
    records[name] = keys.map((key, i) => [encodeValue(key), encodeValue(values[i])]);
  }
  return { stores, records };
}

/** Writes `fixture` into database `name` of `factory` at its version, without Doppel's code. */
export async function loadFixture(factory: IDBFactory, name: string, fixture: DbFixture): Promise<void> {
  const open = factory.open(name, fixture.version);
  open.onupgradeneeded = () => {
    const db = open.result;
    for (const layout of fixture.stores) {
      const store = db.createObjectStore(layout.name, { keyPath: layout.keyPath, autoIncrement: layout.autoIncrement });
      for (const index of layout.indexes) store.createIndex(index.name, index.keyPath, { unique: index.unique, multiEntry: index.multiEntry });
      for (const [key, value] of fixture.records[layout.name] ?? []) {
        if (layout.keyPath === null) store.put(decodeValue(value), decodeValue(key) as IDBValidKey);
        else store.put(decodeValue(value));
      }
    }
  };
  const db = await request(open);
  db.close();
}

/** The queries every fixture's answers are to: the pages, their near-duplicates, the counts and the history. */
export async function answersOf(store: PageStore, urls: readonly string[]): Promise<Answers> {
  const pages: Record<string, unknown> = {};
  const near: Record<string, [string, number][]> = {};
  const passages: Record<string, [string, number, number, number[]][]> = {};
  for (const url of urls) {
    const record = await store.get(url);
    pages[url] = record ?? null;
    if (record === undefined) continue;
    const matches = await nearDuplicatesOf(store, record);
    near[url] = matches.map((m) => [m.record.url, m.distance]);
    passages[url] = (await store.getWithNear(url))!.passages.map(({ record: other, match }) => [other.url, match.share, match.otherShare, match.hashes]);
  }
  const history = await readHistory(store, {}, { limit: 100, shown: new Set() });
  return { count: await store.count(), overview: await readOverview(store), pages, near, passages, history: history.entries.map((entry) => entry.id) };
}

/** Every fixture in test/fixtures/db/, oldest first. */
export function readFixtures(): DbFixture[] {
  return readdirSync(FIXTURE_DIR)
    .filter((file) => /^version-\d+\.json$/.test(file))
    .map((file) => JSON.parse(readFileSync(join(FIXTURE_DIR, file), 'utf8')) as DbFixture)
    .sort((a, b) => a.version - b.version);
}
