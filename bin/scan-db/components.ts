// Clusters from the near-duplicate pairs of the on-disk scan: each document in a pair gets its
// cluster's first (least) id in cluster_members. Union-find over the document ids in typed arrays
// (12 bytes a document: 120 MB at ten million) while they fit; connected components in rounds of
// SQL (candidates.ts componentsSql) beyond.
import { UnionFind } from '../../lib/report/clusters';
import { componentsSql } from './candidates';
import type { ScanDatabase } from './database';

/** Rounds of SQL before the components are declared not converging (each round at least halves a path's length in labels). */
export const MAX_ROUNDS = 64;

/** The first (least) member of each element's set, -1 for an element alone in its set. */
export function firstMembers(sets: UnionFind): Int32Array {
  const firstOfRoot = new Int32Array(sets.n).fill(-1);
  const first = new Int32Array(sets.n).fill(-1);
  for (let i = 0; i < sets.n; i++) {
    if (sets.sizeOf(i) < 2) continue;
    const root = sets.find(i);
    if (firstOfRoot[root] === -1) firstOfRoot[root] = i;
    first[i] = firstOfRoot[root]!;
  }
  return first;
}

/** Fills cluster_members from `edges` (a table of a, b) by union-find over the `n` documents. */
export async function unionFindClusters(db: ScanDatabase, edges: string, n: number): Promise<void> {
  const sets = new UnionFind(n);
  for await (const rows of db.stream(`SELECT a, b FROM ${edges}`, await db.count(`SELECT a FROM ${edges}`))) for (const [a, b] of rows) sets.union(a as number, b as number);
  const first = firstMembers(sets);
  const app = await db.output.createAppender('cluster_members');
  for (let i = 0; i < n; i++) {
    if (first[i] === -1) continue;
    app.appendUInteger(i);
    app.appendUInteger(first[i]!);
    app.endRow();
  }
  app.closeSync();
}

/** Fills cluster_members from `edges` by connected components in rounds of SQL; the rounds it took. */
export async function sqlClusters(db: ScanDatabase, edges: string, maxRounds = MAX_ROUNDS): Promise<number> {
  const sql = componentsSql(edges);
  await db.run(sql.start);
  for (let round = 1; round <= maxRounds; round++) {
    await db.run(sql.round);
    const [row] = await db.rows(sql.changed, db.main);
    await db.run('DROP TABLE cc_labels; ALTER TABLE cc_next RENAME TO cc_labels;');
    if (Number(row?.changed) === 0) {
      await db.run('INSERT INTO cluster_members SELECT node AS doc, label AS cluster FROM cc_labels; DROP TABLE cc_labels; DROP TABLE cc_edges;');
      return round;
    }
  }
  throw new Error(`the connected components did not converge in ${maxRounds} rounds`);
}
