// The documents of a JSONL (NDJSON) file, gzipped or not: one JSON object a line, its text in "text"
// (plain text) or "html" (a page; "text" is taken when it has both: it is what the data set keeps),
// named by its "id", else its "url", else FILE:LINE. A line that cannot be read gets a note and
// reading goes on; blank lines are passed over; a gzip stream cut short ends with one note.
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { reasonOf } from '../scan-read';
import { formatBytes } from './http-body';
import { type LinesEnd, linesOf } from './lines';
import { type ContainerOptions, type ContainerSummary, MAX_DOCUMENT_BYTES, type SourceDocument, type SourceItem } from './types';
import type { ContainerFile } from './warc';

const CHUNK_BYTES = 64 * 1024;

/** What one line gives: a document, a note on why it gives none, or nothing (a blank line). */
type LineOutcome = { document: Omit<SourceDocument, 'position' | 'where'> } | { note: string } | null;

export async function* readJsonl(file: ContainerFile, { startAt, maxDocumentBytes = MAX_DOCUMENT_BYTES, onStream }: ContainerOptions = {}): AsyncGenerator<SourceItem> {
  const first = startAt?.index ?? 0;
  const summary: ContainerSummary = { where: file.where, file: file.absolute, format: 'jsonl', entries: 0, documents: 0, skipped: {}, notes: 0, complete: false };
  const note = (message: string, index: number | null, offset: number | null): SourceItem => {
    summary.notes++;
    const where = index === null ? file.where : `${file.where} line ${index + 1}`;
    return { type: 'note', note: { where, message, position: { file: file.absolute, index: index ?? 0, offset } } };
  };
  let handle;
  try {
    handle = await open(file.absolute);
  } catch (error) {
    yield note(`cannot be read: ${reasonOf(error)}`, null, null);
    yield { type: 'container', summary };
    return;
  }
  try {
    const magic = new Uint8Array(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    // gzipped or not by its first bytes, whatever its name says
    const gzipped = bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
    // a gzip stream can only be read from its start; a plain file from the line a position gives
    const seek = gzipped ? null : (startAt?.offset ?? null);
    const raw = handle.createReadStream({ start: seek ?? 0, highWaterMark: CHUNK_BYTES, autoClose: false });
    onStream?.(raw);
    const chunks = gzipped ? pipeline(raw, createGunzip({ chunkSize: CHUNK_BYTES }), () => {}) : raw;
    let end: LinesEnd = { ok: true };
    const lines = linesOf(chunks, maxDocumentBytes, (e) => (end = e), seek === null ? {} : { firstIndex: first, firstOffset: seek });
    for await (const line of lines) {
      if (line.index < first) continue;
      summary.entries++;
      const offset = gzipped ? null : line.start;
      if (line.bytes === null) {
        yield note(`over ${formatBytes(maxDocumentBytes)} (${formatBytes(line.length)}): skipped`, line.index, offset);
        continue;
      }
      const outcome = readLine(line.bytes, line.index === 0);
      if (outcome === null) summary.skipped['blank line'] = (summary.skipped['blank line'] ?? 0) + 1;
      else if ('note' in outcome) yield note(outcome.note, line.index, offset);
      else {
        summary.documents++;
        const where = `${file.where} line ${line.index + 1}`;
        const { document } = outcome;
        yield { type: 'document', document: { ...document, name: document.name || `${file.where}:${line.index + 1}`, position: { file: file.absolute, index: line.index, offset }, where } };
      }
    }
    const ended = end as LinesEnd;
    if (ended.ok) summary.complete = true;
    else {
      const cut = ended.pending > 0 ? `; line ${ended.index + 1} is cut after ${ended.pending} bytes and left out` : '';
      const place = ended.index === 0 ? 'at its start' : `after line ${ended.index}`;
      yield note(`reading stopped ${place}: ${reasonOf(ended.error)}${cut}`, null, null);
    }
  } catch (error) {
    yield note(`reading stopped: ${reasonOf(error)}`, null, null);
  } finally {
    await handle.close();
  }
  yield { type: 'container', summary };
}

/** One line's document, or why it has none; null for a blank line. */
export function readLine(bytes: Uint8Array, firstLine: boolean): LineOutcome {
  let text = new TextDecoder('utf-8', { ignoreBOM: !firstLine }).decode(bytes);
  if (firstLine) text = text.replace(/^\ufeff/, '');
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { note: `not JSON (${printable(error instanceof Error ? error.message : String(error))})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { note: `not a JSON object but ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}` };
  const entry = value as Record<string, unknown>;
  const content = typeof entry.text === 'string' ? { kind: 'text' as const, content: entry.text } : typeof entry.html === 'string' ? { kind: 'html' as const, content: entry.html } : null;
  if (content === null) {
    const wrong = ['text', 'html'].filter((key) => key in entry && entry[key] !== null);
    return { note: wrong.length > 0 ? `its ${wrong.map((key) => `"${key}"`).join(' and ')} is not a string` : 'no "text" or "html" in it' };
  }
  const id = typeof entry.id === 'string' || typeof entry.id === 'number' ? String(entry.id) : '';
  const url = typeof entry.url === 'string' ? entry.url : '';
  return { document: { name: id || url, ...content, ...(/^https?:\/\//i.test(url) ? { url } : {}) } };
}

/** Text safe to print in a note: control characters as `?`, at most 100 characters. */
function printable(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '?');
  return clean.length > 100 ? `${clean.slice(0, 99)}…` : clean;
}
