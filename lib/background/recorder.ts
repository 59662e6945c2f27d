// The background's logic, free of `browser.*`: validates each message, checks who sent it, and
// records pages and answers the popup. entrypoints/background.ts adapts browser events to
// `createRecorder(…).handle`.
//
// Privacy rules enforced here:
// - only the top frame of a tab (frameId 0) of an http(s) page may report a page, and only for
//   its own origin; every other message comes from one of Doppel's own pages;
// - nothing is stored while paused, for an excluded site, or from a private (incognito) window
//   unless the user allowed it; such a page's reply state is 'paused' for a private window (the
//   same as pausing: recording is switched off there), 'excluded' for an excluded site;
// - page text is fingerprinted and dropped; only the fingerprints are stored (lib/store/).
import { fingerprintText } from '../fingerprint/features';
import { passageFingerprints } from '../fingerprint/passages';
import { rewriteFingerprints, sharedAnchorRanges } from '../fingerprint/rewrites';
import { seenBefore } from '../report/original';
import { foldedPassages, listedPassages, listedRewrites, originalSummary, summary } from './report-lists';
import { believableProvenance } from '../text/provenance';
import {
  InvalidMessage,
  LIMITS,
  type MatchSummary,
  type Message,
  type MessageType,
  type NotArticleWhy,
  type PageExtracted,
  type Reply,
  type ReplyValue,
  type Report,
  type Request,
  type Settings,
  MESSAGE_TYPES,
  type PageRecorded,
  parseMessage,
} from '../protocol/messages';
import { type PageMatches, type PageStore } from '../store/pages';
import { STORAGE_UNAVAILABLE_TEXT, type StatusStore, StorageFullError, createRoomKeeper, isStorageUnavailable, memoryStatus } from './storage-full';
import { readSiteStanding } from '../ui/history-data';
import { measureStage } from './timing';
import { canonicalUrl, siteOf } from '../url';
import { type ExtensionInfo, type SenderInfo, type SenderKind, classifySender } from '../protocol/sender';

export { type ExtensionInfo, type SenderInfo, type SenderKind, classifySender } from '../protocol/sender';

/** Why a page read by the content script was not recorded (session-only, per canonical URL). */
export interface PageOutcome {
  state: 'not-article';
  /** Why, in an English sentence (the reader's message): logs and tests. */
  reason: string;
  /** Why, for the popup to word in the UI's language (absent from an outcome kept by an older build: 'no-article'). */
  why?: NotArticleWhy;
}

export interface RecorderDeps {
  /** The page store, or a function that gives it (called for each message; it should keep the store it opened). */
  store: PageStore | (() => Promise<PageStore>);
  settings: { get(): Promise<Settings>; set(settings: Settings): Promise<void> };
  /** Not-article outcomes per canonical URL; session storage in the extension. */
  outcomes: {
    get(url: string): Promise<PageOutcome | undefined>;
    set(url: string, outcome: PageOutcome): Promise<void>;
    delete(url: string): Promise<void>;
    /** Forgets every outcome (clearing all data). */
    clear?(): Promise<void>;
  };
  /** Whether storage was found full (lib/background/storage-full.ts); storage.local in the extension, memory if absent. */
  storage?: StatusStore;
  /**
   * Reads a page's HTML (`page/html`) into what the content script would have read: Readability in
   * the reader document (entrypoints/background/reader.ts). Absent where no document can parse
   * HTML; such a page is then not recorded, with the reason.
   */
  readHtml?(html: string, url: string): Promise<unknown>;
  /** Told of 'pages/changed' (the background refreshes the badges); returns how many it refreshed. */
  onPagesChanged?(): Promise<number>;
  now(): number;
  log(message: string): void;
}

/** What handling a message did beside its reply: what the worker's badges need to know. */
export interface Handled {
  /** The value's type depends on the message type, which is only known once the message is validated. */
  reply: Reply<any>;
  /** A page a content script reported (the URL it sent), as the store now holds it: what its tab's badge shows. Null for any other message, or a refused one. */
  page: { url: string; recorded: boolean; matches: number; passages: number; rewrites: number } | null;
  /** The message changed which pages are recorded or grouped (forgetting, excluding a site, clearing, a change of k): other tabs' badges may be stale. */
  pagesChanged: boolean;
}

/** A message as the recorder took it: what the background needs at once, and the handling under way. */
export interface Received {
  /** The message's type (a known one, even when its payload was malformed); null when it names none. */
  type: MessageType | null;
  /**
   * A page's report, whose reply must come before Chrome's limit on one event: it waits for the
   * store, which may be held for minutes, and the page is recorded after the reply (lib/background/deadline.ts).
   */
  replyByDeadline: boolean;
  /** Never rejects: every failure is an `{ok: false, error}` reply (and a log line). */
  handled: Promise<Handled>;
}

export interface Recorder {
  /** Validates and checks the message at once, then handles it. */
  receive(message: unknown, sender: SenderInfo, ext: ExtensionInfo): Received;
  /** receive(…)'s reply alone. */
  handle(message: unknown, sender: SenderInfo, ext: ExtensionInfo): Promise<Reply<any>>;
  /** Forgets every page, every not-article outcome and the storage-full notice (`data/clear`); returns how many pages there were. */
  clearAll(): Promise<number>;
  /** How many near-duplicates, pages sharing passages and rewrites the page at `url` has now (the badge's number is their sum); null if it is not recorded. */
  matchCount(url: string): Promise<{ matches: number; passages: number; rewrites: number } | null>;
}

type SenderOf<T extends MessageType> = T extends 'page/extracted' | 'page/html' | 'rewrites/anchors' ? Extract<SenderKind, { kind: 'content' }> : Extract<SenderKind, { kind: 'extension-page' }>;
type Handlers = { [T in MessageType]: (payload: Request<T>, sender: SenderOf<T>) => Promise<ReplyValue<T>> };

/** Which sender kind may send each message type. */
const ALLOWED: { [T in MessageType]: SenderOf<T>['kind'] } = {
  'page/extracted': 'content',
  'page/html': 'content',
  'report/get': 'extension-page',
  'page/forget': 'extension-page',
  'settings/get': 'extension-page',
  'settings/pause': 'extension-page',
  'settings/incognito': 'extension-page',
  'site/exclude': 'extension-page',
  'site/mark': 'extension-page',
  'settings/k': 'extension-page',
  'data/clear': 'extension-page',
  'storage/dismiss': 'extension-page',
  'pages/changed': 'extension-page',
  'rewrites/anchors': 'content',
};

/** The messages after which some other tab's badge may be wrong. */
const CHANGES_PAGES: ReadonlySet<MessageType> = new Set<MessageType>(['page/forget', 'site/exclude', 'data/clear', 'settings/k']);
/** The content script's reports of a page (ALLOWED: 'content'). */
const isPageReport = (message: Message): message is Message<'page/extracted' | 'page/html'> => message.type === 'page/extracted' || message.type === 'page/html';

const describeError = (error: unknown): string => (error instanceof Error ? error.message || error.name : String(error));

function withStop(sentence: string): string {
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

export const NO_WORDS = 'The article has no words to compare.';

/** The page's record, its near-duplicates within k (clamped to the store's design) and the pages sharing passages with it; undefined if not recorded. */
function recordAndNear(pages: PageStore, url: string, k: number): Promise<PageMatches | undefined> {
  return pages.getWithNear(url, { k, clamp: true });
}

export function createRecorder(deps: RecorderDeps): Recorder {
  const log = (message: string): void => {
    try {
      deps.log(message);
    } catch {
      // logging must not turn a reply into an exception
    }
  };
  // The store: a function is asked again for each message (it keeps its store while the
  // connection lives, and opens a new one when the browser closed it, as after a full disk).
  const openStore = deps.store;
  const store = (): Promise<PageStore> => (typeof openStore === 'function' ? openStore() : Promise.resolve(openStore));

  // Storage full: forget the pages seen longest ago and try again (lib/background/storage-full.ts).
  const storageStatus = deps.storage ?? memoryStatus();
  const room = createRoomKeeper({ status: storageStatus, now: () => deps.now(), log });

  // Settings changes are read-modify-write: run them one after another so none is lost.
  let settingsQueue: Promise<unknown> = Promise.resolve();
  const updateSettings = <T>(change: (settings: Settings) => Promise<T>): Promise<T> => {
    const run = settingsQueue.then(async () => change(await deps.settings.get()));
    settingsQueue = run.catch(() => undefined);
    return run;
  };

  /** Why a page is not recorded under these settings, or null if it is (report/get's precedence). */
  function pageState(url: string, settings: Settings, incognito: boolean): 'excluded' | 'paused' | null {
    if (settings.excludedSites.includes(siteOf(url))) return 'excluded';
    if (settings.paused || (incognito && !settings.recordIncognito)) return 'paused';
    return null;
  }

  /** The reply for a page the settings say not to record (or read), or null. */
  function blockedReply(url: string, settings: Settings, incognito: boolean): ReplyValue<'page/extracted'> | null {
    const blocked = pageState(canonicalUrl(url), settings, incognito);
    return blocked === null ? null : { state: blocked, matches: 0, passages: 0, rewrites: 0 };
  }

  // Page reports being handled, by capture (lib/protocol/captures.ts): a copy its content script
  // sent again meanwhile, unanswered, waits for the first one's reply instead of being read again.
  // A copy of a capture already stored is read again and then not stored (PageStore.record): asking
  // the store first would put every page's reading behind the writes queued before it.
  const handling = new Map<string, Promise<PageRecorded>>();
  /** handle()'s reply, once per capture at a time. */
  function oncePerCapture({ capture }: { capture?: string }, handle: () => Promise<PageRecorded>): Promise<PageRecorded> {
    if (capture === undefined) return handle();
    const running = handling.get(capture);
    if (running !== undefined) return running;
    const started = handle().finally(() => handling.delete(capture));
    handling.set(capture, started);
    return started;
  }
  /** The reply to a capture whose visit is stored: the page's counts now ('unknown' if it was forgotten since). */
  async function storedBefore(url: string): Promise<PageRecorded> {
    const counts = await recorder.matchCount(url);
    return counts === null ? { state: 'unknown', matches: 0, passages: 0, rewrites: 0 } : { state: 'recorded', ...counts };
  }

  /** Records a page the content script or the reader document read (the settings allow it: blockedReply). */
  async function recordRead(page: PageExtracted, settings: Settings): Promise<ReplyValue<'page/extracted'>> {
    const url = canonicalUrl(page.url);
    if (page.outcome.kind === 'not-article') {
      const { reason: code, message, words, minWords } = page.outcome;
      const why: NotArticleWhy = words === undefined ? { code } : { code, words, ...(minWords === undefined ? {} : { minWords }) };
      await deps.outcomes.set(url, { state: 'not-article', reason: message, why });
      return { state: 'not-article', matches: 0, passages: 0, rewrites: 0 };
    }
    const fingerprinting = performance.now();
    const { simhash, check, tokens } = fingerprintText(page.outcome.text);
    if (tokens === 0) {
      await deps.outcomes.set(url, { state: 'not-article', reason: NO_WORDS, why: { code: 'no-words' } });
      return { state: 'not-article', matches: 0, passages: 0, rewrites: 0 };
    }
    const { words, hashes, positions, wordBits } = passageFingerprints(page.outcome.text);
    const rewrites = rewriteFingerprints(page.outcome.text);
    measureStage('fingerprint', fingerprinting);
    const pages = await store();
    const now = deps.now();
    // only a date and an address on another site are kept of what the page says of where it comes from
    const provenance = believableProvenance(page.outcome.provenance ?? {}, url, now);
    const visit = { url, title: page.title.slice(0, LIMITS.titleChars), site: siteOf(url), simhash, check, passages: { words, hashes, positions, wordBits }, rewrites, provenance, now };
    let recorded;
    const storing = performance.now();
    try {
      const { capture } = page;
      recorded = await room.write(pages, () => (capture === undefined ? pages.record(visit, { k: settings.k }) : pages.record(visit, { k: settings.k, capture })));
    } catch (error) {
      if (error instanceof StorageFullError) return { state: 'storage-full', matches: 0, passages: 0, rewrites: 0 };
      throw error;
    }
    measureStage('store', storing);
    if (recorded === null) return storedBefore(url); // a copy of this capture was stored meanwhile
    await deps.outcomes.delete(url);
    return { state: 'recorded', matches: recorded.matches.length, passages: foldedPassages(recorded.passages).length, rewrites: listedRewrites(recorded.rewrites, rewrites.lang).length };
  }

  /** The reader document's reading of a page's HTML; a failure is the page's not-article reason. */
  async function readHtml({ url, html, capture }: Request<'page/html'>): Promise<PageExtracted> {
    const notRead = (why: string): PageExtracted => ({
      url, ...(capture === undefined ? {} : { capture }), title: '', lang: null, siteName: null,
      outcome: { kind: 'not-article', reason: 'no-article', message: withStop(`Doppel could not read this page: ${why}`).slice(0, LIMITS.messageChars) },
    });
    if (!deps.readHtml) return notRead('this browser gives Doppel nowhere to read a page\'s HTML');
    let reply: unknown;
    const reading = performance.now();
    try {
      reply = await deps.readHtml(html, url);
      measureStage('read', reading);
    } catch (error) {
      log(`reading ${url.slice(0, 200)} failed: ${describeError(error)}`);
      return notRead(describeError(error));
    }
    try {
      // The reader document is Doppel's own, but what it read came from the page: validated as if
      // the content script had sent it, and kept to the URL the content script sent.
      return { ...(parseMessage({ type: 'page/extracted', payload: reply }).payload as PageExtracted), url, ...(capture === undefined ? {} : { capture }) };
    } catch (error) {
      log(`the reader document's reading of ${url.slice(0, 200)} was malformed: ${describeError(error)}`);
      return notRead('its reading was malformed');
    }
  }

  const handlers: Handlers = {
    // no store: where a page's own text holds the rare words of the shared pairs (the content script marks them)
    'rewrites/anchors': async ({ text, sets }) => ({ sets: sets.map((hashes) => sharedAnchorRanges(text, hashes)) }),

    'page/extracted': async (page, sender) => {
      const settings = await deps.settings.get();
      return blockedReply(page.url, settings, sender.incognito) ?? oncePerCapture(page, () => recordRead(page, settings));
    },

    'page/html': async (page, sender) => {
      // Settings first: a page that is not to be recorded is not read either.
      const settings = await deps.settings.get();
      return blockedReply(page.url, settings, sender.incognito) ?? oncePerCapture(page, async () => recordRead(await readHtml(page), settings));
    },

    'report/get': async ({ url: raw }) => {
      const url = canonicalUrl(raw);
      // Independent reads at once: the popup waits for the slowest, not for their sum.
      const [settings, pages, storageRead] = await Promise.all([deps.settings.get(), store(), storageStatus.get()]);
      const storage = storageRead ?? null;
      const site = siteOf(url);
      const [standing, found] = await Promise.all([
        readSiteStanding(pages, site, settings.siteMarks[site] ?? null),
        recordAndNear(pages, url, settings.k),
      ]);
      const report: Report = { url, state: 'unknown', page: null, matches: [], passages: [], rewrites: [], reason: null, notArticle: null, earliest: false, original: null, k: settings.k, settings, site: standing, storage };
      if (found !== undefined) {
        const { record, near, passages, rewrites, ownLanguage } = found;
        let first = record;
        for (const { record: other } of near) if (seenBefore(other, first)) first = other;
        const original = originalSummary(record, found);
        const matches: MatchSummary[] = near.map(({ record: other, distance }) => ({ ...summary(other), distance, earliest: other === first, original: other.url === original?.url }));
        const shared = listedPassages(passages, original?.url);
        return { ...report, state: 'recorded', page: summary(record), matches, passages: shared, rewrites: listedRewrites(rewrites, ownLanguage, original?.url), earliest: matches.length > 0 && first === record, original };
      }
      const blocked = pageState(url, settings, false);
      if (blocked !== null) return { ...report, state: blocked };
      const outcome = await deps.outcomes.get(url);
      if (outcome !== undefined) return { ...report, state: 'not-article', reason: outcome.reason, notArticle: outcome.why ?? { code: 'no-article' } };
      if (storage?.state === 'full') return { ...report, state: 'storage-full' };
      return report;
    },

    'page/forget': async ({ url: raw }) => {
      const url = canonicalUrl(raw);
      const forgotten = await (await store()).forget(url);
      await deps.outcomes.delete(url);
      return { forgotten };
    },

    'settings/get': async () => deps.settings.get(),

    'settings/pause': ({ paused }) =>
      updateSettings(async (settings) => {
        const next = { ...settings, paused };
        await deps.settings.set(next);
        return next;
      }),

    'settings/incognito': ({ recordIncognito }) =>
      updateSettings(async (settings) => {
        const next = { ...settings, recordIncognito };
        await deps.settings.set(next);
        return next;
      }),

    'site/exclude': ({ site, excluded }) =>
      updateSettings(async (settings) => {
        const listed = settings.excludedSites.includes(site);
        let excludedSites = settings.excludedSites;
        if (excluded && !listed) {
          if (excludedSites.length >= LIMITS.sites) throw new Error(`at most ${LIMITS.sites} sites can be excluded`);
          excludedSites = [...excludedSites, site];
        } else if (!excluded && listed) {
          excludedSites = excludedSites.filter((s) => s !== site);
        }
        const next = { ...settings, excludedSites };
        await deps.settings.set(next);
        const forgotten = excluded ? await (await store()).forgetSite(site) : 0;
        return { ...next, forgotten };
      }),

    'site/mark': ({ site, mark }) =>
      updateSettings(async (settings) => {
        const siteMarks = { ...settings.siteMarks };
        if (mark === null) delete siteMarks[site];
        else {
          if (!(site in siteMarks) && Object.keys(siteMarks).length >= LIMITS.sites) throw new Error(`at most ${LIMITS.sites} sites can be marked`);
          siteMarks[site] = mark;
        }
        const next = { ...settings, siteMarks };
        await deps.settings.set(next);
        return next;
      }),

    'settings/k': ({ k }) =>
      updateSettings(async (settings) => {
        const next = { ...settings, k };
        await deps.settings.set(next);
        return next;
      }),

    'data/clear': async () => ({ forgotten: await clearAll() }),

    'storage/dismiss': async () => {
      const status = await storageStatus.get();
      if (status?.state === 'full') return { dismissed: false };
      await storageStatus.clear();
      return { dismissed: true };
    },

    'pages/changed': async () => ({ badges: (await deps.onPagesChanged?.()) ?? 0 }),
  };

  async function clearAll(): Promise<number> {
    const forgotten = await (await store()).clear();
    await deps.outcomes.clear?.();
    await storageStatus.clear(); // the room is there again
    return forgotten;
  }

  async function dispatch(message: Message, sender: SenderKind): Promise<ReplyValue<MessageType>> {
    const handler = handlers[message.type] as (payload: unknown, sender: SenderKind) => Promise<ReplyValue<MessageType>>;
    return handler(message.payload, sender);
  }

  const recorder: Recorder = {
    async matchCount(raw) {
      const url = canonicalUrl(raw);
      const [settings, pages] = await Promise.all([deps.settings.get(), store()]);
      const found = await recordAndNear(pages, url, settings.k);
      return found === undefined ? null : { matches: found.near.length, passages: foldedPassages(found.passages).length, rewrites: Math.min(found.rewrites.length, LIMITS.passageSets) }; // as many as listedRewrites lists
    },

    clearAll,

    receive(raw, senderInfo, ext) {
      const refused = (type: MessageType | null, error: string): Received => ({ type, replyByDeadline: false, handled: Promise.resolve({ reply: { ok: false, error }, page: null, pagesChanged: false }) });
      let message: Message;
      try {
        message = parseMessage(raw);
      } catch (error) {
        const why = error instanceof InvalidMessage ? error.message : describeError(error);
        log(`rejected a message: ${why}`);
        const named = (raw as { type?: unknown } | null)?.type;
        return refused(MESSAGE_TYPES.find((t) => t === named) ?? null, withStop(`Doppel rejected a malformed message: ${why}`));
      }
      const { type } = message;
      let sender: SenderKind;
      try {
        sender = classifySender(senderInfo ?? {}, ext);
      } catch (error) {
        sender = { kind: 'foreign', why: describeError(error) };
      }
      const from = typeof senderInfo?.url === 'string' ? senderInfo.url.slice(0, 200) : 'an unknown sender';
      let refusal: string | null = null;
      if (sender.kind === 'foreign') refusal = sender.why;
      else if (sender.kind !== ALLOWED[type]) {
        refusal = isPageReport(message) ? 'only the content script of a page may report it' : "only Doppel's own pages may send it";
      } else if (sender.kind === 'content' && isPageReport(message) && new URL(message.payload.url).origin !== new URL(sender.url).origin) {
        refusal = 'a page may only report a page of its own origin';
      }
      if (refusal !== null) {
        log(`rejected ${type} from ${from}: ${refusal}`);
        return refused(type, withStop(`Doppel refused a ${type} message because ${refusal}`));
      }
      const handled = dispatch(message, sender).then(
        (value): Handled => {
          let page: Handled['page'] = null;
          if (isPageReport(message)) {
            const { state, matches, passages, rewrites } = value as PageRecorded;
            page = { url: message.payload.url, recorded: state === 'recorded', matches, passages, rewrites };
          }
          return { reply: { ok: true, value }, page, pagesChanged: CHANGES_PAGES.has(type) };
        },
        (error: unknown): Handled => {
          log(`${type} failed: ${describeError(error)}`);
          // the pages word a storage failure themselves (failure), in the reader's language; the text is for the record
          if (isStorageUnavailable(error)) return { reply: { ok: false, error: withStop(`${STORAGE_UNAVAILABLE_TEXT} Details: ${describeError(error)}`), failure: 'storage-unavailable' }, page: null, pagesChanged: false };
          return { reply: { ok: false, error: withStop(`Doppel could not complete ${type}: ${describeError(error)}`) }, page: null, pagesChanged: false };
        },
      );
      return { type, replyByDeadline: isPageReport(message), handled };
    },

    async handle(raw, senderInfo, ext) {
      return (await recorder.receive(raw, senderInfo, ext).handled).reply;
    },
  };
  return recorder;
}
