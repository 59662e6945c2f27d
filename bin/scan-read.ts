// Reading one file for `scan`: bytes → text (decode) → extracted, fingerprinted document. Used by
// the main thread with one job and by each worker (bin/scan-worker.ts) with more.
import { readFileSync } from 'node:fs';
import { type FingerprintedDocument, type ScanKind, fingerprintDocument } from '../lib/scan/scan';
import { type DetectorCode, fingerprintFor } from '../lib/scan/detector';
import { COPY_DETECTORS, detectorNamed } from '../lib/scan/registry';
import { siteOfHtml } from '../lib/scan/reuse';

/** A file to read, or a document already read from a container: where it is and how the report names it. */
export interface Listed {
  /** Relative to the scanned folder, with `/` (a container's document: its name, bin/scan-sources.ts). */
  path: string;
  /** The file (a container's document: its container). */
  absolute: string;
  kind: ScanKind;
  /** A container's document's content, decoded: read in place of the file. */
  content?: string;
  /** The page's own address, when its container says it. */
  url?: string;
  /** Where it is in the run's inputs, for a state to resume after it (bin/scan-db/state.ts). */
  place?: Place;
}

/** Where a file or a container's document is among the inputs: the file's number in their listing, and the record or line (a Position's index and offset). */
export interface Place {
  file: number;
  index: number;
  offset: number | null;
}

/** A file read and fingerprinted, or why it could not be read. */
export type ReadResult =
  | { ok: true; fingerprinted: FingerprintedDocument; code: DetectorCode | null; copies: Record<string, unknown> }
  | { ok: false; reason: string };

/**
 * Reads one file and takes its code for the detector named `method`, and for each copy detector
 * named in `copies` (lib/scan/registry.ts) its code of the text (null when there is no text).
 * `onText` gets the text fingerprinted (the tests take other methods' codes from it).
 */
export async function readDocument(file: Listed, method: string, copies: readonly string[] = [], onText?: (text: string) => void): Promise<ReadResult> {
  const read = await readContent(file);
  if (!read.ok) return read;
  const { content } = read;
  let text: string | null = null;
  const input = { path: file.path, kind: file.kind, content, ...(file.url === undefined ? {} : { url: file.url }) };
  const fingerprinted = fingerprintFor(detectorNamed(method), input, await parserFor(file), {}, (t) => {
    text = t;
    onText?.(t);
  });
  const site = file.kind === 'html' && copies.length > 0 ? siteOfHtml(content) : null;
  const codes: Record<string, unknown> = {};
  for (const detector of COPY_DETECTORS) if (copies.includes(detector.name)) codes[detector.name] = text === null ? null : detector.code(text, site);
  return { ok: true, ...fingerprinted, copies: codes };
}

/** The article text scan fingerprints in a file (HTML: extracted), or why there is none. */
export async function readArticleText(file: Listed): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  const read = await readContent(file);
  if (!read.ok) return read;
  let text: string | null = null;
  const { document } = fingerprintDocument({ path: file.path, kind: file.kind, content: read.content }, await parserFor(file), {}, (t) => (text = t));
  return text === null ? { ok: false, reason: document.note ?? 'no text' } : { ok: true, text };
}

/** A file's bytes decoded (see decode), or why it could not be read. */
async function readContent(file: Listed): Promise<{ ok: true; content: string } | { ok: false; reason: string }> {
  if (file.content !== undefined) return { ok: true, content: file.content };
  try {
    // read at once: a file is read on the thread that fingerprints it next, and fs/promises's
    // readFile takes four trips through the thread pool for each (open, stat, read, close)
    return { ok: true, content: decode(readFileSync(file.absolute), file.kind) };
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
}

/** Which kind of file scan reads a name as: HTML, text, or none. */
export function kindOf(name: string): ScanKind | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.html') || lower.endsWith('.htm')) return 'html';
  if (lower.endsWith('.txt')) return 'text';
  return null;
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

let linkedom: Promise<typeof import('linkedom')> | undefined;

/**
 * The HTML parser for an HTML file. linkedom takes about half a second to load, a tenth of a scan
 * of a thousand .txt files, so a folder without HTML never loads it.
 */
async function parserFor(file: Listed): Promise<(html: string) => Document> {
  if (file.kind !== 'html') return notHtml;
  const { parseHTML } = await (linkedom ??= import('linkedom'));
  return (html) => parseHTML(html).document as unknown as Document;
}

function notHtml(): never {
  throw new Error('a text file is not parsed as HTML');
}
