// The documents of a WARC file (.warc, .warc.gz; WET files too): each `response` record whose HTTP
// Content-Type is a web page (HTML), and each `conversion` record (WET's plain text). Every other
// record (request, metadata, warcinfo, revisit, resource; responses that are images, scripts,
// style sheets, PDFs, redirects or errors) is read past and counted by kind. A record that cannot be
// read gets a note naming it and reading goes on; a file cut short ends with one note.
import { createReadStream } from 'node:fs';
import { decode, reasonOf } from '../scan-read';
import { decodeBody, decodeServed, formatBytes, isHtmlType, mediaTypeOf } from './http-body';
import { type ContainerOptions, type ContainerSummary, MAX_DOCUMENT_BYTES, type SourceDocument, type SourceItem } from './types';
import { type RecordHead, WarcFraming, parseHeaders } from './warc-framing';

/** A container file to read: where it is, and how notes name it. */
export interface ContainerFile {
  absolute: string;
  where: string;
}

/** What one record gives: a document, a kind of record skipped, or a note on why its page is left out. */
type Outcome = { document: SourceDocument } | { skipped: string } | { note: string };

const CHUNK_BYTES = 64 * 1024;

export async function* readWarc(file: ContainerFile, { startAt, maxDocumentBytes = MAX_DOCUMENT_BYTES, onStream }: ContainerOptions = {}): AsyncGenerator<SourceItem> {
  const first = startAt?.index ?? 0;
  const seek = startAt?.offset ?? null;
  const summary: ContainerSummary = { where: file.where, file: file.absolute, format: 'warc', entries: 0, documents: 0, skipped: {}, notes: 0, complete: false };
  const note = (message: string, index: number | null, offset: number | null, uri?: string | null): SourceItem => {
    summary.notes++;
    const where = index === null ? file.where : `${file.where} record ${index + 1}${uri ? ` (${uri})` : ''}`;
    return { type: 'note', note: { where, message, position: { file: file.absolute, index: index ?? 0, offset } } };
  };
  const stream = createReadStream(file.absolute, { start: seek ?? 0, highWaterMark: CHUNK_BYTES });
  onStream?.(stream);
  try {
    const framing = new WarcFraming(stream, seek === null ? {} : { firstIndex: first, firstOffset: seek });
    for (;;) {
      const next = await framing.next();
      if (next.type === 'end') {
        summary.complete = true;
        break;
      }
      if (next.type === 'garbage') {
        const { bytes, before } = next;
        if (before !== null) yield note(`${bytes} bytes that are no WARC record before record ${before + 1}; read on from there`, null, null);
        else yield note(summary.entries === 0 ? `not a WARC file: no record in its ${bytes} bytes` : `its last ${bytes} bytes are no WARC record`, null, null);
        continue;
      }
      if (next.type === 'cut') {
        yield note(next.message, next.index < 0 ? null : next.index, null);
        break;
      }
      if (next.type === 'problem') {
        if (next.index >= first) {
          summary.entries++;
          yield note(next.message, next.index, null);
        }
        if (next.fatal) break;
        continue;
      }
      const { head } = next;
      const outcome = head.index < first ? null : await readRecord(framing, head, file, maxDocumentBytes);
      const end = await framing.endBlock();
      if (head.index < first) {
        if (!end.ok && end.fatal) break;
        continue;
      }
      summary.entries++;
      const uri = head.headers.get('warc-target-uri');
      if (!end.ok) {
        const leftOut = outcome !== null && 'document' in outcome ? '; its page is left out' : '';
        yield note(`${end.message}${leftOut}`, head.index, head.offset, uri);
        if (end.fatal) break;
        continue;
      }
      if (outcome === null) continue;
      if ('document' in outcome) {
        summary.documents++;
        yield { type: 'document', document: outcome.document };
      } else if ('skipped' in outcome) summary.skipped[outcome.skipped] = (summary.skipped[outcome.skipped] ?? 0) + 1;
      else yield note(outcome.note, head.index, head.offset, uri);
    }
  } catch (error) {
    yield note(`reading stopped: ${reasonOf(error)}`, null, null);
  } finally {
    stream.destroy();
  }
  yield { type: 'container', summary };
}

/** Reads one record's block (its HTTP headers and body) as far as deciding what it gives needs. */
async function readRecord(framing: WarcFraming, head: RecordHead, file: ContainerFile, maxBytes: number): Promise<Outcome> {
  const type = head.headers.get('warc-type') ?? '(no WARC-Type)';
  const uri = head.headers.get('warc-target-uri') ?? '';
  const where = `${file.where} record ${head.index + 1}`;
  const document = (kind: SourceDocument['kind'], content: string): Outcome => ({
    document: {
      name: uri || where,
      kind,
      content,
      ...(/^https?:\/\//i.test(uri) ? { url: uri } : {}),
      position: { file: file.absolute, index: head.index, offset: head.offset },
      where,
    },
  });
  const tooLarge = (): Outcome => ({ note: `over ${formatBytes(maxBytes)} (its block: ${formatBytes(head.contentLength)}): skipped` });
  if (type === 'conversion') {
    const bytes = await framing.blockRest(maxBytes);
    return bytes === null ? tooLarge() : document('text', decode(bytes, 'text'));
  }
  if (type !== 'response') return { skipped: type };
  const block = await framing.blockHeaders();
  if (!block.ok) return { skipped: 'response: no HTTP headers' };
  const http = await parseHeaders(block.bytes);
  const status = /^HTTP\/\S+\s+(\d{3})/.exec(http.statusLine)?.[1];
  if (status === undefined) return { skipped: 'response: not HTTP' };
  if (!status.startsWith('2')) return { skipped: `response: status ${status}` };
  const { type: media, charset } = mediaTypeOf(http.headers.get('content-type'));
  if (media === '') return { skipped: 'response: no Content-Type' };
  if (!isHtmlType(media)) return { skipped: `response: ${media}` };
  const raw = await framing.blockRest(maxBytes);
  if (raw === null) return tooLarge();
  const body = await decodeBody(raw, http.headers, maxBytes);
  if (!body.ok) return { note: `${body.reason}: skipped` };
  return document('html', decodeServed(body.bytes, charset));
}
