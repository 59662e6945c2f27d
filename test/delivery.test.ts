// A page's capture, delivered until the worker acknowledges it: the capture ids and what the worker
// remembers of them (lib/protocol/captures.ts), and the content script's sends (lib/content/delivery.ts).
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../lib/random';
import { CAPTURES_KEPT, CAPTURE_KEPT_MS, captureId, hasCapture, newCaptureId, parseCaptures, withCapture } from '../lib/protocol/captures';
import { ANSWER_TIMEOUT_MS, type DeliveryDeps, RESEND_DELAYS_MS, deliver } from '../lib/content/delivery';
import { PAGE_REPLY_DEADLINE_MS } from '../lib/background/deadline';
import { InvalidMessage, parseMessage } from '../lib/protocol/messages';

describe('capture ids', () => {
  it('are 16 hex digits of the random bytes, in order', () => {
    expect(newCaptureId((bytes) => bytes.set([0, 1, 0x0f, 0x10, 0x7f, 0x80, 0xfe, 0xff]))).toBe('00010f107f80feff');
    const random = mulberry32(7);
    const ids = Array.from({ length: 1000 }, () => newCaptureId((bytes) => bytes.forEach((_, i) => (bytes[i] = Math.floor(random() * 256)))));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(captureId({ capture: id }, 'capture')).toBe(id);
  });

  it.each([
    ['absent', undefined, undefined],
    ['16 lowercase hex digits', '0123456789abcdef', '0123456789abcdef'],
    ['upper case', '0123456789ABCDEF', InvalidMessage],
    ['15 digits', '0123456789abcde', InvalidMessage],
    ['17 digits', '0123456789abcdef0', InvalidMessage],
    ['not hex', '0123456789abcdeg', InvalidMessage],
    ['a number', 12345, InvalidMessage],
    ['null', null, InvalidMessage],
  ])('a page report whose capture is %s', (_, capture, expected) => {
    const payload = { url: 'https://a.example/x', html: '<p>x</p>', ...(capture === undefined ? {} : { capture }) };
    for (const type of ['page/html', 'page/extracted'] as const) {
      const message = type === 'page/html' ? { type, payload } : { type, payload: { url: payload.url, ...(capture === undefined ? {} : { capture }), title: '', lang: null, siteName: null, outcome: { kind: 'not-article', reason: 'no-article', message: 'm' } } };
      if (expected === InvalidMessage) expect(() => parseMessage(message)).toThrow('capture must be 16 lowercase hex digits');
      else expect((parseMessage(message).payload as { capture?: string }).capture).toBe(expected);
    }
  });
});

describe('the stored captures', () => {
  const id = (n: number): string => n.toString(16).padStart(16, '0');

  it('keep every id stored within the hour, oldest first', () => {
    let stored = parseCaptures(undefined);
    for (let n = 0; n < 5; n++) stored = withCapture(stored, id(n), 1_000 * n);
    expect(stored).toEqual({ ids: [0, 1, 2, 3, 4].map(id), at: [0, 1_000, 2_000, 3_000, 4_000] });
    expect([0, 4, 5].map((n) => hasCapture(stored, id(n)))).toEqual([true, true, false]);
  });

  it('forget an id an hour after it was stored, and none sooner', () => {
    const stored = withCapture(withCapture(parseCaptures(undefined), id(1), 0), id(2), 1);
    expect(withCapture(stored, id(3), CAPTURE_KEPT_MS).ids).toEqual([1, 2, 3].map(id));
    expect(withCapture(stored, id(3), CAPTURE_KEPT_MS + 1).ids).toEqual([2, 3].map(id));
    expect(withCapture(stored, id(3), CAPTURE_KEPT_MS + 2).ids).toEqual([3].map(id));
  });

  it(`keep at most ${CAPTURES_KEPT}, dropping the oldest`, () => {
    let stored = parseCaptures(undefined);
    for (let n = 0; n < CAPTURES_KEPT + 3; n++) stored = withCapture(stored, id(n), 0);
    expect(stored.ids.length).toBe(CAPTURES_KEPT);
    expect(stored.ids[0]).toBe(id(3));
    expect(stored.ids.at(-1)).toBe(id(CAPTURES_KEPT + 2));
  });

  it.each([
    ['nothing', undefined],
    ['a list', ['0000000000000001']],
    ['ids and times of different lengths', { ids: ['0000000000000001'], at: [] }],
    ['an id that is not a string', { ids: [1], at: [0] }],
    ['a time that is not a number', { ids: ['0000000000000001'], at: ['0'] }],
  ])('read as none from %s', (_, value) => {
    expect(parseCaptures(value)).toEqual({ ids: [], at: [] });
  });
});

/** A content script's sends against scripted replies: each send takes the next one (a function is called; 'hang' never settles). */
function scripted(replies: (unknown | (() => never) | 'hang')[], { invalidAfter = Infinity }: { invalidAfter?: number } = {}) {
  const sent: unknown[] = [];
  const slept: number[] = [];
  const deps: DeliveryDeps = {
    send: async (message) => {
      sent.push(message);
      const reply = replies[sent.length - 1];
      if (reply === 'hang') return new Promise(() => {});
      return typeof reply === 'function' ? (reply as () => never)() : reply;
    },
    // a send's timeout sleeps too: resolve it only when this send hangs
    sleep: (ms) => {
      if (ms === 300) return replies[sent.length - 1] === 'hang' ? Promise.resolve() : new Promise(() => {});
      slept.push(ms);
      return Promise.resolve();
    },
    invalid: () => sent.length >= invalidAfter,
  };
  return { deps, sent, slept };
}

const STORED = { ok: true, value: { state: 'recorded', matches: 2, passages: 1, rewrites: 0 } };
const closed = (): never => {
  throw new Error('The message port closed before a response was received.');
};

describe('deliver', () => {
  it('waits longer for a reply than the worker takes to answer a page by its deadline', () => {
    expect(ANSWER_TIMEOUT_MS).toBeGreaterThan(PAGE_REPLY_DEADLINE_MS);
    expect(RESEND_DELAYS_MS).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
  });

  it.each([
    ['acknowledged at once', [STORED], { state: 'acknowledged', sends: 1, reply: STORED.value }, []],
    ['a decision not to store it is an acknowledgement', [{ ok: true, value: { state: 'paused', matches: 0, passages: 0, rewrites: 0 } }], { state: 'acknowledged', sends: 1, reply: { state: 'paused', matches: 0, passages: 0, rewrites: 0 } }, []],
    ['the worker stopped twice, then stored it', [closed, closed, STORED], { state: 'acknowledged', sends: 3, reply: STORED.value }, [1_000, 2_000]],
    ['answered "recorded later" by the deadline, then stored', [{ ok: false, error: 'later' }, STORED], { state: 'acknowledged', sends: 2, reply: STORED.value }, [1_000]],
    ['unanswered, then stored', ['hang', STORED], { state: 'acknowledged', sends: 2, reply: STORED.value }, [1_000]],
    ['no reply, a reply without a state, then stored', [undefined, { ok: true, value: {} }, STORED], { state: 'acknowledged', sends: 3, reply: STORED.value }, [1_000, 2_000]],
    ['never acknowledged', [closed, closed, closed, closed, closed, { ok: false, error: 'storage unavailable' }], { state: 'unacknowledged', sends: 6, error: 'storage unavailable' }, [1_000, 2_000, 4_000, 8_000, 16_000]],
    ['never answered', ['hang', 'hang', 'hang', 'hang', 'hang', 'hang'], { state: 'unacknowledged', sends: 6, error: 'no reply within 0.3 s' }, [1_000, 2_000, 4_000, 8_000, 16_000]],
  ])('%s', async (_, replies, end, waits) => {
    const { deps, sent, slept } = scripted(replies);
    expect(await deliver({ type: 'page/html' }, deps, { timeoutMs: 300 })).toEqual(end);
    expect(sent).toEqual(Array(end.sends).fill({ type: 'page/html' }));
    expect(slept).toEqual(waits);
  });

  it('stops sending once the extension is gone', async () => {
    const { deps, sent, slept } = scripted([closed, closed, closed], { invalidAfter: 2 });
    expect(await deliver({}, deps, { timeoutMs: 300 })).toEqual({ state: 'abandoned', sends: 2 });
    expect([sent.length, slept]).toEqual([2, [1_000, 2_000]]);
  });
});
