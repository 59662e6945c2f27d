// A WARC response's HTTP body as scan reads it: de-chunked (warcio), decompressed by its
// Content-Encoding (node:zlib, capped so that a small compressed body cannot grow without bound),
// and decoded as text by its charset.
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { AsyncIterReader } from 'warcio';
import { decode } from '../scan-read';

/** A Content-Type's media type (lower case, without parameters) and its charset, if it names one. */
export function mediaTypeOf(contentType: string | null | undefined): { type: string; charset: string | undefined } {
  const [type = '', ...parameters] = (contentType ?? '').split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const match = /^\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(parameter);
    if (match) charset = match[1]!.toLowerCase();
  }
  return { type: type.trim().toLowerCase(), charset };
}

/** Whether a media type is a web page's. */
export function isHtmlType(type: string): boolean {
  return type === 'text/html' || type === 'application/xhtml+xml';
}

export type BodyResult = { ok: true; bytes: Uint8Array } | { ok: false; reason: string };

/**
 * The body's bytes as the page had them: `raw` de-chunked when Transfer-Encoding says chunked, then
 * decompressed by Content-Encoding (gzip, deflate, br; a body cut short gives what it holds). As
 * warcio does, a Transfer-Encoding other than chunked stands for a missing Content-Encoding.
 */
export async function decodeBody(raw: Uint8Array, headers: Headers, maxBytes: number): Promise<BodyResult> {
  const transfer = headers.get('transfer-encoding')?.trim().toLowerCase() ?? '';
  const chunked = transfer === 'chunked';
  let encoding = headers.get('content-encoding')?.trim().toLowerCase() ?? '';
  if (encoding === '' && !chunked) encoding = transfer;
  let bytes = raw;
  if (chunked) {
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const part of new AsyncIterReader([raw], null, true)) {
      parts.push(part);
      size += part.length;
    }
    bytes = Buffer.concat(parts, size);
  }
  const options = { maxOutputLength: maxBytes, finishFlush: constants.Z_SYNC_FLUSH };
  try {
    switch (encoding) {
      case '':
      case 'identity':
      case 'none':
        return { ok: true, bytes };
      case 'gzip':
      case 'x-gzip':
        return { ok: true, bytes: gunzipSync(bytes, options) };
      case 'deflate':
        // servers send zlib-wrapped deflate or, against the standard, raw deflate
        try {
          return { ok: true, bytes: inflateSync(bytes, options) };
        } catch (error) {
          if (tooLarge(error)) throw error;
          return { ok: true, bytes: inflateRawSync(bytes, options) };
        }
      case 'br':
        return { ok: true, bytes: brotliDecompressSync(bytes, { maxOutputLength: maxBytes, finishFlush: constants.BROTLI_OPERATION_FLUSH }) };
      default:
        return { ok: false, reason: `Content-Encoding ${JSON.stringify(encoding)} is not one scan decodes` };
    }
  } catch (error) {
    if (tooLarge(error)) return { ok: false, reason: `over ${formatBytes(maxBytes)} once decompressed (${encoding})` };
    return { ok: false, reason: `its ${encoding} body could not be decompressed (${error instanceof Error ? error.message : String(error)})` };
  }
}

function tooLarge(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_BUFFER_TOO_LARGE';
}

/**
 * A served page's bytes as text: a byte-order mark first, then the charset its HTTP Content-Type
 * names (as a browser reads a served page), else as scan reads a saved file (bin/scan-read.ts's
 * decode: UTF-8 when valid, else the page's <meta charset>).
 */
export function decodeServed(bytes: Uint8Array, charset: string | undefined): string {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (charset !== undefined && !bom && !utf16) {
    try {
      return new TextDecoder(charset).decode(bytes);
    } catch {
      // a label TextDecoder does not know: as if none were given
    }
  }
  return decode(bytes, 'html');
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
