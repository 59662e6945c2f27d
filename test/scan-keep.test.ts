// `scan --keep FILE` (lib/scan/keep.ts, bin/scan-db/keep.ts): one name a line, in input order, every
// document in no cluster and one per cluster (its original by the provenance rule, else its first
// member); the same file from memory and on disk, with and without --out.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepLine, keptNames } from '../lib/scan/keep';
import { runScan } from './support/run-scan';
import { scanCorpus, writeCorpus } from './support/scan-corpus';

describe('keptNames', () => {
  const cluster = (members: string[], original: string | null = null): { members: string[]; original: string | null } => ({ members, original });
  it.each([
    ['no clusters: every document', ['a', 'b', 'c'], [], ['a', 'b', 'c']],
    ['a cluster without an original: its first member', ['a', 'b', 'c', 'd'], [cluster(['b', 'd'])], ['a', 'b', 'c']],
    ['a cluster whose original is not its first member: the original', ['a', 'b', 'c', 'd'], [cluster(['a', 'c', 'd'], 'c')], ['b', 'c']],
    ['two clusters, one of each kind, in input order', ['x', 'y', 'z', 'u', 'v'], [cluster(['x', 'u'], 'u'), cluster(['y', 'v'])], ['y', 'z', 'u']],
    ['no documents', [], [], []],
  ] as const)('%s', (_, names, clusters, want) => {
    expect(keptNames(names, clusters)).toEqual(want);
  });

  it.each([
    ['sub/a.html', 'sub/a.html\n'],
    ['https://news.example/a?b=1', 'https://news.example/a?b=1\n'],
    ['id with\nline break', '"id with\\nline break"\n'],
    ['id with\r\nboth', '"id with\\r\\nboth"\n'],
  ])('keepLine(%j)', (name, want) => expect(keepLine(name)).toBe(want));
});

const BODY = Array.from({ length: 12 }, (_, i) => `<p>The mill on the Wren estuary turned again on Saturday for the first time since 1934, sentence ${i}, after eleven years of work by volunteers.</p>`).join('');
const page = (date: string): string =>
  `<!doctype html><html><head><title>Mill</title><meta property="article:published_time" content="${date}"></head><body><article><h1>Mill</h1>${BODY}</article></body></html>`;
const note = (topic: string, extra = ''): string =>
  `${topic}\n\n${Array.from({ length: 30 }, (_, i) => `The ${topic} notes for day ${i} say the weather held and the work went on as planned${extra}.`).join(' ')}\n`;

/** A folder whose input order is its paths' order, and the file --keep must write for it. */
const FOLDER: Record<string, string> = {
  // a copy dated five days after the original: first in the cluster, not kept
  'a-copy/mill.html': page('2024-05-09'),
  // two texts a word apart that say nothing of their origin: the first is kept
  'b1.txt': note('harbour'),
  'b2.txt': note('harbour', ' again'),
  'courier.example/mill.html': page('2024-05-04'),
  // no text to compare: in no cluster, so kept
  'empty.txt': '',
  'solo.txt': note('orchard'),
};
const EXPECTED = ['b1.txt', 'courier.example/mill.html', 'empty.txt', 'solo.txt'].map((n) => `${n}\n`).join('');

const temporary = mkdtempSync(join(tmpdir(), 'doppel-keep-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

describe('scan --keep', () => {
  const folder = join(temporary, 'folder');
  writeCorpus(folder, new Map(Object.entries(FOLDER)));

  // --json (to check the document with no text) or --out DIR (to check the clusters written)
  it.each([
    ['in memory', ['--json']],
    ['on disk', ['--on-disk', '--memory-limit', '256MB', '--json']],
    ['in memory with --out', ['--out']],
    ['on disk with --out', ['--on-disk', '--out']],
  ])('%s: the exact file', async (label, options) => {
    const keep = join(temporary, `${label}.txt`);
    const out = join(temporary, `${label}-out`);
    const run = await runScan([folder, '--jobs', '1', ...options.map((o) => (o === '--out' ? `--out=${out}` : o)), '--keep', keep]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(readFileSync(keep, 'utf8')).toBe(EXPECTED);
    if (options.includes('--out')) {
      expect(run.stdout).toMatch(/^6 documents, 2 pairs within 3 bits, 2 clusters, /);
      expect(readFileSync(join(out, 'clusters.ndjson'), 'utf8')).toBe(
        '{"members":["a-copy/mill.html","courier.example/mill.html"],"original":"courier.example/mill.html","evidence":"published"}\n{"members":["b1.txt","b2.txt"],"original":null,"evidence":null}\n',
      );
    } else expect(JSON.parse(run.stdout).documents.find((d: { path: string }) => d.path === 'empty.txt').simhash).toBeNull();
  }, 60_000);

  it('writes the same file from memory and on disk over a seeded folder of copies of every kind', async () => {
    const corpus = join(temporary, 'corpus');
    writeCorpus(corpus, scanCorpus(48));
    const [memory, disk] = [join(temporary, 'corpus-memory.txt'), join(temporary, 'corpus-disk.txt')];
    const runs = await Promise.all([runScan([corpus, '--jobs', '1', '--json', '--keep', memory]), runScan([corpus, '--jobs', '1', '--on-disk', '--keep', disk])]);
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    const kept = readFileSync(memory, 'utf8');
    expect(readFileSync(disk, 'utf8')).toBe(kept);
    // the file is what keptNames makes of the report, and the folder has clusters of both kinds
    const { documents, clusters } = JSON.parse(runs[0]!.stdout) as { documents: { path: string }[]; clusters: { members: string[]; original: string | null }[] };
    expect(kept).toBe(keptNames(documents.map((d) => d.path), clusters).map(keepLine).join(''));
    expect(clusters.filter((c) => c.original !== null && c.original !== c.members[0]).length).toBeGreaterThan(0);
    expect(clusters.filter((c) => c.original === null).length).toBeGreaterThan(0);
    const dropped = clusters.reduce((sum, c) => sum + c.members.length - 1, 0);
    expect(kept.split('\n').length - 1).toBe(documents.length - dropped);
  }, 180_000);

  it('needs a file name, and --help says what it keeps', async () => {
    const [run, help] = await Promise.all([runScan(['--keep']), runScan(['--help'])]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringContaining('--keep needs a value')]);
    expect(help.stdout).toMatch(/--keep FILE[\s\S]*original, or its first member[\s\S]*comparable text is kept/);
  });
});

// a writer of the file keeps no stray state between calls: a second --keep to the same path replaces it
describe('scan --keep over an existing file', () => {
  it('replaces it', async () => {
    const keep = join(temporary, 'replaced.txt');
    writeFileSync(keep, 'old line\n'.repeat(100));
    const folder = join(temporary, 'folder-2');
    writeCorpus(folder, new Map(Object.entries(FOLDER)));
    const run = await runScan([folder, '--jobs', '1', '--keep', keep]);
    expect(run.code).toBe(0);
    expect(readFileSync(keep, 'utf8')).toBe(EXPECTED);
  }, 60_000);
});
