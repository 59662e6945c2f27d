// A page as it is stored in its block (lib/rows/blocks.ts): an array instead of an
// object, without what follows from the rest. The site is the URL's host, and the table keys are
// in the runs.
import { asFingerprint, fingerprintFromHex, fingerprintToHex } from '../fingerprint/bits';
import { siteOf } from '../url';
import type { PageRecord, SlotMarks } from './record';

/**
 * [url, title, fingerprints, firstSeen, lastSeen, visits, group?, copySite?, contentCopy?,
 * published?, source?, credit?]. The fingerprints are 16 bytes, the simhash then the check, or 8
 * when the check is unknown (NO_CHECK). A simhash that is not 16 hex digits (an unreadable record,
 * which matches nothing) is kept as the two strings, so that nothing is lost. `group` is null when
 * a later field is present without it, `copySite` null likewise. contentCopy is 1 (a copy) or,
 * when the page has provenance fields after it, 0. `published` is in whole minutes since the
 * epoch, null when the page gives a source but no date; `source` is followed by 1 when a credit
 * line names it (sourceBy 'credit'), by nothing when its canonical link does.
 */
export type StoredPage =
  | [url: string, title: string, fingerprints: Uint8Array | [simhash: string, check: string], firstSeen: number, lastSeen: number, visits: number]
  | [url: string, title: string, fingerprints: Uint8Array | [simhash: string, check: string], firstSeen: number, lastSeen: number, visits: number, group: string | null]
  | [url: string, title: string, fingerprints: Uint8Array | [simhash: string, check: string], firstSeen: number, lastSeen: number, visits: number, group: string | null, copySite: string]
  | [url: string, title: string, fingerprints: Uint8Array | [simhash: string, check: string], firstSeen: number, lastSeen: number, visits: number, group: string | null, copySite: string | null, contentCopy: 1]
  | [url: string, title: string, fingerprints: Uint8Array | [simhash: string, check: string], firstSeen: number, lastSeen: number, visits: number, group: string | null, copySite: string | null, contentCopy: 0 | 1, published: number | null, ...source: [] | [source: string] | [source: string, credit: 1]];

const MINUTE_MS = 60_000;

/** A record as the codec takes it. */
export type PageValue = PageRecord;

const HEX64 = /^[0-9a-f]{16}$/;

function packFingerprints(simhash: string, check: string): Uint8Array | [string, string] {
  if (!HEX64.test(simhash) || (check !== '' && !HEX64.test(check))) return [simhash, check];
  const bytes = new Uint8Array(check === '' ? 8 : 16);
  new DataView(bytes.buffer).setBigUint64(0, fingerprintFromHex(simhash));
  if (check !== '') new DataView(bytes.buffer).setBigUint64(8, fingerprintFromHex(check));
  return bytes;
}

/**
 * Throws a TypeError naming the page and the field if `page` could not be stored and read back:
 * a field of the wrong type, a time that is not finite, a URL that does not parse. Checked before
 * a page is written, so that a bad page fails its write instead of damaging its block.
 */
export function checkStorable(page: PageValue): void {
  const fail = (why: string): never => {
    throw new TypeError(`Doppel cannot store page ${String(page.id)} (${JSON.stringify(String(page.url).slice(0, 200))}): ${why}.`);
  };
  if (typeof page.url !== 'string') fail('its URL is not text');
  let host = '';
  try {
    host = siteOf(page.url);
  } catch {
    fail('its URL is not a URL');
  }
  // the site is not stored: it is read back as the URL's host, and the trees and counts must agree
  if (page.site !== host) fail(`its site ${JSON.stringify(page.site)} is not its URL's host ${JSON.stringify(host)}`);
  if (typeof page.title !== 'string') fail('its title is not text');
  if (typeof page.simhash !== 'string' || typeof page.check !== 'string') fail('its fingerprints are not text');
  for (const name of ['firstSeen', 'lastSeen'] as const) if (typeof page[name] !== 'number' || !Number.isFinite(page[name])) fail(`its ${name} is not a time`);
  if (!Number.isSafeInteger(page.visits) || page.visits < 0) fail('its visits are not a count');
  if (page.group !== undefined && typeof page.group !== 'string') fail('its group is not text');
  if (page.copySite !== undefined && typeof page.copySite !== 'string') fail('its copySite is not text');
  if (page.contentCopy !== undefined && page.contentCopy !== true) fail('its contentCopy is not true');
  if (page.published !== undefined && !(Number.isSafeInteger(page.published / MINUTE_MS) && page.published >= 0)) fail('its published is not a whole minute');
  if (page.source !== undefined && (typeof page.source !== 'string' || !/^https?:\/\//i.test(page.source))) fail('its source is not an http(s) address');
  if ((page.source === undefined) !== (page.sourceBy === undefined) || (page.sourceBy !== undefined && page.sourceBy !== 'canonical' && page.sourceBy !== 'credit')) fail('its sourceBy does not go with its source');
}

/** The stored form of a page. The site is not kept: decodePage gives the URL's host. */
export function encodePage(page: PageValue): StoredPage {
  const stored: StoredPage = [page.url, page.title, packFingerprints(page.simhash, page.check), page.firstSeen, page.lastSeen, page.visits];
  if (page.published !== undefined || page.source !== undefined) {
    const published = page.published === undefined ? null : page.published / MINUTE_MS;
    const source = page.source === undefined ? [] : page.sourceBy === 'credit' ? [page.source, 1] : [page.source];
    return [...stored, page.group ?? null, page.copySite ?? null, page.contentCopy === true ? 1 : 0, published, ...source] as StoredPage;
  }
  if (page.contentCopy === true) return [...stored, page.group ?? null, page.copySite ?? null, 1];
  if (page.copySite !== undefined) return [...stored, page.group ?? null, page.copySite];
  if (page.group !== undefined) return [...stored, page.group];
  return stored;
}

/**
 * A stored page's entry (as encodePage gives it, not checked) without its group fields, and those
 * fields as marks: what encodePage gives for the page without them, and the page's marks. A page
 * with provenance keeps nulls and 0 in their places. Not decoded: a damaged entry stays damaged.
 */
export function splitGroupFields(entry: readonly unknown[]): { entry: unknown[]; marks: SlotMarks } {
  if (entry.length <= 6) return { entry: [...entry], marks: null };
  const [group = null, copySite = null, contentCopy = 0] = entry.slice(6, 9) as [string | null, string | null, 0 | 1];
  const text = entry.length > 9 ? [...entry.slice(0, 6), null, null, 0, ...entry.slice(9)] : entry.slice(0, 6);
  return { entry: text, marks: group === null && copySite === null && contentCopy !== 1 ? null : [group, copySite, contentCopy] };
}

/** The page stored under `id`; a RangeError that names what is wrong if the stored value is not a page. */
export function decodePage(id: number, value: unknown): PageValue {
  const fail = (why: string): never => {
    throw new RangeError(`Doppel's stored page ${id} is damaged: ${why}.`);
  };
  if (!Array.isArray(value) || value.length < 6 || value.length > 12) return fail('it is not a list of 6 to 12 fields');
  const [url, title, fingerprints, firstSeen, lastSeen, visits, group, copySite, contentCopy, published, source, credit] = value as unknown[];
  if (typeof url !== 'string') return fail('its URL is not text');
  let site: string;
  try {
    site = siteOf(url);
  } catch {
    return fail(`its URL ${JSON.stringify(url.slice(0, 200))} is not a URL`);
  }
  if (typeof title !== 'string') return fail('its title is not text');
  let simhash: string;
  let check: string;
  if (fingerprints instanceof Uint8Array && (fingerprints.length === 8 || fingerprints.length === 16)) {
    const view = new DataView(fingerprints.buffer, fingerprints.byteOffset, fingerprints.byteLength);
    simhash = fingerprintToHex(asFingerprint(view.getBigUint64(0)));
    check = fingerprints.length === 16 ? fingerprintToHex(asFingerprint(view.getBigUint64(8))) : '';
  } else if (Array.isArray(fingerprints) && fingerprints.length === 2 && fingerprints.every((f) => typeof f === 'string')) {
    [simhash, check] = fingerprints as [string, string];
  } else {
    return fail('its fingerprints are not 8 or 16 bytes, nor two strings');
  }
  for (const [name, time] of [['firstSeen', firstSeen], ['lastSeen', lastSeen]] as const) {
    if (typeof time !== 'number' || !Number.isFinite(time)) fail(`its ${name} is not a time`);
  }
  if (typeof visits !== 'number' || !Number.isSafeInteger(visits) || visits < 0) return fail('its visits are not a count');
  if (group !== undefined && group !== null && typeof group !== 'string') return fail('its group is not text');
  if (copySite !== undefined && typeof copySite !== 'string' && !(value.length >= 9 && copySite === null)) return fail('its copySite is not text');
  if (value.length === 9 && contentCopy !== 1) return fail('its ninth field is not 1');
  if (value.length > 9 && contentCopy !== 0 && contentCopy !== 1) return fail('its ninth field is not 0 or 1');
  if (value.length === 7 && group === null) return fail('it has a null group and no copySite');
  if (published !== undefined && published !== null && !(typeof published === 'number' && Number.isSafeInteger(published) && published >= 0)) return fail('its published time is not a whole number of minutes');
  if (source !== undefined && !(typeof source === 'string' && /^https?:\/\//i.test(source))) return fail('its source is not an http(s) address');
  if (value.length === 10 && published === null) return fail('it has neither a published time nor a source');
  if (value.length === 12 && credit !== 1) return fail('its twelfth field is not 1');
  const page: PageValue = { id, url, title, site, simhash, check, firstSeen: firstSeen as number, lastSeen: lastSeen as number, visits };
  if (typeof group === 'string') page.group = group;
  if (typeof copySite === 'string') page.copySite = copySite;
  if (contentCopy === 1) page.contentCopy = true;
  if (typeof published === 'number') page.published = published * MINUTE_MS;
  if (typeof source === 'string') {
    page.source = source;
    page.sourceBy = credit === 1 ? 'credit' : 'canonical';
  }
  return page;
}
