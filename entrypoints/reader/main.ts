// Chromium's offscreen document (reason DOM_PARSER): parses the pages' HTML and reads them with
// Readability (lib/html-reader.ts) for the service worker, which has no DOMParser. It lives on
// between pages, so Readability runs warm, and on the extension's thread, not the page's. It closes
// itself after a while without work; the worker opens it again when a page needs it.
import { browser } from 'wxt/browser';
import { readHtml } from '@/lib/html-reader';
import { type ReaderReply, parseReaderRequest } from '@/lib/messages';

/** Closes the document after this long without a page to read (it costs memory while open). */
const IDLE_CLOSE_MS = 5 * 60_000;

const parser = new DOMParser();
const parse = (html: string): Document => parser.parseFromString(html, 'text/html');
const own = browser.runtime.getURL('/');
let idleTimer: ReturnType<typeof setTimeout> | undefined;

browser.runtime.onMessage.addListener((message: unknown, sender): Promise<ReaderReply> | undefined => {
  let request;
  try {
    request = parseReaderRequest(message);
  } catch (error) {
    return Promise.resolve({ ok: false, error: `The reader document rejected a malformed request: ${(error as Error).message}` });
  }
  // Every message sent to the extension's pages arrives here too: answer only the worker's requests.
  if (request === null) return undefined;
  if (sender.id !== browser.runtime.id || sender.tab !== undefined || !sender.url?.startsWith(own)) {
    return Promise.resolve({ ok: false, error: 'The reader document reads only for Doppel.' });
  }
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => window.close(), IDLE_CLOSE_MS);
  return Promise.resolve({ ok: true, value: readHtml(request.html, request.url, parse) });
});
