// The words of the popup, the history page and the toolbar badge in the reader's language: a thin
// layer over the browser's message catalogue (public/_locales/LOCALE/messages.json, read through
// `getMessage`, which the caller passes in) and over Intl for numbers, dates and plurals.
//
// - A counted message has one key per plural category of the catalogue's language, as
//   Intl.PluralRules names them: `pagesCount_one` / `pagesCount_other` in English; Spanish adds
//   `_many` (whole millions: "1.000.000 de páginas"); Chinese has only `_other`.
// - Numbers passed to a message are formatted in the UI's locale (`1,234`, `1.234`).
// - Static text in a page's HTML names its key in `data-i18n` (text) or `data-i18n-ATTRIBUTE`
//   (an attribute); localizePage fills them at start.
import { absoluteDay, absoluteTime, bitSimilarity, relativeTime, shownPercent } from './format';
import type { NotArticleWhy } from '../protocol/messages';

/** browser.i18n.getMessage: the message for a key with $1…$9 filled in, or '' if there is none. */
export type GetMessage = (key: string, substitutions?: string | string[]) => string;

/** The key in each catalogue that names its own language (for its plural rules). */
export const CATALOG_LOCALE_KEY = 'catalogLocale';

export type Substitution = string | number;

export interface Localizer {
  /** The UI's locale: numbers and dates are formatted in it. */
  readonly locale: string;
  /** The language of the catalogue in use (the UI's, or English when there is none for it). */
  readonly catalogLocale: string;
  /** The message `key`, numbers among the substitutions formatted; the key itself if the catalogue lacks it. */
  t(key: string, ...substitutions: Substitution[]): string;
  /** The form of `key` for n (`key_one`, `key_other`…), with n formatted as $1 and the rest as $2…. */
  count(key: string, n: number, ...substitutions: Substitution[]): string;
  number(n: number): string;
  /** A whole percentage: 97 → "97%" (en), "97 %" (es). */
  percent(whole: number): string;
  /** A fraction from 0 to 1 as a percentage, never rounded up (lib/ui/format.ts shownPercent): 0.627 → "62%", 0.004 → "0.4%". */
  share(fraction: number): string;
  /** An absolute date and time ("Nov 22, 2026, 3:04 PM"). */
  date(ms: number): string;
  /** An absolute date ("Nov 22, 2026"). */
  day(ms: number): string;
  /** "3 days ago", "just now": when something happened, relative to now. */
  relative(then: number, now: number): string;
  /** How alike two pages are, in words, from the Hamming distance of their simhashes. */
  likeness(distance: number): string;
  /** "2 bits apart · 97% of the fingerprint in common". */
  distanceDetail(distance: number): string;
  /** Why a page is not an article, in a sentence; `fallback` (the reader's English sentence) when `why` is unknown. */
  notArticle(why: NotArticleWhy | null, fallback: string | null): string;
}

/** The plural category key `key_CATEGORY` for n, in the catalogue's language. */
export function pluralKey(key: string, n: number, rules: Intl.PluralRules): string {
  return `${key}_${rules.select(n)}`;
}

export function createLocalizer(getMessage: GetMessage, uiLocale: string): Localizer {
  const catalogLocale = supported(getMessage(CATALOG_LOCALE_KEY)) ?? 'en';
  const locale = formatLocale(supported(uiLocale) ?? 'en', catalogLocale);
  const rules = new Intl.PluralRules(catalogLocale);
  const numbers = new Intl.NumberFormat(locale);
  const percents = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
  const smallPercents = new Intl.NumberFormat(locale, { style: 'percent', maximumSignificantDigits: 1 });
  const number = (n: number): string => numbers.format(n);
  const text = (substitutions: Substitution[]): string[] => substitutions.map((s) => (typeof s === 'number' ? number(s) : s));
  const lookup = (key: string, substitutions: Substitution[]): string => getMessage(key, text(substitutions));
  const t = (key: string, ...substitutions: Substitution[]): string => lookup(key, substitutions) || key;
  return {
    locale,
    catalogLocale,
    t,
    count(key, n, ...substitutions) {
      const all = [n, ...substitutions];
      // a category the catalogue does not spell out (Spanish `many` in an older catalogue) takes `other`
      return lookup(pluralKey(key, n, rules), all) || t(`${key}_other`, ...all);
    },
    number,
    percent: (whole) => percents.format(whole / 100),
    share(fraction) {
      const shown = shownPercent(fraction);
      return shown >= 1 || shown === 0 ? percents.format(shown / 100) : smallPercents.format(shown / 100);
    },
    date: (ms) => absoluteTime(ms, locale),
    day: (ms) => absoluteDay(ms, locale),
    relative: (then, now) => (now - then < 60_000 ? t('justNow') : relativeTime(then, now, locale)),
    likeness: (distance) => t(distance === 0 ? 'likenessSame' : distance === 1 ? 'likenessNearlySame' : 'likenessVerySimilar'),
    distanceDetail(distance) {
      return this.count('distanceDetail', distance, this.percent(bitSimilarity(distance)));
    },
    notArticle(why, fallback) {
      switch (why?.code) {
        case 'no-article':
          return t('notArticleNoArticle');
        case 'too-short':
          if (why.words !== undefined && why.minWords !== undefined) return this.count('notArticleTooShort', why.words, why.minWords);
          break;
        case 'too-large':
          return t('notArticleTooLarge');
        case 'no-words':
          return t('notArticleNoWords');
      }
      return fallback ?? '';
    },
  };
}

/**
 * The locale numbers and dates are formatted in: the UI's, unless the browser chose a catalogue of
 * another language than the UI's own (Chromium on Linux started with --lang=es answers
 * getUILanguage() with "en-US" yet reads the Spanish catalogue): then the catalogue's, so that
 * the dates match the words. A UI language without a catalogue (de-CH reads English) keeps its
 * own formats.
 */
export function formatLocale(uiLocale: string, catalogLocale: string): string {
  const language = (tag: string): string => tag.split('-')[0]!.toLowerCase();
  return language(uiLocale) === language(catalogLocale) || catalogLocale === 'en' ? uiLocale : catalogLocale;
}

/** The canonical form of a BCP 47 tag ("zh_CN" → "zh-CN"), or null if Intl does not take it. */
function supported(tag: string): string | null {
  if (tag === '') return null;
  try {
    return Intl.getCanonicalLocales(tag.replace(/_/g, '-'))[0] ?? null;
  } catch {
    return null;
  }
}

/** The attributes a `data-i18n-NAME` may fill. */
export const LOCALIZED_ATTRIBUTES = ['placeholder', 'title', 'aria-label'] as const;

/**
 * A substitution that stands for a node: pass `nodeAt(i)` for a placeholder, then `placeNodes` puts
 * `nodes[i]` where the message put it ("62% of this page appeared in $2" with a link as $2).
 */
export const nodeAt = (index: number): string => `\u0001${index}\u0001`;

/** A message made with `nodeAt` substitutions, as text and the nodes in their places; `placed` lists the nodes used. */
export function placeNodes<N>(message: string, nodes: readonly N[]): { parts: (string | N)[]; placed: number[] } {
  const split = message.split(/\u0001(\d+)\u0001/);
  const placed = split.filter((_, i) => i % 2 === 1).map(Number);
  const parts = split.map((part, i) => (i % 2 === 0 ? part : nodes[Number(part)]!)).filter((part) => part !== '');
  return { parts, placed };
}

/**
 * Fills the static text of a page: an element with `data-i18n` gets the message that attribute
 * names as its text. Its child elements go where the message has $1, $2…, or else before the text
 * (a checkbox in its label). `data-i18n-placeholder` (and the other LOCALIZED_ATTRIBUTES) names the
 * message of that attribute. Sets `<html lang>` to the catalogue's language.
 */
export function localizePage(document: Document, l: Localizer): void {
  document.documentElement.lang = l.catalogLocale;
  for (const element of document.querySelectorAll<HTMLElement>('[data-i18n]')) {
    const children = [...element.children];
    const { parts, placed } = placeNodes(l.t(element.getAttribute('data-i18n')!, ...children.map((_, i) => nodeAt(i))), children);
    const unplaced = children.filter((_, i) => !placed.includes(i));
    element.replaceChildren(...unplaced, ...(unplaced.length > 0 ? [' '] : []), ...parts);
  }
  for (const attribute of LOCALIZED_ATTRIBUTES) {
    for (const element of document.querySelectorAll(`[data-i18n-${attribute}]`)) {
      element.setAttribute(attribute, l.t(element.getAttribute(`data-i18n-${attribute}`)!));
    }
  }
}
