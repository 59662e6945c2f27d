// A capture: one reading of a page by its content script, named by a random id that travels with
// every copy of its `page/html` or `page/extracted` message. The content script sends a capture
// again until the worker acknowledges it (lib/content/delivery.ts); the worker stores a capture's
// visit once, however many copies reach it (lib/background/recorder.ts), and remembers the ids it
// stored (meta `captures`, written in the visit's own transaction: lib/store/pages.ts record), so
// that a copy which arrives after the worker stopped and started again is known too.
import { InvalidMessage, type Json } from './validation';

/** A capture id: 16 lowercase hex digits, 64 random bits (two tabs drawing the same id is a one in 10^19 chance). */
export const CAPTURE_ID = /^[0-9a-f]{16}$/;

/** A new capture id from `fill` (crypto.getRandomValues, which pages that are not secure contexts also have). */
export function newCaptureId(fill: (bytes: Uint8Array) => unknown): string {
  const bytes = new Uint8Array(8);
  fill(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** o[key] as a capture id; undefined when absent (a page sent by a test or a tool, recorded as often as it is sent). */
export function captureId(o: Json, key: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !CAPTURE_ID.test(v)) throw new InvalidMessage(`${key} must be 16 lowercase hex digits`);
  return v;
}

/**
 * The captures whose visit is stored, oldest first: their ids and when each was stored (ms since
 * the epoch). A content script stops sending a capture at most some half an hour after it began
 * (lib/content/delivery.ts: RESEND_DELAYS_MS, each send waiting at most ANSWER_TIMEOUT_MS), so an
 * id is kept for an hour, and at most CAPTURES_KEPT ids: a visit a second for that hour would pass
 * it, where a reader opens a few dozen pages a minute at most.
 */
export interface StoredCaptures {
  ids: string[];
  at: number[];
}

export const CAPTURES_KEPT = 4096;
export const CAPTURE_KEPT_MS = 60 * 60_000;

/** A stored value as StoredCaptures: none for anything malformed (the ids are a safeguard, not data). */
export function parseCaptures(value: unknown): StoredCaptures {
  const o = value as Partial<StoredCaptures> | null | undefined;
  if (!Array.isArray(o?.ids) || !Array.isArray(o?.at) || o.ids.length !== o.at.length) return { ids: [], at: [] };
  if (!o.ids.every((id) => typeof id === 'string') || !o.at.every((t) => typeof t === 'number')) return { ids: [], at: [] };
  return { ids: o.ids, at: o.at };
}

export function hasCapture(stored: StoredCaptures, id: string): boolean {
  return stored.ids.includes(id);
}

/** `stored` with `id` stored at `now`, less the ids older than CAPTURE_KEPT_MS and the oldest past CAPTURES_KEPT. */
export function withCapture(stored: StoredCaptures, id: string, now: number): StoredCaptures {
  let from = 0;
  while (from < stored.at.length && (stored.at[from]! < now - CAPTURE_KEPT_MS || stored.ids.length - from >= CAPTURES_KEPT)) from++;
  return { ids: [...stored.ids.slice(from), id], at: [...stored.at.slice(from), now] };
}
