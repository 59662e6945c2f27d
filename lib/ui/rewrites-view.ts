// The popup's list of the pages read before that tell the page's story in other words
// (Report.rewrites): a rewrite or a translation of an earlier page, or a later page that rewrites or
// translates this one. Each entry says which, names the language of a translation (Intl.DisplayNames,
// in the UI's language), links the page and carries data-share; "Show on the page" marks the rare
// words the two share (rewriteList, with passages-view's createMarksControl). No browser globals: the
// popup passes its Document and Localizer, so that it is tested on linkedom.
import { type Localizer, nodeAt, placeNodes } from './i18n';
import type { OriginalSummary, RewriteSummary } from '../protocol/messages';
import { originalTag } from './original-view';
import { type MarkedList, titleAndDay } from './passages-view';
import { LIMITS } from '../protocol/validation';

/** A language code of the rewrite detector as a name in the UI's language ("Spanish", "español", "西班牙语"); null when unknown. */
export function languageName(l: Localizer, code: string): string | null {
  if (code === 'und') return null;
  try {
    return new Intl.DisplayNames([l.catalogLocale], { type: 'language' }).of(code) ?? null;
  } catch {
    return null;
  }
}

/**
 * The entry's sentence key and its language: the story's original, or an earlier page, is
 * rewritten or translated by this one ("Looks like a Spanish translation of …", in this page's
 * language); a later page, or any page when this one is the original, rewrites or translates this
 * one (in its own).
 */
function wording(l: Localizer, match: RewriteSummary, ownFirstSeen: number, original: OriginalSummary | null): { key: string; language: string | null } {
  const earlier = match.original || (original?.self !== true && match.firstSeen <= ownFirstSeen);
  const language = match.translated ? languageName(l, earlier ? match.ownLanguage : match.language) : null;
  if (language === null) return { key: earlier ? 'rewriteOf' : 'rewrittenAs', language: null };
  return { key: earlier ? 'translationOf' : 'translatedAs', language };
}

/**
 * One entry: `<li class="rewrite" data-share data-url data-kind>` with its sentence ("Looks like a
 * rewrite of <a>title</a>, which you read on <time> (site)") and a line of how much of the rare
 * words the two share. Titles and URLs are data: text and a checked link target, never markup.
 */
export function rewriteItem(doc: Document, l: Localizer, match: RewriteSummary, ownFirstSeen: number, original: OriginalSummary | null = null): HTMLLIElement {
  const item = doc.createElement('li');
  item.className = 'rewrite';
  item.dataset['share'] = String(match.share);
  item.dataset['url'] = match.url;
  const { key, language } = wording(l, match, ownFirstSeen, original);
  item.dataset['kind'] = key;

  const [title, when] = titleAndDay(doc, l, match);
  const words = language === null ? l.t(key, nodeAt(0), nodeAt(1), match.site) : l.t(key, language, nodeAt(0), nodeAt(1), match.site);
  const line = doc.createElement('p');
  line.className = 'rewrite-line';
  line.append(...placeNodes(words, [title, when]).parts);
  if (match.original && original !== null) line.append(' ', ...originalTag(doc, l, original));

  const meta = doc.createElement('p');
  meta.className = 'meta';
  meta.textContent = l.t('rewriteShare', l.share(match.share));
  const missing = doc.createElement('p');
  missing.className = 'not-on-page';
  missing.textContent = l.t('rewriteNotOnPage');
  missing.hidden = true;
  item.append(line, meta, missing);
  return item;
}

/**
 * The rewrites' list for the section's "Show on the page" toggle (lib/ui/passages-view.ts
 * createMarksControl): each entry's set is this page's hashes of pairs of rare words that page holds
 * too (RewriteSummary.hashes); the content script marks the rare words of those pairs.
 */
export function rewriteList(doc: Document, l: Localizer, view: { heading: HTMLElement; list: HTMLElement }, ownFirstSeen: () => number, original: () => OriginalSummary | null = () => null): MarkedList<RewriteSummary> {
  return {
    kind: 'rewrites',
    itemSelector: 'li.rewrite',
    render(rewrites) {
      view.heading.textContent = rewrites.length === 0 ? '' : l.count('rewritesHeading', rewrites.length);
      view.list.replaceChildren(...rewrites.map((match) => rewriteItem(doc, l, match, ownFirstSeen(), original())));
    },
    sets: (rewrites) => rewrites.slice(0, LIMITS.passageSets).map((match) => ({ id: match.url, slot: 0, hashes: match.hashes, ends: [] })),
  };
}
