// The background's side of the reader document (Chromium's offscreen document, entrypoints/reader/):
// open it when a page needs it, and send it the page's HTML. Pure: the browser calls come in as a
// `ReaderDocument`, so the opening races can be tested without a browser.
import { READER_TARGET, type ReaderRequest, parseReaderReply } from '../protocol/messages';

export interface ReaderDocument {
  /** Whether the document exists. Chromium says yes as soon as it is created, before its script listens. */
  exists(): Promise<boolean>;
  /** Creates the document; resolves once it has loaded. Chromium refuses a second one. */
  create(): Promise<void>;
  /** Sends the request (portRequest, over a port of its own): resolves with the reply. */
  send(request: ReaderRequest): Promise<unknown>;
  sleep(ms: number): Promise<void>;
}

/** What a send says when no page listens (the document is loading, or closed itself since the check). */
const NOT_LISTENING = /Receiving end does not exist|message port closed/i;
/** What createDocument says when a document exists already (another context made it meanwhile). */
const ALREADY_OPEN = /single offscreen document/i;
/**
 * Waits between tries while the document does not listen: a document that an earlier worker left
 * loading takes up to a few hundred ms on a busy machine (measured: 56–121 ms idle).
 */
export const RETRY_DELAYS_MS = [0, 50, 150, 400, 1000] as const;

/** A function that reads a page's HTML in the reader document and returns its unvalidated reading. */
export function readerClient(doc: ReaderDocument): (html: string, url: string) => Promise<unknown> {
  // Every read waits on the one opening in progress, even one that checked before it began: a read
  // that saw the document exist while it was still loading would be refused (see NOT_LISTENING).
  let opening: Promise<void> | null = null;
  const openOnce = async (): Promise<void> => {
    if (await doc.exists()) return;
    try {
      await doc.create();
    } catch (error) {
      if (!ALREADY_OPEN.test(String(error))) throw error;
    }
  };
  const open = (): Promise<void> => (opening ??= openOnce().finally(() => (opening = null)));

  return async (html, url) => {
    const request: ReaderRequest = { target: READER_TARGET, url, html };
    for (let attempt = 0; ; attempt++) {
      await open();
      let raw: unknown;
      try {
        raw = await doc.send(request);
      } catch (error) {
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined || !NOT_LISTENING.test(String(error))) throw error;
        await doc.sleep(delay);
        continue;
      }
      const reply = parseReaderReply(raw);
      if (!reply.ok) throw new Error(reply.error);
      return reply.value;
    }
  };
}

/** What portRequest needs of a runtime.Port. */
export interface ReaderPort {
  postMessage(message: unknown): void;
  disconnect(): void;
  onMessage: { addListener(listener: (message: unknown) => void): void };
  onDisconnect: { addListener(listener: () => void): void };
}

/**
 * Sends one request to the reader document over a port of its own (runtime.connect, named
 * READER_TARGET) and resolves with its reply. A port, not runtime.sendMessage: sendMessage reaches
 * every extension page with an onMessage listener, so a reader document listening there would
 * receive a copy of every content script's `page/html` (its whole HTML) and every popup's message,
 * only to ignore them; with a port it listens to onConnect alone, which no broadcast reaches.
 * A port that closes before the reply (no document listens yet, or it closed itself) rejects with
 * Chromium's runtime.lastError, or with "message port closed": both are NOT_LISTENING, so
 * readerClient tries again.
 */
export function portRequest(connect: () => ReaderPort, request: ReaderRequest, lastError: () => string | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const port = connect();
    let answered = false;
    port.onMessage.addListener((reply) => {
      if (answered) return;
      answered = true;
      resolve(reply);
      port.disconnect();
    });
    port.onDisconnect.addListener(() => {
      if (answered) return;
      answered = true;
      reject(new Error(lastError() ?? 'The message port closed before the reader document replied.'));
    });
    port.postMessage(request);
  });
}
