// bench:scan-scale's documents as WARC records, written by warcio as a crawler using it writes them:
// an HTML page as a `response` record with its HTTP headers, a text document as a `conversion`
// record (WET's plain text), each gzipped as its own member (.warc.gz). The record's
// WARC-Target-URI names the document, ending in its id, so indexOfName reads it back.
import { WARCRecord } from 'warcio';
import { WARCSerializer } from 'warcio/node';

const encoder = new TextEncoder();
/** A fixed date: the same corpus gives the same bytes. */
const DATE = '2024-05-01T12:00:00Z';

export const scaleUri = (id: string): string => `https://scale.example/${id}`;

async function* single(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** The warcinfo record a file starts with. */
export function warcInfo(): Promise<Uint8Array> {
  const record = WARCRecord.create({ type: 'warcinfo', date: DATE, warcVersion: 'WARC/1.1' }, single(encoder.encode('software: doppel bench:scan-scale\r\nformat: WARC File Format 1.1\r\n')));
  return WARCSerializer.serialize(record, { gzip: true });
}

/** One document's record, gzipped: an HTML page or a text (bench/scan/scale-data.ts's ScaleDocument). */
export function scaleWarcRecord(doc: { id: string; html: boolean; content: string }): Promise<Uint8Array> {
  const content = single(encoder.encode(doc.content));
  const record = doc.html
    ? WARCRecord.create({ type: 'response', url: scaleUri(doc.id), date: DATE, warcVersion: 'WARC/1.1', httpHeaders: { 'Content-Type': 'text/html; charset=utf-8' } }, content)
    : WARCRecord.create({ type: 'conversion', url: scaleUri(doc.id), date: DATE, warcVersion: 'WARC/1.1', warcHeaders: { 'Content-Type': 'text/plain' } }, content);
  return WARCSerializer.serialize(record, { gzip: true });
}
