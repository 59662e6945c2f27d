// Where the background has a page's HTML read (`page/html`, lib/html-reader.ts): in its own
// document where it has a DOMParser (Firefox's background page), else in Chromium's offscreen
// document (entrypoints/reader/), opened when a page first needs it.
import { browser } from 'wxt/browser';
import { readHtml } from '@/lib/html-reader';
import { READER_TARGET, type ReaderRequest, parseReaderReply } from '@/lib/messages';

const READER_PATH = '/reader.html';

export function htmlReader(): (html: string, url: string) => Promise<unknown> {
  if (typeof DOMParser === 'function') {
    const parser = new DOMParser();
    return async (html, url) => readHtml(html, url, (text) => parser.parseFromString(text, 'text/html'));
  }
  let opening: Promise<void> | null = null;
  const open = async (): Promise<void> => {
    const documentUrl = browser.runtime.getURL(READER_PATH);
    const existing = await browser.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT' as never], documentUrls: [documentUrl] });
    if (existing.length > 0) return;
    // One creation at a time: Chromium allows a single offscreen document per extension.
    opening ??= browser.offscreen
      .createDocument({
        url: READER_PATH,
        reasons: ['DOM_PARSER' as never],
        justification: "Reads the article of a visited page from its HTML with Readability, off the page's main thread.",
      })
      .finally(() => (opening = null));
    await opening;
  };
  const ask = async (request: ReaderRequest): Promise<unknown> => {
    await open();
    const reply = parseReaderReply(await browser.runtime.sendMessage(request));
    if (!reply.ok) throw new Error(reply.error);
    return reply.value;
  };
  return async (html, url) => {
    const request: ReaderRequest = { target: READER_TARGET, url, html };
    try {
      return await ask(request);
    } catch (error) {
      // The document may have closed itself (idle) between the check and the message: once more.
      if (!/Receiving end does not exist|message port closed/i.test(String(error))) throw error;
      return ask(request);
    }
  };
}
