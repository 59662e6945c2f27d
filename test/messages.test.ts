import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, InvalidMessage, LIMITS, MESSAGE_TYPES, READER_TARGET, parseAnchorRanges, parseMessage, parseReaderReply, parseReaderRequest, parseSettings } from '../lib/protocol/messages';
import { REWRITE_PARAMS } from '../lib/fingerprint/rewrites';

const article = (over: Record<string, unknown> = {}, outcome: Record<string, unknown> = {}) => ({
  type: 'page/extracted',
  payload: { url: 'https://a.example/story', title: 'A story', lang: 'en', siteName: null, outcome: { kind: 'article', text: 'Some text', truncated: false, ...outcome }, ...over },
});

describe('parseMessage', () => {
  it('accepts each message type in its valid shape', () => {
    const valid: Record<string, unknown> = {
      'page/extracted': article().payload,
      'page/html': { url: 'https://a.example/story', html: '<html><body><p>Some text</p></body></html>' },
      'report/get': { url: 'https://a.example/' },
      'page/forget': { url: 'http://127.0.0.1:9000/x' },
      'settings/get': {},
      'settings/pause': { paused: true },
      'settings/incognito': { recordIncognito: true },
      'site/exclude': { site: 'news.example:8080', excluded: true },
      'site/mark': { site: 'copies.example', mark: 'farm' },
      'settings/k': { k: 0 },
      'data/clear': {},
      'storage/dismiss': {},
      'pages/changed': {},
      'rewrites/anchors': { text: 'Wrenmouth mill, 1793', sets: [[4096, 0xffff_f000], []] },
    };
    expect(Object.keys(valid).sort()).toEqual([...MESSAGE_TYPES].sort());
    for (const type of MESSAGE_TYPES) expect(parseMessage({ type, payload: valid[type] })).toEqual({ type, payload: valid[type] });
  });

  it('accepts an article with what its page says of where it comes from, and keeps nothing else of it', () => {
    const claims = { published: Date.UTC(2024, 4, 4), source: 'https://b.example/story', sourceBy: 'credit', title: 'ignored', html: '<b>ignored</b>' };
    expect(parseMessage(article({}, { provenance: claims })).payload).toMatchObject({ outcome: { provenance: { published: Date.UTC(2024, 4, 4), source: 'https://b.example/story', sourceBy: 'credit' } } });
    expect(Object.keys((parseMessage(article({}, { provenance: claims })).payload as { outcome: { provenance: object } }).outcome.provenance)).toEqual(['published', 'source', 'sourceBy']);
    expect(parseMessage(article({}, { provenance: {} })).payload).toMatchObject({ outcome: { provenance: {} } });
  });

  it('accepts a not-article outcome', () => {
    const m = article({}, { kind: 'not-article', reason: 'too-short', message: 'Too short.', text: undefined, truncated: undefined });
    expect(parseMessage(m).payload).toMatchObject({ outcome: { kind: 'not-article', reason: 'too-short', message: 'Too short.' } });
  });

  it.each([
    [null, 'message must be an object'],
    ['page/extracted', 'message must be an object'],
    [[], 'message must be an object'],
    [{ type: 'steal/everything', payload: {} }, 'unknown message type "steal/everything"'],
    [{ type: 42 }, 'unknown message type 42'],
    [{ type: 'report/get' }, 'payload must be an object'],
    [{ type: 'report/get', payload: { url: 'javascript:alert(1)' } }, 'url must be an http or https URL: got javascript:'],
    [{ type: 'report/get', payload: { url: 'nope' } }, 'url is not a URL'],
    [{ type: 'settings/pause', payload: { paused: 'yes' } }, 'paused must be true or false'],
    [{ type: 'settings/incognito', payload: {} }, 'recordIncognito must be true or false'],
    [{ type: 'site/exclude', payload: { site: '<b>x</b>', excluded: true } }, 'site must be a host such as example.com:8080'],
    [article({ title: 7 }), 'title must be a string'],
    [article({ title: 'x'.repeat(LIMITS.titleChars + 1) }), `title is too long: ${LIMITS.titleChars + 1} characters (at most ${LIMITS.titleChars})`],
    [article({}, { text: 'x'.repeat(LIMITS.textChars + 1) }), `text is too long: ${LIMITS.textChars + 1} characters (at most ${LIMITS.textChars})`],
    [{ type: 'site/mark', payload: { site: 'a.example', mark: 'evil' } }, 'mark must be "trusted", "farm" or null'],
    [{ type: 'site/mark', payload: { site: 'javascript:alert(1)', mark: null } }, 'site must be a host such as example.com:8080'],
    [{ type: 'settings/k', payload: { k: 9 } }, 'k must be a whole number from 0 to 8'],
    [{ type: 'settings/k', payload: { k: 2.5 } }, 'k must be a whole number from 0 to 8'],
    [{ type: 'settings/k', payload: { k: '3' } }, 'k must be a whole number from 0 to 8'],
    [{ type: 'data/clear', payload: null }, 'payload must be an object'],
    [article({}, { kind: 'essay' }), 'outcome.kind must be "article" or "not-article"'],
    [article({}, { kind: 'not-article', reason: 'boring', message: 'x' }), 'outcome.reason must be one of no-article, too-short, too-large'],
    [article({}, { kind: 'not-article', reason: 'too-short', message: 'x', words: -1, minWords: 50 }), 'words must be a whole number, 0 or more'],
    // what the page says of where it comes from: a date and an address, nothing else
    [article({}, { provenance: 'yesterday' }), 'provenance must be an object'],
    [article({}, { provenance: { published: '2024-05-04' } }), 'provenance.published must be a time in milliseconds'],
    [article({}, { provenance: { published: Number.NaN } }), 'provenance.published must be a time in milliseconds'],
    [article({}, { provenance: { source: 'javascript:alert(1)', sourceBy: 'canonical' } }), 'provenance.source must be an http or https URL: got javascript:'],
    [article({}, { provenance: { source: `https://a.example/${'x'.repeat(2100)}`, sourceBy: 'canonical' } }), 'provenance.source is too long: 2118 characters (at most 2048)'],
    [article({}, { provenance: { source: 'https://b.example/story' } }), 'provenance.sourceBy must be one of canonical, credit'],
    [article({}, { provenance: { source: 'https://b.example/story', sourceBy: 'rumour' } }), 'provenance.sourceBy must be one of canonical, credit'],
    [article({}, { kind: 'not-article', reason: 'too-short', message: 'x', words: 3, minWords: '50' }), 'minWords must be a whole number, 0 or more'],
    [article({ url: 'file:///etc/passwd' }), 'url must be an http or https URL: got file:'],
    [{ type: 'rewrites/anchors', payload: { text: 'x', sets: [[-1]] } }, 'sets[0][0] must be a whole number from 0 to 4294967295: got -1'],
    [{ type: 'rewrites/anchors', payload: { text: 'x', sets: [[2 ** 32]] } }, 'sets[0][0] must be a whole number from 0 to 4294967295: got 4294967296'],
    [{ type: 'rewrites/anchors', payload: { text: 'x', sets: ['4096'] } }, 'sets[0] must be a list'],
    [{ type: 'rewrites/anchors', payload: { text: 'x', sets: [Array.from({ length: LIMITS.rewriteHashesPerSet + 1 }, () => 0)] } }, `sets[0] has too many items: ${LIMITS.rewriteHashesPerSet + 1} (at most ${LIMITS.rewriteHashesPerSet})`],
    [{ type: 'rewrites/anchors', payload: { text: 'x', sets: Array.from({ length: LIMITS.passageSets + 1 }, () => []) } }, `sets has too many items: ${LIMITS.passageSets + 1} (at most ${LIMITS.passageSets})`],
    [{ type: 'rewrites/anchors', payload: { text: 'x'.repeat(LIMITS.textChars + 1), sets: [] } }, `text is too long: ${LIMITS.textChars + 1} characters (at most ${LIMITS.textChars})`],
  ])('rejects %j', (message, reason) => {
    expect(() => parseMessage(message)).toThrow(new InvalidMessage(reason));
  });
});

describe('the reply to rewrites/anchors', () => {
  it('takes ranges of the text for each set, and names what is wrong', () => {
    expect(parseAnchorRanges({ sets: [[{ start: 0, end: 9 }], []] })).toEqual({ sets: [[{ start: 0, end: 9 }], []] });
    expect(() => parseAnchorRanges({ sets: [[{ start: 5, end: 5 }]] })).toThrow(new InvalidMessage('a range of sets[0] ends at 5, not after its start 5'));
    expect(() => parseAnchorRanges({ sets: [[{ start: -1, end: 5 }]] })).toThrow(new InvalidMessage('start must be a whole number, 0 or more'));
    expect(() => parseAnchorRanges({ sets: 'all' })).toThrow(new InvalidMessage('sets must be a list'));
  });

  it('allows as many hashes a set as a page keeps', () => {
    expect(LIMITS.rewriteHashesPerSet).toBe(REWRITE_PARAMS.sample.cap);
  });
});

describe('parseSettings', () => {
  it('fills gaps with the defaults and drops what is not a setting', () => {
    expect(parseSettings(undefined)).toEqual(DEFAULT_SETTINGS);
    expect(parseSettings({ paused: 'yes', excludedSites: ['a.example', 7, 'a.example'], recordIncognito: true, evil: 1 })).toEqual({
      paused: false,
      excludedSites: ['a.example'],
      recordIncognito: true,
      k: 3,
      siteMarks: {},
    });
    expect(parseSettings({ k: 0, siteMarks: { 'a.example': 'trusted', 'b.example': 'farm', 'c.example': 'evil', 'd.example': 1 } })).toMatchObject({
      k: 0,
      siteMarks: { 'a.example': 'trusted', 'b.example': 'farm' },
    });
    for (const k of [-1, 9, 3.5, '4', null]) expect(parseSettings({ k }).k).toBe(3);
  });
});

describe('the reader document\'s request and reply', () => {
  it('a message not addressed to the reader is not for it (null); one addressed to it is validated', () => {
    expect(parseReaderRequest(article())).toBeNull();
    expect(parseReaderRequest({ type: 'page/html', payload: { url: 'https://a.example/', html: '' } })).toBeNull();
    expect(parseReaderRequest(null)).toBeNull();
    expect(parseReaderRequest('doppel-reader')).toBeNull();
    expect(parseReaderRequest({ target: READER_TARGET, url: 'https://a.example/x', html: '<p>x</p>', extra: 1 })).toEqual({ target: READER_TARGET, url: 'https://a.example/x', html: '<p>x</p>' });
    expect(() => parseReaderRequest({ target: READER_TARGET, url: 'javascript:alert(1)', html: '' })).toThrow(new InvalidMessage('url must be an http or https URL: got javascript:'));
    expect(() => parseReaderRequest({ target: READER_TARGET, url: 'https://a.example/', html: 'x'.repeat(LIMITS.htmlChars + 1) })).toThrow(/html is too long/);
  });

  it.each([
    [{ ok: true, value: { anything: 1 } }, { ok: true, value: { anything: 1 } }],
    [{ ok: false, error: 'No DOMParser.' }, { ok: false, error: 'No DOMParser.' }],
  ])('passes the reply %j on', (reply, expected) => expect(parseReaderReply(reply)).toEqual(expected));

  it.each([
    [undefined, "the reader document's reply must be an object"],
    [{ ok: 'yes' }, "the reader document's reply must say ok true or false"],
    [{ ok: false }, 'error must be a string'],
    [{ ok: false, error: 'e'.repeat(LIMITS.messageChars + 1) }, 'error is too long'],
  ])('rejects the reply %j', (reply, reason) => expect(() => parseReaderReply(reply)).toThrow(reason));
});
