// Numbers and dates the popup and history page show a person, in a given locale (lib/ui/i18n.ts puts
// them into its messages).

/** Share of the 64 fingerprint bits two pages have in common, as a whole percentage. */
export function bitSimilarity(distance: number): number {
  return Math.round(((64 - distance) / 64) * 100);
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600 * 1000],
  ['month', 30 * 24 * 3600 * 1000],
  ['week', 7 * 24 * 3600 * 1000],
  ['day', 24 * 3600 * 1000],
  ['hour', 3600 * 1000],
  ['minute', 60 * 1000],
];

// A formatter is costly to build (tenths of a millisecond): the history page formats two dates an
// entry, so each locale's is built once.
const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();
const absoluteFormats = new Map<string, Intl.DateTimeFormat>();
const dayFormats = new Map<string, Intl.DateTimeFormat>();
function cached<T>(formats: Map<string, T>, locale: string, build: () => T): T {
  let format = formats.get(locale);
  if (format === undefined) formats.set(locale, (format = build()));
  return format;
}

/** "3 days ago", "now": when something happened, relative to now, in the locale's words. */
export function relativeTime(then: number, now: number, locale = 'en'): string {
  const elapsed = now - then;
  const format = cached(relativeFormats, locale, () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }));
  for (const [unit, ms] of UNITS) {
    if (elapsed >= ms) return format.format(-Math.floor(elapsed / ms), unit);
  }
  return format.format(0, 'second');
}

/** An absolute date and time, for tooltips. */
export function absoluteTime(ms: number, locale = 'en'): string {
  return cached(absoluteFormats, locale, () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' })).format(ms);
}

/** An absolute date without the time ("Nov 22, 2026"), for sentences. */
export function absoluteDay(ms: number, locale = 'en'): string {
  return cached(dayFormats, locale, () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium' })).format(ms);
}

/**
 * A fraction from 0 to 1 as the percentage to show, never more than it is: whole percents from 1%
 * on (0.627 → 62, 0.999 → 99: "100%" only when it is all), one significant digit below 1%
 * (0.0042 → 0.4), and 0 only for nothing.
 */
export function shownPercent(fraction: number): number {
  // 1e-9 against binary fractions: 0.29 * 100 is 28.999999999999996
  const percent = Math.min(100, Math.max(0, fraction * 100));
  if (percent >= 1 || percent === 0) return Math.floor(percent + 1e-9);
  const unit = 10 ** Math.floor(Math.log10(percent) + 1e-9);
  return Math.floor(percent / unit + 1e-9) * unit;
}
