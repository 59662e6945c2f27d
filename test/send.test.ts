// The popup's and the history page's client of the message protocol (lib/protocol/send.ts): replies
// validated by lib/protocol/replies.ts (every reply the recorder gives is checked against it in
// recorder.test.ts), refusals and lost replies turned into errors, read-only requests sent twice.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Message, type Report } from '../lib/protocol/messages';
import { parseReply } from '../lib/protocol/replies';
import { WorkerFailed, createSend } from '../lib/protocol/send';
import { errorText } from '../lib/ui/error-text';
import { catalogue, localizerFor } from './support/catalogues';

const PAGE = { url: 'https://a.example/x', title: 'X', site: 'a.example', simhash: '0123456789abcdef', firstSeen: 1, lastSeen: 2, visits: 1 };
const REPORT: Report = {
  url: PAGE.url, state: 'recorded', page: PAGE,
  matches: [{ ...PAGE, url: 'https://b.example/x', site: 'b.example', distance: 2, earliest: true, original: true }],
  passages: [{ ...PAGE, url: 'https://c.example/y', site: 'c.example', share: 0.5, otherShare: 0.25, passages: 2, hashes: [1, 4294967295], ends: [{ first: 1, lead: 3, last: 4294967295, trail: 0 }], alsoIn: [{ ...PAGE, url: 'https://d.example/y' }], original: false }],
  rewrites: [{ ...PAGE, url: 'https://e.example/z', site: 'e.example', share: 0.4375, translated: true, language: 'es', ownLanguage: 'en', hashes: [4096, 8192], original: false }],
  reason: null, notArticle: null, earliest: false, k: 3, settings: DEFAULT_SETTINGS,
  original: { url: 'https://b.example/x', title: 'X', site: 'b.example', self: false, evidence: 'published', days: 3 },
  site: { site: 'a.example', pages: 3, copies: 2, credited: 0, mark: null, flagged: true, creditsSources: false },
  storage: { state: 'evicted', at: 5, evicted: 10 },
};

describe('parseReply', () => {
  it('passes a whole report, a refusal, and each small reply unchanged', () => {
    expect(parseReply('report/get', { ok: true, value: REPORT })).toEqual({ ok: true, value: REPORT });
    expect(parseReply('report/get', { ok: false, error: 'Doppel refused it.' })).toEqual({ ok: false, error: 'Doppel refused it.' });
    expect(parseReply('page/forget', { ok: true, value: { forgotten: true } })).toEqual({ ok: true, value: { forgotten: true } });
    expect(parseReply('data/clear', { ok: true, value: { forgotten: 3 } })).toEqual({ ok: true, value: { forgotten: 3 } });
    expect(parseReply('site/exclude', { ok: true, value: { ...DEFAULT_SETTINGS, forgotten: 2 } })).toEqual({ ok: true, value: { ...DEFAULT_SETTINGS, forgotten: 2 } });
    expect(parseReply('page/html', { ok: true, value: { state: 'not-article', matches: 0, passages: 0, rewrites: 0 } })).toEqual({ ok: true, value: { state: 'not-article', matches: 0, passages: 0, rewrites: 0 } });
    // a reply of a build without rewrites: none
    expect(parseReply('page/html', { ok: true, value: { state: 'not-article', matches: 0, passages: 0 } })).toEqual({ ok: true, value: { state: 'not-article', matches: 0, passages: 0, rewrites: 0 } });
    const { rewrites: _, ...older } = REPORT;
    expect(parseReply('report/get', { ok: true, value: older })).toEqual({ ok: true, value: { ...REPORT, rewrites: [] } });
    // a report of a build that did not name the original: none named, none marked
    const { original: __, ...unsaid } = REPORT;
    const site = { site: 'a.example', pages: 3, copies: 2, mark: null, flagged: true };
    const unmarked = { ...unsaid, site, matches: REPORT.matches.map(({ original: ___, ...m }) => m) };
    expect(parseReply('report/get', { ok: true, value: unmarked })).toEqual({ ok: true, value: { ...REPORT, original: null, matches: [{ ...REPORT.matches[0], original: false }] } });
  });

  const broken = (change: (r: Record<string, unknown>) => void): unknown => {
    const value = structuredClone(REPORT) as unknown as Record<string, unknown>;
    change(value);
    return { ok: true, value };
  };
  it.each([
    ['no envelope', null, "the worker's reply must be an object"],
    ['neither ok nor not', { value: REPORT }, "the worker's reply must say ok true or false"],
    ['an error that is not text', { ok: false, error: 7 }, 'error must be a string'],
    ['an unknown state', broken((r) => (r['state'] = 'lost')), 'state must be one of recorded, unknown, not-article, excluded, paused, storage-full'],
    ['a share past 1', broken((r) => ((r['passages'] as Record<string, unknown>[])[0]!['share'] = 1.5)), 'share must be a share from 0 to 1'],
    ['a hash past 32 bits', broken((r) => ((r['passages'] as Record<string, unknown>[])[0]!['hashes'] = [2 ** 32])), 'hashes must be 32-bit whole numbers'],
    ['a rewrite in an unknown language', broken((r) => ((r['rewrites'] as Record<string, unknown>[])[0]!['language'] = 'xx')), 'language must be one of und, en, es'],
    ['a rewrite with more hashes than a page keeps', broken((r) => ((r['rewrites'] as Record<string, unknown>[])[0]!['hashes'] = Array.from({ length: 65 }, () => 0))), 'hashes'],
    ['a rewrites list that is not one', broken((r) => (r['rewrites'] = 'many')), 'rewrites must be'],
    ['a negative distance', broken((r) => ((r['matches'] as Record<string, unknown>[])[0]!['distance'] = -1)), 'distance must be a whole number, 0 or more'],
    ['settings without k', broken((r) => delete (r['settings'] as Record<string, unknown>)['k']), 'k must be a whole number, 0 or more'],
    ['a k past 8', broken((r) => ((r['settings'] as Record<string, unknown>)['k'] = 9)), 'k must be a whole number from 0 to 8'],
    ['a storage status of another shape', broken((r) => (r['storage'] = { state: 'full' })), 'storage must be a storage status or null'],
    ['a site mark of another kind', broken((r) => ((r['site'] as Record<string, unknown>)['mark'] = 'friend')), 'mark must be "trusted", "farm" or null'],
  ])('refuses %s', (_what, reply, message) => {
    expect(() => parseReply('report/get', reply)).toThrow(message);
  });
});

describe('createSend', () => {
  const reply = { ok: true, value: { ...DEFAULT_SETTINGS } };

  it('sends {type, payload} and gives the validated value; a refusal is an Error with the worker\'s words', async () => {
    const sent: Message[] = [];
    const send = createSend({ sendMessage: async (m) => (sent.push(m), m.type === 'settings/get' ? reply : { ok: false, error: 'Doppel refused a data/clear message.' }), noAnswer: () => 'no answer' });
    expect(await send('settings/get', {})).toEqual(DEFAULT_SETTINGS);
    await expect(send('data/clear', {})).rejects.toThrow('Doppel refused a data/clear message.');
    expect(sent).toEqual([{ type: 'settings/get', payload: {} }, { type: 'data/clear', payload: {} }]);
  });

  it('a storage failure is a WorkerFailed that names it, which a page words in its language', async () => {
    const send = createSend({ sendMessage: async () => ({ ok: false, error: 'The browser cannot write. Details: QuotaExceededError.', failure: 'storage-unavailable' }), noAnswer: () => 'no answer' });
    const error = await send('page/forget', { url: PAGE.url }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerFailed);
    expect(error).toMatchObject({ failure: 'storage-unavailable', message: 'The browser cannot write. Details: QuotaExceededError.' });
    expect(errorText(localizerFor('es'), error)).toBe(catalogue('es')['storageUnavailable']!.message);
    expect(errorText(localizerFor('en'), new WorkerFailed('Doppel could not complete page/forget: gone.', null))).toBe('Doppel could not complete page/forget: gone.');
    expect(() => parseReply('page/forget', { ok: false, error: 'x', failure: 'bored' })).toThrow('failure must be one of storage-unavailable');
  });

  it('refuses a malformed reply, and says so when none came', async () => {
    const send = createSend({ sendMessage: async () => ({ ok: true, value: { forgotten: 'yes' } }), noAnswer: () => 'Doppel did not answer.' });
    await expect(send('data/clear', {})).rejects.toThrow('forgotten must be a whole number, 0 or more');
    const silent = createSend({ sendMessage: async () => undefined, noAnswer: () => 'Doppel did not answer.' });
    await expect(silent('data/clear', {})).rejects.toThrow('Doppel did not answer.');
  });

  it('sends a read-only request once more when the first was lost, and never a write', async () => {
    let calls = 0;
    const flaky = async (): Promise<unknown> => {
      calls++;
      if (calls === 1) throw new Error('message channel closed');
      return reply;
    };
    const send = createSend({ sendMessage: flaky, noAnswer: () => 'none', retry: new Set(['settings/get']) });
    expect(await send('settings/get', {})).toEqual(DEFAULT_SETTINGS);
    expect(calls).toBe(2);
    calls = 0;
    await expect(send('settings/pause', { paused: true })).rejects.toThrow('message channel closed');
    expect(calls).toBe(1);
    let answers = 0;
    const silentFirst = createSend({ sendMessage: async () => (answers++ === 0 ? undefined : reply), noAnswer: () => 'none', retry: new Set(['settings/get']) });
    expect(await silentFirst('settings/get', {})).toEqual(DEFAULT_SETTINGS);
    expect(answers).toBe(2);
  });
});
