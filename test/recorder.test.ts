// lib/background/recorder.ts: the background's message handling, on fake-indexeddb with in-memory settings
// and outcomes.
import { storedPages } from './support/kept-tables';
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fingerprintText } from '../lib/fingerprint/features';
import { rewriteFingerprints, sharedAnchorRanges } from '../lib/fingerprint/rewrites';
import { hammingDistance } from '../lib/fingerprint/bits';
import { DEFAULT_SETTINGS, LIMITS, MESSAGE_TYPES, type MessageType, type PageExtracted, type Report, type Request, type Settings } from '../lib/protocol/messages';
import { type PageOutcome, type RecorderDeps, type SenderInfo, createRecorder } from '../lib/background/recorder';
import { parseReply } from '../lib/protocol/replies';
import { readHtml } from '../lib/background/html-reader';
import { parseHTML } from 'linkedom';
import { openDoppelDb } from '../lib/store/db';
import { PageStore } from '../lib/store/pages';
import { importLines } from '../lib/store/transfer';
import { STORAGE_UNAVAILABLE_TEXT } from '../lib/background/storage-full';
import { fingerprintToHex } from '../lib/fingerprint/bits';
import { type Db, OPTIONAL_RECORD_FIELDS, PAGE_RECORD_FIELDS } from '../lib/store/schema';

const ORIGINAL = `The old tide mill at the mouth of the estuary turned again this week for the first time in almost ninety years, after a volunteer group spent six winters rebuilding its wheel, sluice gates and the long timber race that feeds it. The mill was built in the late eighteenth century to grind grain for the farms along the river, and it worked on a simple idea: at high tide the sea fills a pond behind a dam, and when the tide falls the gates close and the trapped water is let out through the wheel. Two tides a day gave the miller two short working shifts, whatever the hour, and families in the village still tell stories of grandparents who ground flour by lantern light at three in the morning.
The restoration began when a storm tore away part of the roof and the council considered pulling the building down. Instead a handful of retired engineers, a carpenter and two schoolteachers formed a trust, raised money at summer fairs and persuaded a timber merchant to donate oak for the new paddles. They found the original drawings in a county archive, folded inside a ledger of grain prices, and used them to cut each spoke by hand.
On Saturday morning about two hundred people gathered on the sea wall to watch the gates open. For a few anxious minutes nothing happened; then the wheel shuddered, creaked and began to turn, slowly at first and then with a steady rhythm that shook the floorboards. The millstones will not grind commercial flour, the trust says, but school groups will be able to watch a demonstration every spring tide, and a small museum in the granary will explain how the coast once powered its own industry. The trust now hopes to restore the miller's cottage next door and to plant an orchard on the old salt marsh behind the pond.`;

// A republished copy: a credit line, a promo sentence, a few words changed.
const COPY = `Reprinted with permission from the Estuary Gazette.
The old tide mill at the mouth of the estuary turned again this week for the first time in nearly ninety years, after a volunteer group spent six winters rebuilding its wheel, sluice gates and the long timber race that feeds it. The mill was built in the late eighteenth century to grind grain for the farms along the river, and it worked on a simple idea: at high tide the sea fills a pond behind a dam, and when the tide falls the gates close and the trapped water is let out through the wheel. Two tides a day gave the miller two short working shifts, whatever the hour, and families in the village still tell stories of grandparents who ground flour by lantern light at three in the morning.
The restoration started when a storm tore away part of the roof and the council considered pulling the building down. Instead a handful of retired engineers, a carpenter and two schoolteachers formed a trust, raised money at summer fairs and persuaded a timber merchant to donate oak for the new paddles. They found the original drawings in a county archive, folded inside a ledger of grain prices, and used them to cut each spoke by hand.
On Saturday morning about two hundred people gathered on the sea wall to watch the gates open. For a few anxious minutes nothing happened; then the wheel shuddered, creaked and began to turn, slowly at first and then with a steady rhythm that shook the floorboards. The millstones will not grind commercial flour, the trust says, but school groups will be able to watch a demonstration every spring tide, and a small museum in the granary will explain how the coast once powered its own industry. The trust now hopes to restore the miller's cottage next door and to plant an orchard on the old salt marsh behind the pond.`;

const UNRELATED = `Researchers studying urban foxes have found that animals living near busy roads change their daily routines far more than expected, shifting most of their foraging to the quiet hours between two and five in the morning. The team fitted thirty foxes across four cities with lightweight collars that recorded position every ten minutes for a full year, and compared the tracks with traffic counts from roadside sensors. Foxes whose territories crossed a major road crossed it almost exclusively when traffic fell below a few dozen vehicles an hour, and several animals waited for more than an hour at the same verge until the road cleared. Animals in parks and large gardens, by contrast, kept to the dusk and dawn pattern that their rural cousins follow.
The results matter for planners, the authors argue, because new roads and late night delivery routes can quietly squeeze the time that wildlife has left to move around a city. Small changes, such as tunnels under embankments or lower speed limits on residential streets at night, could give foxes, hedgehogs and badgers safer passages. The study also found that foxes were remarkably consistent: individual animals used the same crossing points for months, and young foxes leaving home often followed the paths their mothers had used.
Not every finding was reassuring. Collisions remained the most common cause of death among the tracked animals, and two foxes were killed within weeks of a new bypass opening near their dens. The researchers now plan to repeat the work with hedgehogs, whose numbers in towns have fallen sharply over the past two decades, and they are asking residents to report sightings through a simple phone app so that volunteers can map where animals try to cross and where they give up and turn back.`;

const SAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', 'samples');

const ext = { id: 'doppel@test', origin: 'chrome-extension://doppelid/' };
const popup: SenderInfo = { id: ext.id, url: 'chrome-extension://doppelid/popup.html' };
function tab(url: string, { tabId = 1, frameId = 0, incognito = false }: { tabId?: number; frameId?: number; incognito?: boolean } = {}): SenderInfo {
  return { id: ext.id, url, frameId, tab: { id: tabId, incognito } };
}

function article(url: string, text: string, title = 'A title'): PageExtracted {
  return { url, title, lang: 'en', siteName: null, outcome: { kind: 'article', text, truncated: false } };
}

/** A page whose article is `text`, one paragraph per line. */
function articleHtml(text: string, title = 'A title'): string {
  const paragraphs = text.split('\n').map((p) => `<p>${p}</p>`).join('');
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><nav><a href="/">Home</a></nav><article><h1>${title}</h1>${paragraphs}</article></body></html>`;
}

const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

/** The reader document's work, with linkedom for its DOMParser. */
const readWithLinkedom = async (html: string, url: string): Promise<unknown> => readHtml(html, url, (text) => parseHTML(text).document as unknown as Document);

async function setup(initial: Partial<Settings> = {}, reader: RecorderDeps['readHtml'] | null = readWithLinkedom, clockStart = 1_000_000) {
  const db = await openDoppelDb('doppel', { factory: new IDBFactory() });
  opened.push(db);
  const store = await PageStore.open(db);
  let settings: Settings = { ...DEFAULT_SETTINGS, ...initial };
  const outcomes = new Map<string, PageOutcome>();
  const logs: string[] = [];
  let clock = clockStart;
  const recorder = createRecorder({
    store,
    settings: {
      get: async () => structuredClone(settings),
      set: async (next) => {
        settings = structuredClone(next);
      },
    },
    outcomes: {
      get: async (url) => outcomes.get(url),
      set: async (url, outcome) => void outcomes.set(url, outcome),
      delete: async (url) => void outcomes.delete(url),
    },
    ...(reader && { readHtml: reader }),
    now: () => (clock += 1_000),
    log: (message) => void logs.push(message),
  });
  // every reply, as the popup and the history page receive it, passes their validation unchanged
  const send = async (message: unknown, sender: SenderInfo) => {
    const reply = await recorder.handle(message, sender, ext);
    const type = (message as { type?: unknown } | null)?.type;
    if (MESSAGE_TYPES.some((t) => t === type)) expect(parseReply(type as MessageType, reply)).toEqual(reply);
    return reply;
  };
  /** A page read by the content script of a top-level tab showing it. */
  const extracted = (page: PageExtracted, options?: Parameters<typeof tab>[1]) => send({ type: 'page/extracted', payload: page }, tab(page.url, options));
  const report = async (url: string): Promise<Report> => {
    const reply = await send({ type: 'report/get', payload: { url } }, popup);
    if (!reply.ok) throw new Error(reply.error);
    return reply.value as Report;
  };
  return { db, store, recorder, outcomes, logs, send, extracted, report, settings: () => settings };
}

describe('createRecorder', () => {
  it('has a handler for every message type', async () => {
    const samples: { [T in MessageType]: { payload: Request<T>; sender: SenderInfo } } = {
      'page/extracted': { payload: article('https://news.example/mill', ORIGINAL), sender: tab('https://news.example/mill') },
      'page/html': { payload: { url: 'https://news.example/mill', html: articleHtml(ORIGINAL) }, sender: tab('https://news.example/mill') },
      'report/get': { payload: { url: 'https://news.example/mill' }, sender: popup },
      'page/forget': { payload: { url: 'https://news.example/mill' }, sender: popup },
      'settings/get': { payload: {}, sender: popup },
      'settings/pause': { payload: { paused: false }, sender: popup },
      'settings/incognito': { payload: { recordIncognito: false }, sender: popup },
      'site/exclude': { payload: { site: 'other.example', excluded: false }, sender: popup },
      'site/mark': { payload: { site: 'other.example', mark: 'trusted' }, sender: popup },
      'settings/k': { payload: { k: 4 }, sender: popup },
      'data/clear': { payload: {}, sender: popup },
      'storage/dismiss': { payload: {}, sender: popup },
      'pages/changed': { payload: {}, sender: popup },
      'rewrites/anchors': { payload: { text: ORIGINAL, sets: [[4096]] }, sender: tab('https://news.example/mill') },
    };
    const { send, logs } = await setup();
    expect(Object.keys(samples).sort()).toEqual([...MESSAGE_TYPES].sort());
    for (const type of MESSAGE_TYPES) {
      const { payload, sender } = samples[type];
      const reply = await send({ type, payload }, sender);
      expect(reply, type).toMatchObject({ ok: true });
    }
    expect(logs).toEqual([]);
  });

  it('rewrites/anchors: a content script gets where its text holds the rare words of the shared pairs, as sharedAnchorRanges finds them; a page may not ask, nor change a badge', async () => {
    const { send, recorder } = await setup();
    const text = [
      'Volunteers in Wrenmouth restarted the tide mill on 27 April after eleven years of work by the Wrenmouth Tide Mill Trust.',
      'The mill, built in 1793 for the Pellow family, ground grain for farms along the River Wren until 1938.',
      'Engineer Margaret Osei said the new oak wheel weighs 4,200 kilograms and turns twelve times a minute.',
    ].join('\n');
    const hashes = Array.from(rewriteFingerprints(text).hashes);
    const sets = [hashes.slice(0, 3), [], [4096]];
    const reply = await send({ type: 'rewrites/anchors', payload: { text, sets } }, tab('https://news.example/mill'));
    expect(reply).toEqual({ ok: true, value: { sets: sets.map((set) => sharedAnchorRanges(text, set)) } });
    expect((reply as { value: { sets: unknown[][] } }).value.sets[0]!.length).toBeGreaterThan(1);
    expect(parseReply('rewrites/anchors', reply)).toEqual(reply);
    expect(await send({ type: 'rewrites/anchors', payload: { text, sets } }, popup)).toMatchObject({ ok: false, error: expect.stringContaining('refused a rewrites/anchors message') });
    const { replyByDeadline, handled } = recorder.receive({ type: 'rewrites/anchors', payload: { text: 'x', sets: [] } }, tab('https://news.example/mill'), ext);
    expect(replyByDeadline).toBe(false);
    expect((await handled).page).toBeNull();
  });

  it('receive says at once which messages reply by the deadline, then what each did for the badges', async () => {
    const { recorder } = await setup();
    const url = 'https://news.example/mill';
    const take = async (message: unknown, sender: SenderInfo) => {
      const { type, replyByDeadline, handled } = recorder.receive(message, sender, ext);
      const { reply, page, pagesChanged } = await handled;
      return { type, replyByDeadline, ok: reply.ok, page, pagesChanged };
    };
    expect(await take({ type: 'page/extracted', payload: article(url, ORIGINAL) }, tab(url))).toEqual({
      type: 'page/extracted', replyByDeadline: true, ok: true, page: { url, recorded: true, matches: 0, passages: 0, rewrites: 0 }, pagesChanged: false,
    });
    const copyUrl = 'https://copycat.example/a?utm_source=x';
    expect(await take({ type: 'page/html', payload: { url: copyUrl, html: articleHtml(COPY) } }, tab(copyUrl))).toEqual({
      type: 'page/html', replyByDeadline: true, ok: true, page: { url: copyUrl, recorded: true, matches: 1, passages: 0, rewrites: 0 }, pagesChanged: false,
    });
    // not recorded (too short): the tab's badge is cleared
    const short: PageExtracted = { ...article('https://news.example/short', ''), outcome: { kind: 'not-article', reason: 'too-short', message: 'The article is too short to compare.', words: 2, minWords: 30 } };
    expect((await take({ type: 'page/extracted', payload: short }, tab('https://news.example/short'))).page).toEqual({
      url: 'https://news.example/short', recorded: false, matches: 0, passages: 0, rewrites: 0,
    });
    expect(await take({ type: 'report/get', payload: { url } }, popup)).toEqual({ type: 'report/get', replyByDeadline: false, ok: true, page: null, pagesChanged: false });
    for (const [type, payload] of [['settings/k', { k: 4 }], ['page/forget', { url }], ['site/exclude', { site: 'x.example', excluded: true }], ['data/clear', {}]] as const) {
      expect(await take({ type, payload }, popup), type).toEqual({ type, replyByDeadline: false, ok: true, page: null, pagesChanged: true });
    }
    // refused (a page reported by another origin's frame), malformed, unknown: no page, nothing changed
    expect(await take({ type: 'page/extracted', payload: article(url, ORIGINAL) }, tab('https://other.example/'))).toEqual({ type: 'page/extracted', replyByDeadline: false, ok: false, page: null, pagesChanged: false });
    expect(await take({ type: 'report/get', payload: { url: 'ftp://x' } }, popup)).toEqual({ type: 'report/get', replyByDeadline: false, ok: false, page: null, pagesChanged: false });
    expect(await take({ type: 'nope', payload: {} }, popup)).toEqual({ type: null, replyByDeadline: false, ok: false, page: null, pagesChanged: false });
  });

  it('clearAll forgets every page and returns how many there were', async () => {
    const { recorder, extracted, store } = await setup();
    await extracted(article('https://news.example/mill', ORIGINAL));
    await extracted(article('https://fox.example/a', UNRELATED));
    expect(await recorder.clearAll()).toBe(2);
    expect(await store.count()).toBe(0);
    expect(await recorder.clearAll()).toBe(0);
  });

  it('matchCount gives the badge its number now; pages/changed asks the background to refresh the badges', async () => {
    const { send, extracted, store } = await setup();
    await extracted(article('https://news.example/mill', ORIGINAL));
    await extracted(article('https://copycat.example/a', COPY));
    const db = store.db;
    let refreshes = 0;
    const recorder = createRecorder({
      store,
      settings: { get: async () => ({ ...DEFAULT_SETTINGS }), set: async () => undefined },
      outcomes: { get: async () => undefined, set: async () => undefined, delete: async () => undefined },
      now: () => 0,
      log: () => undefined,
      onPagesChanged: async () => ++refreshes,
    });
    expect(db.name).toBe('doppel');
    expect(await recorder.matchCount('https://news.example/mill')).toEqual({ matches: 1, passages: 0, rewrites: 0 });
    expect(await recorder.matchCount('https://copycat.example/a#part')).toEqual({ matches: 1, passages: 0, rewrites: 0 }); // canonical URL
    expect(await recorder.matchCount('https://never.example/')).toBeNull();
    expect(await recorder.handle({ type: 'pages/changed', payload: {} }, popup, ext)).toEqual({ ok: true, value: { badges: 1 } });
    expect(await recorder.handle({ type: 'pages/changed', payload: {} }, tab('https://news.example/mill'), ext)).toMatchObject({ ok: false });
    expect(refreshes).toBe(1);
    await send({ type: 'page/forget', payload: { url: 'https://copycat.example/a' } }, popup);
    expect(await recorder.matchCount('https://news.example/mill')).toEqual({ matches: 0, passages: 0, rewrites: 0 });
  });

  describe('rejects, logs and stores nothing', () => {
    const page = article('https://news.example/mill', ORIGINAL);
    const cases: [string, unknown, SenderInfo, RegExp][] = [
      ['another extension', { type: 'page/extracted', payload: page }, { ...tab(page.url), id: 'evil' }, /another extension/],
      ['a web page', { type: 'report/get', payload: { url: page.url } }, { url: 'https://evil.example/' }, /another extension or a web page/],
      ['a content script asking for a report', { type: 'report/get', payload: { url: page.url } }, tab(page.url), /only Doppel's own pages/],
      ['a content script excluding a site', { type: 'site/exclude', payload: { site: 'news.example', excluded: true } }, tab(page.url), /only Doppel's own pages/],
      ['a content script pausing', { type: 'settings/pause', payload: { paused: true } }, tab(page.url), /only Doppel's own pages/],
      ['a Doppel page reporting a page', { type: 'page/extracted', payload: page }, popup, /only the content script/],
      ['an iframe', { type: 'page/extracted', payload: page }, tab(page.url, { frameId: 4 }), /frame inside the page/],
      ['another origin', { type: 'page/extracted', payload: page }, tab('https://evil.example/'), /own origin/],
      ['another port of the same host', { type: 'page/extracted', payload: page }, tab('https://news.example:8443/mill'), /own origin/],
      ['an unknown type', { type: 'page/delete-everything', payload: {} }, popup, /unknown message type "page\/delete-everything"/],
      ['no type', { payload: {} }, popup, /unknown message type undefined/],
      ['not an object', 'page/extracted', popup, /message must be an object/],
      ['null', null, popup, /message must be an object/],
      ['no outcome', { type: 'page/extracted', payload: { ...page, outcome: undefined } }, tab(page.url), /outcome must be an object/],
      ['a javascript: URL', { type: 'page/extracted', payload: { ...page, url: 'javascript:alert(1)' } }, tab(page.url), /http or https/],
      ['a title that is not a string', { type: 'page/extracted', payload: { ...page, title: 42 } }, tab(page.url), /title must be a string/],
      ['an unknown not-article reason', { type: 'page/extracted', payload: { ...page, outcome: { kind: 'not-article', reason: 'bored', message: '' } } }, tab(page.url), /outcome.reason/],
      ['oversized text', { type: 'page/extracted', payload: article(page.url, 'word '.repeat(LIMITS.textChars / 5) + 'x') }, tab(page.url), /text is too long: 2000001 characters \(at most 2000000\)/],
      ['an oversized title', { type: 'page/extracted', payload: article(page.url, ORIGINAL, 't'.repeat(LIMITS.titleChars + 1)) }, tab(page.url), /title is too long/],
      ['a Doppel page sending HTML', { type: 'page/html', payload: { url: page.url, html: '<p>x</p>' } }, popup, /only the content script/],
      ['HTML of another origin', { type: 'page/html', payload: { url: page.url, html: '<p>x</p>' } }, tab('https://evil.example/'), /own origin/],
      ['HTML without html', { type: 'page/html', payload: { url: page.url } }, tab(page.url), /html must be a string/],
      ['oversized HTML', { type: 'page/html', payload: { url: page.url, html: 'x'.repeat(LIMITS.htmlChars + 1) } }, tab(page.url), /html is too long: 8000001 characters \(at most 8000000\)/],
      ['HTML of a file: URL', { type: 'page/html', payload: { url: 'file:///etc/passwd', html: '<p>x</p>' } }, tab(page.url), /http or https/],
      ['a malformed site', { type: 'site/exclude', payload: { site: 'News.Example/path', excluded: true } }, popup, /site must be a host/],
      ['a non-boolean pause', { type: 'settings/pause', payload: { paused: 'yes' } }, popup, /paused must be true or false/],
    ];

    it.each(cases)('%s', async (_, message, sender, why) => {
      const { send, logs, store, outcomes, settings } = await setup();
      const reply = await send(message, sender);
      expect(reply.ok).toBe(false);
      if (reply.ok) return;
      expect(reply.error).toMatch(why);
      expect(reply.error).toMatch(/^Doppel .*\.$/);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(/^rejected /);
      expect(logs[0]).toMatch(why);
      expect(await store.count()).toBe(0);
      expect(outcomes.size).toBe(0);
      expect(settings()).toEqual(DEFAULT_SETTINGS);
    });
  });

  it('honours pause at once: nothing stored while paused, recorded once resumed', async () => {
    const { send, extracted, report, store } = await setup();
    expect(await send({ type: 'settings/pause', payload: { paused: true } }, popup)).toEqual({ ok: true, value: { ...DEFAULT_SETTINGS, paused: true } });
    expect(await extracted(article('https://news.example/mill', ORIGINAL))).toEqual({ ok: true, value: { state: 'paused', matches: 0, passages: 0, rewrites: 0 } });
    expect(await extracted({ ...article('https://news.example/x', ''), outcome: { kind: 'not-article', reason: 'too-short', message: 'short' } })).toEqual({
      ok: true,
      value: { state: 'paused', matches: 0, passages: 0, rewrites: 0 },
    });
    expect(await store.count()).toBe(0);
    expect(await report('https://news.example/mill')).toMatchObject({ state: 'paused', page: null, settings: { paused: true } });
    expect((await report('https://news.example/x')).state).toBe('paused');

    await send({ type: 'settings/pause', payload: { paused: false } }, popup);
    expect(await extracted(article('https://news.example/mill', ORIGINAL))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    expect(await store.count()).toBe(1);
  });

  it('honours site exclusion at once, and excluding forgets that site’s pages', async () => {
    const { send, extracted, report, store } = await setup();
    await extracted(article('https://copycat.example/a', COPY));
    await extracted(article('https://copycat.example/b', UNRELATED));
    await extracted(article('https://news.example/mill', ORIGINAL));
    expect((await report('https://news.example/mill')).matches.map((m) => m.url)).toEqual(['https://copycat.example/a']);

    const reply = await send({ type: 'site/exclude', payload: { site: 'copycat.example', excluded: true } }, popup);
    expect(reply).toEqual({ ok: true, value: { ...DEFAULT_SETTINGS, excludedSites: ['copycat.example'], forgotten: 2 } });
    expect(await store.count()).toBe(1);
    expect((await report('https://news.example/mill')).matches).toEqual([]);
    expect(await report('https://copycat.example/a')).toMatchObject({ state: 'excluded', page: null, matches: [] });
    expect(await extracted(article('https://copycat.example/a', COPY))).toEqual({ ok: true, value: { state: 'excluded', matches: 0, passages: 0, rewrites: 0 } });
    expect(await store.count()).toBe(1);
    // excluding twice lists the site once; another port is another site
    await send({ type: 'site/exclude', payload: { site: 'copycat.example', excluded: true } }, popup);
    expect(await extracted(article('https://copycat.example:8080/a', COPY))).toEqual({ ok: true, value: { state: 'recorded', matches: 1, passages: 0, rewrites: 0 } });

    const back = await send({ type: 'site/exclude', payload: { site: 'copycat.example', excluded: false } }, popup);
    expect(back).toEqual({ ok: true, value: { ...DEFAULT_SETTINGS, excludedSites: [], forgotten: 0 } });
    expect(await extracted(article('https://copycat.example/a', COPY))).toEqual({ ok: true, value: { state: 'recorded', matches: 2, passages: 0, rewrites: 0 } });
  });

  it('records nothing from a private window unless allowed (state "paused")', async () => {
    const { extracted, store, outcomes } = await setup();
    const incognito = { incognito: true };
    expect(await extracted(article('https://news.example/mill', ORIGINAL), incognito)).toEqual({ ok: true, value: { state: 'paused', matches: 0, passages: 0, rewrites: 0 } });
    const notArticle: PageExtracted = { ...article('https://news.example/gallery', ''), outcome: { kind: 'not-article', reason: 'no-article', message: 'no article' } };
    expect(await extracted(notArticle, incognito)).toEqual({ ok: true, value: { state: 'paused', matches: 0, passages: 0, rewrites: 0 } });
    expect(await store.count()).toBe(0);
    expect(outcomes.size).toBe(0);

    // The user allows private windows from the popup: it takes effect at the next page.
    const { send } = await setup();
    expect(await send({ type: 'settings/incognito', payload: { recordIncognito: true } }, popup)).toEqual({
      ok: true,
      value: { ...DEFAULT_SETTINGS, recordIncognito: true },
    });
    expect(await send({ type: 'settings/incognito', payload: { recordIncognito: true } }, tab('https://news.example/x'))).toMatchObject({ ok: false });

    const allowing = await setup({ recordIncognito: true });
    expect(await allowing.extracted(article('https://news.example/mill', ORIGINAL), incognito)).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    expect(await allowing.store.count()).toBe(1);
  });

  it('keeps of what a page says of where it comes from only a date and an address on another site; a copy read first names its original once that is read', async () => {
    // the worker's clock in 2026: a date in 2024 is in its past
    const { extracted, send, report, store } = await setup({}, readWithLinkedom, Date.UTC(2026, 0, 1));
    const copyUrl = 'https://farm.example/mill';
    const head = (extra: string) => `<!doctype html><html lang="en"><head><title>Mill</title>${extra}</head><body><article><h1>Mill</h1>${ORIGINAL.split('\n').map((p) => `<p>${p}</p>`).join('')}</article></body></html>`;
    // a farm's copy read first: its own canonical link, a date in the future (no date), no source
    const farm = head(`<link rel="canonical" href="${copyUrl}"><meta property="article:published_time" content="2999-01-01T00:00:00Z">`);
    expect(await send({ type: 'page/html', payload: { url: copyUrl, html: farm } }, tab(copyUrl))).toMatchObject({ ok: true, value: { state: 'recorded' } });
    const farmRecord = (await store.get(copyUrl))!;
    expect([farmRecord.published, farmRecord.source, farmRecord.sourceBy]).toEqual([undefined, undefined, undefined]);
    // the reader document's reply is checked again: a source on the page's own site, and a date before 1995, are dropped
    const forged = { ...article('https://farm.example/other', COPY), outcome: { kind: 'article' as const, text: COPY, truncated: false, provenance: { published: Date.UTC(1990, 0, 1), source: 'https://farm.example/mill', sourceBy: 'canonical' as const } } };
    expect(await extracted(forged)).toMatchObject({ ok: true });
    expect((await store.get('https://farm.example/other'))!).not.toHaveProperty('source');
    expect((await store.get('https://farm.example/other'))!).not.toHaveProperty('published');
    // the original, read later, states its date in its byline
    const original = head('<meta name="date" content="2024-05-04">');
    await send({ type: 'page/html', payload: { url: 'https://courier.example/mill', html: original } }, tab('https://courier.example/mill'));
    expect((await store.get('https://courier.example/mill'))!.published).toBe(Date.UTC(2024, 4, 4));
    expect((await report(copyUrl)).original).toMatchObject({ url: 'https://courier.example/mill', self: false, evidence: 'published' });
    expect((await report('https://courier.example/mill')).original).toMatchObject({ self: true, evidence: 'published' });
    expect((await report(copyUrl)).matches.find((m) => m.url === 'https://courier.example/mill')).toMatchObject({ original: true });
  });

  it('lists an original and its lightly edited copy in each other’s reports, the earliest marked', async () => {
    const a = fingerprintText(ORIGINAL);
    const b = fingerprintText(COPY);
    expect(hammingDistance(a.simhash, b.simhash)).toBeLessThanOrEqual(3);

    const { extracted, report, db } = await setup();
    expect(await extracted(article('https://news.example/mill?utm_source=feed#top', ORIGINAL, 'Tide mill turns again'))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    expect(await extracted(article('https://copycat.example/mill', COPY, 'Tide mill turns again | Copycat'))).toEqual({ ok: true, value: { state: 'recorded', matches: 1, passages: 0, rewrites: 0 } });
    expect(await extracted(article('https://foxes.example/study', UNRELATED, 'Urban foxes'))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });

    const original = await report('https://news.example/mill');
    expect(original).toMatchObject({ url: 'https://news.example/mill', state: 'recorded', reason: null, earliest: true, k: 3, settings: DEFAULT_SETTINGS });
    expect(original.page).toEqual({
      url: 'https://news.example/mill',
      title: 'Tide mill turns again',
      site: 'news.example',
      simhash: a.simhash.toString(16).padStart(16, '0'),
      firstSeen: 1_001_000,
      lastSeen: 1_001_000,
      visits: 1,
    });
    expect(original.matches).toEqual([
      {
        url: 'https://copycat.example/mill',
        title: 'Tide mill turns again | Copycat',
        site: 'copycat.example',
        simhash: b.simhash.toString(16).padStart(16, '0'),
        firstSeen: 1_002_000,
        lastSeen: 1_002_000,
        visits: 1,
        distance: hammingDistance(a.simhash, b.simhash),
        earliest: false,
        original: false,
      },
    ]);
    // no page says more: the page seen first is the original
    expect(original.original).toEqual({ url: 'https://news.example/mill', title: 'Tide mill turns again', site: 'news.example', self: true, evidence: 'seen', days: null });

    const copy = await report('https://copycat.example/mill?fbclid=abc');
    expect(copy).toMatchObject({ url: 'https://copycat.example/mill', state: 'recorded', earliest: false });
    expect(copy.matches.map((m) => [m.url, m.earliest, m.original])).toEqual([['https://news.example/mill', true, true]]);
    expect(copy.original).toMatchObject({ url: 'https://news.example/mill', self: false, evidence: 'seen' });

    expect(await report('https://foxes.example/study')).toMatchObject({ state: 'recorded', matches: [], earliest: false });

    // a revisit counts, keeps firstSeen
    await extracted(article('https://news.example/mill', ORIGINAL, 'Tide mill turns again'));
    expect((await report('https://news.example/mill')).page).toMatchObject({ visits: 2, firstSeen: 1_001_000, lastSeen: 1_004_000 });

    // no page text is stored anywhere
    const stored = await storedPages(db);
    expect(stored).toHaveLength(3);
    for (const record of stored) {
      expect(Object.keys(record).slice(0, PAGE_RECORD_FIELDS.length)).toEqual([...PAGE_RECORD_FIELDS]);
      expect(Object.keys(record).slice(PAGE_RECORD_FIELDS.length).every((key) => (OPTIONAL_RECORD_FIELDS as readonly string[]).includes(key))).toBe(true);
    }
    // the original and its copy are one group; the copy (another site, seen later) is a copy
    const byUrl = new Map(stored.map((record) => [record.url, record]));
    const group = byUrl.get('https://news.example/mill')!.group;
    expect(group).toMatch(/^[0-9a-f]{16}$/);
    expect(byUrl.get('https://copycat.example/mill')).toMatchObject({ group, copySite: 'copycat.example' });
    expect(byUrl.get('https://news.example/mill')!.copySite).toBeUndefined();
    expect(byUrl.get('https://foxes.example/study')!.group).toBeUndefined();
    expect((await report('https://copycat.example/mill')).site).toEqual({ site: 'copycat.example', pages: 1, copies: 1, credited: 0, mark: null, flagged: true, creditsSources: false });
    expect((await report('https://news.example/mill')).site).toEqual({ site: 'news.example', pages: 1, copies: 0, credited: 0, mark: null, flagged: false, creditsSources: false });
    const everything = JSON.stringify([stored, await db.getAll('meta')]);
    for (const phrase of ['lantern light', 'sluice gates', 'Estuary Gazette', 'roadside sensors', 'hedgehogs']) expect(everything).not.toContain(phrase);
  });

  it('lists the pages telling the same story in other words: a rewrite and translations of samples/, both ways, once, counted by the reply and the badge; forgetting removes them', async () => {
    const { send, report, recorder } = await setup();
    const sample = (path: string): string => readFileSync(join(SAMPLES, path), 'utf8');
    const pages = [
      ['https://wrenmouth.example/mill', 'original-site/2024/05/wrenmouth-tide-mill-turns-again.html'],
      ['https://rewrite-mill.example/mill', 'rewrite-mill/2024/05/historic-tide-mill-spins-again.html'],
      ['https://traducciones.example/molino', 'traducciones/2024/05/el-molino-de-marea-de-wrenmouth-vuelve-a-girar.html'],
      ['https://zh.example/mill', 'zh/2024/05/wrenmouth-tide-mill.html'],
    ] as const;
    const replies = [];
    for (const [url, path] of pages) replies.push(await send({ type: 'page/html', payload: { url, html: sample(path) } }, tab(url)));
    // each page after the first rewrites or translates those before it
    expect(replies.map((r) => (r.ok ? (r.value as { rewrites: number }).rewrites : -1))).toEqual([0, 1, 2, 3]);

    const spanish = await report('https://traducciones.example/molino');
    expect(spanish.matches).toEqual([]);
    expect(spanish.passages).toEqual([]);
    expect(spanish.rewrites.map((r) => [r.url, r.translated, r.language, r.ownLanguage])).toEqual([
      ['https://wrenmouth.example/mill', true, 'en', 'es'],
      ['https://zh.example/mill', true, 'zh', 'es'],
      ['https://rewrite-mill.example/mill', true, 'en', 'es'],
    ]);
    for (const r of spanish.rewrites) {
      expect(r.share).toBeGreaterThanOrEqual(0.3);
      expect(r.hashes.length).toBeGreaterThanOrEqual(3);
    }
    const rewrite = await report('https://rewrite-mill.example/mill');
    expect(rewrite.rewrites.find((r) => r.url === 'https://wrenmouth.example/mill')).toMatchObject({ translated: false, language: 'en', ownLanguage: 'en' });
    expect(await recorder.matchCount('https://wrenmouth.example/mill')).toEqual({ matches: 0, passages: 0, rewrites: 3 });

    expect(await send({ type: 'page/forget', payload: { url: 'https://wrenmouth.example/mill' } }, popup)).toEqual({ ok: true, value: { forgotten: true } });
    expect((await report('https://traducciones.example/molino')).rewrites.map((r) => r.url)).toEqual(['https://zh.example/mill', 'https://rewrite-mill.example/mill']);
  });

  it('lists the pages sharing passages with a page, both ways, with shares and hashes; the reply and the badge count them', async () => {
    const { extracted, report, send } = await setup();
    const [first, second] = ORIGINAL.split('\n');
    const quote = `${UNRELATED.split('\n')[0]}\n${second!.split(' ').slice(0, 60).join(' ')}\n${UNRELATED.split('\n')[1]}`;
    expect(await extracted(article('https://news.example/mill', ORIGINAL, 'Tide mill turns again'))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    // the first paragraph alone, on another site: a passage of it, not a near-duplicate
    expect(await extracted(article('https://digest.example/mill', first!))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 1, rewrites: 0 } });
    expect(await extracted(article('https://blog.example/foxes', quote))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 1, rewrites: 0 } });

    const excerpt = await report('https://digest.example/mill');
    expect(excerpt.matches).toEqual([]);
    expect(excerpt.passages.map((p) => [p.url, p.title, p.passages])).toEqual([['https://news.example/mill', 'Tide mill turns again', 1]]);
    expect(excerpt.passages[0]!.share).toBeGreaterThan(0.7); // from fingerprints alone: up to 25 words short of the whole paragraph at each end
    expect(excerpt.passages[0]!.otherShare).toBeGreaterThan(0.3);
    expect(excerpt.passages[0]!.otherShare).toBeLessThan(0.5);
    expect(excerpt.passages[0]!.hashes.length).toBeGreaterThan(3);

    const original = await report('https://news.example/mill');
    expect(original.passages.map((p) => p.url)).toEqual(['https://digest.example/mill', 'https://blog.example/foxes']);
    expect(original.passages[1]!.share).toBeLessThan(0.2);
    expect((await send({ type: 'page/forget', payload: { url: 'https://digest.example/mill' } }, popup)).ok).toBe(true);
    expect((await report('https://news.example/mill')).passages.map((p) => p.url)).toEqual(['https://blog.example/foxes']);
  });

  it('an article read on two sites shares the same passages with a quote of it: one entry, led by the copy seen first, the other in alsoIn; the reply counts one', async () => {
    const { extracted, report } = await setup();
    const second = ORIGINAL.split('\n')[1]!;
    const quote = `${UNRELATED.split('\n')[0]}\n${second.split(' ').slice(0, 60).join(' ')}\n${UNRELATED.split('\n')[1]}`;
    expect(await extracted(article('https://news.example/mill', ORIGINAL, 'Tide mill turns again'))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    expect(await extracted(article('https://mirror.example/mill', ORIGINAL, 'Tide mill turns again | Mirror'))).toEqual({ ok: true, value: { state: 'recorded', matches: 1, passages: 0, rewrites: 0 } });
    expect(await extracted(article('https://blog.example/foxes', quote))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 1, rewrites: 0 } });

    const quoting = await report('https://blog.example/foxes');
    expect(quoting.passages.map((p) => [p.url, p.alsoIn.map((other) => [other.url, other.title, other.site])])).toEqual([
      ['https://news.example/mill', [['https://mirror.example/mill', 'Tide mill turns again | Mirror', 'mirror.example']]],
    ]);
    // the mirror was read later: led by the original whatever the order the store found them in
    expect(quoting.passages[0]!.alsoIn[0]!.firstSeen).toBeGreaterThan(quoting.passages[0]!.firstSeen);
    // each copy's own report lists the quote alone, and the other copy among the near-duplicates
    for (const url of ['https://news.example/mill', 'https://mirror.example/mill']) {
      const own = await report(url);
      expect(own.matches).toHaveLength(1);
      expect(own.passages.map((p) => [p.url, p.alsoIn])).toEqual([['https://blog.example/foxes', []]]);
    }
  });

  it('forgetting a page removes it from the other’s report', async () => {
    const { extracted, report, send, store } = await setup();
    await extracted(article('https://news.example/mill', ORIGINAL));
    await extracted(article('https://copycat.example/mill', COPY));
    expect(await send({ type: 'page/forget', payload: { url: 'https://copycat.example/mill#again' } }, popup)).toEqual({ ok: true, value: { forgotten: true } });
    expect(await send({ type: 'page/forget', payload: { url: 'https://copycat.example/mill' } }, popup)).toEqual({ ok: true, value: { forgotten: false } });
    expect(await report('https://news.example/mill')).toMatchObject({ state: 'recorded', matches: [], earliest: false });
    expect(await report('https://copycat.example/mill')).toMatchObject({ state: 'unknown', page: null, matches: [], reason: null });
    expect(await store.count()).toBe(1);
  });

  it('reports a page imported without a check fingerprint, matched on the simhash alone', async () => {
    const { extracted, report, store } = await setup();
    expect(await extracted(article('https://news.example/mill', ORIGINAL))).toMatchObject({ ok: true });
    const simhash = fingerprintToHex(fingerprintText(COPY).simhash);
    const lines = ['{"format":"doppel","version":1}', JSON.stringify({ url: 'https://imported.example/mill', title: 'Imported', simhash })];
    expect(await importLines(store, lines, { now: 1 })).toMatchObject({ added: 1, rejected: [] });
    const imported = await report('https://imported.example/mill');
    expect(imported).toMatchObject({ state: 'recorded', page: { title: 'Imported' } });
    expect(imported.matches.map((m) => m.url)).toEqual(['https://news.example/mill']);
  });

  it('remembers why a page was not recorded, until it is', async () => {
    const { extracted, report, outcomes, send } = await setup();
    const url = 'https://news.example/gallery';
    const gallery: PageExtracted = { ...article(url, ''), outcome: { kind: 'not-article', reason: 'no-article', message: 'Readability found no article' } };
    expect(await extracted(gallery)).toEqual({ ok: true, value: { state: 'not-article', matches: 0, passages: 0, rewrites: 0 } });
    expect(await report(url)).toMatchObject({ state: 'not-article', reason: 'Readability found no article', notArticle: { code: 'no-article' }, page: null });

    // an "article" without a single word is too short
    expect(await extracted(article('https://news.example/dots', '… !!! — ? 1'))).toEqual({ ok: true, value: { state: 'not-article', matches: 0, passages: 0, rewrites: 0 } });
    expect(await report('https://news.example/dots')).toMatchObject({ state: 'not-article', reason: 'The article has no words to compare.', notArticle: { code: 'no-words' } });

    expect(await extracted(article(url, ORIGINAL))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    expect(outcomes.has(url)).toBe(false);
    expect(await report(url)).toMatchObject({ state: 'recorded', reason: null });

    await send({ type: 'page/forget', payload: { url: 'https://news.example/dots' } }, popup);
    expect(await report('https://news.example/dots')).toMatchObject({ state: 'unknown', reason: null });
    expect(await report('https://never.example/')).toMatchObject({ state: 'unknown', page: null, matches: [], earliest: false });
  });

  it('stores and returns a hostile title verbatim', async () => {
    const hostile = `<img src=x onerror="alert('t')"><script>alert(1)</script> & "quotes" 'single' \u202eevil\u0000 </title>{{constructor}}`;
    const { extracted, report, store } = await setup();
    await extracted(article('https://evil.example/a', ORIGINAL, hostile));
    await extracted(article('https://news.example/mill', COPY));
    expect((await store.get('https://evil.example/a'))?.title).toBe(hostile);
    expect((await report('https://evil.example/a')).page?.title).toBe(hostile);
    expect((await report('https://news.example/mill')).matches[0]?.title).toBe(hostile);
  });

  it('turns a storage failure into an error reply and a log line, never an exception', async () => {
    const logs: string[] = [];
    const recorder = createRecorder({
      store: () => Promise.reject(new Error('The Doppel database "doppel" is at version 2, newer than version 1')),
      settings: { get: async () => ({ ...DEFAULT_SETTINGS }), set: async () => undefined },
      outcomes: { get: async () => undefined, set: async () => undefined, delete: async () => undefined },
      now: () => 0,
      log: (message) => {
        logs.push(message);
        throw new Error('the console is gone');
      },
    });
    const reply = await recorder.handle({ type: 'page/extracted', payload: article('https://news.example/mill', ORIGINAL) }, tab('https://news.example/mill'), ext);
    expect(reply).toEqual({ ok: false, error: 'Doppel could not complete page/extracted: The Doppel database "doppel" is at version 2, newer than version 1.' });
    expect(logs).toEqual(['page/extracted failed: The Doppel database "doppel" is at version 2, newer than version 1']);
    expect(await recorder.handle({ type: 'settings/get', payload: {} }, popup, ext)).toEqual({ ok: true, value: DEFAULT_SETTINGS });
  });

  it('says in plain words that storage is unavailable when the disk is full, and keeps the raw cause', async () => {
    const causes = [
      "Failed to execute 'transaction' on 'IDBDatabase': The database connection is closing.",
      'Internal error opening backing store for indexedDB.open.',
      'IO error: .../000003.log: FILE_ERROR_NO_SPACE (ChromeMethodBFE: 3::WritableFileAppend::8)',
    ];
    for (const cause of causes) {
      const recorder = createRecorder({
        store: () => Promise.reject(new DOMException(cause, 'UnknownError')),
        settings: { get: async () => ({ ...DEFAULT_SETTINGS }), set: async () => undefined },
        outcomes: { get: async () => undefined, set: async () => undefined, delete: async () => undefined },
        now: () => 0,
        log: () => undefined,
      });
      const reply = await recorder.handle({ type: 'report/get', payload: { url: 'https://news.example/' } }, popup, ext);
      expect(reply).toEqual({ ok: false, error: `${STORAGE_UNAVAILABLE_TEXT} Details: ${/\.$/.test(cause) ? cause : `${cause}.`}`, failure: 'storage-unavailable' });
    }
  });

  it('asks a lazily given store for each message, so that a failed open or a closed connection is not kept', async () => {
    const db = await openDoppelDb('doppel', { factory: new IDBFactory() });
    opened.push(db);
    let attempts = 0;
    let kept: Promise<PageStore> | undefined;
    const recorder = createRecorder({
      store: () => {
        if (++attempts === 1) return Promise.reject(new Error('not yet'));
        return (kept ??= PageStore.open(db));
      },
      settings: { get: async () => ({ ...DEFAULT_SETTINGS }), set: async () => undefined },
      outcomes: { get: async () => undefined, set: async () => undefined, delete: async () => undefined },
      now: () => 0,
      log: () => undefined,
    });
    const message = { type: 'report/get', payload: { url: 'https://news.example/' } };
    expect(await recorder.handle(message, popup, ext)).toEqual({ ok: false, error: 'Doppel could not complete report/get: not yet.' });
    const replies = await Promise.all([1, 2, 3].map(() => recorder.handle(message, popup, ext)));
    for (const reply of replies) expect(reply).toMatchObject({ ok: true, value: { state: 'unknown' } });
    expect(attempts).toBe(4);
  });

  it('serialises settings changes so that none is lost', async () => {
    const { send, settings } = await setup();
    await Promise.all([
      send({ type: 'settings/pause', payload: { paused: true } }, popup),
      ...['a.example', 'b.example', 'c.example'].map((site) => send({ type: 'site/exclude', payload: { site, excluded: true } }, popup)),
    ]);
    expect(settings()).toEqual({ ...DEFAULT_SETTINGS, paused: true, excludedSites: ['a.example', 'b.example', 'c.example'] });
  });
});

describe('page/html: the page read in the reader document', () => {
  const url = 'https://news.example/mill';
  const html = (text: string, title?: string) => ({ type: 'page/html', payload: { url, html: articleHtml(text, title) } });

  it('records the page as the content script reading it itself would have', async () => {
    const viaHtml = await setup();
    expect(await viaHtml.send(html(ORIGINAL, 'The tide mill'), tab(url))).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    const viaText = await setup();
    const read = readHtml(articleHtml(ORIGINAL, 'The tide mill'), url, (text) => parseHTML(text).document as unknown as Document);
    expect(read.outcome.kind).toBe('article');
    await viaText.extracted(read);
    const [a, b] = [(await viaHtml.report(url)).page, (await viaText.report(url)).page];
    expect(a).toMatchObject({ url, title: 'The tide mill', simhash: b!.simhash });
    // and the reading is the article's text: the same fingerprint as the text itself
    expect(a!.simhash).toBe(fingerprintToHex(fingerprintText(ORIGINAL).simhash));
    // a copy sent as HTML finds the original
    expect(await viaHtml.send({ type: 'page/html', payload: { url: 'https://copycat.example/a', html: articleHtml(COPY) } }, tab('https://copycat.example/a'))).toEqual({
      ok: true,
      value: { state: 'recorded', matches: 1, passages: 0, rewrites: 0 },
    });
    expect(viaHtml.logs).toEqual([]);
  });

  it('does not read a page that is not to be recorded (paused, excluded, private window)', async () => {
    let reads = 0;
    const counting: RecorderDeps['readHtml'] = async (h, u) => {
      reads++;
      return readWithLinkedom(h, u);
    };
    const paused = await setup({ paused: true }, counting);
    expect(await paused.send(html(ORIGINAL), tab(url))).toEqual({ ok: true, value: { state: 'paused', matches: 0, passages: 0, rewrites: 0 } });
    const excluded = await setup({ excludedSites: ['news.example'] }, counting);
    expect(await excluded.send(html(ORIGINAL), tab(url))).toEqual({ ok: true, value: { state: 'excluded', matches: 0, passages: 0, rewrites: 0 } });
    const normal = await setup({}, counting);
    expect(await normal.send(html(ORIGINAL), tab(url, { incognito: true }))).toEqual({ ok: true, value: { state: 'paused', matches: 0, passages: 0, rewrites: 0 } });
    expect(reads).toBe(0);
    expect(await normal.send(html(ORIGINAL), tab(url))).toMatchObject({ ok: true, value: { state: 'recorded' } });
    expect(reads).toBe(1);
  });

  it('a page the reader finds no article in, or too short, is not recorded, with the reason', async () => {
    const { send, report, store } = await setup();
    expect(await send(html('Too few words here.'), tab(url))).toEqual({ ok: true, value: { state: 'not-article', matches: 0, passages: 0, rewrites: 0 } });
    expect(await report(url)).toMatchObject({ state: 'not-article', reason: 'The article is too short to compare: 5 words (at least 30 needed).', notArticle: { code: 'too-short', words: 5, minWords: 30 } });
    expect(await store.count()).toBe(0);
  });

  const failures: [string, RecorderDeps['readHtml'] | null, RegExp, RegExp | null][] = [
    ['the reader document fails', async () => {
      throw new Error('Could not establish connection.');
    }, /^Doppel could not read this page: Could not establish connection\.$/, /reading https:\/\/news\.example\/mill failed: Could not establish connection/],
    ['the reading is malformed', async () => ({ url, title: 42 }), /^Doppel could not read this page: its reading was malformed\.$/, /malformed: outcome must be an object/],
    ['the reading is too long', async () => ({ url, title: 't', lang: null, siteName: null, outcome: { kind: 'article', text: 'x'.repeat(LIMITS.textChars + 1), truncated: false } }), /its reading was malformed/, /text is too long/],
    ['the browser has no reader', null, /^Doppel could not read this page: this browser gives Doppel nowhere to read a page's HTML\.$/, null],
  ];
  it.each(failures)('%s: the page is not recorded, and the popup says why', async (_, reader, reason, logged) => {
    const { send, report, store, logs } = await setup({}, reader);
    expect(await send(html(ORIGINAL), tab(url))).toEqual({ ok: true, value: { state: 'not-article', matches: 0, passages: 0, rewrites: 0 } });
    expect(await report(url)).toMatchObject({ state: 'not-article', reason: expect.stringMatching(reason), page: null });
    expect(await store.count()).toBe(0);
    if (logged) expect(logs).toEqual([expect.stringMatching(logged)]);
    else expect(logs).toEqual([]);
  });

  it('records the page under the URL the content script sent, whatever the reader echoes', async () => {
    const { send, report } = await setup({}, async (h, u) => ({ ...(await readWithLinkedom(h, u) as PageExtracted), url: 'https://elsewhere.example/' }));
    expect(await send(html(ORIGINAL), tab(url))).toMatchObject({ ok: true, value: { state: 'recorded' } });
    expect((await report(url)).state).toBe('recorded');
    expect((await report('https://elsewhere.example/')).state).toBe('unknown');
  });
});

describe('a capture sent again, its content script not having had the acknowledgement', () => {
  const url = 'https://news.example/mill';
  const capture = '00000000000000a1';
  const html = (id?: string) => ({ type: 'page/html', payload: { url, html: articleHtml(ORIGINAL), ...(id === undefined ? {} : { capture: id }) } });
  /** setup() with a reader that counts its readings. */
  async function counted() {
    const reads: string[] = [];
    const s = await setup({}, async (text, at) => (reads.push(at), readWithLinkedom(text, at)));
    return { ...s, reads, visits: async () => (await s.store.get(url))?.visits };
  }

  it('is stored once when sent twice, and the copy is answered as the first', async () => {
    const s = await counted();
    await s.send({ type: 'page/extracted', payload: article('https://news.example/copy', COPY) }, tab('https://news.example/copy'));
    const first = await s.send(html(capture), tab(url));
    expect(first).toEqual({ ok: true, value: { state: 'recorded', matches: 1, passages: 0, rewrites: 0 } });
    expect(await s.send(html(capture), tab(url))).toEqual(first);
    expect([await s.visits(), s.reads.length]).toEqual([1, 2]);
  });

  it('is stored once when two copies arrive at once: read once, both answered', async () => {
    const s = await counted();
    const replies = await Promise.all([s.send(html(capture), tab(url)), s.send(html(capture), tab(url)), s.extracted({ ...article(url, ORIGINAL), capture })]);
    for (const reply of replies) expect(reply).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    expect([await s.visits(), s.reads.length]).toEqual([1, 1]);
  });

  it('is stored once by a worker started again (a new recorder over the same store)', async () => {
    const s = await counted();
    await s.send(html(capture), tab(url));
    const restarted = createRecorder({
      store: s.store,
      settings: { get: async () => ({ ...DEFAULT_SETTINGS }), set: async () => {} },
      outcomes: { get: async () => undefined, set: async () => {}, delete: async () => {} },
      readHtml: async (text, at) => (s.reads.push(at), readWithLinkedom(text, at)),
      now: () => 5_000_000,
      log: () => {},
    });
    expect(await restarted.handle(html(capture), tab(url), ext)).toEqual({ ok: true, value: { state: 'recorded', matches: 0, passages: 0, rewrites: 0 } });
    expect([await s.visits(), s.reads.length]).toEqual([1, 2]);
  });

  it('is written once by the store even when two writes race past the worker’s check', async () => {
    const s = await counted();
    const { simhash, check } = fingerprintText(ORIGINAL);
    const visit = { url, title: 'A title', site: 'news.example', simhash, check, now: 1 };
    const written = await Promise.all([s.store.record(visit, { capture }), s.store.record({ ...visit, now: 2 }, { capture }), s.store.record({ ...visit, now: 3 }, { capture: '00000000000000b2' })]);
    expect(written.map((w) => w?.record.visits ?? null)).toEqual([1, null, 2]);
  });

  it('another capture of the page is another visit; a report without a capture is stored each time', async () => {
    const s = await counted();
    for (const id of [capture, '00000000000000b2', undefined, undefined]) await s.send(html(id), tab(url));
    expect(await s.visits()).toBe(4);
  });

  it('a copy of a capture whose page was forgotten since is answered unknown, and nothing is stored', async () => {
    const s = await counted();
    await s.send(html(capture), tab(url));
    await s.send({ type: 'page/forget', payload: { url } }, popup);
    expect(await s.send(html(capture), tab(url))).toEqual({ ok: true, value: { state: 'unknown', matches: 0, passages: 0, rewrites: 0 } });
    expect([await s.visits(), s.reads.length]).toEqual([undefined, 2]);
  });
});
