// Where the background has a page's HTML read (`page/html`, lib/html-reader.ts): in its own
// document where it has a DOMParser (Firefox's background page), else in Chromium's offscreen
// document (entrypoints/reader/), opened when a page first needs it (lib/reader-client.ts).
import { browser } from 'wxt/browser';
import { readHtml } from '@/lib/html-reader';
import { readerClient } from '@/lib/reader-client';

const READER_PATH = '/reader.html';

export function htmlReader(): (html: string, url: string) => Promise<unknown> {
  if (typeof DOMParser === 'function') {
    const parser = new DOMParser();
    return async (html, url) => readHtml(html, url, (text) => parser.parseFromString(text, 'text/html'));
  }
  const documentUrl = browser.runtime.getURL(READER_PATH);
  return readerClient({
    exists: async () => (await browser.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT' as never], documentUrls: [documentUrl] })).length > 0,
    create: () =>
      browser.offscreen.createDocument({
        url: READER_PATH,
        reasons: ['DOM_PARSER' as never],
        justification: "Reads the article of a visited page from its HTML with Readability, off the page's main thread.",
      }),
    send: (request) => browser.runtime.sendMessage(request),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
}
