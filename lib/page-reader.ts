// The content script's work, without `browser.*`: read a document into the message the
// background expects. Kept here so that it is tested like the rest of lib/.
import { DEFAULT_MAX_DEPTH, type ExtractOptions, extractArticle } from './extract';
import { LIMITS, type PageExtracted, type Settings } from './messages';
import { isRecordableUrl, siteOf } from './url';

/** Readability gives up on pages with more elements than this (the page is "too large"). */
export const MAX_ELEMS_TO_PARSE = 100_000;

/** Pages nested deeper than this are not read ("too large"); see lib/extract.ts. */
export const MAX_DEPTH = DEFAULT_MAX_DEPTH;

export const READER_OPTIONS: ExtractOptions = { maxElemsToParse: MAX_ELEMS_TO_PARSE, maxDepth: MAX_DEPTH, maxTextChars: LIMITS.textChars };

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
