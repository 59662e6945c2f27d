// The one client of the message protocol, for the popup and the history page: it sends a message to
// the worker and validates the reply (lib/protocol/replies.ts) before handing on its value; a
// refusal or failure the worker reports becomes an Error with its words.
import type { Message, MessageType, ReplyFailure, ReplyValue, Request } from './messages';
import { parseReply } from './replies';

export interface SendOptions {
  /** runtime.sendMessage. */
  sendMessage(message: Message): Promise<unknown>;
  /** The error when no reply came, in the page's language. */
  noAnswer(): string;
  /**
   * Requests that change nothing, and so are sent once more when the first was lost: the worker
   * stopped while it handled it ("message channel closed", "Receiving end does not exist") or it
   * answered nothing. The next message starts the worker again.
   */
  retry?: ReadonlySet<MessageType>;
}

/** The worker answered that it could not do what was asked: its words, and what kind of failure a page words itself. */
export class WorkerFailed extends Error {
  override name = 'WorkerFailed';
  constructor(
    message: string,
    readonly failure: ReplyFailure | null,
  ) {
    super(message);
  }
}

export type Send = <T extends MessageType>(type: T, payload: Request<T>) => Promise<ReplyValue<T>>;

export function createSend({ sendMessage, noAnswer, retry = new Set() }: SendOptions): Send {
  return async <T extends MessageType>(type: T, payload: Request<T>): Promise<ReplyValue<T>> => {
    let raw: unknown;
    for (let attempt = 0; ; attempt++) {
      const again = attempt === 0 && retry.has(type);
      try {
        raw = await sendMessage({ type, payload } as Message);
      } catch (error) {
        if (again) continue;
        throw error;
      }
      if (raw !== undefined || !again) break;
    }
    if (raw === undefined || raw === null) throw new Error(noAnswer());
    const reply = parseReply(type, raw);
    if (!reply.ok) throw new WorkerFailed(reply.error, reply.failure ?? null);
    return reply.value;
  };
}
