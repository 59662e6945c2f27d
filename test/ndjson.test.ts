// lib/protocol/ndjson.ts: the export format's header and page lines, and splitting text into lines.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../lib/protocol/messages';
import { type ImportedPage, type Refusal, exportHeader, pageToLine, parseHeader, parseIsoDate, parsePageLine, readsRewrites, splitLines } from '../lib/protocol/ndjson';
import { decodeRewriteBytes, encodeRewriteBytes } from '../lib/fingerprint/rewrite-codec';
import { bytesToBase64 } from '../lib/fingerprint/passage-codec';
import type { PageRecord } from '../lib/store/schema';
import type { LineField, LineProblem } from '../lib/protocol/writer-protocol';
import { mulberry32 } from '../lib/random';

const NOW = Date.UTC(2025, 0, 15, 9, 30); // the import time
const T1 = Date.UTC(2024, 4, 1, 12, 0, 0, 250);
const T2 = Date.UTC(2024, 5, 2, 8, 15);

const record: PageRecord = {
  id: 64, // the store's key: never in a line
  url: 'https://news.example/story?id=7',
  title: 'A "quoted" story — naïve',
  site: 'news.example',
  simhash: '0123456789abcdef',
  check: 'fedcba9876543210',
  firstSeen: T1,
  lastSeen: T2,
  visits: 4,
};

const page = (fields: Partial<ImportedPage> = {}): ImportedPage => ({
  url: 'https://a.example/p',
  title: 'T',
  site: 'a.example',
  simhash: '0123456789abcdef',
  check: null,
  firstSeen: NOW,
  lastSeen: NOW,
  visits: 1,
  datesGiven: { firstSeen: false, lastSeen: false },
  ...fields,
});
const both = { firstSeen: true, lastSeen: true };

const line = (o: Record<string, unknown>): string => JSON.stringify(o);
const minimal = { url: 'https://a.example/p', title: 'T', simhash: '0123456789abcdef' };

describe('writing', () => {
  it('the header: format, version, ISO 8601 export time, page count, k, passage parameters, in that order', () => {
    expect(exportHeader({ exported: T1, pages: 2, k: 3 })).toBe('{"format":"doppel","version":1,"exported":"2024-05-01T12:00:00.250Z","pages":2,"k":3,"passages":{"k":5,"w":26,"bytes":2},"rewrites":{"scheme":1,"bits":20,"cap":64}}');
  });

  it('a page: every field but the table keys, dates in ISO 8601, one line', () => {
    const text = pageToLine(record);
    expect(text).not.toContain('\n');
    expect(text).toBe(
      '{"url":"https://news.example/story?id=7","title":"A \\"quoted\\" story — naïve","site":"news.example","simhash":"0123456789abcdef",' +
        '"check":"fedcba9876543210","firstSeen":"2024-05-01T12:00:00.250Z","lastSeen":"2024-06-02T08:15:00.000Z","visits":4}',
    );
  });

  it('an unknown check is written as null', () => {
    expect(JSON.parse(pageToLine({ ...record, check: '' })).check).toBeNull();
  });

  it('a written line reads back as the same page', () => {
    const { id: _id, ...rest } = record;
    expect(parsePageLine(pageToLine(record), 2, NOW)).toEqual({ ok: true, page: { ...rest, datesGiven: both } });
  });
});

describe('parsePageLine: valid lines', () => {
  const cases: [string, string, ImportedPage][] = [
    ['only url, title and simhash: dates default to now, visits to 1, check unknown', line(minimal), page()],
    [
      'every field',
      line({ ...minimal, check: 'fedcba9876543210', firstSeen: '2024-05-01T12:00:00.250Z', lastSeen: '2024-06-02T08:15:00Z', visits: 4 }),
      page({ check: 'fedcba9876543210', firstSeen: T1, lastSeen: T2, visits: 4, datesGiven: both }),
    ],
    ['check null is unknown', line({ ...minimal, check: null }), page()],
    ['uppercase hex is stored lowercase', line({ ...minimal, simhash: '0123456789ABCDEF', check: 'FEDCBA9876543210' }), page({ check: 'fedcba9876543210' })],
    ['the URL is canonicalised and the site derived from it', line({ ...minimal, url: 'https://A.example/p?utm_source=x&fbclid=y#top', site: 'wrong.example' }), page()],
    ['http is accepted', line({ ...minimal, url: 'http://a.example:8080/p' }), page({ url: 'http://a.example:8080/p', site: 'a.example:8080' })],
    ['an empty title is a title', line({ ...minimal, title: '' }), page({ title: '' })],
    [
      'extra fields are ignored',
      line({ ...minimal, keys: ['0:0000'], text: 'never stored', tags: { a: 1 }, format: 'doppel' }).slice(0, -1) + ',"__proto__":{"title":7}}',
      page(),
    ],
    ['only firstSeen, in the past: lastSeen is now', line({ ...minimal, firstSeen: '2024-05-01T12:00:00.250Z' }), page({ firstSeen: T1, datesGiven: { firstSeen: true, lastSeen: false } })],
    ['only lastSeen, in the past: firstSeen is lastSeen, not now', line({ ...minimal, lastSeen: '2024-06-02T08:15:00Z' }), page({ firstSeen: T2, lastSeen: T2, datesGiven: { firstSeen: false, lastSeen: true } })],
    [
      'only firstSeen, in the future: lastSeen is firstSeen',
      line({ ...minimal, firstSeen: '2026-01-01T00:00:00Z' }),
      page({ firstSeen: Date.UTC(2026, 0, 1), lastSeen: Date.UTC(2026, 0, 1), datesGiven: { firstSeen: true, lastSeen: false } }),
    ],
    ['null dates and visits are absent', line({ ...minimal, firstSeen: null, lastSeen: null, visits: null }), page()],
    ['time zone offsets', line({ ...minimal, firstSeen: '2024-05-01T14:00:00.250+02:00', lastSeen: '2024-06-02T03:15-05:00' }), page({ firstSeen: T1, lastSeen: T2, datesGiven: both })],
    ['a BOM before the object', '\uFEFF' + line(minimal), page()],
    ['surrounding spaces', `  ${line(minimal)} \t`, page()],
  ];
  it.each(cases)('%s', (_name, text, want) => {
    expect(parsePageLine(text, 5, NOW)).toEqual({ ok: true, page: want });
  });

  it('a title longer than the recorder keeps is cut to its limit', () => {
    const result = parsePageLine(line({ ...minimal, title: 'x'.repeat(LIMITS.titleChars + 50) }), 2, NOW);
    expect(result.ok && result.page.title.length).toBe(LIMITS.titleChars);
  });
});

describe('parsePageLine: bad lines, with every problem as a code the history page words', () => {
  const missing = (field: LineField): LineProblem => ({ code: 'missing', field });
  const notString = (field: LineField): LineProblem => ({ code: 'not-string', field });
  const notHex = (field: LineField): LineProblem => ({ code: 'not-hex', field });
  const notDate = (field: LineField): LineProblem => ({ code: 'not-date', field });
  const notHttp: LineProblem = { code: 'not-http', field: 'url' };
  const notObject: LineProblem = { code: 'not-object' };
  const notVisits: LineProblem = { code: 'not-visits' };
  const cases: [string, string, LineProblem[]][] = [
    ['not JSON', '{"url": "https://a.example/"', [{ code: 'not-json' }]],
    ['plain text', 'hello', [{ code: 'not-json' }]],
    ['an array', '["https://a.example/", "T"]', [notObject]],
    ['a string', '"https://a.example/"', [notObject]],
    ['null', 'null', [notObject]],
    ['a second header', line({ format: 'doppel', version: 1, pages: 3 }), [{ code: 'second-header' }]],
    ['an empty object', '{}', [missing('url'), missing('title'), missing('simhash')]],
    ['no url', line({ title: 'T', simhash: '0123456789abcdef' }), [missing('url')]],
    ['url null', line({ ...minimal, url: null }), [missing('url')]],
    ['url a number', line({ ...minimal, url: 42 }), [notString('url')]],
    ['url not a URL', line({ ...minimal, url: 'a.example/p' }), [notHttp]],
    ['url ftp', line({ ...minimal, url: 'ftp://a.example/p' }), [notHttp]],
    ['url javascript:', line({ ...minimal, url: 'javascript:alert(1)' }), [notHttp]],
    ['url too long', line({ ...minimal, url: 'https://a.example/' + 'x'.repeat(LIMITS.urlChars) }), [{ code: 'too-long', field: 'url', max: LIMITS.urlChars }]],
    ['no title', line({ url: 'https://a.example/p', simhash: '0123456789abcdef' }), [missing('title')]],
    ['title a number', line({ ...minimal, title: 7 }), [notString('title')]],
    ['no simhash', line({ url: 'https://a.example/p', title: 'T' }), [missing('simhash')]],
    ['simhash 15 digits', line({ ...minimal, simhash: '0123456789abcde' }), [notHex('simhash')]],
    ['simhash 17 digits', line({ ...minimal, simhash: '0123456789abcdef0' }), [notHex('simhash')]],
    ['simhash not hex', line({ ...minimal, simhash: '0123456789abcdeg' }), [notHex('simhash')]],
    ['simhash with 0x', line({ ...minimal, simhash: '0x0123456789abcd' }), [notHex('simhash')]],
    ['simhash a number', line({ ...minimal, simhash: 12345 }), [notHex('simhash')]],
    ['check not hex', line({ ...minimal, check: 'nothex' }), [notHex('check')]],
    ['check empty', line({ ...minimal, check: '' }), [notHex('check')]],
    ['firstSeen a number', line({ ...minimal, firstSeen: T1 }), [notDate('firstSeen')]],
    ['firstSeen without a zone', line({ ...minimal, firstSeen: '2024-05-01T12:00:00' }), [notDate('firstSeen')]],
    ['firstSeen a date only', line({ ...minimal, firstSeen: '2024-05-01' }), [notDate('firstSeen')]],
    ['firstSeen in words', line({ ...minimal, firstSeen: 'May 1, 2024' }), [notDate('firstSeen')]],
    ['firstSeen February 30', line({ ...minimal, firstSeen: '2024-02-30T00:00:00Z' }), [notDate('firstSeen')]],
    ['firstSeen Feb 29 of a common year', line({ ...minimal, firstSeen: '2023-02-29T00:00:00Z' }), [notDate('firstSeen')]],
    ['lastSeen hour 24', line({ ...minimal, lastSeen: '2024-05-01T24:00:00Z' }), [notDate('lastSeen')]],
    ['lastSeen month 13', line({ ...minimal, lastSeen: '2024-13-01T00:00:00Z' }), [notDate('lastSeen')]],
    ['firstSeen after lastSeen', line({ ...minimal, firstSeen: '2024-06-02T08:15:00Z', lastSeen: '2024-05-01T12:00:00Z' }), [{ code: 'dates-order' }]],
    ['visits 0', line({ ...minimal, visits: 0 }), [notVisits]],
    ['visits negative', line({ ...minimal, visits: -2 }), [notVisits]],
    ['visits a fraction', line({ ...minimal, visits: 1.5 }), [notVisits]],
    ['visits a string', line({ ...minimal, visits: '3' }), [notVisits]],
    ['visits beyond 2^53', line({ ...minimal, visits: 2 ** 60 }), [notVisits]],
    ['several problems at once', line({ url: 'mailto:a@b.example', title: 'T', simhash: 'xyz', visits: 0 }), [notHttp, notHex('simhash'), notVisits]],
  ];
  it.each(cases)('%s', (_name, text, problems) => {
    expect(parsePageLine(text, 7, NOW)).toEqual({ ok: false, line: 7, problems });
  });

  it('passages that are not a string, or not fingerprints, are named when the header says they are there', () => {
    expect(parsePageLine(line({ ...minimal, passages: 5 }), 2, NOW, true)).toEqual({ ok: false, line: 2, problems: [notString('passages')] });
    expect(parsePageLine(line({ ...minimal, passages: 'AAAA' }), 2, NOW, true)).toEqual({ ok: false, line: 2, problems: [{ code: 'unreadable', field: 'passages' }] });
  });

  it('rewrites: read when the header says they are this Doppel\'s, named when they are not a string or not fingerprints, left out otherwise', () => {
    const f = { hashes: Uint32Array.from([4096, 40960, 409600]), limit: 2 ** 32, anchors: 5, lang: 'es' as const };
    const bytes = encodeRewriteBytes(f);
    const withThem = line({ ...minimal, rewrites: bytesToBase64(bytes) });
    const read = parsePageLine(withThem, 2, NOW, false, true);
    expect(read.ok && decodeRewriteBytes(read.page.rewrites!)).toEqual(f);
    // not read: the header gave other parameters, or none
    const skipped = parsePageLine(withThem, 2, NOW, true, false);
    expect(skipped.ok && skipped.page.rewrites).toBeUndefined();
    expect(parsePageLine(line({ ...minimal, rewrites: 5 }), 2, NOW, false, true)).toEqual({ ok: false, line: 2, problems: [notString('rewrites')] });
    // one hash announced, none there
    expect(parsePageLine(line({ ...minimal, rewrites: 'AAIA' }), 2, NOW, false, true)).toEqual({ ok: false, line: 2, problems: [{ code: 'unreadable', field: 'rewrites' }] });
    // a record's line carries them, and reads back the same
    const record = { id: 1, url: 'https://a.example/x', title: 'X', site: 'a.example', simhash: '0123456789abcdef', check: '0123456789abcdef', firstSeen: T1, lastSeen: T1, visits: 1 } as PageRecord;
    const back = parsePageLine(pageToLine(record, undefined, bytes), 3, NOW, true, true);
    expect(back.ok && back.page.rewrites).toEqual(bytes);
  });

  it('reads rewrites only under this Doppel\'s scheme, bits and cap', () => {
    const header = (rewrites: unknown) => {
      const parsed = parseHeader(line({ format: 'doppel', version: 1, rewrites }));
      if (!parsed.ok) throw new Error(parsed.reason);
      return readsRewrites(parsed.header);
    };
    expect([header({ scheme: 1, bits: 20, cap: 64 }), header({ scheme: 2, bits: 20, cap: 64 }), header({ scheme: 1, bits: 24, cap: 64 }), header({ scheme: 1, bits: 20, cap: 32 }), header(undefined)]).toEqual([true, false, false, false, false]);
  });
});

describe('parseIsoDate, the form Doppel writes', () => {
  it('reads toISOString exactly, for seeded times over 600 years, leap days included', () => {
    const random = mulberry32(12);
    for (let i = 0; i < 5_000; i++) {
      const ms = Math.floor(Date.UTC(1700, 0, 1) + random() * (Date.UTC(2300, 0, 1) - Date.UTC(1700, 0, 1)));
      expect(parseIsoDate(new Date(ms).toISOString())).toBe(ms);
    }
    expect(parseIsoDate('2024-02-29T23:59:59.999Z')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
  });

  it.each(['2023-02-29T00:00:00.000Z', '2100-02-29T00:00:00.000Z', '2024-04-31T00:00:00.000Z', '2024-13-01T00:00:00.000Z', '2024-00-10T00:00:00.000Z', '2024-05-01T24:00:00.000Z', '2024-05-01T12:60:00.000Z', '2024-05-01T12:00:60.000Z'])(
    'refuses the impossible %s',
    (text) => expect(parseIsoDate(text)).toBeNull(),
  );

  it('reads the same form with a year before 100 or other characters as the general rule does', () => {
    expect(parseIsoDate('0050-05-01T12:00:00.000Z')).toBe(new Date('0050-05-01T12:00:00.000Z').getTime());
    expect(parseIsoDate('2024-05-01T12:00:0x.000Z')).toBeNull();
  });
});

describe('parseHeader', () => {
  const header = { format: 'doppel', version: 1, exported: '2024-05-01T12:00:00.250Z', pages: 2, k: 3 };
  it('reads the header written by exportHeader', () => {
    expect(parseHeader(exportHeader({ exported: T1, pages: 2, k: 3 }))).toEqual({ ok: true, header: { format: 'doppel', version: 1, exported: T1, pages: 2, k: 3, passages: { k: 5, w: 26, bytes: 2 }, rewrites: { scheme: 1, bits: 20, cap: 64 } } });
  });

  const valid: [string, string, Record<string, unknown>][] = [
    ['only format and version', line({ format: 'doppel', version: 1 }), { exported: null, pages: null, k: null, passages: null, rewrites: null }],
    ['a BOM', '\uFEFF' + line(header), { exported: T1, pages: 2, k: 3, passages: null, rewrites: null }],
    ['unreadable informative fields are null', line({ ...header, exported: 'yesterday', pages: -1, k: 'three', passages: { k: 'five' }, rewrites: { scheme: 1 } }), { exported: null, pages: null, k: null, passages: null, rewrites: null }],
    ['extra fields', line({ ...header, app: 'doppel 0.1.0' }), { exported: T1, pages: 2, k: 3, passages: null, rewrites: null }],
    ['other passage parameters', line({ ...header, passages: { k: 4, w: 30 } }), { exported: T1, pages: 2, k: 3, passages: { k: 4, w: 30, bytes: 1 }, rewrites: null }],
    ['passage bytes of version 2', line({ ...header, passages: { k: 5, w: 26, bytes: 2 } }), { exported: T1, pages: 2, k: 3, passages: { k: 5, w: 26, bytes: 2 }, rewrites: null }],
    ['passage bytes of an unknown version', line({ ...header, passages: { k: 5, w: 26, bytes: 'x' } }), { exported: T1, pages: 2, k: 3, passages: { k: 5, w: 26, bytes: 0 }, rewrites: null }],
    ['another rewrite scheme', line({ ...header, rewrites: { scheme: 2, bits: 24, cap: 32 } }), { exported: T1, pages: 2, k: 3, passages: null, rewrites: { scheme: 2, bits: 24, cap: 32 } }],
  ];
  it.each(valid)('valid: %s', (_name, text, fields) => {
    expect(parseHeader(text)).toEqual({ ok: true, header: { format: 'doppel', version: 1, ...fields } });
  });

  const NOT_HEADER = 'this is not a Doppel export: the first line must be its header, {"format":"doppel","version":1,…}';
  const invalid: [string, string, string, Refusal][] = [
    ['a page line', line(minimal), NOT_HEADER, { code: 'not-export' }],
    ['not JSON', 'url,title,simhash', NOT_HEADER, { code: 'not-export' }],
    ['another format', line({ ...header, format: 'chrome-history' }), NOT_HEADER, { code: 'not-export' }],
    ['an array', '["doppel", 1]', NOT_HEADER, { code: 'not-export' }],
    ['no version', line({ format: 'doppel' }), "the header's version must be a whole number from 1: got nothing", { code: 'bad-version' }],
    ['version a string', line({ ...header, version: '1' }), 'the header\'s version must be a whole number from 1: got "1"', { code: 'bad-version' }],
    ['version 0', line({ ...header, version: 0 }), "the header's version must be a whole number from 1: got 0", { code: 'bad-version' }],
    ['version 1.5', line({ ...header, version: 1.5 }), "the header's version must be a whole number from 1: got 1.5", { code: 'bad-version' }],
    [
      'a newer version',
      line({ ...header, version: 2 }),
      'this file is in version 2 of the Doppel export format, newer than version 1, the newest this copy of Doppel reads: update Doppel to import it',
      { code: 'newer-version', version: 2, newest: 1 },
    ],
  ];
  it.each(invalid)('invalid: %s', (_name, text, reason, refusal) => {
    expect(parseHeader(text)).toEqual({ ok: false, reason, refusal });
  });
});

describe('parseIsoDate', () => {
  const cases: [string, number | null][] = [
    ['2024-05-01T12:00:00.250Z', T1],
    ['2024-05-01T12:00:00,250Z', T1],
    ['2024-05-01t12:00:00.250z', T1],
    ['2024-05-01T12:00Z', Date.UTC(2024, 4, 1, 12)],
    ['2024-05-01T12:00:00.2509999Z', T1],
    ['2024-05-01T12:00:00.2Z', Date.UTC(2024, 4, 1, 12, 0, 0, 200)],
    ['2024-05-01T13:30:00.250+0130', T1],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
    ['1900-02-29T00:00:00Z', null],
    ['0050-01-01T00:00:00Z', new Date('0050-01-01T00:00:00Z').getTime()], // not 1950
    ['1970-01-01T00:00:00.000Z', 0],
    ['2024-04-31T00:00:00Z', null],
    ['2024-05-01T12:60:00Z', null],
    ['2024-05-01T12:00:60Z', null],
    ['2024-05-01T12:00:00+24:00', null],
    ['2024-05-01 12:00:00Z', null],
    ['', null],
  ];
  it.each(cases)('%j', (text, want) => {
    expect(parseIsoDate(text)).toBe(want);
  });
});

describe('splitLines', () => {
  async function collect(chunks: string[]): Promise<string[]> {
    const out: string[] = [];
    for await (const l of splitLines(chunks)) out.push(l);
    return out;
  }

  const cases: [string, string[], string[]][] = [
    ['LF', ['a\nb\nc\n'], ['a', 'b', 'c']],
    ['CRLF', ['a\r\nb\r\nc\r\n'], ['a', 'b', 'c']],
    ['a last line without a newline', ['a\nb'], ['a', 'b']],
    ['a last line without a newline, CRLF', ['a\r\nb\r'], ['a', 'b']],
    ['empty lines are kept as "" so that line numbers hold', ['a\n\n\r\nb\n\n'], ['a', '', '', 'b', '']],
    ['nothing', [], []],
    ['empty chunks', ['', '', ''], []],
    ['a BOM on line 1 only', ['\uFEFFa\n\uFEFFb\n'], ['a', '\uFEFFb']],
    ['a BOM after an empty first chunk', ['', '\uFEFFa\n'], ['a']],
    ['CR and LF in different chunks', ['a\r', '\nb\r', '\n'], ['a', 'b']],
    ['a line across many chunks', ['{"u', 'rl":', '1}\n{', '}'], ['{"url":1}', '{}']],
    ['one character a chunk', [...'x\r\ny\n\nz'], ['x', 'y', '', 'z']],
    ['a CR inside a line stays', ['a\rb\n'], ['a\rb']],
  ];
  it.each(cases)('%s', async (_name, chunks, want) => {
    expect(await collect(chunks)).toEqual(want);
  });

  it('reads an async stream of chunks', async () => {
    async function* chunks(): AsyncGenerator<string> {
      yield '\uFEFF{"format":"doppel","version":1}\r\n';
      yield '{"url":"https://a.example/","title":"T","simhash":"0123456789abcdef"}\r';
      yield '\n';
    }
    const out: string[] = [];
    for await (const l of splitLines(chunks())) out.push(l);
    expect(out).toEqual(['{"format":"doppel","version":1}', '{"url":"https://a.example/","title":"T","simhash":"0123456789abcdef"}']);
    expect(parseHeader(out[0]!).ok).toBe(true);
    expect(parsePageLine(out[1]!, 2, NOW).ok).toBe(true);
  });
});
