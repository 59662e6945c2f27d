// Doppel's export format: NDJSON, one JSON object per line. Pure (no IndexedDB, no browser APIs);
// lib/store/transfer.ts reads and writes the store with it.
//
// Line 1 is the header:
//   {"format":"doppel","version":1,"exported":"2024-05-01T12:00:00.000Z","pages":2,"k":3,"passages":{"k":5,"w":26,"bytes":2},"rewrites":{"scheme":1,"bits":20,"cap":64}}
// then one page per line:
//   {"url":…,"title":…,"site":…,"simhash":…,"check":…,"firstSeen":…,"lastSeen":…,"visits":…,"passages":"AQID…","rewrites":"BwQ…"}
// with ISO 8601 dates. There is no page text: Doppel keeps none. `passages`, optional, is the
// page's passage fingerprints (hashes and word positions, then one bit of each word's hash when
// the page has them: lib/fingerprint/passage-codec.ts) in base64; the header's `passages` gives the
// winnowing parameters they were taken with and the version of their bytes (`bytes`; a file
// without it has version 1's, which are read and rewritten as this version's). A line written
// before word bits has none and imports.
// `rewrites`, optional, is the page's rewrite fingerprints (hashes of pairs of its rare words:
// lib/fingerprint/rewrite-codec.ts) in base64; the header's `rewrites` gives the scheme they were
// taken with, their bits and their cap. A file written before them has none and imports.
// `published` (ISO 8601), `source` (an http(s) address) and `sourceBy` ("canonical" or "credit"),
// optional, are what the page says of where it comes from (lib/text/provenance.ts). A file written
// before them has none and imports.
//
// Reading is lenient where it costs nothing and strict where a wrong value would be stored:
// - a page needs `url` (http or https; stored canonical, lib/url.ts), `title` (a string) and
//   `simhash` (16 hex digits, either case; stored lowercase);
// - `check` (16 hex digits) is optional: null or absent means unknown (see NO_CHECK in
//   lib/store/pages.ts); `firstSeen`, `lastSeen` (ISO 8601 date and time with a zone) and `visits`
//   (a positive whole number) are optional and default to the import time and 1;
// - `site` is not read: it is always the canonical URL's host, as recorded pages have it;
// - `passages` is read only when the header's parameters are this Doppel's (PASSAGE_PARAMS):
//   fingerprints taken with other ones cannot be compared with its own, and are left out (the
//   page is imported without them, as from a file that has none). Read, they must decode;
// - `rewrites` likewise, read only when the header's scheme, bits and cap are this Doppel's;
// - `published` must be an ISO 8601 date and time, `source` an http(s) address with `sourceBy`
//   "canonical" or "credit"; only a time from 1995 to the import time and an address on another
//   site than the page's are kept (believableProvenance), the rest dropped without a word;
// - any other field is ignored, never an error.
import { LIMITS } from './messages';
import { PASSAGE_BYTES_VERSION, base64ToBytes, bytesToBase64, checkPassageBytes, passageBytesFromVersion1 } from '../fingerprint/passage-codec';
import { PASSAGE_PARAMS, type PassageParams } from '../fingerprint/passages';
import { REWRITE_PARAMS, REWRITE_SCHEME } from '../fingerprint/rewrites';
import { decodeRewriteBytes } from '../fingerprint/rewrite-codec';
import type { PageRecord } from '../rows/record';
import { canonicalPage } from '../url';
import { MAX_SOURCE_CHARS, type Provenance, type SourceKind, believableProvenance } from '../text/provenance';
import type { LineProblem, Refusal } from './writer-protocol';

export const FORMAT = 'doppel';
/** The newest format version this code reads and the one it writes. */
export const FORMAT_VERSION = 1;

export interface ExportMeta {
  /** When the export was made, milliseconds since the epoch. */
  exported: number;
  /** How many page lines follow. */
  pages: number;
  /** The near-duplicate distance the exporting Doppel used (informative). */
  k: number;
}

export interface Header {
  format: typeof FORMAT;
  version: number;
  /** Milliseconds since the epoch, or null if absent or unreadable (informative only). */
  exported: number | null;
  pages: number | null;
  k: number | null;
  /** The winnowing parameters of the lines' passage fingerprints and the version of their bytes (1 if the header names none); null if the header gives none. */
  passages: (PassageParams & { bytes: number }) | null;
  /** The scheme, bits and cap of the lines' rewrite fingerprints; null if the header gives none. */
  rewrites: RewriteHeader | null;
}

export interface RewriteHeader {
  scheme: number;
  bits: number;
  cap: number;
}

/** A page as read from a line: what a PageRecord holds except its table keys. */
export interface ImportedPage {
  /** Canonical. */
  url: string;
  title: string;
  /** The canonical URL's host. */
  site: string;
  /** 16 lowercase hex digits. */
  simhash: string;
  /** 16 lowercase hex digits, or null: not in the line, so unknown. */
  check: string | null;
  firstSeen: number;
  lastSeen: number;
  visits: number;
  /**
   * Whether firstSeen and lastSeen were in the line (false: defaulted from the import time). A
   * merge into a stored page ignores a defaulted date: it says nothing about when the page was
   * seen, and counting it would move lastSeen on every import of the same file.
   */
  datesGiven: { firstSeen: boolean; lastSeen: boolean };
  /** The page's passage fingerprints as bytes (lib/fingerprint/passage-codec.ts, checked), if the line had readable ones (see the top of the file). */
  passages?: Uint8Array;
  /** The page's rewrite fingerprints as bytes (lib/fingerprint/rewrite-codec.ts, checked), likewise. */
  rewrites?: Uint8Array;
  /** What the page says of where it comes from, as believableProvenance keeps it. */
  published?: number;
  source?: string;
  sourceBy?: SourceKind;
}

export type { Refusal } from './writer-protocol';

export type HeaderResult = { ok: true; header: Header } | { ok: false; reason: string; refusal: Refusal };
export type LineResult = { ok: true; page: ImportedPage } | { ok: false; line: number; problems: LineProblem[] };

const HEX16 = /^[0-9a-fA-F]{16}$/;
const LOWER_HEX16 = /^[0-9a-f]{16}$/;
const BOM = '\uFEFF';

function isoDate(ms: number): string {
  return new Date(ms).toISOString();
}

/** The header line (no newline). */
export function exportHeader(meta: ExportMeta): string {
  const rewrites: RewriteHeader = { scheme: REWRITE_SCHEME, bits: REWRITE_PARAMS.sample.bits, cap: REWRITE_PARAMS.sample.cap };
  return JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, exported: isoDate(meta.exported), pages: meta.pages, k: meta.k, passages: { k: PASSAGE_PARAMS.k, w: PASSAGE_PARAMS.w, bytes: PASSAGE_BYTES_VERSION }, rewrites });
}

/**
 * A record's line (no newline): every field but the table keys, which depend on the importing
 * store's table design and are recomputed, and whether it is a copy, which follows from the
 * history it is imported into. An unknown check (the store's NO_CHECK, or anything that is not
 * 16 lowercase hex digits) is written as null. `passages`, `rewrites`: its fingerprints, if it has any.
 */
export function pageToLine(record: PageRecord, passages?: Uint8Array, rewrites?: Uint8Array): string {
  return JSON.stringify({
    url: record.url,
    title: record.title,
    site: record.site,
    simhash: record.simhash,
    check: LOWER_HEX16.test(record.check) ? record.check : null,
    firstSeen: isoDate(record.firstSeen),
    lastSeen: isoDate(record.lastSeen),
    visits: record.visits,
    ...(passages === undefined ? {} : { passages: bytesToBase64(passages) }),
    ...(rewrites === undefined ? {} : { rewrites: bytesToBase64(rewrites) }),
    ...(record.published === undefined ? {} : { published: isoDate(record.published) }),
    ...(record.source === undefined ? {} : { source: record.source, sourceBy: record.sourceBy }),
  });
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/i;

/**
 * Milliseconds since the epoch of an ISO 8601 date and time with a time zone (Z or ±hh:mm), e.g.
 * 2024-05-01T12:00:00Z or 2024-05-01T14:00:00.250+02:00; seconds and fractions optional, digits
 * beyond milliseconds dropped. Null for anything else, including impossible dates (Feb 30) and
 * times without a zone (ambiguous). Date.parse alone is too lenient for both.
 */
export function parseIsoDate(text: string): number | null {
  const exported = exportedDate(text);
  if (exported !== undefined) return exported;
  const m = ISO_8601.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const millis = m[7] === undefined ? 0 : Number((m[7] + '00').slice(0, 3));
  const offset = m[8] !== undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate(); // 2000: a leap year
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return null;
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) return null;
  if (hour > 23 || minute > 59 || second > 59 || Number(m[10] ?? 0) > 23 || Number(m[11] ?? 0) > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC: it reads years 0–99 as 1900–1999
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime() - offset * 60_000;
}

/**
 * parseIsoDate of the form Doppel writes (toISOString: 2024-05-01T12:00:00.250Z), read digit by
 * digit: an import reads two million; undefined for any other form (parseIsoDate reads it then).
 */
function exportedDate(text: string): number | null | undefined {
  if (text.length !== 24 || text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':' || text[19] !== '.' || text[23] !== 'Z') return undefined;
  const digits = (from: number, to: number): number => {
    let n = 0;
    for (let i = from; i < to; i++) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return -1;
      n = n * 10 + d;
    }
    return n;
  };
  const [year, month, day, hour, minute, second, millis] = [digits(0, 4), digits(5, 7), digits(8, 10), digits(11, 13), digits(14, 16), digits(17, 19), digits(20, 23)] as const;
  if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || millis < 0) return undefined; // Date.UTC reads years 0–99 as 1900–1999
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (month < 1 || month > 12 || day < 1 || day > days || hour > 23 || minute > 59 || second > 59) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, millis);
}

function parseObject(line: string): Record<string, unknown> | 'not-json' | 'not-object' {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not-json';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not-object';
  return value as Record<string, unknown>;
}

const absent = (value: unknown): value is null | undefined => value === undefined || value === null;

/**
 * Reads line 1. Needs `format: "doppel"` and `version: 1`; `exported`, `pages` and `k` are
 * informative and read if well-formed. A leading BOM is ignored. The reasons are sentences for a
 * person; the caller adds "line 1: " or the like.
 */
export function parseHeader(line: string): HeaderResult {
  const o = parseObject(line.startsWith(BOM) ? line.slice(1) : line);
  const notHeader = `this is not a Doppel export: the first line must be its header, {"format":"${FORMAT}","version":${FORMAT_VERSION},…}`;
  if (typeof o === 'string' || o['format'] !== FORMAT) return { ok: false, reason: notHeader, refusal: { code: 'not-export' } };
  const version = o['version'];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return { ok: false, reason: `the header's version must be a whole number from 1: got ${JSON.stringify(version) ?? 'nothing'}`, refusal: { code: 'bad-version' } };
  }
  if (version > FORMAT_VERSION) {
    return {
      ok: false,
      reason: `this file is in version ${version} of the Doppel export format, newer than version ${FORMAT_VERSION}, the newest this copy of Doppel reads: update Doppel to import it`,
      refusal: { code: 'newer-version', version, newest: FORMAT_VERSION },
    };
  }
  const count = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null);
  const exported = typeof o['exported'] === 'string' ? parseIsoDate(o['exported']) : null;
  const p = o['passages'] as Partial<PassageParams & { bytes: number }> | null | undefined;
  const passages = typeof p === 'object' && p !== null && count(p.k) !== null && count(p.w) !== null ? { k: p.k!, w: p.w!, bytes: p.bytes === undefined ? 1 : (count(p.bytes) ?? 0) } : null;
  const r = o['rewrites'] as Partial<RewriteHeader> | null | undefined;
  const rewrites = typeof r === 'object' && r !== null && count(r.scheme) !== null && count(r.bits) !== null && count(r.cap) !== null ? { scheme: r.scheme!, bits: r.bits!, cap: r.cap! } : null;
  return { ok: true, header: { format: FORMAT, version, exported, pages: count(o['pages']), k: count(o['k']), passages, rewrites } };
}

/** Whether a header's rewrite scheme, bits and cap are this Doppel's, so that the lines' rewrite fingerprints are read. */
export function readsRewrites(header: Header): boolean {
  const r = header.rewrites;
  return r !== null && r.scheme === REWRITE_SCHEME && r.bits === REWRITE_PARAMS.sample.bits && r.cap === REWRITE_PARAMS.sample.cap;
}

/**
 * The version of the lines' passage bytes when the header's passage parameters are this Doppel's
 * and their bytes a version it reads (1 or PASSAGE_BYTES_VERSION), so that they are read; else false.
 */
export function readsPassages(header: Header): number | false {
  const p = header.passages;
  return p !== null && p.k === PASSAGE_PARAMS.k && p.w === PASSAGE_PARAMS.w && (p.bytes === 1 || p.bytes === PASSAGE_BYTES_VERSION) ? p.bytes : false;
}

/**
 * Reads a page line. `lineNumber` is only echoed in a rejection; `now` (milliseconds) is the
 * default for a missing firstSeen or lastSeen: firstSeen = min(now, lastSeen), lastSeen =
 * max(now, firstSeen), so that the defaults never put firstSeen after lastSeen. A title longer
 * than the recorder's limit (LIMITS.titleChars) is cut to it. `passages` is read when `withPassages`
 * (readsPassages of the header: the version of its bytes; true: this version's), and version 1's
 * rewritten as this version's; `rewrites` when `withRewrites` (readsRewrites). A rejection names
 * every problem of the line, separated by "; ".
 */
export function parsePageLine(line: string, lineNumber: number, now: number, withPassages: boolean | number = false, withRewrites = false): LineResult {
  const reject = (...problems: LineProblem[]): LineResult => ({ ok: false, line: lineNumber, problems });
  const o = parseObject(line.startsWith(BOM) ? line.slice(1) : line);
  if (o === 'not-json') return reject({ code: 'not-json' });
  if (o === 'not-object') return reject({ code: 'not-object' });
  if ('format' in o && !('url' in o)) return reject({ code: 'second-header' });

  const problems: LineProblem[] = [];
  const { url: rawUrl, title: rawTitle, simhash: rawSimhash, check: rawCheck, firstSeen: rawFirst, lastSeen: rawLast, visits: rawVisits, passages: rawPassages, rewrites: rawRewrites, published: rawPublished, source: rawSource, sourceBy: rawSourceBy } = o;

  let url = '';
  let site = '';
  if (absent(rawUrl)) problems.push({ code: 'missing', field: 'url' });
  else if (typeof rawUrl !== 'string') problems.push({ code: 'not-string', field: 'url' });
  else if (rawUrl.length > LIMITS.urlChars) problems.push({ code: 'too-long', field: 'url', max: LIMITS.urlChars });
  else {
    try {
      ({ url, site } = canonicalPage(rawUrl));
    } catch {
      problems.push({ code: 'not-http', field: 'url' });
    }
  }

  if (absent(rawTitle)) problems.push({ code: 'missing', field: 'title' });
  else if (typeof rawTitle !== 'string') problems.push({ code: 'not-string', field: 'title' });

  if (absent(rawSimhash)) problems.push({ code: 'missing', field: 'simhash' });
  else if (typeof rawSimhash !== 'string' || !HEX16.test(rawSimhash)) problems.push({ code: 'not-hex', field: 'simhash' });

  if (!absent(rawCheck) && (typeof rawCheck !== 'string' || !HEX16.test(rawCheck))) problems.push({ code: 'not-hex', field: 'check' });

  const date = (field: 'firstSeen' | 'lastSeen' | 'published', value: unknown): number | null => {
    if (absent(value)) return null;
    const ms = typeof value === 'string' ? parseIsoDate(value) : null;
    if (ms === null) problems.push({ code: 'not-date', field });
    return ms;
  };
  const first = date('firstSeen', rawFirst);
  const last = date('lastSeen', rawLast);
  const claims: Provenance = {};
  const published = date('published', rawPublished);
  if (published !== null) claims.published = published;
  if (!absent(rawSource)) {
    if (typeof rawSource !== 'string') problems.push({ code: 'not-string', field: 'source' });
    else if (rawSource.length > MAX_SOURCE_CHARS) problems.push({ code: 'too-long', field: 'source', max: MAX_SOURCE_CHARS });
    else if (!/^https?:\/\//i.test(rawSource)) problems.push({ code: 'not-http', field: 'source' });
    else if (rawSourceBy !== 'canonical' && rawSourceBy !== 'credit') problems.push({ code: absent(rawSourceBy) ? 'missing' : 'unreadable', field: 'sourceBy' });
    else Object.assign(claims, { source: rawSource, sourceBy: rawSourceBy });
  }
  if (first !== null && last !== null && first > last) problems.push({ code: 'dates-order' });

  if (!absent(rawVisits) && !(typeof rawVisits === 'number' && Number.isSafeInteger(rawVisits) && rawVisits >= 1)) {
    problems.push({ code: 'not-visits' });
  }

  // `read` checks the bytes and returns those to keep
  const bytesOf = (field: 'passages' | 'rewrites', raw: unknown, read: (bytes: Uint8Array) => Uint8Array): Uint8Array | undefined => {
    if (typeof raw !== 'string') {
      problems.push({ code: 'not-string', field });
      return undefined;
    }
    try {
      return read(base64ToBytes(raw));
    } catch {
      problems.push({ code: 'unreadable', field });
      return undefined;
    }
  };
  const readPassages = withPassages === 1 ? passageBytesFromVersion1 : (bytes: Uint8Array) => (checkPassageBytes(bytes), bytes);
  const passages = withPassages !== false && !absent(rawPassages) ? bytesOf('passages', rawPassages, readPassages) : undefined;
  const rewrites = withRewrites && !absent(rawRewrites) ? bytesOf('rewrites', rawRewrites, (bytes) => (decodeRewriteBytes(bytes), bytes)) : undefined;

  if (problems.length > 0) return reject(...problems);
  const firstSeen = first ?? Math.min(now, last ?? now);
  const provenance = url === '' ? {} : believableProvenance(claims, url, now);
  return {
    ok: true,
    page: {
      url,
      title: (rawTitle as string).slice(0, LIMITS.titleChars),
      site,
      simhash: (rawSimhash as string).toLowerCase(),
      check: absent(rawCheck) ? null : (rawCheck as string).toLowerCase(),
      firstSeen,
      lastSeen: last ?? Math.max(now, firstSeen),
      visits: absent(rawVisits) ? 1 : (rawVisits as number),
      datesGiven: { firstSeen: first !== null, lastSeen: last !== null },
      ...(passages === undefined ? {} : { passages }),
      ...(rewrites === undefined ? {} : { rewrites }),
      ...provenance,
    },
  };
}

/**
 * Splits text arriving in chunks of any size (a file read in pieces, a decoded stream) into lines,
 * without holding more than one line and one chunk. Handles \n and \r\n (also when a chunk ends
 * between \r and \n), a last line without a newline, and a BOM at the very start.
 *
 * Empty lines are yielded as '' rather than dropped, so that the n-th string yielded is line n
 * of the file and a rejection's line number is the one a person sees in an editor; importLines
 * (lib/store/transfer.ts) skips blank lines without counting them as errors. A final newline
 * does not make a last, empty line.
 */
export async function* splitLines(chunks: Iterable<string> | AsyncIterable<string>): AsyncGenerator<string, void, undefined> {
  let rest = '';
  let atStart = true;
  for await (const chunk of chunks) {
    let text = rest + chunk;
    if (atStart && text.length > 0) {
      atStart = false;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      yield withoutCr(text.slice(start, newline));
      start = newline + 1;
    }
    rest = text.slice(start);
  }
  if (rest.length > 0) yield withoutCr(rest);
}

function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
