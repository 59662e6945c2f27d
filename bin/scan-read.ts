// Reading one file for `scan`: bytes → text (decode) → extracted, fingerprinted document. Used by
// the main thread with one job and by each worker (bin/scan-worker.ts) with more.
import { readFile } from 'node:fs/promises';
import { parseHTML } from 'linkedom';
import type { FingerprintedDocument, ScanKind } from '../lib/scan';
import { type MethodCode, type ScanMethod, fingerprintForMethod } from '../lib/scan-methods';
import { type ReuseDocument, siteOfHtml } from '../lib/scan-reuse';

/** A file to read: where it is and how the report names it. */
export interface Listed {
  /** Relative to the scanned folder, with `/`. */
  path: string;
  absolute: string;
  kind: ScanKind;
}

/** A file read and fingerprinted, or why it could not be read. */
export type ReadResult =
  | { ok: true; fingerprinted: FingerprintedDocument; code: MethodCode | null; reuse: ReuseDocument | null }
  | { ok: false; reason: string };

/** Reads one file; `forReuse` also keeps its text and site, for the passages it may share. */
export async function readDocument(file: Listed, method: ScanMethod, forReuse = false): Promise<ReadResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file.absolute);
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
  const content = decode(bytes, file.kind);
  let text: string | null = null;
  const read = fingerprintForMethod({ path: file.path, kind: file.kind, content }, method, parseHtml, {}, (t) => (text = t));
  const reuse = forReuse ? { path: file.path, text, site: file.kind === 'html' ? siteOfHtml(content) : null } : null;
  return { ok: true, ...read, reuse };
}

export function reasonOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'not found';
    case 'ENOTDIR':
      return 'not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    default:
      return e instanceof Error ? e.message : String(error);
  }
}

/**
 * UTF-16 with a BOM; else UTF-8 when the bytes are valid UTF-8 (pages saved to disk are often
 * re-encoded as UTF-8 but keep their old <meta charset>: three of Readability's test pages do,
 * and legacy-encoded text with non-ASCII bytes is almost never valid UTF-8); else the encoding an
 * early <meta charset> names; else UTF-8 with U+FFFD for bad bytes.
 */
export function decode(bytes: Uint8Array, kind: ScanKind): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // Not UTF-8: look for a declared encoding.
  }
  if (kind === 'html') {
    const head = Buffer.from(bytes.subarray(0, 2048)).toString('latin1');
    const label = /<meta[^>]*?\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
    if (label && !/^(utf-?8|utf-?16.*|unicode.*)$/.test(label)) {
      try {
        return new TextDecoder(label).decode(bytes);
      } catch {
        // Unknown label: fall through to UTF-8.
      }
    }
  }
  return new TextDecoder('utf-8').decode(bytes); // strips a UTF-8 BOM; bad bytes become U+FFFD
}

export function parseHtml(html: string): Document {
  return parseHTML(html).document as unknown as Document;
}
