// lib/protocol/tab-protocol.ts: the popup's messages to a tab's content script, each refusal with its reason.
import { describe, expect, it } from 'vitest';
import { PASSAGE_SLOTS, TAB_MESSAGE_TYPES, highlightName, parsePassageMarks, parseTabMessage } from '../lib/protocol/tab-protocol';
import { InvalidMessage, LIMITS } from '../lib/protocol/validation';

const show = (sets: unknown) => ({ type: 'passages/show', payload: { sets } });
const set = (over: Record<string, unknown> = {}) => ({ id: 'https://earlier.example/story', slot: 0, hashes: [0, 1, 0xffffffff], ends: [{ first: 0, lead: 3, last: 0xffffffff, trail: 0 }], ...over });
const end = (over: Record<string, unknown> = {}) => ({ first: 0, lead: 3, last: 1, trail: 25, ...over });

describe('parseTabMessage', () => {
  it('accepts each message type in its valid shape, and returns it as given', () => {
    const valid: Record<string, unknown> = {
      'passages/show': { sets: [set(), set({ id: 'page 2', slot: PASSAGE_SLOTS - 1, hashes: [] }), set({ id: 'page 3', slot: 0 })] },
      'passages/clear': {},
      'passages/get': {},
    };
    expect(Object.keys(valid).sort()).toEqual([...TAB_MESSAGE_TYPES].sort());
    for (const type of TAB_MESSAGE_TYPES) expect(parseTabMessage({ type, payload: valid[type] })).toEqual({ type, payload: valid[type] });
  });

  it('takes a set without ends as one with none (its marks span the fingerprints)', () => {
    const { ends: _, ...withoutEnds } = set();
    expect(parseTabMessage(show([withoutEnds])).payload).toEqual({ sets: [{ ...withoutEnds, ends: [] }] });
  });

  it('accepts the largest message the limits allow', () => {
    const full = Array.from({ length: LIMITS.passageHashes / LIMITS.passageHashesPerSet }, (_, i) => set({ id: `p${i}`, slot: i % PASSAGE_SLOTS, hashes: new Array(LIMITS.passageHashesPerSet).fill(7) }));
    expect(parseTabMessage(show(full)).payload).toEqual({ sets: full });
    const many = Array.from({ length: LIMITS.passageSets }, (_, i) => set({ id: `p${i}` }));
    expect(parseTabMessage(show(many)).payload).toEqual({ sets: many });
  });

  it.each([
    [null, 'message must be an object'],
    [{ type: 'passages/steal', payload: {} }, 'unknown message type "passages/steal"'],
    [{ type: 'report/get', payload: { url: 'https://a.example/' } }, 'unknown message type "report/get"'],
    [{ payload: {} }, 'unknown message type undefined'],
    [{ type: 'toString', payload: {} }, 'unknown message type "toString"'], // not a key of the validators' prototype
    [{ type: 'passages/clear' }, 'payload must be an object'],
    [{ type: 'passages/get' }, 'payload must be an object'],
    [{ type: 'passages/get', payload: null }, 'payload must be an object'],
    [{ type: 'passages/show', payload: [] }, 'payload must be an object'],
    [{ type: 'passages/show', payload: {} }, 'sets must be a list'],
    [show({ 0: set() }), 'sets must be a list'],
    [show(Array.from({ length: LIMITS.passageSets + 1 }, (_, i) => set({ id: `p${i}` }))), `sets has too many items: ${LIMITS.passageSets + 1} (at most ${LIMITS.passageSets})`],
    [show([set(), 'page 2']), 'sets[1]: a set must be an object'],
    [show([set({ id: 7 })]), 'sets[0]: id must be a string'],
    [show([set({ id: '' })]), 'sets[0]: id must not be empty'],
    [show([set({ id: 'x'.repeat(LIMITS.urlChars + 1) })]), `sets[0]: id is too long: ${LIMITS.urlChars + 1} characters (at most ${LIMITS.urlChars})`],
    [show([set(), set()]), 'the id "https://earlier.example/story" is given to two sets'],
    [show([set({ slot: PASSAGE_SLOTS })]), `sets[0]: slot must be a whole number from 0 to ${PASSAGE_SLOTS - 1}`],
    [show([set({ slot: -1 })]), 'sets[0]: slot must be a whole number from 0 to 5'],
    [show([set({ slot: 1.5 })]), 'sets[0]: slot must be a whole number from 0 to 5'],
    [show([set({ slot: '1' })]), 'sets[0]: slot must be a whole number from 0 to 5'],
    [show([set({ slot: undefined })]), 'sets[0]: slot must be a whole number from 0 to 5'],
    [show([set({ hashes: undefined })]), 'sets[0]: hashes must be a list'],
    [show([set({ ends: {} })]), 'sets[0]: ends must be a list'],
    [show([set({ ends: [end(), 7] })]), 'sets[0]: ends[1]: an end must be an object'],
    [show([set({ ends: [end({ first: -1 })] })]), 'sets[0]: ends[0]: first must be a whole number from 0 to 4294967295'],
    [show([set({ ends: [end({ last: 2 ** 32 })] })]), 'sets[0]: ends[0]: last must be a whole number from 0 to 4294967295'],
    [show([set({ ends: [end({ lead: 1.5 })] })]), `sets[0]: ends[0]: lead must be a whole number from 0 to ${LIMITS.passageEndWords}`],
    [show([set({ ends: [end({ trail: LIMITS.passageEndWords + 1 })] })]), `sets[0]: ends[0]: trail must be a whole number from 0 to ${LIMITS.passageEndWords}`],
    [show([set({ ends: new Array(LIMITS.passageEndsPerSet + 1).fill(end()) })]), `sets[0]: ends has too many items: ${LIMITS.passageEndsPerSet + 1} (at most ${LIMITS.passageEndsPerSet})`],
    [show([set({ hashes: { 0: 1, length: 1 } })]), 'sets[0]: hashes must be a list'],
    [show([set({ hashes: [1, 2, -1] })]), 'sets[0]: hashes[2] must be a whole number from 0 to 4294967295: got -1'],
    [show([set({ hashes: [2 ** 32] })]), 'sets[0]: hashes[0] must be a whole number from 0 to 4294967295: got 4294967296'],
    [show([set({ hashes: [0.5] })]), 'sets[0]: hashes[0] must be a whole number from 0 to 4294967295: got 0.5'],
    [show([set({ hashes: ['12'] })]), 'sets[0]: hashes[0] must be a whole number from 0 to 4294967295: got "12"'],
    [show([set({ hashes: [null] })]), 'sets[0]: hashes[0] must be a whole number from 0 to 4294967295: got null'],
    [show([set(), set({ id: 'b', hashes: new Array(LIMITS.passageHashesPerSet + 1).fill(1) })]), `sets[1]: hashes has too many items: ${LIMITS.passageHashesPerSet + 1} (at most ${LIMITS.passageHashesPerSet})`],
    [
      show(Array.from({ length: 5 }, (_, i) => set({ id: `p${i}`, hashes: new Array(LIMITS.passageHashesPerSet).fill(1) }))),
      `the sets hold too many hashes: ${5 * LIMITS.passageHashesPerSet} (at most ${LIMITS.passageHashes})`,
    ],
  ])('refuses %j', (message, reason) => {
    expect(() => parseTabMessage(message)).toThrow(new InvalidMessage(reason));
  });

  it('names the highlights as the stylesheet does', () => {
    expect(Array.from({ length: PASSAGE_SLOTS }, (_, i) => highlightName(i))).toEqual([
      'doppel-passage-0', 'doppel-passage-1', 'doppel-passage-2', 'doppel-passage-3', 'doppel-passage-4', 'doppel-passage-5',
    ]);
  });
});

describe('parsePassageMarks (the popup reads the answer)', () => {
  it('accepts marks and errors', () => {
    const marks = { ok: true, value: { marked: 3, sets: [{ id: 'a', ranges: 1 }, { id: 'b', ranges: 2 }] } };
    expect(parsePassageMarks(marks)).toEqual(marks);
    expect(parsePassageMarks({ ok: true, value: { marked: 0, sets: [] } })).toEqual({ ok: true, value: { marked: 0, sets: [] } });
    expect(parsePassageMarks({ ok: false, error: 'No highlights here.' })).toEqual({ ok: false, error: 'No highlights here.' });
  });

  it.each([
    [undefined, 'the reply must be an object'],
    [{ ok: 'yes' }, 'the reply must say ok true or false'],
    [{ ok: false }, 'error must be a string'],
    [{ ok: true }, 'value must be an object'],
    [{ ok: true, value: { marked: -1, sets: [] } }, `marked must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`],
    [{ ok: true, value: { marked: 1, sets: [{ id: 'a', ranges: 'one' }] } }, `sets[0]: ranges must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`],
    [{ ok: true, value: { marked: 1, sets: [{ ranges: 1 }] } }, 'sets[0]: id must be a string'],
    [{ ok: true, value: { marked: 2, sets: [{ id: 'a', ranges: 1 }] } }, "marked must be the sum of the sets' ranges: got 2, the sets add up to 1"],
  ])('refuses %j', (reply, reason) => {
    expect(() => parsePassageMarks(reply)).toThrow(new InvalidMessage(reason));
  });
});
