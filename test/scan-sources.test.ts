// bin/scan-sources.ts over good inputs: WARC and WET files written by warcio (plain and gzipped),
// JSONL files (plain and gzipped) and folders holding them, mixed. Each document's name, kind,
// content and position are exact; records that are not pages are counted by kind; a reading
// started at a document's position gives the rest of the file, the same as reading it all.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { type SourceDocument, type SourceItem, formatOf, listFolder, listInputs, readDocuments, readSources } from '../bin/scan-sources';
import { readJsonl } from '../bin/sources/jsonl';
import { readWarc } from '../bin/sources/warc';
import { type RecordSpec, page, warcFile, warcRecord } from './support/warc';
import { KITE, SOUP } from './support/scan-texts';

const dir = mkdtempSync(join(tmpdir(), 'doppel-scan-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KITES_HTML = `<!doctype html><html><head><title>Kites</title></head><body><article><h1>Kites</h1>${KITE.map((p) => `<p>${p}</p>`).join('')}</article></body></html>`;
const SOUP_TEXT = `Vegetable soup\n\n${SOUP.join('\n\n')}`;

/** A crawl's mix: two pages, a WET conversion, and one of each kind of record that is no document. */
const CRAWL: RecordSpec[] = [
  page('https://news.example/kites', KITES_HTML),
  { type: 'request', url: 'https://news.example/kites', httpHeaders: { 'User-Agent': 'test' }, statusline: 'GET /kites HTTP/1.1' },
  { type: 'metadata', url: 'https://news.example/kites', body: 'fetchTimeMs: 12\r\n' },
  page('https://news.example/logo.png', '\x89PNG....', 'image/png'),
  page('https://news.example/app.js', 'console.log(1)', 'application/javascript; charset=utf-8'),
  page('https://news.example/site.css', 'body{}', 'text/css'),
  page('https://news.example/paper.pdf', '%PDF-1.4', 'application/pdf'),
  { type: 'response', url: 'https://news.example/old', statusline: 'HTTP/1.1 301 Moved Permanently', httpHeaders: { Location: '/kites', 'Content-Type': 'text/html' }, body: '<a href="/kites">moved</a>' },
  { type: 'revisit', url: 'https://news.example/kites', httpHeaders: { 'Content-Type': 'text/html' } },
  { type: 'resource', url: 'urn:test:note', body: 'a note' },
  page('http://blog.example/soup', `<html><body><p>${SOUP.join('</p><p>')}</p></body></html>`, 'application/xhtml+xml'),
  { type: 'conversion', url: 'https://text.example/soup', body: SOUP_TEXT, warcHeaders: { 'Content-Type': 'text/plain' } },
];
const CRAWL_SKIPPED = {
  warcinfo: 1,
  request: 1,
  metadata: 1,
  'response: image/png': 1,
  'response: application/javascript': 1,
  'response: text/css': 1,
  'response: application/pdf': 1,
  'response: status 301': 1,
  revisit: 1,
  resource: 1,
};

async function all(items: AsyncIterable<SourceItem>): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}
const documentsOf = (items: SourceItem[]): SourceDocument[] => items.flatMap((i) => (i.type === 'document' ? [i.document] : []));

/** The byte where each record starts, from the records' lengths. */
function startsOf(records: Uint8Array[]): number[] {
  let at = 0;
  return records.map((r) => (at += r.length) - r.length);
}

describe.each([false, true])('readWarc (gzipped: %s)', (gzip) => {
  const name = gzip ? 'crawl.warc.gz' : 'crawl.warc';
  const path = join(dir, name);
  let starts: number[] = [];
  const written = warcFile(CRAWL, gzip).then(({ bytes, records }) => {
    writeFileSync(path, bytes);
    starts = startsOf(records);
  });

  it('yields the HTML responses and the conversion records, named by URI, and counts the rest by kind', async () => {
    await written;
    const items = await all(readWarc({ absolute: path, where: name }));
    expect(items.filter((i) => i.type === 'note')).toEqual([]);
    // records 1 (warcinfo), 2, 12 and 13 of 13; the pages' positions are where warcio wrote them
    expect(documentsOf(items)).toEqual([
      { name: 'https://news.example/kites', kind: 'html', content: KITES_HTML, url: 'https://news.example/kites', position: { file: path, index: 1, offset: starts[1] }, where: `${name} record 2` },
      { name: 'http://blog.example/soup', kind: 'html', content: expect.stringContaining(SOUP[0]!), url: 'http://blog.example/soup', position: { file: path, index: 11, offset: starts[11] }, where: `${name} record 12` },
      { name: 'https://text.example/soup', kind: 'text', content: SOUP_TEXT, url: 'https://text.example/soup', position: { file: path, index: 12, offset: starts[12] }, where: `${name} record 13` },
    ]);
    expect(items.at(-1)).toEqual({ type: 'container', summary: { where: name, file: path, format: 'warc', entries: 13, documents: 3, skipped: CRAWL_SKIPPED, notes: 0, complete: true } });
  });

  it('starts at a record: by its index, or at its offset; the rest is as in a whole reading', async () => {
    await written;
    const whole = documentsOf(await all(readWarc({ absolute: path, where: name })));
    for (const [at, expected] of [[0, whole], [1, whole], [2, whole.slice(1)], [11, whole.slice(1)], [12, whole.slice(2)], [13, []]] as const) {
      const byIndex = await all(readWarc({ absolute: path, where: name }, { startAt: { index: at } }));
      expect(documentsOf(byIndex), `index ${at}`).toEqual(expected);
      const summary = byIndex.at(-1) as Extract<SourceItem, { type: 'container' }>;
      expect(summary.summary.entries).toBe(13 - at);
      if (at < 13) {
        const byOffset = await all(readWarc({ absolute: path, where: name }, { startAt: { index: at, offset: starts[at] } }));
        expect(documentsOf(byOffset), `offset of ${at}`).toEqual(expected);
      }
    }
  });
});

describe('readWarc: bodies as a browser would read them', () => {
  const cases: [string, RecordSpec, string][] = [
    ['a charset in the HTTP Content-Type', { type: 'response', url: 'https://a.example/', httpHeaders: { 'Content-Type': 'text/html; charset=windows-1252' }, body: Buffer.from('<p>caf\xe9 cr\xe8me</p>', 'latin1') }, '<p>café crème</p>'],
    ['the HTTP charset before a <meta charset> that says otherwise', { type: 'response', url: 'https://b.example/', httpHeaders: { 'Content-Type': 'text/html; charset="ISO-8859-1"' }, body: Buffer.from('<meta charset="utf-8"><p>na\xefve</p>', 'latin1') }, '<meta charset="utf-8"><p>naïve</p>'],
    ['a <meta charset> when HTTP names none', { type: 'response', url: 'https://c.example/', httpHeaders: { 'Content-Type': 'text/html' }, body: Buffer.from('<meta charset="iso-8859-15"><p>\xa4 5</p>', 'latin1') }, '<meta charset="iso-8859-15"><p>€ 5</p>'],
    ['UTF-8 when HTTP names none and the bytes are UTF-8', { type: 'response', url: 'https://d.example/', httpHeaders: { 'Content-Type': 'text/html' }, body: '<p>Zürich</p>' }, '<p>Zürich</p>'],
    ['a gzip Content-Encoding', { type: 'response', url: 'https://e.example/', httpHeaders: { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' }, body: gzipSync('<p>inflated</p>') }, '<p>inflated</p>'],
    ['a chunked Transfer-Encoding', { type: 'response', url: 'https://f.example/', httpHeaders: { 'Content-Type': 'text/html', 'Transfer-Encoding': 'chunked' }, body: '5\r\n<p>ch\r\n9\r\nunked</p>\r\n0\r\n\r\n' }, '<p>chunked</p>'],
  ];

  it.each(cases)('%s', async (_, spec, expected) => {
    const path = join(dir, `body-${spec.url!.slice(8, 9)}.warc`);
    writeFileSync(path, (await warcFile([spec], false)).bytes);
    const items = await all(readWarc({ absolute: path, where: 'body.warc' }));
    expect(documentsOf(items).map((d) => d.content)).toEqual([expected]);
  });
});

describe('readJsonl', () => {
  const LINES = [
    JSON.stringify({ id: 'kites-1', url: 'https://news.example/kites', html: KITES_HTML }),
    JSON.stringify({ id: 7, text: SOUP_TEXT }),
    '',
    JSON.stringify({ url: 'https://text.example/soup', text: SOUP_TEXT, html: '<p>not this</p>' }),
    `  ${JSON.stringify({ text: 'no name at all' })}  `,
  ];
  const bytes = Buffer.from(`\ufeff${LINES.join('\n')}\r\n`);
  // the byte-order mark is the first line's
  const lineStarts = LINES.map((_, i) => (i === 0 ? 0 : Buffer.byteLength(`\ufeff${LINES.slice(0, i).map((l) => `${l}\n`).join('')}`)));
  const plain = join(dir, 'set.jsonl');
  const gzipped = join(dir, 'set.ndjson.gz');
  writeFileSync(plain, bytes);
  writeFileSync(gzipped, gzipSync(bytes));

  const expected = (path: string, where: string, offsets: (number | null)[]): SourceDocument[] => [
    { name: 'kites-1', kind: 'html', content: KITES_HTML, url: 'https://news.example/kites', position: { file: path, index: 0, offset: offsets[0]! }, where: `${where} line 1` },
    { name: '7', kind: 'text', content: SOUP_TEXT, position: { file: path, index: 1, offset: offsets[1]! }, where: `${where} line 2` },
    { name: 'https://text.example/soup', kind: 'text', content: SOUP_TEXT, url: 'https://text.example/soup', position: { file: path, index: 3, offset: offsets[3]! }, where: `${where} line 4` },
    { name: `${where}:5`, kind: 'text', content: 'no name at all', position: { file: path, index: 4, offset: offsets[4]! }, where: `${where} line 5` },
  ];

  it('yields a document a line, named by id, else url, else FILE:LINE; "text" before "html"; blank lines passed over', async () => {
    const items = await all(readJsonl({ absolute: plain, where: 'set.jsonl' }));
    expect(documentsOf(items)).toEqual(expected(plain, 'set.jsonl', lineStarts));
    expect(items.at(-1)).toEqual({ type: 'container', summary: { where: 'set.jsonl', file: plain, format: 'jsonl', entries: 5, documents: 4, skipped: { 'blank line': 1 }, notes: 0, complete: true } });
    // a gzipped file (whatever its name) gives the same documents, without offsets
    const fromGzip = await all(readJsonl({ absolute: gzipped, where: 'set.ndjson.gz' }));
    expect(documentsOf(fromGzip)).toEqual(expected(gzipped, 'set.ndjson.gz', [null, null, null, null, null]));
  });

  it('starts at a line: by its index, or (not gzipped) at its offset', async () => {
    const whole = documentsOf(await all(readJsonl({ absolute: plain, where: 'set.jsonl' })));
    for (const at of [0, 1, 2, 3, 4, 5]) {
      const rest = whole.filter((d) => d.position.index >= at);
      expect(documentsOf(await all(readJsonl({ absolute: plain, where: 'set.jsonl' }, { startAt: { index: at } })))).toEqual(rest);
      if (at < 5) expect(documentsOf(await all(readJsonl({ absolute: plain, where: 'set.jsonl' }, { startAt: { index: at, offset: lineStarts[at] } })))).toEqual(rest);
      const gz = documentsOf(await all(readJsonl({ absolute: gzipped, where: 'g' }, { startAt: { index: at, offset: 12345 } })));
      expect(gz.map((d) => d.position.index)).toEqual(rest.map((d) => d.position.index));
    }
  });
});

describe('inputs', () => {
  it('knows each format by its name', () => {
    const names = ['a.html', 'a.HTM', 'a.txt', 'a.warc', 'a.warc.gz', 'a.WARC.GZ', 'a.warc.wet.gz', 'a.wet', 'a.jsonl', 'a.ndjson', 'a.jsonl.gz', 'a.ndjson.gz', 'a.json', 'a.gz', 'a.md', 'a.warc.wat.gz'];
    expect(names.map(formatOf)).toEqual(['html', 'html', 'text', 'warc', 'warc', 'warc', 'warc', 'warc', 'jsonl', 'jsonl', 'jsonl', 'jsonl', null, null, null, null]);
  });

  it('reads folders, containers in them and files given, mixed, in order; a folder alone names its files under it', async () => {
    const folder = join(dir, 'mixed');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    writeFileSync(join(folder, 'sub', 'kites.html'), KITES_HTML);
    writeFileSync(join(folder, 'soup.txt'), SOUP_TEXT);
    writeFileSync(join(folder, 'notes.md'), 'not read');
    writeFileSync(join(folder, 'set.jsonl'), `${JSON.stringify({ id: 'j1', text: 'from a line' })}\n`);
    writeFileSync(join(folder, 'crawl.warc.gz'), Buffer.concat([await warcRecord(page('https://x.example/', '<p>from a record</p>'), true)]));
    const alone = await listInputs([folder]);
    expect(alone.files.map((f) => [f.name, f.format])).toEqual([['crawl.warc.gz', 'warc'], ['set.jsonl', 'jsonl'], ['soup.txt', 'text'], ['sub/kites.html', 'html']]);
    expect((await listFolder(folder, 'p/')).files.map((f) => f.name)).toEqual(['p/crawl.warc.gz', 'p/set.jsonl', 'p/soup.txt', 'p/sub/kites.html']);

    const single = join(dir, 'single.jsonl');
    writeFileSync(single, `${JSON.stringify({ id: 'j2', html: '<p>given</p>' })}\n`);
    const mixed = await listInputs([single, folder]);
    expect(mixed.files.map((f) => f.name)).toEqual([single, `${folder}/crawl.warc.gz`, `${folder}/set.jsonl`, `${folder}/soup.txt`, `${folder}/sub/kites.html`]);
    const items = await all(readSources(mixed.files));
    expect(items.map((i) => (i.type === 'document' ? i.document.name : i.type === 'file' ? `file ${i.file.name}` : i.type))).toEqual(['j2', 'container', 'https://x.example/', 'container', 'j1', 'container', `file ${folder}/soup.txt`, `file ${folder}/sub/kites.html`]);
    const read = documentsOf(await all(readDocuments(mixed.files)));
    expect(read.map((d) => [d.name, d.kind, d.content])).toEqual([
      ['j2', 'html', '<p>given</p>'],
      ['https://x.example/', 'html', '<p>from a record</p>'],
      ['j1', 'text', 'from a line'],
      [`${folder}/soup.txt`, 'text', SOUP_TEXT],
      [`${folder}/sub/kites.html`, 'html', readFileSync(join(folder, 'sub', 'kites.html'), 'utf8')],
    ]);
  });

  it('stops on a path that does not exist or is not read, naming it', async () => {
    await expect(listInputs([join(dir, 'nowhere')])).rejects.toThrow(/^no such file or folder: .*nowhere$/);
    writeFileSync(join(dir, 'notes.md'), 'x');
    await expect(listInputs([join(dir, 'notes.md')])).rejects.toThrow(/^not a directory, nor a file scan reads \(\.html, .*\.ndjson\.gz\): .*notes\.md$/);
  });

  it('keeps warcio out of lib/ and entrypoints/ (the extension bundles them)', async () => {
    const { spawnSync } = await import('node:child_process');
    const root = fileURLToPath(new URL('..', import.meta.url));
    const grep = spawnSync('grep', ['-rlE', "from '(warcio|@duckdb)", 'lib', 'entrypoints'], { cwd: root, encoding: 'utf8' });
    expect(grep.status).toBe(1); // no file matched
    expect(grep.stdout).toBe('');
    // the check finds an import where there is one
    expect(spawnSync('grep', ['-rlE', "from '(warcio|@duckdb)", 'bin/sources'], { cwd: root, encoding: 'utf8' }).stdout).toContain('warc-framing.ts');
  });
});
