// The languages of the rewrite detector's anchors (lib/fingerprint/rewrite-anchors.ts): the
// languages a page is guessed to be in and the function words that tell them apart; what a
// lower-case word can be besides a word (a function word, a date's glue, a month, a German
// article); capitalised words that are no names; and what only a German noun looks like.
import { DATE_GLUE, LOWER_CASE_MONTHS } from './rewrite-numbers';
import { HashTable32, hashWord } from './rewrite-words';

/** The languages a page is guessed to be in ('und': unknown), in the order encodeRewriteBytes numbers them. */
export const REWRITE_LANGUAGES = ['und', 'en', 'es', 'fr', 'de', 'pt', 'it', 'nl', 'zh', 'ja', 'ko', 'ru', 'el', 'ar', 'he', 'hi', 'th'] as const;
export type RewriteLanguage = (typeof REWRITE_LANGUAGES)[number];
export const SCRIPT_LANGUAGE: Record<string, RewriteLanguage> = { cyrillic: 'ru', greek: 'el', hangul: 'ko', arabic: 'ar', hebrew: 'he', devanagari: 'hi', thai: 'th' };

// Frequent function words of the Latin-script languages told apart, none in two lists once folded
// ("de" is Spanish, French, Portuguese and Dutch): a guess, not a detector.
export const FUNCTION_WORDS: [RewriteLanguage, string[]][] = [
  ['en', ['the', 'and', 'of', 'to', 'is', 'that', 'for', 'with', 'was', 'this', 'are', 'have']],
  ['es', ['el', 'los', 'las', 'y', 'por', 'con', 'como', 'pero', 'según', 'sus', 'fue', 'también']],
  ['fr', ['le', 'les', 'des', 'et', 'est', 'une', 'dans', 'pour', 'qui', 'pas', 'sur', 'au']],
  ['de', ['der', 'die', 'und', 'das', 'ist', 'nicht', 'mit', 'von', 'den', 'auf', 'ein', 'sich']],
  ['pt', ['os', 'não', 'uma', 'com', 'do', 'da', 'em', 'ao', 'dos', 'foi', 'são', 'também']],
  ['it', ['il', 'di', 'che', 'della', 'gli', 'non', 'sono', 'nel', 'anche', 'questo', 'alla', 'questa']],
  ['nl', ['het', 'een', 'van', 'niet', 'zijn', 'dat', 'met', 'voor', 'ook', 'wordt', 'naar', 'bij']],
];
/** The words that the language guess looks at: the first ones are enough. */
export const LANGUAGE_SAMPLE_WORDS = 1000;

// German articles and the words that stand where one does ("im", "zum", "diese", "seine"): a
// capitalised word right after one, or after one and a lower-case word ("die neue Schwachstelle"),
// is a noun, which German capitalises like a name.
const GERMAN_DETERMINERS = [
  'der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einem', 'einer', 'eines',
  'kein', 'keine', 'keinen', 'keinem', 'keiner', 'keines', 'im', 'am', 'zum', 'zur', 'vom', 'beim', 'ins', 'ans', 'aufs',
  'dieser', 'diese', 'dieses', 'diesen', 'diesem', 'jeder', 'jede', 'jedes', 'jeden', 'jedem',
  'sein', 'seine', 'seinen', 'seinem', 'seiner', 'seines', 'ihre', 'ihren', 'ihrem', 'ihrer', 'ihres',
  'unser', 'unsere', 'unseren', 'unserem', 'unserer', 'mehrere', 'mehreren', 'einige', 'einigen', 'viele', 'vielen', 'beiden',
];

// What a lower-case word can be besides a word, in one lookup: a function word of language l
// (l + 1), a date's little word (GLUE_WORD), a Spanish or French month (MONTH_WORD + its number);
// and also (DETERMINER, a bit of its own) a German article.
export const GLUE_WORD = 16;
export const MONTH_WORD = 32;
export const DETERMINER = 64;
export const ROLE = DETERMINER - 1;
export const LOWER_WORD_ROLES = new HashTable32(
  (() => {
    const roles = new Map<number, number>();
    // a later role replaces an earlier one ("of" is a date's glue, not an English function word); the article bit stays
    const add = (word: string, role: number): void => {
      const h = hashWord(word);
      const was = roles.get(h) ?? 0;
      roles.set(h, role === DETERMINER ? was | DETERMINER : (was & DETERMINER) | role);
    };
    FUNCTION_WORDS.forEach(([, words], l) => words.forEach((w) => add(w, l + 1)));
    DATE_GLUE.forEach((w) => add(w, GLUE_WORD));
    LOWER_CASE_MONTHS.forEach(([w, month]) => add(w, MONTH_WORD + month));
    GERMAN_DETERMINERS.forEach((w) => add(w, DETERMINER));
    return roles;
  })(),
  256,
);

/**
 * Capitalised words that are no names: English weekdays (a Spanish or Chinese translation writes
 * them in lower case or in Han) and the titles before a name ("Dr. Lee", "Sra. Ortega").
 */
export const NOT_NAMES = new Set(
  [
    ...['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'mr', 'mrs', 'ms', 'dr', 'prof', 'jr', 'sr', 'sra', 'srta', 'st'],
    // German weekdays, capitalised as nouns, and the titles of French and German
    ...['montag', 'dienstag', 'mittwoch', 'donnerstag', 'freitag', 'samstag', 'sonntag', 'herr', 'frau', 'mme', 'mlle'],
  ].map(hashWord),
);

// What only a German noun looks like: its letters, its ending, its length
const GERMAN_LETTERS = /[äöüß]/;
const GERMAN_NOUN_ENDING = /(?:ung|ungen|heit|heiten|keit|keiten|schaft|schaften|tion|tionen|ität|itäten|ismus|nis|nisse|tum|tümer|ling|linge|chen|lein)$/;
export function germanNounShape(word: string, afterNumber: boolean): boolean {
  return afterNumber || word.length >= 13 || GERMAN_LETTERS.test(word) || GERMAN_NOUN_ENDING.test(word);
}
