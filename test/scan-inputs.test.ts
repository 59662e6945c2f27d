// `npm run scan -- PATH...` over containers (bin/scan-inputs.ts): the repo's samples as a JSONL file
// give the report the folder gives; as a WARC file, the same pairs under their URIs, on one thread
// or two; bad files in the same run get their notes on stderr, and the good ones are scanned.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryLine } from '../bin/scan-inputs';
import { listFolder } from '../bin/scan-sources';
import { mulberry32 } from '../lib/random';
import { ROOT, runScan } from './support/run-scan';
import { page, warcFile, warcRecord } from './support/warc';
import { KITE } from './support/scan-texts';

const dir = mkdtempSync(join(tmpdir(), 'doppel-scan-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Report {
  documents: { path: string }[];
  pairs: { a: string; b: string }[];
  clusters: { members: string[] }[];
  reuse: { a: string; b: string }[];
  rewrites: { a: string; b: string }[];
}

const URL_OF = (path: string): string => `https://samples.example/${path}`;

beforeAll(async () => {
  const { files } = await listFolder(join(ROOT, 'samples'));
  const lines: string[] = [];
  const records: Uint8Array[] = [];
  for (const file of files) {
    const content = readFileSync(file.absolute, 'utf8');
    lines.push(JSON.stringify(file.format === 'html' ? { id: file.name, html: content } : { id: file.name, text: content }));
    records.push(await warcRecord(file.format === 'html' ? page(URL_OF(file.name), content) : { type: 'conversion', url: URL_OF(file.name), body: content }, true));
    records.push(await warcRecord({ type: 'request', url: URL_OF(file.name) }, true));
  }
  writeFileSync(join(dir, 'samples.jsonl'), lines.join('\n') + '\n');
  writeFileSync(join(dir, 'samples.warc.gz'), Buffer.concat(records));
});

describe('scan over containers', () => {
  it('the samples as JSONL, named by their paths: the same report as the samples folder', async () => {
    const [folder, jsonl] = await Promise.all([runScan(['--json']), runScan([join(dir, 'samples.jsonl'), '--json'])]);
    expect(jsonl.code).toBe(0);
    expect(JSON.parse(jsonl.stdout)).toEqual(JSON.parse(folder.stdout));
    expect(jsonl.stderr).toBe(`${join(dir, 'samples.jsonl')}: 15 documents of 15 lines\n`);
  });

  it('the samples as a WARC: the same pairs and clusters under their URIs, the same on one thread as on two', async () => {
    const warc = join(dir, 'samples.warc.gz');
    const [folder, one, two] = await Promise.all([runScan(['--json']), runScan([warc, '--json', '--jobs', '1']), runScan([warc, '--json', '--jobs', '2'])]);
    expect(one.code).toBe(0);
    expect(two.stdout).toBe(one.stdout);
    expect(one.stderr).toBe(`${warc}: 15 documents of 30 records; 15 skipped: 15 request\n`);
    const expected = JSON.parse(folder.stdout) as Report;
    const report = JSON.parse(one.stdout) as Report;
    expect(report.documents.map((d) => d.path)).toEqual(expected.documents.map((d) => URL_OF(d.path)));
    const pairs = (list: { a: string; b: string }[], name = (p: string) => p): string[] => list.map((p) => [name(p.a), name(p.b)].sort().join(' ')).sort();
    for (const key of ['pairs', 'reuse', 'rewrites'] as const) expect(pairs(report[key]), key).toEqual(pairs(expected[key], URL_OF));
    expect(report.clusters.map((c) => c.members)).toEqual(expected.clusters.map((c) => c.members.map(URL_OF)));
  });

  it('bad files among good ones: their notes on stderr, naming file and record or line; the good ones scanned; a repeated URI made unique', async () => {
    const random = mulberry32(48);
    const garbage = Buffer.from(Array.from({ length: 30_000 }, () => Math.floor(random() * 256)));
    writeFileSync(join(dir, 'garbage.warc.gz'), garbage);
    writeFileSync(join(dir, 'garbage.html'), garbage);
    const kites = `<html><head><title>Kites</title></head><body><article>${KITE.map((p) => `<p>${p}</p>`).join('')}</article></body></html>`;
    const good = await warcFile([page('https://a.example/kites', kites), page('https://a.example/kites', kites)], true);
    writeFileSync(join(dir, 'good.warc.gz'), good.bytes);
    const lines = [JSON.stringify({ id: 'kites-text', text: KITE.join('\n\n') }), '{oops', JSON.stringify({ id: 'empty' })];
    writeFileSync(join(dir, 'bad.jsonl'), lines.join('\n'));
    const paths = ['garbage.warc.gz', 'garbage.html', 'good.warc.gz', 'bad.jsonl'];
    const { code, stdout, stderr } = await runScan([...paths, '--json'], dir);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Report & { documents: { path: string; note?: string }[] };
    expect(report.documents.map((d) => d.path)).toEqual(['garbage.html', 'https://a.example/kites', 'https://a.example/kites (good.warc.gz record 3)', 'kites-text']);
    expect(report.documents[0]!.note).toBeDefined();
    expect(report.clusters.map((c) => c.members)).toEqual([['https://a.example/kites', 'https://a.example/kites (good.warc.gz record 3)', 'kites-text']]);
    expect(stderr.trimEnd().split('\n').map((l) => l.replace(/\d+ bytes/, 'N bytes').replace(/not JSON \(.*\)/, 'not JSON (…)'))).toEqual([
      'garbage.warc.gz: not a WARC file: no record in its N bytes',
      'garbage.warc.gz: 0 documents of 0 records; 1 note',
      'good.warc.gz: 2 documents of 3 records; 1 skipped: 1 warcinfo',
      'bad.jsonl line 2: not JSON (…)',
      'bad.jsonl line 3: no "text" or "html" in it',
      'bad.jsonl: 1 document of 3 lines; 2 notes',
    ]);
  });

  it('prints at most 20 notes a container, and counts the others', async () => {
    writeFileSync(join(dir, 'many.jsonl'), Array.from({ length: 25 }, (_, i) => `bad ${i}`).join('\n'));
    const { code, stderr } = await runScan(['many.jsonl', '--json'], dir);
    expect(code).toBe(0);
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[19]).toMatch(/^many\.jsonl line 20: not JSON/);
    expect(lines[20]).toBe('many.jsonl: 0 documents of 25 lines; 25 notes (5 not shown)');
  });

  it('summary lines: documents, what was skipped (most first), notes, and a file not read to its end', () => {
    expect(summaryLine({ where: 'c.warc', file: '/c.warc', format: 'warc', entries: 1, documents: 1, skipped: {}, notes: 0, complete: true })).toBe('c.warc: 1 document of 1 record');
    expect(summaryLine({ where: 'c.warc', file: '/c.warc', format: 'warc', entries: 9, documents: 2, skipped: { request: 2, 'response: image/png': 3, metadata: 2 }, notes: 1, complete: false })).toBe(
      'c.warc: 2 documents of 9 records; 7 skipped: 3 response: image/png, 2 metadata, 2 request; 1 note; not read to its end',
    );
  });

  it('--help says what each kind of input gives', async () => {
    const { stdout } = await runScan(['--help']);
    expect(stdout).toContain('usage: npm run scan -- [PATH...]');
    expect(stdout).toMatch(/a WARC or WET file \(\.warc, \.warc\.gz, \.wet, \.wet\.gz\)/);
    expect(stdout).toMatch(/a JSONL file \(\.jsonl, \.jsonl\.gz, \.ndjson, \.ndjson\.gz\)/);
    expect(stdout).toContain('over 8 MiB');
  });
});
