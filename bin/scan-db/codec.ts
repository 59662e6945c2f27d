// What the on-disk scan stores of a document and its fingerprints, and how it reads them back: typed
// arrays as little-endian BLOBs, a report entry (ScannedDocument) as a row of `documents`.
import type { JS } from '@duckdb/node-api';
import type { ScannedDocument } from '../../lib/scan/scan';

/** The bytes of a typed array (a view: no copy). */
export function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** A BLOB as 32-bit words (copied: a BLOB read back need not be aligned). */
export function uint32sOf(bytes: Uint8Array): Uint32Array {
  if (bytes.byteLength % 4 !== 0) throw new RangeError(`a BLOB of 32-bit words has a multiple of 4 bytes: got ${bytes.byteLength}`);
  return new Uint32Array(Uint8Array.from(bytes).buffer);
}

export function int32sOf(bytes: Uint8Array): Int32Array {
  return new Int32Array(uint32sOf(bytes).buffer);
}

/** A 256-bit nilsimsa code as four big-endian 64-bit words, as nilsimsa_codes stores it (bit_count of their XORs is the bits that differ). */
export function nilsimsaWords(code: Uint8Array): [bigint, bigint, bigint, bigint] {
  const view = new DataView(code.buffer, code.byteOffset, code.byteLength);
  return [view.getBigUint64(0), view.getBigUint64(8), view.getBigUint64(16), view.getBigUint64(24)];
}

export function nilsimsaOfWords(words: readonly bigint[]): Uint8Array {
  const code = new Uint8Array(32);
  const view = new DataView(code.buffer);
  words.forEach((w, i) => view.setBigUint64(8 * i, w));
  return code;
}

/** The columns of `documents` a report entry comes from, in the order of a ScannedDocument's fields. */
export const DOCUMENT_COLUMNS = 'id, path, title, simhash, words, note, url, address, published, source, source_by, rewrite_note';

/** A report entry from a row of DOCUMENT_COLUMNS: its fields in the order fingerprintDocument and the copy notes give them, absent ones left out. */
export function documentOfRow(row: Record<string, JS>): ScannedDocument {
  const document: ScannedDocument = {
    path: row.path as string,
    title: row.title as string,
    simhash: row.simhash === null ? null : (row.simhash as bigint).toString(16).padStart(16, '0'),
    words: row.words as number,
  };
  const optional: [keyof ScannedDocument, string][] = [['note', 'note'], ['url', 'url'], ['address', 'address'], ['published', 'published'], ['source', 'source'], ['sourceBy', 'source_by'], ['rewriteNote', 'rewrite_note']];
  for (const [field, column] of optional) if (row[column] !== null && row[column] !== undefined) Object.assign(document, { [field]: row[column] as string });
  return document;
}
