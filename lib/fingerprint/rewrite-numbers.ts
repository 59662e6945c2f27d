// Numbers and dates written one way in every language, for the rewrite detector's anchors
// (lib/fingerprint/rewrite-anchors.ts): "19 billion", "19.000 millones" and "190亿" are #19000000000;
// "December 15", "15 de diciembre" and "12月15日" are @12-15. Also the raw tokens of a scanned text
// (Raw), which the numbers and dates are among.
import { HashTable32, hashString, hashWord } from './rewrite-words';

export const WORD = 0;
export const NUMBER_TOKEN = 1;
export const MONTH = 2;
export const GLUE = 3;

/** A word, number or month of the text, before its rarity is judged. */
export interface Raw {
  type: number;
  start: number;
  end: number;
  /** Words before it (a number, a word and a Han or kana character count one each). */
  at: number;
  /** Punctuation marks before it: two anchors are one name when `at` differs by one and this is equal. */
  marks: number;
  /** NUMBER: the number's or date's token; WORD: '' (foldWord of the range, made when needed). */
  text: string;
  hash: number;
  upper: boolean; // WORD: begins with a capital
  allUpper: boolean; // WORD: two letters or more, all capitals
  camel: boolean; // WORD: a capital after the first letter ("iPhone", "eBay")
  digits: boolean; // WORD: letters, then digits ("A10", "mp3")
  initial: boolean; // WORD: the first of a sentence
  line: number;
  value: number; // NUMBER: its value (whole numbers); MONTH: 1–12
  plain: boolean; // NUMBER: a whole number without scale or percent
  strong: boolean; // MONTH: a month even without a day or a year
  afterArticle: boolean; // WORD: capitalised, right after a German article (or an article and a lower-case word)
}

export type PushRaw = (type: number, start: number, end: number, hash: number, text?: string) => Raw;

// A number: digits with thousands separators (a separator followed by exactly three digits, the
// same one each time) and maybe a decimal part after the other separator; or digits and maybe a
// decimal part.   1,000 · 1.000 · 1 000 → 1000     9.99 · 9,99 → 9.99     1,000.5 · 1.000,5 → 1000.5
const NUMBER = /(\d{1,3})((?:([,.\u00a0\u202f\u2009 ])\d{3}(?!\d)(?:\3\d{3}(?!\d))*))(?:(?!\3)[.,](\d+))?|(\d+)(?:[.,](\d+))?/y;
// What scales a number: Chinese units right after it, words after a space, "bn" or "k" glued to it.
// English, Spanish, French ("1,5 milliard"), German ("4,8 Milliarden", "19 Mrd.", "2 Mio."); the
// German and French "Billion" (10^12) only in the plural "Billionen", since English "billion" is 10^9.
const SCALE = /(万亿|亿|千万|百万|万)|\s+(thousand|millions?|billions?|trillions?|bn|mil millones|millones|mill[oó]n|millardos?|billones|bill[oó]n|mil|milliards?|milliarden?|millionen|billionen|tausend|mio\.?|mrd\.?)(?![\p{L}\p{N}])|(bn|k)(?![\p{L}\p{N}])/iuy;
const SCALE_EXPONENT: Record<string, number> = {
  万亿: 12, 亿: 8, 千万: 7, 百万: 6, 万: 4,
  thousand: 3, million: 6, millions: 6, billion: 9, billions: 9, trillion: 12, trillions: 12, bn: 9, k: 3,
  'mil millones': 9, millones: 6, millon: 6, millón: 6, millardo: 9, millardos: 9, billones: 12, billon: 12, billón: 12, mil: 3,
  milliard: 9, milliards: 9, milliarde: 9, milliarden: 9, millionen: 6, billionen: 12, tausend: 3, mio: 6, 'mio.': 6, mrd: 9, 'mrd.': 9,
};
const PERCENT = /\s?[%‰]|\s+(?:percent|per cent|por ciento|pour cent|prozent)(?![\p{L}])/iuy;
// Chinese dates: 2016年12月15日, 12月15日, 2016年12月, 12月 (not 3个月, three months).
const HAN_DATE = /(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?/y;
const HAN_YEAR = /(\d{4})\s*年/y;
// Letters glued to digits: an ordinal ending, a unit, a model letter ("1st", "5G", "3D"): dropped.
const GLUED_LETTERS = /[\p{L}\p{M}]+/uy;

/**
 * A decimal number as one string: the digits of `whole` and `fraction`, times 10^exponent,
 * without leading zeros or trailing fractional zeros. Exact: no floating point.
 *   ("1", "5", 4) → "15000"    ("19000", "", 6) → "19000000000"    ("9", "990", 0) → "9.99"
 */
export function decimalString(whole: string, fraction: string, exponent: number): string {
  let digits = whole + fraction;
  let point = whole.length + exponent;
  let lead = 0;
  while (lead < digits.length && digits.charCodeAt(lead) === 48) lead++;
  digits = digits.slice(lead);
  point -= lead;
  if (digits === '') return '0';
  let out: string;
  if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return out.includes('.') ? out.replace(/\.?0+$/, '') : out;
}

const MONTH_NAMES: [string, number][] = [
  ['january', 1], ['february', 2], ['march', 3], ['april', 4], ['may', 5], ['june', 6], ['july', 7], ['august', 8], ['september', 9], ['october', 10], ['november', 11], ['december', 12],
  ['jan', 1], ['feb', 2], ['mar', 3], ['apr', 4], ['jun', 6], ['jul', 7], ['aug', 8], ['sep', 9], ['sept', 9], ['oct', 10], ['nov', 11], ['dec', 12],
];
export const SPANISH_MONTH_NAMES = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];
/** French months (folded: "février" is "fevrier"), written in lower case as Spanish ones are. */
export const FRENCH_MONTH_NAMES = ['janvier', 'fevrier', 'mars', 'avril', 'mai', 'juin', 'juillet', 'aout', 'septembre', 'octobre', 'novembre', 'decembre'];
/** German months that are not also English ones (folded: "März" is "marz"), capitalised as nouns. */
const GERMAN_MONTH_NAMES: [string, number][] = [['januar', 1], ['februar', 2], ['marz', 3], ['mai', 5], ['juni', 6], ['juli', 7], ['oktober', 10], ['dezember', 12]];
/** The months written in lower case: Spanish and French ones, a month in either case. */
export const LOWER_CASE_MONTHS: [string, number][] = [...SPANISH_MONTH_NAMES.map((w, i) => [w, i + 1] as [string, number]), ['setiembre', 9], ...FRENCH_MONTH_NAMES.map((w, i) => [w, i + 1] as [string, number])];
/** Month names by hash. English and German ones count only with a capital, Spanish and French ones in either case. */
export const MONTHS = new HashTable32([...MONTH_NAMES, ...GERMAN_MONTH_NAMES, ...LOWER_CASE_MONTHS].map(([w, m]) => [hashWord(w), m] as const), 96);
/** English month names that are a month without a day or a year beside them: not May (Theresa May), not the abbreviations. */
export const MONTHS_ALONE = new Set(MONTH_NAMES.slice(0, 12).flatMap(([w]) => (w === 'may' ? [] : [hashWord(w)])));
/** Capitalised, a Spanish or French month needs a day or a year beside it ("Mars" is a planet, "Mayo" a clinic). */
export const SPANISH_MONTHS = new Set(LOWER_CASE_MONTHS.map(([w]) => hashWord(w)));
/** Little words allowed between a day, a month and a year: "15 de diciembre de 2016", "15th of December". */
export const DATE_GLUE = ['de', 'del', 'of'];
/** Scans the number at s[i] (a digit) and what scales it; pushes it; returns where it ends. */
export function scanNumber(s: string, i: number, raw: PushRaw): number {
  let digitsEnd = i;
  while (digitsEnd < s.length && s.charCodeAt(digitsEnd) >= 48 && s.charCodeAt(digitsEnd) <= 57) digitsEnd++;
  let after = digitsEnd;
  while (s.charCodeAt(after) === 32) after++;
  if (s[after] === '年' || s[after] === '月') {
    // Chinese dates: 2016年12月15日 is a year and then a month-day.
    HAN_DATE.lastIndex = i;
    const date = HAN_DATE.exec(s);
    if (date && Number(date[2]) >= 1 && Number(date[2]) <= 12 && (date[3] === undefined || (Number(date[3]) >= 1 && Number(date[3]) <= 31))) {
      if (date[1] !== undefined) pushNumber(raw, i, i + 4, date[1], true);
      const token = `@${Number(date[2])}${date[3] !== undefined ? `-${Number(date[3])}` : ''}`;
      raw(NUMBER_TOKEN, i, HAN_DATE.lastIndex, hashString(token), token);
      return HAN_DATE.lastIndex;
    }
    HAN_YEAR.lastIndex = i;
    const year = HAN_YEAR.exec(s);
    if (year) {
      pushNumber(raw, i, HAN_YEAR.lastIndex, year[1]!, true);
      return HAN_YEAR.lastIndex;
    }
  }

  NUMBER.lastIndex = i;
  const m = NUMBER.exec(s)!;
  let end = NUMBER.lastIndex;
  const whole = m[5] ?? m[1]! + m[2]!.replace(/\D/g, '');
  const fraction = m[6] ?? m[4] ?? '';
  let exponent = 0;
  let percent = false;
  const next = s.charCodeAt(end);
  // Most numbers are followed by a space and a lower-case word or by punctuation: test the
  // regular expressions only when what follows could scale the number.
  if (next === 32 || next === 0xa0 || next === 37 || next >= 0x2000 || (next | 32) === 107 || (next | 32) === 98 || (next | 32) === 112) {
    SCALE.lastIndex = end;
    const scale = SCALE.exec(s);
    if (scale) {
      exponent = SCALE_EXPONENT[(scale[1] ?? scale[2] ?? scale[3])!.toLowerCase()] ?? 0;
      end = SCALE.lastIndex;
    }
    PERCENT.lastIndex = end;
    if (PERCENT.exec(s)) {
      percent = true;
      end = PERCENT.lastIndex;
    }
  }
  if (exponent === 0 && !percent) {
    GLUED_LETTERS.lastIndex = end;
    if (GLUED_LETTERS.exec(s)) end = GLUED_LETTERS.lastIndex;
  }
  const value = decimalString(whole, fraction, exponent);
  pushNumber(raw, i, end, percent ? `${value}%` : value, exponent === 0 && !percent && fraction === '');
  return end;
}

function pushNumber(raw: PushRaw, start: number, end: number, value: string, plain: boolean): void {
  const token = `#${value}`;
  const r = raw(NUMBER_TOKEN, start, end, hashString(token), token);
  r.value = plain ? Number(value) : NaN;
  r.plain = plain;
}

/**
 * Dates of English and Spanish text: a month with its day before or after it and its year after
 * it ("December 15, 2016", "15 de diciembre de 2016", "22 Dec, 2016") becomes the year, then
 * `@12-15` (the order Chinese writes them in); a month alone `@12`. May and the abbreviations are
 * months only beside a day or a year; otherwise they are words.
 */
export function assembleDates(raws: Raw[]): Raw[] {
  if (!raws.some((r) => r.type === MONTH)) return raws;
  const out: Raw[] = [];
  const isDay = (r: Raw | undefined, at: number): r is Raw => r !== undefined && r.type === NUMBER_TOKEN && r.plain && r.value >= 1 && r.value <= 31 && r.at === at;
  const isYear = (r: Raw | undefined, at: number): r is Raw => r !== undefined && r.type === NUMBER_TOKEN && r.plain && r.value >= 1000 && r.value <= 2999 && r.at === at;
  const isGlue = (r: Raw | undefined, at: number): boolean => r !== undefined && r.type === GLUE && r.at === at;
  for (let k = 0; k < raws.length; k++) {
    const m = raws[k]!;
    if (m.type !== MONTH) {
      out.push(m);
      continue;
    }
    // the day before: "15 December", "15 de diciembre", "15th of December"
    let day: Raw | undefined;
    if (isDay(out.at(-1), m.at - 1)) day = out.pop();
    else if (isGlue(out.at(-1), m.at - 1) && isDay(out.at(-2), m.at - 2)) {
      out.pop();
      day = out.pop();
    }
    // the day and the year after: "December 15, 2016", "diciembre de 2016"
    let next = k + 1;
    if (!day && isDay(raws[next], m.at + 1)) day = raws[next++];
    const last = day && day.at > m.at ? day.at : m.at;
    let year: Raw | undefined;
    if (isYear(raws[next], last + 1)) year = raws[next++];
    else if (isGlue(raws[next], last + 1) && isYear(raws[next + 1], last + 2)) {
      year = raws[next + 1];
      next += 2;
    }
    if (!day && !year && !m.strong) {
      out.push({ ...m, type: WORD });
      continue;
    }
    if (year) out.push(year);
    const token = `@${m.value}${day ? `-${day.value}` : ''}`;
    out.push({ ...m, type: NUMBER_TOKEN, start: Math.min(m.start, day?.start ?? m.start), end: Math.max(m.end, day?.end ?? m.end), text: token, hash: hashString(token), plain: false });
    k = next - 1;
  }
  return out;
}
