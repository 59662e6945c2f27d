// WARC records for tests, written by warcio itself (WARCRecord.create, WARCSerializer), so that
// the fixtures are what a crawler using warcio writes; no binary file is kept in the repository.
import { WARCRecord, type WARCType } from 'warcio';
import { WARCSerializer } from 'warcio/node';

const encoder = new TextEncoder();

export interface RecordSpec {
  type: WARCType;
  url?: string;
  /** The block after the HTTP headers (response, request) or the whole block (others). */
  body?: string | Uint8Array | (() => AsyncIterable<Uint8Array>);
  httpHeaders?: Record<string, string>;
  statusline?: string;
  warcHeaders?: Record<string, string>;
}

/** One record, serialized by warcio (gzipped as its own member when asked, as crawlers write .warc.gz). */
export async function warcRecord(spec: RecordSpec, gzip: boolean): Promise<Uint8Array> {
  const body = spec.body ?? '';
  async function* single(): AsyncIterable<Uint8Array> {
    yield typeof body === 'string' ? encoder.encode(body) : (body as Uint8Array);
  }
  const content = typeof body === 'function' ? body() : single();
  const record = WARCRecord.create(
    {
      type: spec.type,
      url: spec.url,
      date: '2024-05-01T12:00:00Z',
      warcVersion: 'WARC/1.1',
      httpHeaders: spec.httpHeaders ?? {},
      ...(spec.statusline === undefined ? {} : { statusline: spec.statusline }),
      warcHeaders: spec.warcHeaders ?? {},
    },
    content,
  );
  return WARCSerializer.serialize(record, { gzip });
}

/** A 200 response with an HTML page. */
export function page(url: string, html: string, contentType = 'text/html; charset=utf-8'): RecordSpec {
  return { type: 'response', url, body: html, httpHeaders: { 'Content-Type': contentType } };
}

/** A whole file: a warcinfo record, then each record. */
export async function warcFile(specs: readonly RecordSpec[], gzip: boolean): Promise<{ bytes: Buffer; records: Uint8Array[] }> {
  const records = [await warcRecord({ type: 'warcinfo', body: 'software: doppel tests\r\nformat: WARC File Format 1.1\r\n' }, gzip)];
  for (const spec of specs) records.push(await warcRecord(spec, gzip));
  return { bytes: Buffer.concat(records), records };
}
