// The popup's list of the pages read before that tell the page's story in other words
// (Report.rewrites): a rewrite or a translation of an earlier page, or a later page that rewrites or
// translates this one. Each entry says which, names the language of a translation (Intl.DisplayNames,
// in the UI's language), links the page and carries data-share. No browser globals: the popup
// passes its Document and Localizer, so that it is tested on linkedom.
import { type Localizer, nodeAt, placeNodes } from './i18n';
import type { RewriteSummary } from '../protocol/messages';
import { titleAndDay } from './passages-view';

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
 * The entry's sentence key and its language: an earlier page is rewritten or translated by this
 * one ("Looks like a Spanish translation of …", in this page's language); a later page rewrites or
 * translates this one (in its own).
 */
function wording(l: Localizer, match: RewriteSummary, ownFirstSeen: number): { key: string; language: string | null } {
  const earlier = match.firstSeen <= ownFirstSeen;
  const language = match.translated ? languageName(l, earlier ? match.ownLanguage : match.language) : null;
  if (language === null) return { key: earlier ? 'rewriteOf' : 'rewrittenAs', language: null };
  return { key: earlier ? 'translationOf' : 'translatedAs', language };
}

/**
 * One entry: `<li class="rewrite" data-share data-url data-kind>` with its sentence ("Looks like a
 * rewrite of <a>title</a>, which you read on <time> (site)") and a line of how much of the rare
 * words the two share. Titles and URLs are data: text and a checked link target, never markup.
 */
export function rewriteItem(doc: Document, l: Localizer, match: RewriteSummary, ownFirstSeen: number): HTMLLIElement {
  const item = doc.createElement('li');
  item.className = 'rewrite';
  item.dataset['share'] = String(match.share);
  item.dataset['url'] = match.url;
  const { key, language } = wording(l, match, ownFirstSeen);
  item.dataset['kind'] = key;

  const [title, when] = titleAndDay(doc, l, match);
  const words = language === null ? l.t(key, nodeAt(0), nodeAt(1), match.site) : l.t(key, language, nodeAt(0), nodeAt(1), match.site);
  const line = doc.createElement('p');
  line.className = 'rewrite-line';
  line.append(...placeNodes(words, [title, when]).parts);

  const meta = doc.createElement('p');
  meta.className = 'meta';
  meta.textContent = l.t('rewriteShare', l.share(match.share));
  item.append(line, meta);
  return item;
}

/** Fills the section: its heading with the count, the entries; hidden when there is none. */
export function renderRewrites(doc: Document, l: Localizer, view: { section: HTMLElement; heading: HTMLElement; list: HTMLElement }, rewrites: readonly RewriteSummary[], ownFirstSeen: number): void {
  view.section.hidden = rewrites.length === 0;
  view.heading.textContent = rewrites.length === 0 ? '' : l.count('rewritesHeading', rewrites.length);
  view.list.replaceChildren(...rewrites.map((match) => rewriteItem(doc, l, match, ownFirstSeen)));
}
