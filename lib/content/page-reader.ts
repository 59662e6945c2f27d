// The content script's work, without `browser.*` and without Readability: capture a page into the
// message the background expects. Kept here so that it is tested like the rest of lib/.
//
// Readability does not run on the page. Its cold start cost every page 10–20 ms of its main thread
// (`npm run bench:content-split`), so the content script sends the page's HTML (`page/html`), and
// an extension document (lib/background/html-reader.ts: Chromium's offscreen document, Firefox's background
// page) parses it and reads it with Readability, warm, off the page's thread.
import { type Extraction, type ExtractOptions, emptyPage, pastCap, pastCapsReading, withDefaults } from '../text/reading';
import { metadataProvenance } from '../text/provenance';
import { LIMITS, type Message, type PageExtracted, type Settings } from '../protocol/messages';
import { isRecordableUrl, siteOf } from '../url';

// The caps keep Readability's work bounded in the extension document, and the page's own work
// (serialising its HTML, the message) small. A page past any of them is not given to Readability:
// it gets the simple reading (lib/text/reading.ts simpleText), the rendered text of its main element,
// which the browser produces natively, on the page, in a few milliseconds even for 200,000
// elements.

/** Readability is not given pages with more elements than this. */
export const MAX_ELEMS_TO_PARSE = 20_000;

/**
 * …nor pages whose readabilityWork (elements + characters / 25) is past this. It was 20,000 while
 * Readability ran on the page's thread; in the reader document it may take longer, and at 20,000
 * seven of the 130 corpus pages (their body text swollen by inline scripts: work 21,500 to 46,600
 * in Chromium) got the simple reading while their copies got Readability, so that five originals'
 * fingerprints differed from their copies' (`npm run bench:browser-quality`).
 */
export const MAX_READABILITY_WORK = 60_000;

/** …nor pages nested deeper than this (Readability's time grows faster than the square of the depth). */
export const MAX_DEPTH = 200;

/**
 * The text sent is cut to this many characters (about 80,000 words: plenty for a fingerprint),
 * which also bounds the tidying and the message on the page's thread.
 */
export const MAX_TEXT_CHARS = 500_000;

/**
 * …nor pages whose HTML is longer than this many characters (inline scripts, styles and images
 * make it so within the other caps): serialising and sending it would hold the page's thread.
 */
export const MAX_HTML_CHARS = LIMITS.htmlChars;

export const READER_OPTIONS: ExtractOptions = {
  maxElemsToParse: MAX_ELEMS_TO_PARSE,
  maxReadabilityWork: MAX_READABILITY_WORK,
  maxDepth: MAX_DEPTH,
  maxTextChars: Math.min(MAX_TEXT_CHARS, LIMITS.textChars),
  simpleReadingPastCaps: true,
};

function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + '…';
}

/**
 * Whether the content script should read this page at all under the user's settings: not while
 * paused, not on an excluded site, and not in a private window unless the user allowed recording
 * there (the page's text then never leaves the page; the background refuses such a page anyway).
 */
export function shouldRead(url: string, settings: Settings, incognito = false): boolean {
  if (!isRecordableUrl(url) || settings.paused) return false;
  if (incognito && !settings.recordIncognito) return false;
  return !settings.excludedSites.includes(siteOf(url));
}

/** The `page/extracted` payload of an extraction (the strings clipped to the protocol's limits). */
export function toPayload(url: string, extraction: Extraction): PageExtracted {
  const base = { url: clip(url, LIMITS.urlChars), title: clip(extraction.title, LIMITS.titleChars) };
  if (!extraction.ok) {
    const counts = extraction.words === undefined ? {} : { words: extraction.words, minWords: extraction.minWords };
    return { ...base, lang: null, siteName: null, outcome: { kind: 'not-article', reason: extraction.reason, message: clip(extraction.message, LIMITS.messageChars), ...counts } };
  }
  return {
    ...base,
    lang: extraction.lang ? clip(extraction.lang, LIMITS.langChars) : null,
    siteName: extraction.siteName ? clip(extraction.siteName, LIMITS.siteNameChars) : null,
    outcome: { kind: 'article', text: extraction.text, truncated: extraction.truncated, ...(extraction.provenance === undefined ? {} : { provenance: extraction.provenance }) },
  };
}

/** The extraction of a document that could not be read at all (an exception), with the reason. */
export function unreadable(error: unknown): Extraction {
  return { ok: false, reason: 'no-article', title: '', message: `The page could not be read: ${clip(error instanceof Error ? error.message : String(error), 300)}` };
}

/**
 * What the content script sends for a page: its HTML (`page/html`), for Readability in the
 * extension document; or, for a page past a cap, its simple reading (`page/extracted`), taken here
 * because it needs the page's layout; with the capture's id, if given (lib/protocol/captures.ts).
 * Never throws.
 */
export function capturePage(doc: Document, url: string, { options = READER_OPTIONS, now = Date.now(), capture }: { options?: ExtractOptions; now?: number; capture?: string } = {}): Message<'page/html'> | Message<'page/extracted'> {
  const named = capture === undefined ? {} : { capture };
  const extracted = (extraction: Extraction): Message<'page/extracted'> => ({ type: 'page/extracted', payload: { ...toPayload(url, extraction), ...named } });
  // the simple reading has no article to find a credit line in: the page's metadata alone
  const withMetadata = (extraction: Extraction): Extraction => (extraction.ok ? { ...extraction, provenance: metadataProvenance(doc, url, now) } : extraction);
  try {
    if (!doc.documentElement) return extracted(emptyPage());
    const past = pastCapsReading(doc, options);
    if (past !== null) return extracted(withMetadata(past));
    const html = doc.documentElement.outerHTML;
    if (html.length > MAX_HTML_CHARS) {
      return extracted(withMetadata(pastCap(doc, withDefaults(options), `The page's HTML is longer than ${MAX_HTML_CHARS} characters, too long to read in full.`)));
    }
    return { type: 'page/html', payload: { url: clip(url, LIMITS.urlChars), html, ...named } };
  } catch (error) {
    return extracted(unreadable(error));
  }
}
