// `npm run bench:scan-join -- [--documents N] [--passages P] [--rewrites R] [--memory-limit SIZE] [--dir D] [--keep]`:
// issue 48's join at ten million documents, skipping the text. Writes N documents' fingerprints
// straight into the on-disk scan's tables (bin/scan-db/schema.ts) by SQL — a random simhash each,
// P passage hashes and R rewrite index hashes each (the means of bench:scan-scale's articles: 36.5
// and 23.6 at 510 words) — with 1% each of planted simhash near-duplicates (0–3 bits flipped),
// passage copies (half of an earlier document's passage hashes) and rewrite copies (half of its
// index hashes), each of a random earlier document that is no copy. Then runs the scan's own candidate SQL
// (bin/scan-db/candidates.ts: Manku's block tables, the boilerplate and frequent-hash rules, the
// shared-hash joins) and its union-find clusters, and prints each step's time, rows, the process's
// peak memory (VmHWM: DuckDB is inside it), DuckDB's held and spilled bytes (polled) and the
// database's size on disk; then whether every planted pair is a candidate.
//
// What it leaves out: the text and the JS judging of each candidate (bin/scan-db/verify.ts), which
// bench:scan-scale measures with the text; here the simhash distance is checked in SQL and the
// passage and rewrite candidates are counted, not judged.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseDesign } from '../../lib/index/tables';
import { BOILERPLATE } from '../../lib/index/passage-index';
import { REWRITE_RULE } from '../../lib/fingerprint/rewrites';
import { REWRITE_MAX_PAGES } from '../../lib/scan/detectors/rewrites';
import * as sql from '../../bin/scan-db/candidates';
import { unionFindClusters } from '../../bin/scan-db/components';
import { DATABASE_FILE, ScanDatabase } from '../../bin/scan-db/database';
import { outputTables } from '../../bin/scan-db/schema';

interface Args {
  documents: number;
  passages: number;
  rewrites: number;
  memoryLimit: string;
  dir: string | undefined;
  keep: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { documents: 10_000_000, passages: 37, rewrites: 24, memoryLimit: '1GB', dir: undefined, keep: false };
  const integer = (name: string, value: string | undefined, min: number): number => {
    const n = Number(value?.replace(/_/g, ''));
    if (!(Number.isInteger(n) && n >= min)) throw new Error(`${name} needs an integer of at least ${min}: got ${JSON.stringify(value)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--documents') args.documents = integer(arg, argv[++i], 1000);
    else if (arg === '--passages') args.passages = integer(arg, argv[++i], 2);
    else if (arg === '--rewrites') args.rewrites = integer(arg, argv[++i], 4);
    else if (arg === '--memory-limit') args.memoryLimit = argv[++i] ?? '';
    else if (arg === '--dir') args.dir = argv[++i];
    else if (arg === '--keep') args.keep = true;
    else throw new Error(`unknown option ${JSON.stringify(arg)}`);
  }
  return args;
}

/**
 * Planted copies: document id % 100 is 1 (simhash), 2 (passages) or 3 (rewrites); each copies a
 * random earlier document that is no copy (its id a multiple of 100), so that what a copy shares is
 * its source's own.
 */
const KIND_OF = 'id % 100';
const SOURCE_OF = '((hash(id, 7) % id) // 100 * 100)';

/** The fingerprint tables' rows, by SQL. hash(x, salt) is DuckDB's 64-bit hash: random enough, and the same every run. */
function fingerprintSql(n: number, p: number, r: number): { name: string; sql: string }[] {
  const u32 = (expr: string): string => `CAST(${expr} % 4294967296 AS UINTEGER)`;
  // a planted simhash copy flips 0–3 of its source's bits (the bits may repeat: then fewer)
  const flips = [1, 2, 3].map((s) => `CASE WHEN hash(id, ${s}) % 4 < ${s === 1 ? 3 : s === 2 ? 2 : 1} THEN (CAST(1 AS UBIGINT) << CAST(hash(id, ${s + 10}) % 64 AS INTEGER)) ELSE CAST(0 AS UBIGINT) END`);
  const planted = `xor(xor(xor(hash(${SOURCE_OF}), ${flips[0]}), ${flips[1]}), ${flips[2]})`;
  // a copy takes its source's first half of hashes (j < half) and has its own after
  const owner = (half: number, kind: number): string => `CASE WHEN ${KIND_OF} = ${kind} AND id > 0 AND j < ${half} THEN ${SOURCE_OF} ELSE id END`;
  return [
    {
      name: 'documents',
      sql: `INSERT INTO documents (id, path, title, simhash, check_simhash, words)
SELECT id, lpad(CAST(id AS VARCHAR), 8, '0'), '', CASE WHEN ${KIND_OF} = 1 AND id > 0 THEN ${planted} ELSE hash(id) END, hash(id, 99), 510
FROM (SELECT CAST(range AS UBIGINT) AS id FROM range(${n}))`,
    },
    {
      name: 'passage_hashes',
      sql: `INSERT INTO passage_hashes SELECT DISTINCT ${u32(`hash(${owner(Math.floor(p / 2), 2)}, j, 1)`)} AS hash, ${u32(`hash(${owner(Math.floor(p / 2), 2)}, j, 3)`)} AS second_hash, CAST(id AS UINTEGER) AS doc
FROM (SELECT CAST(range AS UBIGINT) AS id FROM range(${n})), (SELECT range AS j FROM range(${p}))`,
    },
    {
      name: 'rewrite_index',
      sql: `INSERT INTO rewrite_index SELECT DISTINCT ${u32(`hash(${owner(Math.floor(r / 2), 3)}, j, 2)`)} AS hash, CAST(id AS UINTEGER) AS doc
FROM (SELECT CAST(range AS UBIGINT) AS id FROM range(${n})), (SELECT range AS j FROM range(${r}))`,
    },
  ];
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const gib = (bytes: number): string => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
const vmHwmBytes = (): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) * 1024;

/** Bytes of the files under `dir`. */
function folderBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    try {
      total += statSync(join(entry.parentPath, entry.name)).size;
    } catch {
      // removed while listing: spill files come and go
    }
  }
  return total;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const dir = args.dir ?? mkdtempSync(join(tmpdir(), 'doppel-join-'));
  if (existsSync(join(dir, DATABASE_FILE))) throw new Error(`${join(dir, DATABASE_FILE)} exists already: give an empty --dir`);
  const n = args.documents;
  console.log(`bench:scan-join: ${n.toLocaleString('en-US')} documents' fingerprints, ${args.passages} passage hashes and ${args.rewrites} rewrite index hashes each, 1% each planted simhash, passage and rewrite copies; DuckDB memory_limit ${args.memoryLimit}, ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)} at the start`);
  const db = await ScanDatabase.open({ stateDir: dir, memoryLimit: args.memoryLimit });
  // DuckDB's memory and the spill folder, polled while a statement runs (after it, the spill is gone)
  let peakHeld = 0;
  let peakSpill = 0;
  let peakDisk = 0;
  let polling = false;
  const poll = setInterval(() => {
    if (polling) return;
    polling = true;
    peakSpill = Math.max(peakSpill, folderBytes(join(dir, 'tmp')));
    peakDisk = Math.max(peakDisk, folderBytes(dir));
    db.rows('SELECT sum(memory_usage_bytes)::BIGINT AS held FROM duckdb_memory()', db.output).then(
      ([row]) => {
        peakHeld = Math.max(peakHeld, Number(row?.held ?? 0));
        polling = false;
      },
      () => (polling = false),
    );
  }, 500);
  const started = performance.now();
  let last = started;
  let cpuLast = process.cpuUsage();
  const count = async (table: string): Promise<number> => Number((await db.rows(`SELECT count(*)::BIGINT AS n FROM ${table}`, db.main))[0]!.n);
  const step = async (name: string, run: () => Promise<unknown>, table?: string): Promise<void> => {
    await run();
    const now = performance.now();
    const cpu = process.cpuUsage(cpuLast);
    const rows = table === undefined ? '' : `${(await count(table)).toLocaleString('en-US').padStart(14)} rows in ${table}`;
    console.log(`  ${((now - last) / 1000).toFixed(1).padStart(7)} s  ${((cpu.user + cpu.system) / 1e6).toFixed(1).padStart(7)} s CPU  ${name.padEnd(34)} ${rows}  (VmHWM so far ${mib(vmHwmBytes())}, database ${gib(folderBytes(dir))})`);
    last = performance.now();
    cpuLast = process.cpuUsage();
  };
  try {
    console.log('\n     wall       CPU    step');
    for (const { name, sql: statement } of fingerprintSql(n, args.passages, args.rewrites)) await step(`write ${name}`, () => db.run(statement), name);
    await db.run(outputTables({ name: 'distance', type: 'INTEGER' }));
    const design = chooseDesign({ k: 3, expectedSize: n }).design;
    await step(`simhash blocks (${design.tables.length} tables)`, () => db.run(sql.simhashBlocksSql(design)), 'simhash_blocks');
    await step('simhash candidates within 3 bits', () => db.run(sql.simhashCandidatesSql(3, 1000)), 'simhash_candidates');
    await step('pairs (distance checked in SQL)', () => db.run('INSERT INTO out_pairs SELECT a, b, distance, NULL, NULL FROM simhash_candidates'), 'out_pairs');
    await step('clusters (union-find)', () => unionFindClusters(db, 'out_pairs', n), 'cluster_members');
    await step('passage boilerplate', () => db.run(sql.passageBoilerplateSql(BOILERPLATE.maxPages, BOILERPLATE.maxSitePages)), 'passage_boilerplate');
    const passageParts = sql.joinParts(await count('passage_hashes'));
    await step(`passage candidates (${passageParts} parts)`, () => db.run(sql.passageCandidatesSql(['out_pairs'], passageParts)), 'passage_candidates');
    await step('rewrite frequent hashes', () => db.run(sql.rewriteFrequentSql(REWRITE_MAX_PAGES)), 'rewrite_frequent');
    const rewriteParts = sql.joinParts(await count('rewrite_index'));
    await step(`rewrite candidates (≥ ${REWRITE_RULE.minIndexShared}, ${rewriteParts} parts)`, () => db.run(sql.rewriteCandidatesSql(REWRITE_RULE.minIndexShared, ['out_pairs', 'passage_candidates'], rewriteParts)), 'rewrite_candidates');
    const total = (performance.now() - started) / 1000;
    clearInterval(poll);
    await db.sample();

    // every planted pair a candidate? (a passage or rewrite copy of a document that is itself a simhash copy may be reported earlier)
    const planted = async (kind: number, table: string): Promise<string> => {
      const [row] = await db.rows(
        `WITH p AS (SELECT CAST(${SOURCE_OF} AS UINTEGER) AS a, CAST(id AS UINTEGER) AS b FROM (SELECT CAST(range AS UBIGINT) AS id FROM range(1, ${n})) WHERE ${KIND_OF} = ${kind})
SELECT count(*)::BIGINT AS total, count(c.a)::BIGINT AS found FROM p LEFT JOIN (SELECT DISTINCT a, b FROM ${table}) c ON c.a = p.a AND c.b = p.b`,
        db.main,
      );
      return `${Number(row!.found).toLocaleString('en-US')} of ${Number(row!.total).toLocaleString('en-US')}`;
    };
    const [spread] = await db.rows(`SELECT count(*)::BIGINT AS pairs, count(*) FILTER (WHERE b % 100 = 1)::BIGINT AS planted FROM out_pairs`, db.main);
    console.log(`\ntotal ${total.toFixed(1)} s (${(total / 60).toFixed(1)} min) on ${availableParallelism()} cores, load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`peak memory ${mib(vmHwmBytes())} (VmHWM of this process, DuckDB inside it); DuckDB held at most ${mib(Math.max(peakHeld, db.peakMemory))}, spilled at most ${gib(Math.max(peakSpill, db.peakSpilled))} (polled every 0.5 s)`);
    console.log(`disk: the database ${gib(statSync(join(dir, DATABASE_FILE)).size)} at the end, the folder at most ${gib(peakDisk)} (database and spill, polled)`);
    console.log(`planted simhash copies among the pairs: ${await planted(1, 'out_pairs')} (pairs in all: ${Number(spread!.pairs).toLocaleString('en-US')}, ${Number(spread!.planted).toLocaleString('en-US')} of them ending at a planted copy)`);
    console.log(`planted passage copies among the passage candidates: ${await planted(2, 'passage_candidates')}`);
    console.log(`planted rewrite copies among the rewrite candidates: ${await planted(3, 'rewrite_candidates')}`);
    return 0;
  } finally {
    clearInterval(poll);
    db.close();
    if (!args.keep) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept: ${dir}`);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:scan-join: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
