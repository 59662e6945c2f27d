// Where the background has a page's HTML read (`page/html`, lib/background/html-reader.ts): in its own
// document in Firefox, whose background is a page with a DOMParser, else in Chromium's offscreen
// document (entrypoints/reader/), opened when a page first needs it (lib/background/reader-client.ts). The
// choice is made at build time, so that Chromium's worker does not carry Readability (about 40 kB
// of its script, parsed at every start) that only the offscreen document runs.
import { browser } from 'wxt/browser';
import { READER_TARGET } from '@/lib/protocol/messages';
import { portRequest, readerClient } from '@/lib/background/reader-client';

const READER_PATH = '/reader.html';

export function htmlReader(): (html: string, url: string) => Promise<unknown> {
  if (import.meta.env.FIREFOX) {
    // a dynamic import, which the Chromium build drops with this branch (a static one would keep
    // Readability, whose CommonJS module the bundler must assume has side effects)
    const reader = import('@/lib/background/html-reader');
    const parser = new DOMParser();
    return async (html, url) => (await reader).readHtml(html, url, (text) => parser.parseFromString(text, 'text/html'));
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
    send: (request) => portRequest(() => browser.runtime.connect({ name: READER_TARGET }), request, () => browser.runtime.lastError?.message),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
}
