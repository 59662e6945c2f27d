// The extension document's work: a page's HTML, sent by the content script (`page/html`), read
// into the `page/extracted` payload with Readability. It runs in Chromium's offscreen document
// (entrypoints/reader/) and in Firefox's background page, which have a DOMParser; the service
// worker has none. Kept free of `browser.*` so that it is tested like the rest of lib/.
//
// A document parsed in an extension page is under the extension's CSP (style-src 'self'): Chromium
// refuses its inline styles, each refusal a CSP violation, and then an element's `style.display`
// is "" even where its style attribute says `display: none`. Readability tells hidden elements by
// exactly that, so the page's hidden text would be read as if it were shown. So the HTML is parsed
// without its <style> elements (Readability drops them anyway) and with its style attributes
// renamed, and the declarations are put back through the CSSOM, which the CSP does not govern.
import { extractArticle } from '../text/extract';
import type { PageExtracted } from '../protocol/messages';
import type { ExtractOptions } from '../text/reading';
import { READER_OPTIONS, toPayload, unreadable } from '../content/page-reader';

/** Reads a document into the `page/extracted` payload, with what the page says of where it comes from as of `now`. Never throws. */
export function readPage(doc: Document, url: string, options: ExtractOptions = READER_OPTIONS, now = Date.now()): PageExtracted {
  let extraction;
  try {
    extraction = extractArticle(doc, options, { url, now });
  } catch (error) {
    extraction = unreadable(error);
  }
  return toPayload(url, extraction);
}

/** The attribute a page's style attributes are renamed to before parsing. */
export const KEPT_STYLE_ATTRIBUTE = 'data-doppel-style';

/**
 * The HTML with its <style> elements removed and its style attributes renamed to
 * KEPT_STYLE_ATTRIBUTE. The HTML is a serialisation (outerHTML): attribute values are in double
 * quotes with `"` escaped, and a `<` in text is `&lt;`, so a tag is `<name …>` with no unquoted `>`,
 * and `<style` starts an element (or lies in a script's or style's raw text, removed either way).
 */
export function withoutInlineStyles(html: string): string {
  return html
    .replace(/<style\b[^>]*>[\s\S]*?<\/style\s*>/gi, '')
    .replace(/<[a-zA-Z][^\s>]*(?:[^>"]|"[^"]*")*>/g, (tag) => (/\sstyle\s*=/i.test(tag) ? tag.replace(/(\s)style(\s*=)/gi, `$1${KEPT_STYLE_ATTRIBUTE}$2`) : tag));
}

/** Gives each element its page's inline style back, through the CSSOM (see withoutInlineStyles). */
export function restoreInlineStyles(doc: Document): void {
  for (const element of doc.querySelectorAll(`[${KEPT_STYLE_ATTRIBUTE}]`)) {
    const style = (element as HTMLElement).style as CSSStyleDeclaration | undefined;
    if (style) style.cssText = element.getAttribute(KEPT_STYLE_ATTRIBUTE) ?? '';
  }
}

/**
 * Parses a page's HTML with `parse` (DOMParser in an extension document, linkedom in Node) and
 * reads it with the content script's caps. The parsed document is Doppel's own copy, so Readability
 * reads it in place (no clone). Never throws.
 */
export function readHtml(html: string, url: string, parse: (html: string) => Document, now = Date.now()): PageExtracted {
  let doc: Document;
  try {
    doc = parse(withoutInlineStyles(html));
    restoreInlineStyles(doc);
  } catch (error) {
    return toPayload(url, unreadable(error));
  }
  return readPage(doc, url, { ...READER_OPTIONS, cloneFirst: false }, now);
}
