// lib/protocol/writer-protocol.ts: every request and event the history page and the worker exchange over a
// writer port is validated; a malformed one is refused with a reason a person can read.
import { describe, expect, it } from 'vitest';
import { IMPORT_WINDOW_LINES, InvalidMessage, LIMITS, WRITER_LIMITS, parseWriterEvent, parseWriterRequest } from '../lib/protocol/messages';
import { IMPORT_BATCH } from '../lib/store/transfer';
import { IMPORT_MESSAGE_LINES } from '../lib/ui/writer-client';

describe('parseWriterRequest', () => {
  it.each([
    { type: 'import/start', now: 1_700_000_000_000 },
    { type: 'import/lines', first: 1, lines: ['{"format":"doppel"}', '', 'x'] },
    { type: 'import/lines', first: 2001, lines: [] },
    { type: 'import/end' },
    { type: 'pages/forget', urls: ['https://a.example/p', 'http://127.0.0.1:8080/q'] },
    { type: 'store/organise' },
    { type: 'data/clear' },
    { type: 'ping' },
  ])('accepts $type', (request) => {
    expect(parseWriterRequest(request)).toEqual(request);
  });

  it('drops fields it does not know', () => {
    expect(parseWriterRequest({ type: 'import/end', extra: 'x' })).toEqual({ type: 'import/end' });
  });

  const long = 'x'.repeat(WRITER_LIMITS.lineChars + 1);
  it.each<[string, unknown, string]>([
    ['null', null, 'the writer request must be an object'],
    ['a list', [], 'the writer request must be an object'],
    ['no type', {}, 'type must be one of import/start, import/lines, import/end, pages/forget, store/organise, data/clear, ping: got nothing'],
    ['an unknown type', { type: 'db/drop' }, 'type must be one of import/start, import/lines, import/end, pages/forget, store/organise, data/clear, ping: got "db/drop"'],
    ['a numeric type', { type: 7 }, 'got 7'],
    ['a start without a time', { type: 'import/start' }, 'now must be a time in milliseconds'],
    ['a start at a negative time', { type: 'import/start', now: -1 }, 'now must be a time in milliseconds'],
    ['a start at NaN', { type: 'import/start', now: Number.NaN }, 'now must be a time in milliseconds'],
    ['lines without lines', { type: 'import/lines', first: 1 }, 'lines must be a list'],
    ['lines as a string', { type: 'import/lines', first: 1, lines: 'a\nb' }, 'lines must be a list'],
    ['a line that is a number', { type: 'import/lines', first: 1, lines: ['a', 2] }, 'lines[1] must be a string'],
    ['too many lines', { type: 'import/lines', first: 1, lines: new Array(WRITER_LIMITS.linesPerMessage + 1).fill('') }, `lines has too many items: ${WRITER_LIMITS.linesPerMessage + 1} (at most ${WRITER_LIMITS.linesPerMessage})`],
    ['a line too long', { type: 'import/lines', first: 1, lines: [long] }, `lines[0] is too long: ${long.length} characters`],
    ['lines too long together', { type: 'import/lines', first: 1, lines: [long.slice(2), long.slice(2)] }, 'lines are too long together'],
    ['line 0', { type: 'import/lines', first: 0, lines: [] }, 'first must be a line number, 1 or more'],
    ['a fractional line', { type: 'import/lines', first: 1.5, lines: [] }, 'first must be a whole number, 0 or more'],
    ['urls that are not a list', { type: 'pages/forget', urls: 'https://a.example/' }, 'urls must be a list'],
    ['a url too long', { type: 'pages/forget', urls: ['https://a.example/' + 'x'.repeat(LIMITS.urlChars)] }, 'urls[0] is too long'],
  ])('refuses %s', (_, request, reason) => {
    expect(() => parseWriterRequest(request)).toThrow(InvalidMessage);
    expect(() => parseWriterRequest(request)).toThrow(reason);
  });
});

describe('parseWriterEvent', () => {
  it.each([
    { type: 'waiting' },
    { type: 'pong' },
    { type: 'import/saved', through: 2000, added: 1990, merged: 3, unchanged: 4, rejected: [{ line: 17, problems: [{ code: 'not-json' }] }] },
    { type: 'import/saved', through: 9, added: 0, merged: 0, unchanged: 0, rejected: [{ line: 3, problems: [{ code: 'too-long', field: 'url', max: 8192 }, { code: 'not-date', field: 'lastSeen' }, { code: 'dates-order' }] }] },
    { type: 'import/saved', through: 0, added: 0, merged: 0, unchanged: 0, rejected: [] },
    { type: 'organise/progress', phase: 'comparing', done: 5, total: 10 },
    { type: 'organise/progress', phase: 'rewrites', done: 0, total: 4 },
    { type: 'organise/progress', phase: 'copies', done: 3, total: 4 },
    { type: 'done' },
    { type: 'done', forgotten: 3 },
    { type: 'failed', failure: 'refused', error: 'Cannot import line 1: not a Doppel export. Nothing was imported.' },
    { type: 'failed', failure: 'refused', error: 'x', refusal: { code: 'not-export' } },
    { type: 'failed', failure: 'refused', error: 'x', refusal: { code: 'newer-version', version: 2, newest: 1 } },
    { type: 'failed', failure: 'interrupted', error: 'The import stopped after line 137' },
  ])('accepts $type', (event) => {
    expect(parseWriterEvent(event)).toEqual(event);
  });

  const saved = { type: 'import/saved', through: 1, added: 0, merged: 0, unchanged: 0, rejected: [] };
  it.each<[string, unknown, string]>([
    ['a string', 'done', 'the writer event must be an object'],
    ['an unknown type', { type: 'import/lines' }, 'type must be one of waiting, import/saved, organise/progress, done, failed, pong: got "import/lines"'],
    ['saved without counts', { type: 'import/saved', through: 1, rejected: [] }, 'added must be a whole number, 0 or more'],
    ['a negative count', { ...saved, merged: -1 }, 'merged must be a whole number, 0 or more'],
    ['a count that is a string', { ...saved, unchanged: '3' }, 'unchanged must be a whole number, 0 or more'],
    ['rejections that are not a list', { ...saved, rejected: {} }, 'rejected must be a list'],
    ['a rejection without its problems', { ...saved, rejected: [{ line: 3 }] }, 'problems must be a list'],
    ['a rejection at line 0', { ...saved, rejected: [{ line: 0, problems: [] }] }, 'line must be a line number, 1 or more'],
    ['a problem with an unknown code', { ...saved, rejected: [{ line: 2, problems: [{ code: 'bored' }] }] }, 'code must be one of not-json, not-object, second-header, missing,'],
    ['a problem with an unknown field', { ...saved, rejected: [{ line: 2, problems: [{ code: 'missing', field: '<b>x</b>' }] }] }, 'field must be one of url, title, simhash,'],
    ['a too-long problem without its limit', { ...saved, rejected: [{ line: 2, problems: [{ code: 'too-long', field: 'url' }] }] }, 'max must be a whole number, 0 or more'],
    ['a rejection with too many problems', { ...saved, rejected: [{ line: 2, problems: Array.from({ length: 14 }, () => ({ code: 'not-json' })) }] }, 'problems has too many items: 14 (at most 13)'],
    ['an unknown phase', { type: 'organise/progress', phase: 'sleeping', done: 0, total: 0 }, 'phase must be one of design, reading, comparing, rewrites, writing, passages, copies: got "sleeping"'],
    ['a forgotten count that is not a number', { type: 'done', forgotten: 'all' }, 'forgotten must be a whole number, 0 or more'],
    ['an unknown failure', { type: 'failed', failure: 'oops', error: 'x' }, 'failure must be one of refused, interrupted, grouping, failed: got "oops"'],
    ['a failure without its error', { type: 'failed', failure: 'failed' }, 'error must be a string'],
    ['an unknown refusal', { type: 'failed', failure: 'refused', error: 'x', refusal: { code: 'bored' } }, 'code must be one of not-export, bad-version, newer-version, empty: got "bored"'],
    ['a newer version without its number', { type: 'failed', failure: 'refused', error: 'x', refusal: { code: 'newer-version', newest: 1 } }, 'version must be a whole number, 0 or more'],
  ])('refuses %s', (_, event, reason) => {
    expect(() => parseWriterEvent(event)).toThrow(InvalidMessage);
    expect(() => parseWriterEvent(event)).toThrow(reason);
  });
});

it('the import window holds more than one batch of importLines, and a message is one batch', () => {
  // the worker commits every IMPORT_BATCH lines: with fewer lines in flight it would wait for lines the page holds back
  expect(IMPORT_WINDOW_LINES).toBeGreaterThan(IMPORT_BATCH);
  expect(IMPORT_MESSAGE_LINES).toBe(IMPORT_BATCH);
  expect(IMPORT_MESSAGE_LINES).toBeLessThanOrEqual(WRITER_LIMITS.linesPerMessage);
});
