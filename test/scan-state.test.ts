// `scan --state DIR` (bin/scan-db/state.ts), end to end through the CLI: a run SIGKILLed while reading,
// during the join and while writing --out (the test hook DOPPEL_SCAN_KILL_AT, bin/scan-db/test-hooks.ts),
// then started again, ends with the output of an uninterrupted run byte for byte (--out's files,
// --json, the text report), and reads no document twice; a run whose disk fills stops with one line
// and resumes; a run of other options or changed inputs is refused. The inputs: a seeded folder
// (support/scan-corpus.ts) and a JSONL file of generated articles (bench/scan/scale-data.ts), whose
// last line repeats a folder file's name (a resumed run must make it unique as the first run did).
// Below, without the CLI: the inputs listed after each place of a mixed run are exactly the rest.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SCALE_OPTIONS, scaleDocuments } from '../bench/scan/scale-data';
import { listedOf } from '../bin/scan-inputs';
import type { Listed } from '../bin/scan-read';
import { listInputs } from '../bin/scan-sources';
import { page, warcFile } from './support/warc';
import { DEFAULT_COUNTS, scanCorpus, writeCorpus } from './support/scan-corpus';
import { ROOT } from './support/run-scan';

// tsx as a loader in the scan's own process (its CLI would run the scan in a child and exit 137 when that is killed)
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const SCAN = join(ROOT, 'bin', 'scan.ts');

const work = mkdtempSync(join(tmpdir(), 'doppel-scan-state-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const folder = join(work, 'folder');
const corpus = scanCorpus(5, { ...DEFAULT_COUNTS, articles: 70, wholeCopies: 20, partialCopies: 20, rewrites: 20, boxed: 0 });
writeCorpus(folder, corpus);
const jsonl = join(work, 'set.jsonl');
const repeatedName = `${folder}/articles/a001.txt`;
const lines = [...scaleDocuments({ ...SCALE_OPTIONS, documents: 120, seed: 11 })].map((d) => JSON.stringify({ id: d.id, [d.html ? 'html' : 'text']: d.content }));
lines.push(JSON.stringify({ id: repeatedName, text: 'A line named as a file of the folder is, so that its name is made unique. '.repeat(8) }));
writeFileSync(jsonl, lines.join('\n') + '\n');
const TOTAL = corpus.size + lines.length;
const INPUTS = [folder, jsonl];

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The scan CLI on `args`, with test hooks in `env`; under a file size limit of `limitKiB` (writes past it fail with EFBIG) when given. */
function run(args: readonly string[], env: Record<string, string> = {}, limitKiB?: number): Promise<Run> {
  const command = ['--import', TSX, SCAN, '--jobs', '2', ...args];
  const [file, argv] = limitKiB === undefined ? [process.execPath, command] : ['bash', ['-c', `trap '' XFSZ; ulimit -f ${limitKiB}; exec "$0" "$@"`, process.execPath, ...command]];
  return new Promise((done, fail) => {
    const child = spawn(file, argv, { cwd: work, env: { ...process.env, NO_COLOR: '1', DOPPEL_SCAN_COMMIT_EVERY: '50', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

/** The documents stored before a resumed run and those it read, as it says once it has read them, for the count of documents read twice. */
function resumedCounts(stderr: string): { stored: number; read: number } {
  const said = /^scan: (\d+) documents read in this run after the (\d+) stored/m.exec(stderr);
  return { stored: Number(said?.[2]), read: Number(said?.[1]) };
}

/** The join steps a run's --timings list. */
function joinSteps(stderr: string): string[] {
  return ['simhash pairs', 'clusters', 'passages pairs', 'rewrites pairs'].filter((step) => new RegExp(`%  ${step}$`, 'm').test(stderr));
}

/** Every file of an --out folder, by name. */
function filesOf(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).sort().map((name) => [name, readFileSync(join(dir, name))]));
}

describe('scan --state', () => {
  // uninterrupted runs: --out on disk, --json and the text report (in memory, the same output)
  const baseline = Promise.all([run([...INPUTS, '--on-disk', '--out', 'out-base']), run([...INPUTS, '--json']), run(INPUTS)]);

  it('killed while reading, during the join and while writing --out, resumes each time and ends as an uninterrupted run', async () => {
    const [outBase, json, text] = await baseline;
    expect([outBase.code, json.code, text.code]).toEqual([0, 0, 0]);
    const base = filesOf(join(work, 'out-base'));
    expect([...base.keys()]).toEqual(['clusters.ndjson', 'clusters.parquet', 'pairs.ndjson', 'pairs.parquet', 'reuse.ndjson', 'reuse.parquet', 'rewrites.ndjson', 'rewrites.parquet']);
    const parsed = JSON.parse(json.stdout) as { documents: { path: string }[]; pairs: unknown[]; reuse: unknown[]; rewrites: unknown[] };
    expect(parsed.documents.length).toBe(TOTAL);
    expect([parsed.pairs.length, parsed.reuse.length, parsed.rewrites.length].every((n) => n > 5)).toBe(true);
    expect(parsed.documents.at(-1)!.path).toBe(`${repeatedName} (${jsonl} line ${lines.length})`);
    // the same --out folder each time: the summary line names it
    const args = [...INPUTS, '--state', 'state', '--out', 'out', '--timings'];
    const summary = outBase.stdout.replace('out-base', 'out');

    // 1. killed at the 210th document: the checkpoint of the 200th (commits every 50) is kept, in the JSONL file
    const reading = await run(args, { DOPPEL_SCAN_KILL_AT: 'read:210' });
    expect([reading.signal, reading.stdout]).toEqual(['SIGKILL', '']);

    // 2. goes on after the 200th, reads the rest once; killed once the reuse step has filled its table, before it is recorded
    const joining = await run(args, { DOPPEL_SCAN_KILL_AT: 'join:reuse' });
    expect(joining.signal).toBe('SIGKILL');
    expect(resumedCounts(joining.stderr)).toEqual({ stored: 200, read: TOTAL - 200 });

    // 3. reads nothing, runs the reuse step again from an empty table, then the rewrites, and prints --json as the uninterrupted run did
    const joined = await run([...INPUTS, '--state', 'state', '--json', '--timings']);
    expect(joined.stderr).toContain(`${TOTAL} documents stored, all read; joining`);
    expect(joined.stderr).toMatch(/read and fingerprint 0 (documents|files)/);
    expect(joinSteps(joined.stderr)).toEqual(['passages pairs', 'rewrites pairs']);
    expect(joined.stdout).toBe(json.stdout);

    // 4. finished; killed while writing --out, after reuse.ndjson
    const writing = await run(args, { DOPPEL_SCAN_KILL_AT: 'out:reuse' });
    expect(writing.signal).toBe('SIGKILL');
    expect(['pairs.ndjson', 'pairs.parquet', 'reuse.ndjson', 'reuse.parquet'].map((f) => existsSync(join(work, 'out', f)))).toEqual([true, true, true, false]);

    // 5. writes the lists again, byte for byte those of the uninterrupted run, and its text report is the same
    const done = await run(args);
    expect([done.code, done.stdout]).toEqual([0, summary]);
    expect(done.stderr).toContain('is finished: its result, nothing read');
    expect(joinSteps(done.stderr)).toEqual([]);
    expect(filesOf(join(work, 'out'))).toEqual(base);
    expect((await run([...INPUTS, '--state', 'state'])).stdout).toBe(text.stdout);

    // other options, or other inputs, are refused with one line
    const minhash = await run([...INPUTS, '--state', 'state', '--method', 'minhash']);
    expect([minhash.code, minhash.stderr]).toEqual([2, 'scan: state holds a scan begun with other inputs or options (method: simhash there, minhash here; threshold: 3 there, 0.3 here): run it as it was begun, or give another --state folder\n']);
    const fewer = await run([folder, '--state', 'state']);
    expect([fewer.code, fewer.stderr]).toEqual([2, `scan: state holds a scan begun with other inputs or options (inputs: ${INPUTS.join(' ')} there, ${folder} here): run it as it was begun, or give another --state folder\n`]);
  }, 600_000);

  it('over a folder alone: killed between a commit of the tables and its checkpoint, drops their rows past the last checkpoint and reads on from the file after it; a changed file is refused', async () => {
    const [, json] = await baseline;
    const args = [folder, '--state', 'folder-state', '--json', '--timings'];
    // the tables hold 150 documents, the last checkpoint says 100: the rows of the 50 after are deleted, not kept twice
    const killed = await run(args, { DOPPEL_SCAN_KILL_AT: 'commit:150' });
    expect([killed.signal, killed.stdout]).toEqual(['SIGKILL', '']);
    const resumed = await run(args);
    expect(resumed.code).toBe(0);
    expect(resumedCounts(resumed.stderr)).toEqual({ stored: 100, read: corpus.size - 100 });
    const folderJson = await run([folder, '--json']);
    expect(resumed.stdout).toBe(folderJson.stdout);
    expect(JSON.parse(json.stdout).documents.length).toBeGreaterThan(JSON.parse(resumed.stdout).documents.length);

    const changed = join(folder, 'articles', 'a001.txt');
    const { atime, mtime } = statSync(changed);
    utimesSync(changed, atime, new Date(mtime.getTime() + 1000));
    try {
      const refused = await run(args);
      expect([refused.code, refused.stderr]).toEqual([2, 'scan: articles/a001.txt has changed since the scan kept in folder-state began: give another --state folder\n']);
    } finally {
      utimesSync(changed, atime, mtime);
    }
  }, 600_000);

  it('stops with one line when the disk fills while it reads or while it joins, and resumes once there is room', async () => {
    const [, , text] = await baseline;
    const args = [...INPUTS, '--state', 'full-state'];
    /** The lines a run says as `scan:` (the notes on its inputs aside), and whether it printed a stack trace. */
    const said = (r: Run): { lines: string[]; stack: boolean } => ({ lines: r.stderr.split('\n').filter((line) => line.startsWith('scan:')), stack: /^\s+at /m.test(r.stderr) });
    const fullLine = expect.stringMatching(/^scan: the disk is full \(writing \S+\/full-state\/scan\.duckdb(\.wal)?: File too large\)\. The scan kept in full-state resumes where it stopped when the same command is run again with --state full-state once there is room$/);
    // writes past 512 KiB a file fail with EFBIG, as on a full disk they fail with ENOSPC: here while reading
    const reading = await run(args, {}, 512);
    expect([reading.code, reading.stdout, said(reading)]).toEqual([1, '', { lines: [fullLine], stack: false }]);
    // with room, it reads on (none twice), and is killed as the join begins
    const resumed = await run(args, { DOPPEL_SCAN_KILL_AT: 'join:tables' });
    expect(resumed.signal).toBe('SIGKILL');
    const { stored, read } = resumedCounts(resumed.stderr);
    expect(stored).toBeGreaterThan(0);
    expect(stored + read).toBe(TOTAL);
    // past 16 KiB: the join's first tables do not fit
    const joining = await run(args, {}, 16);
    expect([joining.code, joining.stdout, said(joining)]).toEqual([1, '', { lines: [`scan: resuming the scan kept in full-state: ${TOTAL} documents stored, all read; joining`, fullLine], stack: false }]);
    const done = await run(args);
    expect([done.code, done.stdout]).toEqual([0, text.stdout]);
  }, 600_000);
});

describe('listedOf resumed after each place', () => {
  /** Every item a listing gives, in order. */
  const itemsOf = async (listed: ReturnType<typeof listedOf>['files']): Promise<Listed[]> => {
    const items: Listed[] = [];
    for await (const item of listed) items.push(item);
    return items;
  };

  it('gives exactly the items after it, named as the whole run names them: folders, WARC (gzipped by record and not), JSONL (plain and gzipped)', async () => {
    const dir = join(work, 'mixed');
    mkdirSync(join(dir, 'pages'), { recursive: true });
    for (const n of [1, 2, 3]) writeFileSync(join(dir, 'pages', `p${n}.txt`), `Page ${n}\n\nSome words of page ${n}.`);
    const specs = [page('https://a.example/1', '<p>one</p>'), { type: 'request' as const, url: 'https://a.example/2' }, page('https://a.example/2', '<p>two</p>'), page('https://a.example/3', '<p>three</p>')];
    writeFileSync(join(dir, 'pages', 'crawl.warc.gz'), (await warcFile(specs, true)).bytes);
    writeFileSync(join(dir, 'crawl.warc'), (await warcFile(specs, false)).bytes);
    // a line named as a WARC record is: made unique with where it came from, before a resume and after
    const jsonLines = ['{"id": "j1", "text": "one"}', '', 'not json', '{"url": "https://a.example/3", "text": "three again"}', '{"id": "j4", "text": "four"}'].join('\n') + '\n';
    writeFileSync(join(dir, 'set.jsonl'), jsonLines);
    writeFileSync(join(dir, 'set.jsonl.gz'), gzipSync(jsonLines));
    const { files } = await listInputs([join(dir, 'pages'), join(dir, 'crawl.warc'), join(dir, 'set.jsonl'), join(dir, 'set.jsonl.gz')]);
    const quiet = (): void => {};
    const all = await itemsOf(listedOf(files, quiet).files);
    expect(all.length).toBe(3 + 3 + 3 + 3 + 3);
    expect(all.filter((item) => item.path.startsWith('https://a.example/3 (')).length).toBe(3);
    // a gzipped WARC gives each record's offset; a gzipped JSONL file none
    expect(all.map((item) => item.place!.offset === null)).toEqual([...Array(12).fill(false), true, true, true]);
    for (let k = 0; k < all.length; k++) {
      const rest = await itemsOf(listedOf(files, quiet, { after: all[k]!.place!, names: all.slice(0, k + 1).map((item) => item.path) }).files);
      expect(rest).toEqual(all.slice(k + 1));
    }
  });

  it('over a folder of pages alone: the files after it, as a list', async () => {
    const { files } = await listInputs([folder]);
    const all = listedOf(files, () => {}).files as Listed[];
    expect(all.length).toBe(corpus.size);
    for (const k of [0, 1, 99, corpus.size - 2, corpus.size - 1]) expect(listedOf(files, () => {}, { after: all[k]!.place!, names: [] }).files).toEqual(all.slice(k + 1));
  });
});
