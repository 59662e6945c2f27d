// Chromium's offscreen document (reason DOM_PARSER): parses the pages' HTML and reads them with
// Readability (lib/background/html-reader.ts) for the service worker, which has no DOMParser. It lives on
// between pages, so Readability runs warm, and on the extension's thread, not the page's. It closes
// itself after a while without work; the worker opens it again when a page needs it.
import { type Browser, browser } from 'wxt/browser';
import { readHtml } from '@/lib/background/html-reader';
import { READER_TARGET, type ReaderReply, parseReaderRequest } from '@/lib/protocol/messages';

/** Closes the document after this long without a page to read (it costs memory while open). */
const IDLE_CLOSE_MS = 5 * 60_000;

const parser = new DOMParser();
const parse = (html: string): Document => parser.parseFromString(html, 'text/html');
const own = browser.runtime.getURL('/');
let idleTimer: ReturnType<typeof setTimeout> | undefined;

// The worker sends each page over a port of its own (lib/background/reader-client.ts portRequest): listening
// to onConnect alone, this document receives none of the messages sent to the worker.
browser.runtime.onConnect.addListener((port) => {
  if (port.name !== READER_TARGET) return;
  port.onMessage.addListener((message: unknown) => {
    let reply: ReaderReply;
    try {
      reply = answer(message, port.sender);
    } catch (error) {
      // a reply in every case: the worker waits on this port until it has one
      reply = { ok: false, error: `The reader document could not read the page: ${error instanceof Error ? error.message : String(error)}` };
    }
    port.postMessage(reply);
  });
});

function answer(message: unknown, sender: Browser.runtime.MessageSender | undefined): ReaderReply {
  if (sender?.id !== browser.runtime.id || sender.tab !== undefined || !sender.url?.startsWith(own)) {
    return { ok: false, error: 'The reader document reads only for Doppel.' };
  }
  let request;
  try {
    request = parseReaderRequest(message);
  } catch (error) {
    return { ok: false, error: `The reader document rejected a malformed request: ${(error as Error).message}` };
  }
  if (request === null) return { ok: false, error: 'The reader document received a request without its target.' };
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => window.close(), IDLE_CLOSE_MS);
  return { ok: true, value: readHtml(request.html, request.url, parse) };
}
