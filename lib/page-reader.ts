// The content script's work, without `browser.*`: read a document into the message the
// background expects. Kept here so that it is tested like the rest of lib/.
import { type ExtractOptions, extractArticle } from './extract';
import { LIMITS, type PageExtracted, type Settings } from './messages';
import { isRecordableUrl, siteOf } from './url';

// The caps keep every task of the content script well under 200 ms on the page's main thread
// (measured in `npm run bench:browser`). A page past any of them is not given to Readability: it
// gets the simple reading (lib/extract.ts simpleText), the rendered text of its main element,
// which the browser produces natively in a few milliseconds even for 200,000 elements.

/** Readability is not given pages with more elements than this. */
export const MAX_ELEMS_TO_PARSE = 20_000;

/** …nor pages whose readabilityWork (elements + characters / 25) is past this. */
export const MAX_READABILITY_WORK = 20_000;

/** …nor pages nested deeper than this (Readability's time grows faster than the square of the depth). */
export const MAX_DEPTH = 200;

/**
 * The text sent is cut to this many characters (about 80,000 words: plenty for a fingerprint),
 * which also bounds the tidying and the message on the page's thread.
 */
export const MAX_TEXT_CHARS = 500_000;

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

/** Reads a document into the `page/extracted` payload. Never throws. */
export function readPage(doc: Document, url: string, options: ExtractOptions = READER_OPTIONS): PageExtracted {
  let extraction;
  try {
    extraction = extractArticle(doc, options);
  } catch (error) {
    extraction = {
      ok: false as const,
      reason: 'no-article' as const,
      title: '',
      message: `The page could not be read: ${clip(error instanceof Error ? error.message : String(error), 300)}`,
    };
  }
  const base = { url: clip(url, LIMITS.urlChars), title: clip(extraction.title, LIMITS.titleChars) };
  if (!extraction.ok) {
    return { ...base, lang: null, siteName: null, outcome: { kind: 'not-article', reason: extraction.reason, message: clip(extraction.message, LIMITS.messageChars) } };
  }
  return {
    ...base,
    lang: extraction.lang ? clip(extraction.lang, LIMITS.langChars) : null,
    siteName: extraction.siteName ? clip(extraction.siteName, LIMITS.siteNameChars) : null,
    outcome: { kind: 'article', text: extraction.text, truncated: extraction.truncated },
  };
}
