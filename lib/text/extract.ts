// Page → readable text, with Mozilla Readability. Runs wherever there is a DOM: the extension
// document that reads the pages' HTML (lib/background/html-reader.ts), and Node (linkedom) for `scan` and the
// tests. The caps and the simple reading, which need no Readability, are in lib/text/reading.ts.
import { Readability } from '@mozilla/readability';
import { emptyPage, type Extraction, type ExtractOptions, blockText, finishReading, pageTitleOf, pastCap, pastCapsReading, withDefaults } from './reading';
import { metadataProvenance, withCreditLine } from './provenance';

/** The page being read: its address and the time of reading, for what it says of where it comes from (lib/text/provenance.ts). */
export interface PageAt {
  url: string;
  now: number;
}

/**
 * Extracts the article of a document. The document is cloned first unless options.cloneFirst is
 * false: Readability mutates what it parses, and the live page must never change. With `page`, an
 * article also carries what the page says of where it comes from (its metadata, read before
 * Readability changes the document, and a credit line in the article Readability found).
 */
export function extractArticle(doc: Document, options: ExtractOptions = {}, page?: PageAt): Extraction {
  if (!doc.documentElement) return emptyPage();
  const settled = withDefaults(options);
  const metadata = page === undefined ? undefined : metadataProvenance(doc, page.url, page.now);
  const past = pastCapsReading(doc, settled);
  if (past !== null) return past.ok && metadata !== undefined ? { ...past, provenance: metadata } : past;
  const pageTitle = pageTitleOf(doc);
  const { maxElemsToParse, maxTextChars } = settled;
  const target = settled.cloneFirst ? (doc.cloneNode(true) as Document) : doc;
  let parsed: ReturnType<Readability<Node>['parse']>;
  try {
    parsed = new Readability<Node>(target, { maxElemsToParse, serializer: (node) => node }).parse();
  } catch (error) {
    const tooLarge = error instanceof Error && /Aborting parsing document/.test(error.message);
    return tooLarge
      ? pastCap(doc, settled, `The page has more than ${maxElemsToParse} elements, too many to read.`)
      : { ok: false, reason: 'no-article', title: pageTitle, message: `The page could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!parsed || !parsed.content) {
    return { ok: false, reason: 'no-article', title: pageTitle, message: 'No article was found on this page.' };
  }
  const title = (parsed.title ?? '').trim() || pageTitle;
  const read = finishReading(title, blockText(parsed.content, maxTextChars * 2), 'readability', parsed.lang ?? null, parsed.siteName ?? null, settled);
  if (!read.ok || page === undefined || metadata === undefined) return read;
  return { ...read, provenance: withCreditLine(metadata, parsed.content as unknown as ParentNode, page.url) };
}
