// The worker's replies, validated where they arrive (the popup, the history page), as the worker
// validates every request: an envelope `{ok: true, value} | {ok: false, error}` and a value of
// the shape its message type promises. A reply of another build's worker, or a damaged one, is an
// InvalidMessage that names what is wrong, never a crash further on.
import {
  type MatchSummary,
  type MessageType,
  type NotArticleWhy,
  type OriginalSummary,
  type PageRecorded,
  type PageState,
  type PageSummary,
  type PassageMatch,
  type Reply,
  type ReplyValue,
  type Report,
  type RewriteSummary,
  type Settings,
  MAX_K,
  MIN_K,
  REPLY_FAILURES,
  parseAnchorRanges,
  parseStorageStatus,
} from './messages';
import type { SiteMark, SiteStanding } from '../report/groups';
import type { Evidence } from '../report/original';
import type { NotArticleReason } from '../text/reading';
import { InvalidMessage, type Json, LIMITS, count, list, object, string } from './validation';
import { passageEndList } from './tab-protocol';
import { REWRITE_LANGUAGES } from '../fingerprint/rewrite-anchors';
import { REWRITE_PARAMS } from '../fingerprint/rewrites';

const PAGE_STATES: readonly PageState[] = ['recorded', 'unknown', 'not-article', 'excluded', 'paused', 'storage-full'];
const NOT_ARTICLE_CODES: readonly (NotArticleReason | 'no-words')[] = ['no-article', 'too-short', 'too-large', 'no-words'];
/** The most entries a report's lists may have: passages as the worker folds them (LIMITS.passageSets); near-duplicates are not capped by the worker, so only absurd lists are refused. */
const MAX_LISTED = LIMITS.passageSets;
const MAX_MATCHES = 100_000;

function boolean(o: Json, key: string): boolean {
  if (typeof o[key] !== 'boolean') throw new InvalidMessage(`${key} must be true or false`);
  return o[key] as boolean;
}

/** A string of at most `max` characters, or InvalidMessage naming `what`. */
function text(value: unknown, what: string, max: number): string {
  if (typeof value !== 'string' || value.length > max) throw new InvalidMessage(`${what} must be a string of at most ${max} characters`);
  return value;
}

function time(o: Json, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidMessage(`${key} must be a time`);
  return v;
}

function share(o: Json, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new InvalidMessage(`${key} must be a share from 0 to 1`);
  return v;
}

function oneOf<T extends string>(o: Json, key: string, allowed: readonly T[]): T {
  const v = o[key];
  if (!allowed.includes(v as T)) throw new InvalidMessage(`${key} must be one of ${allowed.join(', ')}`);
  return v as T;
}

function nullable<T>(o: Json, key: string, parse: (value: unknown) => T): T | null {
  return o[key] === null ? null : parse(o[key]);
}

function pageSummary(value: unknown, what = 'page'): PageSummary {
  const o = object(value, what);
  return {
    url: string(o, 'url', LIMITS.urlChars),
    title: string(o, 'title', LIMITS.titleChars),
    site: string(o, 'site', LIMITS.siteChars),
    simhash: string(o, 'simhash', 16),
    firstSeen: time(o, 'firstSeen'),
    lastSeen: time(o, 'lastSeen'),
    visits: count(o, 'visits'),
  };
}

/** `o.original`: whether a listed page is the story's original (false in a report of a build that did not say). */
const isOriginal = (o: Json): boolean => (o['original'] === undefined ? false : boolean(o, 'original'));

function matchSummary(value: unknown): MatchSummary {
  const o = object(value, 'match');
  return { ...pageSummary(o, 'match'), distance: count(o, 'distance'), earliest: boolean(o, 'earliest'), original: isOriginal(o) };
}

const EVIDENCE: readonly Evidence[] = ['canonical', 'credit', 'published', 'seen'];

function originalSummary(value: unknown): OriginalSummary {
  const o = object(value, 'original');
  const days = o['days'] === null ? null : count(o, 'days');
  return { url: string(o, 'url', LIMITS.urlChars), title: string(o, 'title', LIMITS.titleChars), site: string(o, 'site', LIMITS.siteChars), self: boolean(o, 'self'), evidence: oneOf(o, 'evidence', EVIDENCE), days };
}

/** `o.hashes`: at most `max` 32-bit whole numbers. */
function hashList(o: Json, max: number): number[] {
  return list(o, 'hashes', max).map((h) => {
    if (typeof h !== 'number' || !Number.isInteger(h) || h < 0 || h > 0xffff_ffff) throw new InvalidMessage('hashes must be 32-bit whole numbers');
    return h;
  });
}

function passageMatch(value: unknown): PassageMatch {
  const o = object(value, 'passage match');
  const hashes = hashList(o, LIMITS.passageHashesPerSet);
  return {
    ...pageSummary(o, 'passage match'),
    share: share(o, 'share'),
    otherShare: share(o, 'otherShare'),
    passages: count(o, 'passages'),
    hashes,
    ends: passageEndList(o),
    alsoIn: list(o, 'alsoIn', MAX_LISTED).map((p) => pageSummary(p, 'alsoIn')),
    original: isOriginal(o),
  };
}

function rewriteSummary(value: unknown): RewriteSummary {
  const o = object(value, 'rewrite');
  const hashes = hashList(o, REWRITE_PARAMS.sample.cap);
  return {
    ...pageSummary(o, 'rewrite'),
    share: share(o, 'share'),
    translated: boolean(o, 'translated'),
    language: oneOf(o, 'language', REWRITE_LANGUAGES),
    ownLanguage: oneOf(o, 'ownLanguage', REWRITE_LANGUAGES),
    hashes,
    original: isOriginal(o),
  };
}

function notArticleWhy(value: unknown): NotArticleWhy {
  const o = object(value, 'notArticle');
  const why: NotArticleWhy = { code: oneOf(o, 'code', NOT_ARTICLE_CODES) };
  if (o['words'] !== undefined) why.words = count(o, 'words');
  if (o['minWords'] !== undefined) why.minWords = count(o, 'minWords');
  return why;
}

function siteStanding(value: unknown): SiteStanding {
  const o = object(value, 'site');
  const mark = o['mark'];
  if (mark !== null && mark !== 'trusted' && mark !== 'farm') throw new InvalidMessage('mark must be "trusted", "farm" or null');
  // a standing from a build before credited copies counts none
  const credited = o['credited'] === undefined ? 0 : count(o, 'credited');
  return { site: string(o, 'site', LIMITS.siteChars), pages: count(o, 'pages'), copies: count(o, 'copies'), credited, mark: mark as SiteMark | null, flagged: boolean(o, 'flagged'), creditsSources: o['creditsSources'] === true };
}

/** Settings as the worker sends them: every field present and in range (unlike stored settings, which parseSettings fills in). */
function settings(value: unknown): Settings {
  const o = object(value, 'settings');
  const k = count(o, 'k');
  if (k < MIN_K || k > MAX_K) throw new InvalidMessage(`k must be a whole number from ${MIN_K} to ${MAX_K}`);
  const excludedSites = list(o, 'excludedSites', LIMITS.sites).map((site) => text(site, 'an excluded site', LIMITS.siteChars));
  const marks = object(o['siteMarks'], 'siteMarks');
  const siteMarks: Record<string, SiteMark> = {};
  for (const [host, mark] of Object.entries(marks).slice(0, LIMITS.sites + 1)) {
    if (mark !== 'trusted' && mark !== 'farm') throw new InvalidMessage('a site mark must be "trusted" or "farm"');
    siteMarks[host] = mark;
  }
  if (Object.keys(marks).length > LIMITS.sites) throw new InvalidMessage(`siteMarks has too many sites (at most ${LIMITS.sites})`);
  return { paused: boolean(o, 'paused'), excludedSites, recordIncognito: boolean(o, 'recordIncognito'), k, siteMarks };
}

function report(value: unknown): Report {
  const o = object(value, 'report');
  const storage = o['storage'] === null ? null : parseStorageStatus(o['storage']);
  if (storage === undefined) throw new InvalidMessage('storage must be a storage status or null');
  return {
    url: string(o, 'url', LIMITS.urlChars),
    state: oneOf(o, 'state', PAGE_STATES),
    page: nullable(o, 'page', (p) => pageSummary(p)),
    matches: list(o, 'matches', MAX_MATCHES).map(matchSummary),
    passages: list(o, 'passages', MAX_LISTED).map(passageMatch),
    // a report from a build without rewrites has none
    rewrites: o['rewrites'] === undefined ? [] : list(o, 'rewrites', MAX_LISTED).map(rewriteSummary),
    reason: nullable(o, 'reason', (r) => text(r, 'reason', LIMITS.messageChars)),
    notArticle: nullable(o, 'notArticle', notArticleWhy),
    earliest: boolean(o, 'earliest'),
    original: o['original'] === undefined ? null : nullable(o, 'original', originalSummary),
    k: count(o, 'k'),
    settings: settings(o['settings']),
    site: nullable(o, 'site', siteStanding),
    storage,
  };
}

const counted = (key: string) => (value: unknown) => ({ [key]: count(object(value, 'reply'), key) });
const flag = (key: string) => (value: unknown) => ({ [key]: boolean(object(value, 'reply'), key) });

const validators: { [T in MessageType]: (value: unknown) => ReplyValue<T> } = {
  'page/extracted': pageRecorded,
  'page/html': pageRecorded,
  'report/get': report,
  'page/forget': flag('forgotten') as (value: unknown) => { forgotten: boolean },
  'settings/get': settings,
  'settings/pause': settings,
  'settings/incognito': settings,
  'site/exclude': (value) => ({ ...settings(value), forgotten: count(object(value, 'reply'), 'forgotten') }),
  'site/mark': settings,
  'settings/k': settings,
  'data/clear': counted('forgotten') as (value: unknown) => { forgotten: number },
  'storage/dismiss': flag('dismissed') as (value: unknown) => { dismissed: boolean },
  'pages/changed': counted('badges') as (value: unknown) => { badges: number },
  'rewrites/anchors': parseAnchorRanges,
};


function pageRecorded(value: unknown): PageRecorded {
  const o = object(value, 'reply');
  return { state: oneOf(o, 'state', PAGE_STATES), matches: count(o, 'matches'), passages: count(o, 'passages'), rewrites: o['rewrites'] === undefined ? 0 : count(o, 'rewrites') };
}

/** The reply to a `type` message, validated: envelope and value. Throws InvalidMessage naming what is wrong. */
export function parseReply<T extends MessageType>(type: T, reply: unknown): Reply<T> {
  const o = object(reply, "the worker's reply");
  if (o['ok'] === false) {
    const error = string(o, 'error', LIMITS.messageChars);
    return o['failure'] === undefined ? { ok: false, error } : { ok: false, error, failure: oneOf(o, 'failure', REPLY_FAILURES) };
  }
  if (o['ok'] !== true) throw new InvalidMessage("the worker's reply must say ok true or false");
  return { ok: true, value: validators[type](o['value']) };
}
