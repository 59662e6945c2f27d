// `scan --keep FILE`: the deduplicated set a data-set builder wants. Every document in no cluster is
// kept, and one of each cluster: its original by the provenance rule (lib/scan/original.ts, the
// `original` of the cluster's entry), or its first member where the rule names none. A document
// without comparable text is in no cluster, so it is kept: it is not known to be a copy.
import type { ScanCluster } from './scan';

/** The names kept, in the documents' order: `names` are the documents' names in input order. */
export function keptNames(names: readonly string[], clusters: readonly Pick<ScanCluster, 'members' | 'original'>[]): string[] {
  const dropped = new Set<string>();
  for (const { members, original } of clusters) {
    const kept = original ?? members[0];
    for (const member of members) if (member !== kept) dropped.add(member);
  }
  return names.filter((name) => !dropped.has(name));
}

/**
 * A name as a line of the file: as it is, unless it holds a line break (a JSONL id may), when it is
 * written as a JSON string so that the file keeps one name a line.
 */
export function keepLine(name: string): string {
  return /[\r\n]/.test(name) ? `${JSON.stringify(name)}\n` : `${name}\n`;
}
