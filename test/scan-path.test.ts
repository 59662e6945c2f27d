// scan's choice of path (lib/scan/scan-path.ts) and the listing's estimate it is made from
// (bin/scan-size.ts): exact tables, the thresholds given in each case so that they do not move
// the cases; and the command itself, which says on --timings which path it took and why.
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GZIP_RATIO, HTML_TEXT_SHARE, type InputEstimate, ON_DISK_FROM, type PathChoice, type PathRequest, type SizedFile, chooseScanPath, textBytesOf } from '../lib/scan/scan-path';
import { estimateInput, sizedFormat } from '../bin/scan-size';
import { type InputFile, formatOf } from '../bin/scan-sources';
import { runScan } from './support/run-scan';

describe('textBytesOf', () => {
  const cases: [SizedFile, number][] = [
    [{ format: 'text', bytes: 1000, gzipped: false }, 1000],
    [{ format: 'wet', bytes: 1000, gzipped: false }, 1000],
    [{ format: 'wet', bytes: 1000, gzipped: true }, 1000 * GZIP_RATIO],
    [{ format: 'jsonl', bytes: 1000, gzipped: false }, 1000],
    [{ format: 'jsonl', bytes: 1000, gzipped: true }, 1000 * GZIP_RATIO],
    [{ format: 'html', bytes: 1000, gzipped: false }, 1000 * HTML_TEXT_SHARE],
    [{ format: 'warc', bytes: 1000, gzipped: false }, 1000 * HTML_TEXT_SHARE],
    [{ format: 'warc', bytes: 1000, gzipped: true }, 1000 * GZIP_RATIO * HTML_TEXT_SHARE],
    [{ format: 'text', bytes: 0, gzipped: false }, 0],
  ];
  it.each(cases)('%j: %d bytes of text', (file, expected) => {
    expect(textBytesOf(file)).toBeCloseTo(expected, 9);
  });
});

describe('chooseScanPath', () => {
  const from = { textBytes: 100e6, files: 30_000 };
  const input = (files: number, textBytes: number, complete = true): InputEstimate => ({ files, textBytes, complete });
  const auto: PathRequest = { ndjson: false };
  const cases: [string, InputEstimate, PathRequest, PathChoice][] = [
    ['a small folder', input(940, 5.2e6), auto, { path: 'memory', bySize: 'memory', reason: "5.2 MB of text expected in 940 files: under the on-disk path's 100 MB of text and 30,000 files" }],
    ['nothing', input(0, 0), auto, { path: 'memory', bySize: 'memory', reason: "0 kB of text expected in 0 files: under the on-disk path's 100 MB of text and 30,000 files" }],
    ['one file', input(1, 1234), auto, { path: 'memory', bySize: 'memory', reason: "1 kB of text expected in 1 file: under the on-disk path's 100 MB of text and 30,000 files" }],
    ['a byte under the text', input(29_999, 100e6 - 1), auto, { path: 'memory', bySize: 'memory', reason: "100 MB of text expected in 29,999 files: under the on-disk path's 100 MB of text and 30,000 files" }],
    ['the text reached', input(12, 100e6), auto, { path: 'disk', bySize: 'disk', reason: "100 MB of text expected in 12 files: the on-disk path's 100 MB of text reached" }],
    ['the files reached', input(30_000, 45e6), auto, { path: 'disk', bySize: 'disk', reason: "45 MB of text expected in 30,000 files: the on-disk path's 30,000 files reached" }],
    ['both, counted until they were', input(30_000, 120.25e6, false), auto, { path: 'disk', bySize: 'disk', reason: "at least 120.3 MB of text expected in at least 30,000 files: the on-disk path's 100 MB of text and 30,000 files reached" }],
    ['a big JSONL file with --ndjson', input(0, 340e6), { ndjson: true }, { path: 'memory', bySize: 'disk', reason: "340 MB of text expected in 0 files: the on-disk path's 100 MB of text reached, but --ndjson streams only in memory" }],
    ['a byte under a megabyte', input(3, 999_999), auto, { path: 'memory', bySize: 'memory', reason: "1,000 kB of text expected in 3 files: under the on-disk path's 100 MB of text and 30,000 files" }],
    ['a small folder with --ndjson', input(10, 1e6), { ndjson: true }, { path: 'memory', bySize: 'memory', reason: "1 MB of text expected in 10 files: under the on-disk path's 100 MB of text and 30,000 files" }],
    ['--on-disk, small', input(10, 1e6), { forced: 'disk', ndjson: false }, { path: 'disk', reason: '--on-disk' }],
    ['--in-memory, big', input(100_000, 340e6), { forced: 'memory', ndjson: false }, { path: 'memory', reason: '--in-memory' }],
    ['--in-memory with --ndjson', input(100_000, 340e6), { forced: 'memory', ndjson: true }, { path: 'memory', reason: '--in-memory' }],
  ];
  it.each(cases)('%s', (_, estimate, request, expected) => {
    expect(chooseScanPath(estimate, request, from)).toEqual(expected);
  });

  it('takes ON_DISK_FROM by default', () => {
    expect(chooseScanPath(input(ON_DISK_FROM.files - 1, ON_DISK_FROM.textBytes - 1), auto).path).toBe('memory');
    expect(chooseScanPath(input(ON_DISK_FROM.files, 0), auto).path).toBe('disk');
    expect(chooseScanPath(input(0, ON_DISK_FROM.textBytes), auto).path).toBe('disk');
  });
});

describe('estimateInput', () => {
  // listed as listInputs lists a file given by name
  const file = (name: string): InputFile => ({ name, absolute: `/in/${name}`, format: formatOf(name)! });
  const sizes: Record<string, number> = { '/in/a.txt': 3000, '/in/b.html': 40_000, '/in/c.jsonl.gz': 1000, '/in/d.wet.gz': 500, '/in/e.warc.gz': 2000, '/in/f.WET': 700 };
  const sizeOf = (path: string): number => {
    const size = sizes[path];
    if (size === undefined) throw new Error(`ENOENT: ${path}`);
    return size;
  };
  const big = { textBytes: 1e12, files: 1e9 };

  it.each([
    ['a.txt', { format: 'text', gzipped: false }],
    ['b.html', { format: 'html', gzipped: false }],
    ['c.jsonl.gz', { format: 'jsonl', gzipped: true }],
    ['d.wet.gz', { format: 'wet', gzipped: true }],
    ['e.warc.gz', { format: 'warc', gzipped: true }],
    ['f.WET', { format: 'wet', gzipped: false }],
  ])('%s is counted as %j', (name, expected) => {
    expect(sizedFormat(file(name))).toEqual(expected);
  });

  it('sums each file by its format, counts the page and text files, and counts a file it cannot stat as 0 bytes', () => {
    const files = ['a.txt', 'b.html', 'c.jsonl.gz', 'd.wet.gz', 'e.warc.gz', 'f.WET', 'gone.txt'].map(file);
    const text = 3000 + 40_000 * HTML_TEXT_SHARE + 1000 * GZIP_RATIO + 500 * GZIP_RATIO + 2000 * GZIP_RATIO * HTML_TEXT_SHARE + 700;
    const estimate = estimateInput(files, big, sizeOf);
    expect(estimate).toEqual({ files: 3, textBytes: expect.closeTo(text, 6), complete: true });
    expect(estimateInput([], big, sizeOf)).toEqual({ files: 0, textBytes: 0, complete: true });
  });

  it('stops counting once a threshold is reached, and says so', () => {
    const asked: string[] = [];
    const counting = (path: string): number => (asked.push(path), sizeOf(path));
    // 3,000 bytes of a.txt reach 2,500 bytes of text: b.html is not stat'ed
    expect(estimateInput(['a.txt', 'b.html', 'c.jsonl.gz'].map(file), { textBytes: 2500, files: 1e9 }, counting)).toEqual({ files: 1, textBytes: 3000, complete: false });
    expect(asked).toEqual(['/in/a.txt']);
    // two files reach a threshold of two files
    expect(estimateInput(['a.txt', 'b.html', 'f.WET'].map(file), { textBytes: 1e12, files: 2 }, sizeOf)).toEqual({ files: 2, textBytes: 3000 + 40_000 * HTML_TEXT_SHARE, complete: false });
    // reached with the last file: every file was counted
    expect(estimateInput(['a.txt', 'b.html'].map(file), { textBytes: 1e12, files: 2 }, sizeOf)).toEqual({ files: 2, textBytes: 3000 + 40_000 * HTML_TEXT_SHARE, complete: true });
  });
});

describe('scan picks its path by the input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'doppel-scan-path-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // a sparse file of zeros that its size makes big enough for the on-disk path: it is not gzip, so it
  // stops at its start with a note, and the scan has no document
  const fake = join(dir, 'big.jsonl.gz');
  writeFileSync(fake, '');
  truncateSync(fake, Math.ceil(ON_DISK_FROM.textBytes / GZIP_RATIO));
  const run = runScan;
  const pathLine = (stderr: string): string | undefined => stderr.split('\n').find((line) => /^(in memory|on disk): /.test(line));

  it('in memory for samples/, on disk for a big file, in memory for it with --ndjson or --in-memory (with a note)', async () => {
    const [samples, big, ndjson, inMemory, forced] = await Promise.all([
      run(['--json', '--timings']),
      run([fake, '--json', '--timings']),
      run([fake, '--ndjson', '--timings']),
      run([fake, '--json', '--timings', '--in-memory']),
      run(['--json', '--timings', '--on-disk']),
    ]);
    expect(samples.code).toBe(0);
    expect(pathLine(samples.stderr)).toMatch(/^in memory: [\d.]+ (kB|MB) of text expected in \d+ files: under the on-disk path's 70 MB of text and 20,000 files$/);
    expect([big.code, pathLine(big.stderr)]).toEqual([0, "on disk: 70 MB of text expected in 0 files: the on-disk path's 70 MB of text reached"]);
    expect(JSON.parse(big.stdout).documents).toEqual([]);
    expect([ndjson.code, pathLine(ndjson.stderr)]).toEqual([0, "in memory: 70 MB of text expected in 0 files: the on-disk path's 70 MB of text reached, but --ndjson streams only in memory"]);
    expect(ndjson.stderr).toContain("scan: 70 MB of text expected in 0 files: the on-disk path's 70 MB of text reached, but --ndjson streams only in memory (--out DIR writes each list as NDJSON, on disk)\n");
    expect([inMemory.code, pathLine(inMemory.stderr)]).toEqual([0, 'in memory: --in-memory']);
    expect([forced.code, pathLine(forced.stderr)]).toEqual([0, 'on disk: --on-disk']);
    expect(forced.stdout).toBe(samples.stdout);
  }, 120_000);

  it.each([
    [['--on-disk', '--in-memory'], '--on-disk and --in-memory: choose one'],
    [['--in-memory', '--memory-limit', '1GB'], '--memory-limit is the limit of the on-disk path: not with --in-memory or --ndjson'],
    [['--ndjson', '--memory-limit', '1GB'], '--memory-limit is the limit of the on-disk path: not with --in-memory or --ndjson'],
  ])('refuses %j', async (args, message) => {
    const refused = await run(args);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining(`scan: ${message}.`)]);
  }, 60_000);
});
