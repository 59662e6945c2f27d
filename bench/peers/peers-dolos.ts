// Dolos's winnowing (@dodona/dolos-core) over the .txt files of a folder, words as tokens, run by
// `npm run bench:peers` as a process of its own, as `scan` is: prints {pairs: [{a, b}]} as JSON.
//   tsx bench/peers/peers-dolos.ts DIR
// A pair is reported when its longest shared fragment runs over two fingerprints in a row or more
// (Pair.longest ≥ 2), as Doppel asks two shared hashes of a pair. The parameters are Doppel's own
// (5-word k-grams, windows of 26: any shared run of 30 words gives a shared fingerprint), and a
// fingerprint held by more than 100 files is ignored, as Doppel's boilerplate rule does.
import { readFile, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { File, FingerprintIndex, Region, TokenizedFile } from '@dodona/dolos-core';

const K = 5;
const WINDOW = 26;
const MAX_FILES_A_FINGERPRINT = 100;
const MIN_LONGEST = 2;

async function textFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.txt')) out.push(join(entry.parentPath, entry.name));
  }
  return out.sort();
}

/** Words of a text (letters and digits, lowercased), each with its place as a Region on one line. */
function tokenize(text: string): { tokens: string[]; mapping: Region[] } {
  const tokens: string[] = [];
  const mapping: Region[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    tokens.push(m[0]);
    mapping.push(new Region(0, m.index, 0, m.index + m[0].length));
  }
  return { tokens, mapping };
}

async function main(dir: string): Promise<void> {
  const paths = await textFiles(dir);
  const files = await Promise.all(
    paths.map(async (path) => {
      const text = await readFile(path, 'utf8');
      const { tokens, mapping } = tokenize(text);
      return new TokenizedFile(new File(relative(dir, path).split(sep).join('/'), text), tokens, mapping);
    }),
  );
  const index = new FingerprintIndex(K, WINDOW, false, MAX_FILES_A_FINGERPRINT);
  index.addFiles(files);
  // the pairs of files that share a fingerprint, then Dolos's Pair for each
  const candidates = new Map<string, [TokenizedFile, TokenizedFile]>();
  for (const shared of index.sharedFingerprints()) {
    if (shared.ignored || shared.fileCount() < 2) continue;
    const holders = shared.files();
    for (let i = 0; i < holders.length; i++) {
      for (let j = i + 1; j < holders.length; j++) {
        const [a, b] = holders[i]!.id < holders[j]!.id ? [holders[i]!, holders[j]!] : [holders[j]!, holders[i]!];
        candidates.set(`${a.id}/${b.id}`, [a, b]);
      }
    }
  }
  const pairs: { a: string; b: string; similarity: number; longest: number }[] = [];
  for (const [a, b] of candidates.values()) {
    const pair = index.getPair(a, b);
    if (pair.longest >= MIN_LONGEST) pairs.push({ a: a.path, b: b.path, similarity: pair.similarity, longest: pair.longest });
  }
  process.stdout.write(JSON.stringify({ files: files.length, candidates: candidates.size, pairs }) + '\n');
}

const dir = process.argv[2];
if (dir === undefined) {
  process.stderr.write('usage: tsx bench/peers/peers-dolos.ts DIR\n');
  process.exitCode = 2;
} else await main(dir);
