// The one message protocol between the extension's contexts: content script → background
// (a page's HTML, or its simple reading), popup → background (reports and controls), and
// background → the reader document (read a page's HTML). Both sides use these types; the receiver
// validates everything that arrives (`parseMessage`, `parseReaderRequest`, `parseReaderReply`)
// before acting on it. The history page's jobs for the worker (import, forget, organise) have a
// protocol of their own over a port, in lib/protocol/writer-protocol.ts, and the popup's messages to a tab's
// content script (marking shared passages) in lib/protocol/tab-protocol.ts; both are re-exported here.
import type { NotArticleReason } from '../text/reading';
import { MAX_SOURCE_CHARS, type Provenance, type SourceKind } from '../text/provenance';
import type { SiteMark, SiteStanding } from '../report/groups';
import type { Evidence } from '../report/original';
import type { PassageEnd } from '../index/passage-index';
import type { RewriteLanguage } from '../fingerprint/rewrite-anchors';
import { InvalidMessage, type Json, LIMITS, count, hashList, list, object, site, string, typedMessage } from './validation';
import { captureId } from './captures';

export { InvalidMessage, LIMITS } from './validation';
export * from './writer-protocol';
export * from './tab-protocol';

/** Content script → background: what the content script read on a page. */
export interface PageExtracted {
  url: string;
  /** The capture's id (lib/protocol/captures.ts): its copies are stored once. Absent: stored as often as sent. */
  capture?: string;
  title: string;
  lang: string | null;
  siteName: string | null;
  outcome: { kind: 'article'; text: string; truncated: boolean; provenance?: Provenance } | { kind: 'not-article'; reason: NotArticleReason; message: string; words?: number; minWords?: number };
}

/** Content script → background: a page's HTML, to be read with Readability in the reader document. */
export interface PageHtml {
  url: string;
  html: string;
  /** As PageExtracted's. */
  capture?: string;
}

export interface Settings {
  paused: boolean;
  /** Hosts (URL.host) that are never recorded. */
  excludedSites: string[];
  recordIncognito: boolean;
  /** Near-duplicates are pages within k bits (MIN_K … MAX_K). */
  k: number;
  /** Sites the user marked: trusted (never flagged) or a content farm (always flagged). */
  siteMarks: Record<string, SiteMark>;
}

export const MIN_K = 0;
export const MAX_K = 8;
export const DEFAULT_SETTINGS: Settings = { paused: false, excludedSites: [], recordIncognito: false, k: 3, siteMarks: {} };

export interface PageSummary {
  url: string;
  title: string;
  site: string;
  simhash: string;
  firstSeen: number;
  lastSeen: number;
  visits: number;
}

/**
 * A page that shares passages with this one (lib/index/passage-index.ts: runs of 30 words or more, found from
 * the passage fingerprints the store keeps) and is not one of its near-duplicates.
 */
export interface PassageMatch extends PageSummary {
  /** The fraction of THIS page's words inside the passages it shares with that page, 0 to 1. */
  share: number;
  /** The fraction of that page's words inside them, 0 to 1. */
  otherShare: number;
  /** How many passages they share. */
  passages: number;
  /** This page's passage-fingerprint hashes inside those passages: what passages/show marks on the live page. */
  hashes: number[];
  /** That page is the original of this page's story (Report.original). */
  original: boolean;
  /** Where each passage's ends lie from this page's first and last fingerprints inside it (lib/index/passage-index.ts). */
  ends: PassageEnd[];
  /**
   * The other pages read before that share exactly these passages with this page (copies of that
   * page on other sites), seen first first; that page is the one of them seen first (lib/report/fold.ts).
   */
  alsoIn: PageSummary[];
}

/**
 * A page that rewrites or translates this one, or that this one rewrites (lib/index/rewrite-index.ts:
 * its rare words, names, places and numbers, in nearly the same order), and that is neither a
 * near-duplicate of it nor sharing passages with it.
 */
export interface RewriteSummary extends PageSummary {
  /** The larger share of pairs of rare words: of this page's held by that page, or of that page's held by this one, 0 to 1. */
  share: number;
  /** Whether the two are in different languages (a guess from their scripts and function words). */
  translated: boolean;
  /** That page's language and this page's, as guessed (REWRITE_LANGUAGES; 'und': unknown). */
  language: RewriteLanguage;
  ownLanguage: RewriteLanguage;
  /** This page's rewrite-fingerprint hashes that page holds too: what passages/show marks (the rare words of those pairs). */
  hashes: number[];
  /** That page is the original of this page's story (Report.original). */
  original: boolean;
}

export interface MatchSummary extends PageSummary {
  /** Hamming distance in bits between the two simhashes. */
  distance: number;
  /** The earliest-seen page among this page and its near-duplicates. */
  earliest: boolean;
  /** That page is the original of this page's story (Report.original). */
  original: boolean;
}

/**
 * The original of a page's story (lib/report/original.ts findOriginal): among the page, its
 * near-duplicates, the pages it shares half its text with and its rewrites, with why.
 */
export interface OriginalSummary {
  url: string;
  title: string;
  site: string;
  /** The page the report is for is the original. */
  self: boolean;
  /** Why it is the original: the copy names it ('canonical', 'credit'), it was published earlier, or seen first. */
  evidence: Evidence;
  /** For 'published': by how many whole days. */
  days: number | null;
}

/**
 * - recorded: the page is stored; `matches` are its near-duplicates
 * - unknown: never recorded (or forgotten)
 * - not-article: read but not recorded; `reason` says why
 * - excluded / paused: not recorded because of the user's settings
 * - storage-full: not recorded because the browser has no room left, even after Doppel forgot the
 *   pages seen longest ago (lib/background/storage-full.ts)
 */
/** Why a page is not an article: the reader's reason, or 'no-words' (its text has no word to compare). */
export interface NotArticleWhy {
  code: NotArticleReason | 'no-words';
  /** too-short: the words counted and the words needed. */
  words?: number;
  minWords?: number;
}

/**
 * What the popup shows about storage:
 * - evicted: storage was full at `at`; `evicted` pages were forgotten and recording went on;
 * - full: storage was full at `at`; after forgetting `evicted` pages it still was, so nothing new
 *   is recorded until a write succeeds again.
 */
export interface StorageStatus {
  state: 'evicted' | 'full';
  /** When storage was found full (ms since the epoch). */
  at: number;
  /** Pages forgotten to make room (the last eviction). */
  evicted: number;
}

/** The storage.local key of the status in the extension (the popup watches it). */
export const STORAGE_STATUS_KEY = 'storageStatus';

/** Validates a stored status; undefined for anything else. */
export function parseStorageStatus(value: unknown): StorageStatus | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const o = value as Record<string, unknown>;
  const { state, at, evicted } = o;
  if (state !== 'evicted' && state !== 'full') return undefined;
  if (typeof at !== 'number' || !Number.isFinite(at)) return undefined;
  if (typeof evicted !== 'number' || !Number.isInteger(evicted) || evicted < 0) return undefined;
  return { state, at, evicted };
}

export type PageState = 'recorded' | 'unknown' | 'not-article' | 'excluded' | 'paused' | 'storage-full';

export interface Report {
  /** The canonical URL the report is for. */
  url: string;
  state: PageState;
  page: PageSummary | null;
  matches: MatchSummary[];
  /** The pages sharing passages with this one that are not in `matches`, the largest share first (at most LIMITS.passageSets). */
  passages: PassageMatch[];
  /** The pages this one rewrites or translates, or that rewrite it, that are in neither list above, the largest share first (at most LIMITS.passageSets). */
  rewrites: RewriteSummary[];
  reason: string | null;
  /** Why a not-article page was not recorded, for the popup to word in the UI's language; null otherwise. */
  notArticle: NotArticleWhy | null;
  /** The page itself is the earliest-seen of its group (it has matches, all seen later). */
  earliest: boolean;
  /** The original of the page's story; null when nothing is related to it (or it is not recorded). */
  original: OriginalSummary | null;
  k: number;
  settings: Settings;
  /** The standing of the page's site (lib/report/groups.ts): flagged as a likely republisher or not. */
  site: SiteStanding | null;
  /** Storage was found full (and pages forgotten to make room), until the notice is dismissed. */
  storage: StorageStatus | null;
}

/** The reply to a page's content script: its state, and (recorded) how many near-duplicates, pages sharing passages and rewrites it has. */
export interface PageRecorded {
  state: PageState;
  matches: number;
  passages: number;
  rewrites: number;
}

export interface Protocol {
  'page/extracted': { request: PageExtracted; reply: PageRecorded };
  'page/html': { request: PageHtml; reply: PageRecorded };
  'report/get': { request: { url: string }; reply: Report };
  'page/forget': { request: { url: string }; reply: { forgotten: boolean } };
  'settings/get': { request: Record<string, never>; reply: Settings };
  'settings/pause': { request: { paused: boolean }; reply: Settings };
  'settings/incognito': { request: { recordIncognito: boolean }; reply: Settings };
  /** Excluding a site also forgets the pages already recorded from it. */
  'site/exclude': { request: { site: string; excluded: boolean }; reply: Settings & { forgotten: number } };
  /** Marks a site trusted or a content farm; null removes the mark. */
  'site/mark': { request: { site: string; mark: SiteMark | null }; reply: Settings };
  /** Sets k; the history page then has the worker regroup the store (lib/organise/regroup.ts). */
  'settings/k': { request: { k: number }; reply: Settings };
  /** Forgets every recorded page (settings are kept). */
  'data/clear': { request: Record<string, never>; reply: { forgotten: number } };
  /** Dismisses the notice that storage was full; false while it still is (that notice stays). */
  'storage/dismiss': { request: Record<string, never>; reply: { dismissed: boolean } };
  /** The history page changed the pages (forgot, imported, regrouped): the worker brings the open tabs' badges up to date. */
  'pages/changed': { request: Record<string, never>; reply: { badges: number } };
  /**
   * A content script asked to mark a rewrite's shared rare words: where in `text` (the page's live
   * text) are the rare words of the pairs whose hashes each set holds (lib/fingerprint/rewrites.ts
   * sharedAnchorRanges, run in the worker so that the content script does not carry it).
   */
  'rewrites/anchors': { request: { text: string; sets: number[][] }; reply: { sets: TextRange[][] } };
}

/** Characters [start, end) of a text. */
export interface TextRange {
  start: number;
  end: number;
}

/**
 * The reply to rewrites/anchors, validated: for each set, ranges [start, end) of the text. Here,
 * not in replies.ts, so that the content script can check it without carrying what the other
 * replies need.
 */
export function parseAnchorRanges(value: unknown): { sets: TextRange[][] } {
  const sets = list(object(value, 'reply'), 'sets', LIMITS.passageSets).map((set, i) =>
    list({ [`sets[${i}]`]: set }, `sets[${i}]`, LIMITS.rewriteRangesPerSet).map((range) => {
      const o = object(range, `a range of sets[${i}]`);
      const start = count(o, 'start');
      const end = count(o, 'end');
      if (end <= start) throw new InvalidMessage(`a range of sets[${i}] ends at ${end}, not after its start ${start}`);
      return { start, end };
    }),
  );
  return { sets };
}

export type MessageType = keyof Protocol;
export type Request<T extends MessageType> = Protocol[T]['request'];
export type ReplyValue<T extends MessageType> = Protocol[T]['reply'];
/** A failure a page words in its own language; any other failure is shown with the worker's words as the detail. */
export type ReplyFailure = 'storage-unavailable';
export const REPLY_FAILURES: readonly ReplyFailure[] = ['storage-unavailable'];
export type Reply<T extends MessageType> = { ok: true; value: ReplyValue<T> } | { ok: false; error: string; failure?: ReplyFailure };
export interface Message<T extends MessageType = MessageType> {
  type: T;
  payload: Request<T>;
}

export const MESSAGE_TYPES: readonly MessageType[] = [
  'page/extracted', 'page/html', 'report/get', 'page/forget', 'settings/get', 'settings/pause', 'settings/incognito', 'site/exclude',
  'site/mark', 'settings/k', 'data/clear', 'storage/dismiss', 'pages/changed', 'rewrites/anchors',
];

// ---- validation ---------------------------------------------------------------------------

function nullableString(o: Json, key: string, max: number): string | null {
  return o[key] === null || o[key] === undefined ? null : string(o, key, max);
}

function boolean(o: Json, key: string): boolean {
  if (typeof o[key] !== 'boolean') throw new InvalidMessage(`${key} must be true or false`);
  return o[key] as boolean;
}

function httpUrl(o: Json, key: string, max: number = LIMITS.urlChars): string {
  const url = string(o, key, max);
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new InvalidMessage(`${key} is not a URL`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new InvalidMessage(`${key} must be an http or https URL: got ${protocol}`);
  return url;
}

const NOT_ARTICLE_REASONS: readonly NotArticleReason[] = ['no-article', 'too-short', 'too-large'];
const SOURCE_KINDS: readonly SourceKind[] = ['canonical', 'credit'];

/** What a page says of where it comes from, as received (its values are judged by the worker: believableProvenance); absent when o[key] is. */
function provenance(o: Json, key: string): Provenance | undefined {
  if (o[key] === undefined) return undefined;
  const p = object(o[key], key);
  const out: Provenance = {};
  if (p['published'] !== undefined) {
    if (typeof p['published'] !== 'number' || !Number.isFinite(p['published'])) throw new InvalidMessage(`${key}.published must be a time in milliseconds`);
    out.published = p['published'];
  }
  if (p['source'] !== undefined) {
    out.source = httpUrl({ [`${key}.source`]: p['source'] }, `${key}.source`, MAX_SOURCE_CHARS);
    if (!SOURCE_KINDS.includes(p['sourceBy'] as SourceKind)) throw new InvalidMessage(`${key}.sourceBy must be one of ${SOURCE_KINDS.join(', ')}`);
    out.sourceBy = p['sourceBy'] as SourceKind;
  }
  return out;
}

const validators: { [T in MessageType]: (payload: unknown) => Request<T> } = {
  'rewrites/anchors': (payload) => {
    const o = object(payload, 'payload');
    return { text: string(o, 'text', LIMITS.textChars), sets: list(o, 'sets', LIMITS.passageSets).map((set, i) => hashList({ [`sets[${i}]`]: set }, `sets[${i}]`, LIMITS.rewriteHashesPerSet)) };
  },
  'page/html': (payload) => {
    const o = object(payload, 'payload');
    const capture = captureId(o, 'capture');
    return { url: httpUrl(o, 'url'), html: string(o, 'html', LIMITS.htmlChars), ...(capture === undefined ? {} : { capture }) };
  },
  'page/extracted': (payload) => {
    const o = object(payload, 'payload');
    const outcome = object(o['outcome'], 'outcome');
    const capture = captureId(o, 'capture');
    const base = {
      url: httpUrl(o, 'url'),
      ...(capture === undefined ? {} : { capture }),
      title: string(o, 'title', LIMITS.titleChars),
      lang: nullableString(o, 'lang', LIMITS.langChars),
      siteName: nullableString(o, 'siteName', LIMITS.siteNameChars),
    };
    if (outcome['kind'] === 'article') {
      const claims = provenance(outcome, 'provenance');
      return { ...base, outcome: { kind: 'article', text: string(outcome, 'text', LIMITS.textChars), truncated: boolean(outcome, 'truncated'), ...(claims === undefined ? {} : { provenance: claims }) } };
    }
    if (outcome['kind'] === 'not-article') {
      const reason = outcome['reason'];
      if (!NOT_ARTICLE_REASONS.includes(reason as NotArticleReason)) throw new InvalidMessage(`outcome.reason must be one of ${NOT_ARTICLE_REASONS.join(', ')}`);
      const counts: { words?: number; minWords?: number } = {};
      for (const key of ['words', 'minWords'] as const) if (outcome[key] !== undefined) counts[key] = count(outcome, key);
      return { ...base, outcome: { kind: 'not-article', reason: reason as NotArticleReason, message: string(outcome, 'message', LIMITS.messageChars), ...counts } };
    }
    throw new InvalidMessage('outcome.kind must be "article" or "not-article"');
  },
  'report/get': (payload) => ({ url: httpUrl(object(payload, 'payload'), 'url') }),
  'page/forget': (payload) => ({ url: httpUrl(object(payload, 'payload'), 'url') }),
  'settings/get': (payload) => {
    object(payload, 'payload');
    return {};
  },
  'settings/pause': (payload) => ({ paused: boolean(object(payload, 'payload'), 'paused') }),
  'settings/incognito': (payload) => ({ recordIncognito: boolean(object(payload, 'payload'), 'recordIncognito') }),
  'site/exclude': (payload) => {
    const o = object(payload, 'payload');
    return { site: site(o, 'site'), excluded: boolean(o, 'excluded') };
  },
  'site/mark': (payload) => {
    const o = object(payload, 'payload');
    const mark = o['mark'];
    if (mark !== null && mark !== 'trusted' && mark !== 'farm') throw new InvalidMessage('mark must be "trusted", "farm" or null');
    return { site: site(o, 'site'), mark };
  },
  'settings/k': (payload) => {
    const k = object(payload, 'payload')['k'];
    if (typeof k !== 'number' || !Number.isInteger(k) || k < MIN_K || k > MAX_K) throw new InvalidMessage(`k must be a whole number from ${MIN_K} to ${MAX_K}`);
    return { k };
  },
  'data/clear': (payload) => {
    object(payload, 'payload');
    return {};
  },
  'storage/dismiss': (payload) => {
    object(payload, 'payload');
    return {};
  },
  'pages/changed': (payload) => {
    object(payload, 'payload');
    return {};
  },
};

/** Validates a message that arrived from another context. Throws InvalidMessage with the reason. */
export function parseMessage(message: unknown): Message {
  return typedMessage(message, validators) as Message;
}

// ---- background → the reader document ----------------------------------------------------
// The worker sends each request over a port named READER_TARGET (lib/background/reader-client.ts
// portRequest), and the request names its receiver as well: the reader document answers only
// requests addressed to it.

export const READER_TARGET = 'doppel-reader';

export interface ReaderRequest {
  target: typeof READER_TARGET;
  url: string;
  html: string;
}

/** The reader document's answer. The value is validated by the background (lib/background/recorder.ts), as a `page/extracted` payload. */
export type ReaderReply = { ok: true; value: unknown } | { ok: false; error: string };

/** Null for a message not addressed to the reader document; throws InvalidMessage for a malformed one that is. */
export function parseReaderRequest(message: unknown): ReaderRequest | null {
  if (typeof message !== 'object' || message === null || (message as Json)['target'] !== READER_TARGET) return null;
  const { url, html } = validators['page/html'](message);
  return { target: READER_TARGET, url, html };
}

/** Validates the envelope of the reader document's reply: the page it read, or why it could not. Throws InvalidMessage. */
export function parseReaderReply(reply: unknown): ReaderReply {
  const o = object(reply, 'the reader document\'s reply');
  if (o['ok'] === true) return { ok: true, value: o['value'] };
  if (o['ok'] === false) return { ok: false, error: string(o, 'error', LIMITS.messageChars) };
  throw new InvalidMessage('the reader document\'s reply must say ok true or false');
}

/** Validates stored or received settings, filling gaps with the defaults. */
export function parseSettings(value: unknown): Settings {
  if (typeof value !== 'object' || value === null) return { ...DEFAULT_SETTINGS };
  const o = value as Json;
  const sites = Array.isArray(o['excludedSites']) ? o['excludedSites'].filter((s): s is string => typeof s === 'string' && s.length <= LIMITS.siteChars) : [];
  const k = o['k'];
  const siteMarks: Record<string, SiteMark> = {};
  const marks = o['siteMarks'];
  if (typeof marks === 'object' && marks !== null && !Array.isArray(marks)) {
    for (const [host, mark] of Object.entries(marks).slice(0, LIMITS.sites)) {
      if (host.length <= LIMITS.siteChars && (mark === 'trusted' || mark === 'farm')) siteMarks[host] = mark;
    }
  }
  return {
    paused: o['paused'] === true,
    excludedSites: [...new Set(sites)].slice(0, LIMITS.sites),
    recordIncognito: o['recordIncognito'] === true,
    k: typeof k === 'number' && Number.isInteger(k) && k >= MIN_K && k <= MAX_K ? k : DEFAULT_SETTINGS.k,
    siteMarks,
  };
}
