// `scan --keep FILE`: one document name a line, the deduplicated set (lib/scan/keep.ts says which).
// In memory from the result's documents and clusters; on disk by SQL over the joined scan's tables,
// streamed to the file in id order (the input's), so that no list of names is held. A cluster's id
// is its first member's (components.ts), and out_clusters holds its original by the provenance
// rule, or null.
import { keepLine, keptNames } from '../../lib/scan/keep';
import type { ScanResult } from '../scan-lists';
import { ScanDatabase } from './database';
import { writeLines } from './outputs';

/** Every document in no cluster, and of each cluster its original, else its first member; in input order. */
export const KEEP_SQL = `SELECT d.path FROM documents d
LEFT JOIN cluster_members m ON m.doc = d.id
LEFT JOIN out_clusters c ON c.cluster = m.cluster
WHERE m.doc IS NULL OR (c.original IS NULL AND d.id = m.cluster) OR d.path = c.original
ORDER BY d.id`;

/** The kept names of a joined scan's database, a chunk of rows at a time. */
export async function* keptOnDisk(db: ScanDatabase): AsyncGenerator<string> {
  for await (const rows of db.stream(KEEP_SQL, await db.count(KEEP_SQL))) for (const [path] of rows) yield path as string;
}

/** Writes the kept names of a scan, in memory (its result) or on disk (its joined database); how many. */
export function writeKeep(file: string, from: Pick<ScanResult, 'documents' | 'clusters'> | ScanDatabase): Promise<number> {
  const names = from instanceof ScanDatabase ? keptOnDisk(from) : keptNames(from.documents.map((d) => d.path), from.clusters);
  return writeLines(file, names, undefined, keepLine);
}
