// Delivering a capture of the page (lib/protocol/captures.ts) to the worker: sent again until the
// worker acknowledges it. The worker answers a page's message only once it has stored the visit,
// or decided not to (paused, an excluded site, not an article, storage full): an `{ok: true}`
// reply. When the worker is stopped while it reads or stores the page (a crash, an update, Chrome
// stopping it), the message fails with "the message port closed"; when it is busy for minutes, it
// answers `{ok: false}` by its deadline (lib/background/deadline.ts) and records the page later.
// Either way the capture goes again, after a wait that doubles each time, at most
// RESEND_DELAYS_MS.length times; the worker stores it once however many copies arrive.
import type { PageRecorded } from '../protocol/messages';

/** The waits before the second to the sixth send; then the capture is given up. */
export const RESEND_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000] as const;
/**
 * How long one send waits for a reply before it counts as unanswered: longer than the worker takes
 * to answer by its own deadline (lib/background/deadline.ts PAGE_REPLY_DEADLINE_MS, 4 minutes; a
 * test holds the two apart), so that only a message lost on the way times out.
 */
export const ANSWER_TIMEOUT_MS = 5 * 60_000;

/** How a delivery ended. */
export type Delivery =
  /** The worker stored the visit, or decided not to: `reply.state` says which. */
  | { state: 'acknowledged'; sends: number; reply: PageRecorded }
  /** No send was acknowledged: the page is not recorded until it is read again. `error` is the last send's. */
  | { state: 'unacknowledged'; sends: number; error: string }
  /** The extension was reloaded, updated or removed meanwhile: no worker of this content script will answer. */
  | { state: 'abandoned'; sends: number };

export interface DeliveryDeps {
  /** runtime.sendMessage. */
  send(message: unknown): Promise<unknown>;
  sleep(ms: number): Promise<void>;
  /** Whether this content script's extension context is gone. */
  invalid(): boolean;
}

const UNANSWERED = Symbol('unanswered');

/** The page's reply, if `reply` is an acknowledgement (`{ok: true, value: {state, …}}`); else why not. */
function acknowledgement(reply: unknown): PageRecorded | string {
  if (typeof reply !== 'object' || reply === null) return 'the worker gave no reply';
  const { ok, value, error } = reply as { ok?: unknown; value?: unknown; error?: unknown };
  if (ok !== true) return typeof error === 'string' ? error : 'the worker replied without an acknowledgement';
  const state = (value as { state?: unknown } | null)?.state;
  return typeof state === 'string' ? (value as PageRecorded) : 'the worker replied without the page\'s state';
}

/** Sends `message` until it is acknowledged, given up or abandoned (never throws). */
export async function deliver(message: unknown, deps: DeliveryDeps, { delays = RESEND_DELAYS_MS, timeoutMs = ANSWER_TIMEOUT_MS }: { delays?: readonly number[]; timeoutMs?: number } = {}): Promise<Delivery> {
  let error = '';
  for (let sends = 1; ; sends++) {
    if (deps.invalid()) return { state: 'abandoned', sends: sends - 1 };
    try {
      const reply = await Promise.race([deps.send(message), deps.sleep(timeoutMs).then(() => UNANSWERED)]);
      const ack = reply === UNANSWERED ? `no reply within ${timeoutMs / 1000} s` : acknowledgement(reply);
      if (typeof ack !== 'string') return { state: 'acknowledged', sends, reply: ack };
      error = ack;
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
    const delay = delays[sends - 1];
    if (delay === undefined) return deps.invalid() ? { state: 'abandoned', sends } : { state: 'unacknowledged', sends, error };
    await deps.sleep(delay);
  }
}
