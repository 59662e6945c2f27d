// Scores scan's lists against bench:scan-scale's truth (bench/scan/scale-data.ts): for each planted
// copy and each original it copies, whether some list links the two (pairs, reuse, rewrites: scan
// lists a pair once, in the first list that finds it), and which; and every linked pair whose two
// documents share no original (false pairs), list by list. Documents are named by their id or their
// path (indexOfName); two copies of one original, or a copy and its original, are no false pair.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COPY_KINDS, type CopyKind, GROUPS, type Group, KIND_GROUP } from './scale-copies';
import { type ScaleTruth, indexOfName } from './scale-data';

export interface Link {
  a: string;
  b: string;
}

/** scan's lists, as --json prints them. */
export interface ScanLists {
  pairs: Link[];
  reuse: Link[];
  rewrites: Link[];
}
export const LISTS = ['pairs', 'reuse', 'rewrites'] as const;
export type ListName = (typeof LISTS)[number];

export interface KindScore {
  /** (copy, original) trials: a stitched copy has two. */
  total: number;
  /** Linked by any list. */
  found: number;
  /** Linked by each list. */
  byList: Record<ListName, number>;
}

export interface ScaleScore {
  byKind: Record<CopyKind, KindScore>;
  byGroup: Record<Group, KindScore>;
  /** Linked pairs of documents with no original in common, each list's; and names that are no document. */
  falsePairs: Record<ListName, Link[]>;
  unknownNames: string[];
}

const emptyScore = (): KindScore => ({ total: 0, found: 0, byList: { pairs: 0, reuse: 0, rewrites: 0 } });

const key = (a: number, b: number): number => (a < b ? a * 2 ** 26 + b : b * 2 ** 26 + a);

export function scoreScale(truth: ScaleTruth, lists: ScanLists): ScaleScore {
  if (truth.documents > 2 ** 26) throw new RangeError(`at most ${2 ** 26} documents are scored: got ${truth.documents}`);
  // the originals each copy is made from (a copy also shares its own index with itself)
  const sourcesOf = new Map<number, number[]>();
  for (let i = 0; i < truth.copies.length; i++) sourcesOf.set(truth.copies[i]!, truth.seconds[i]! >= 0 ? [truth.sources[i]!, truth.seconds[i]!] : [truth.sources[i]!]);
  const family = (x: number): number[] => [x, ...(sourcesOf.get(x) ?? [])];
  const unknownNames = new Set<string>();
  const linkedBy = new Map<number, ListName>();
  const falsePairs = { pairs: [], reuse: [], rewrites: [] } as Record<ListName, Link[]>;
  for (const list of LISTS) {
    for (const link of lists[list]) {
      const a = indexOfName(link.a);
      const b = indexOfName(link.b);
      for (const [name, i] of [[link.a, a], [link.b, b]] as const) if (!(i >= 0 && i < truth.documents)) unknownNames.add(name);
      if (!linkedBy.has(key(a, b))) linkedBy.set(key(a, b), list);
      const fb = family(b);
      if (!family(a).some((x) => fb.includes(x))) falsePairs[list].push({ a: link.a, b: link.b });
    }
  }
  const byKind = Object.fromEntries(COPY_KINDS.map((k) => [k, emptyScore()])) as Record<CopyKind, KindScore>;
  const byGroup = Object.fromEntries(GROUPS.map((g) => [g, emptyScore()])) as Record<Group, KindScore>;
  for (let i = 0; i < truth.copies.length; i++) {
    const kind = COPY_KINDS[truth.kinds[i]!]!;
    for (const source of [truth.sources[i]!, truth.seconds[i]!]) {
      if (source < 0) continue;
      const list = linkedBy.get(key(truth.copies[i]!, source));
      for (const s of [byKind[kind], byGroup[KIND_GROUP[kind]]]) {
        s.total++;
        if (list) {
          s.found++;
          s.byList[list]++;
        }
      }
    }
  }
  return { byKind, byGroup, falsePairs, unknownNames: [...unknownNames] };
}

/** The lists of scan's output: one --json object, or --ndjson lines ({"pair"}, {"reuse"}, {"rewrite"}). */
export function parseScanLists(output: string, file = 'scan output'): ScanLists {
  const trimmed = output.trimStart();
  try {
    const report = JSON.parse(trimmed) as Partial<ScanLists>;
    return { pairs: report.pairs ?? [], reuse: report.reuse ?? [], rewrites: report.rewrites ?? [] };
  } catch {
    // not one JSON value: lines
  }
  const lists: ScanLists = { pairs: [], reuse: [], rewrites: [] };
  trimmed.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let entry: { pair?: Link; reuse?: Link; rewrite?: Link };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      throw new Error(`${file}: line ${i + 1} is not JSON: ${line.slice(0, 120)}`);
    }
    if (entry.pair) lists.pairs.push(entry.pair);
    if (entry.reuse) lists.reuse.push(entry.reuse);
    if (entry.rewrite) lists.rewrites.push(entry.rewrite);
  });
  return lists;
}

export const readScanLists = (file: string): ScanLists => parseScanLists(readFileSync(file, 'utf8'), file);

/** The lists `scan --out DIR` wrote: DIR/pairs.ndjson, reuse.ndjson and rewrites.ndjson, one entry a line. */
export function readOutLists(dir: string): ScanLists {
  const read = (list: ListName): Link[] => {
    const file = join(dir, `${list}.ndjson`);
    const links: Link[] = [];
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (!line) return;
      let entry: Partial<Link>;
      try {
        entry = JSON.parse(line) as Partial<Link>;
      } catch {
        throw new Error(`${file}: line ${i + 1} is not JSON: ${line.slice(0, 120)}`);
      }
      if (typeof entry.a !== 'string' || typeof entry.b !== 'string') throw new Error(`${file}: line ${i + 1} has no a and b`);
      links.push({ a: entry.a, b: entry.b });
    });
    return links;
  };
  return { pairs: read('pairs'), reuse: read('reuse'), rewrites: read('rewrites') };
}
