// The messages Doppel's own pages send to the content script of a tab (browser.tabs.sendMessage):
// mark on the live page the passages it shares with pages read before, clear the marks, and ask what
// is marked (a popup opened while marks are shown starts from them). The popup sends them; the content script validates everything that arrives (`parseTabMessage`),
// checks that it came from one of Doppel's pages, and answers `{ok: true, value} | {ok: false,
// error}`; the popup validates the answer (`parsePassageMarks`).
//
// Each earlier page is a set of THIS page's passage-fingerprint hashes (lib/fingerprint/passages.ts)
// that lie inside the passages it shares with it, as the worker finds them from the fingerprints it
// keeps, with where each passage's ends lie from its first and last fingerprints (the worker finds
// them from both pages' word bits); no text is sent either way. Each set is marked in one of
// PASSAGE_SLOTS colours. A message may instead be about the rewrites (kind 'rewrites'): each set
// is then this page's rewrite-fingerprint hashes (pairs of rare words) that a page read before
// holds too, and the rare words of those pairs are marked, in one colour of their own. Marks of
// one kind are shown and cleared without touching the other's.
import { InvalidMessage, type Json, LIMITS, hashList, list, object, string, typedMessage } from './validation';
import type { PassageEnd } from '../index/passage-index';

/** Colours a set can be marked in: the highlights `doppel-passage-0` … `-5` (assets/passages.css). */
export const PASSAGE_SLOTS = 6;

/** The name of a slot's highlight in CSS.highlights, and of its `::highlight()` rule. */
export function highlightName(slot: number): string {
  return `doppel-passage-${slot}`;
}

/** What a message's sets are: shared passages (the default), or the pairs of rare words a rewrite shares. */
export type MarkKind = 'passages' | 'rewrites';
export const MARK_KINDS: readonly MarkKind[] = ['passages', 'rewrites'];

/** The highlight of the rewrites' rare words (one colour for every set: assets/passages.css). */
export const REWRITE_HIGHLIGHT = 'doppel-rewrite';

/** One earlier page: its id (the popup's, returned as given), its colour, this page's hashes it shares. */
export interface SharedPassageSet {
  id: string;
  /** 0 … PASSAGE_SLOTS − 1; sets may share a slot. */
  slot: number;
  /** Passage-fingerprint hashes (unsigned 32-bit) of this page inside passages shared with that page. */
  hashes: number[];
  /** Where the passages' ends lie from this page's first and last fingerprints inside each (the worker's, from the word bits): what a mark is extended by. */
  ends: PassageEnd[];
}

/** The ends of passages as the worker gives them (a report's PassageMatch.ends, a set's ends), or InvalidMessage. */
export function passageEndList(o: Json): PassageEnd[] {
  return list(o, 'ends', LIMITS.passageEndsPerSet).map((value, i) =>
    within(`ends[${i}]`, () => {
      const e = object(value, 'an end');
      return { first: wholeNumber(e, 'first', 0, MAX_HASH), lead: wholeNumber(e, 'lead', 0, LIMITS.passageEndWords), last: wholeNumber(e, 'last', 0, MAX_HASH), trail: wholeNumber(e, 'trail', 0, LIMITS.passageEndWords) };
    }),
  );
}

/** What is marked on the page after a message: the ranges marked in all, and per set (each of a kind; 'passages' when a reply does not say). */
export interface PassageMarks {
  marked: number;
  sets: { id: string; ranges: number; kind?: MarkKind }[];
}

export interface TabProtocol {
  /** Marks the sets (of `kind`, passages when absent), replacing the marks of that kind made before. */
  'passages/show': { request: { sets: SharedPassageSet[]; kind?: MarkKind }; reply: PassageMarks };
  /** Removes the marks of `kind` (passages when absent). */
  'passages/clear': { request: { kind?: MarkKind }; reply: PassageMarks };
  /** What is marked now; changes nothing. */
  'passages/get': { request: Record<string, never>; reply: PassageMarks };
}

export type TabMessageType = keyof TabProtocol;
export type TabRequest<T extends TabMessageType> = TabProtocol[T]['request'];
export type TabReplyValue<T extends TabMessageType> = TabProtocol[T]['reply'];
export type TabReply<T extends TabMessageType> = { ok: true; value: TabReplyValue<T> } | { ok: false; error: string };
export interface TabMessage<T extends TabMessageType = TabMessageType> {
  type: T;
  payload: TabRequest<T>;
}
/** A message of any type, narrowed by its `type`. */
export type AnyTabMessage = { [T in TabMessageType]: TabMessage<T> }[TabMessageType];

export const TAB_MESSAGE_TYPES: readonly TabMessageType[] = ['passages/show', 'passages/clear', 'passages/get'];

const MAX_HASH = 0xffff_ffff;

/** Runs `check`, naming the element `what` in the reason of an InvalidMessage it throws. */
function within<T>(what: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidMessage) throw new InvalidMessage(`${what}: ${error.message}`);
    throw error;
  }
}

function wholeNumber(o: Json, key: string, min: number, max: number): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new InvalidMessage(`${key} must be a whole number from ${min} to ${max}`);
  return v;
}

function passageSet(value: unknown): SharedPassageSet {
  const o = object(value, 'a set');
  const id = string(o, 'id', LIMITS.urlChars);
  if (id === '') throw new InvalidMessage('id must not be empty');
  const slot = wholeNumber(o, 'slot', 0, PASSAGE_SLOTS - 1);
  const hashes = hashList(o, 'hashes', LIMITS.passageHashesPerSet);
  // a set without ends is marked over its fingerprints alone
  return { id, slot, hashes, ends: o['ends'] === undefined ? [] : passageEndList(o) };
}

/** A payload's kind: 'passages' when absent. */
function kindOf(payload: unknown): MarkKind {
  const kind = object(payload, 'payload')['kind'];
  if (kind === undefined) return 'passages';
  if (!MARK_KINDS.includes(kind as MarkKind)) throw new InvalidMessage(`kind must be one of ${MARK_KINDS.join(', ')}`);
  return kind as MarkKind;
}

function noFields(payload: unknown): Record<string, never> {
  object(payload, 'payload');
  return {};
}

const validators: { [T in TabMessageType]: (payload: unknown) => TabRequest<T> } = {
  'passages/show': (payload) => {
    const raw = list(object(payload, 'payload'), 'sets', LIMITS.passageSets);
    const sets = raw.map((value, i) => within(`sets[${i}]`, () => passageSet(value)));
    const total = sets.reduce((n, s) => n + s.hashes.length, 0);
    if (total > LIMITS.passageHashes) throw new InvalidMessage(`the sets hold too many hashes: ${total} (at most ${LIMITS.passageHashes})`);
    const ids = new Set<string>();
    for (const { id } of sets) {
      if (ids.has(id)) throw new InvalidMessage(`the id ${JSON.stringify(id.slice(0, 60))} is given to two sets`);
      ids.add(id);
    }
    const kind = kindOf(payload);
    return kind === 'passages' ? { sets } : { sets, kind };
  },
  'passages/clear': (payload) => {
    const kind = kindOf(payload);
    return kind === 'passages' ? {} : { kind };
  },
  'passages/get': noFields,
};

/** Validates a message sent to a tab. Throws InvalidMessage with the reason; checks everything before anything is done. */
export function parseTabMessage(message: unknown): AnyTabMessage {
  return typedMessage(message, validators) as AnyTabMessage;
}

/** Validates the content script's answer to any of the messages (the popup's side). Throws InvalidMessage. */
export function parsePassageMarks(reply: unknown): TabReply<TabMessageType> {
  const o = object(reply, 'the reply');
  if (o['ok'] === false) return { ok: false, error: string(o, 'error', LIMITS.messageChars) };
  if (o['ok'] !== true) throw new InvalidMessage('the reply must say ok true or false');
  const value = object(o['value'], 'value');
  const marked = wholeNumber(value, 'marked', 0, Number.MAX_SAFE_INTEGER);
  const sets = list(value, 'sets', LIMITS.passageSets).map((s, i) =>
    within(`sets[${i}]`, () => {
      const set = object(s, 'a set');
      const marked = { id: string(set, 'id', LIMITS.urlChars), ranges: wholeNumber(set, 'ranges', 0, Number.MAX_SAFE_INTEGER) };
      return set['kind'] === undefined ? marked : { ...marked, kind: kindOf(set) };
    }),
  );
  const sum = sets.reduce((n, s) => n + s.ranges, 0);
  if (sum !== marked) throw new InvalidMessage(`marked must be the sum of the sets' ranges: got ${marked}, the sets add up to ${sum}`);
  return { ok: true, value: { marked, sets } };
}
