// Reading the dates pages state: the publication time of lib/text/provenance.ts. A page's metadata
// writes a date in many ways (ISO 8601 with or without a zone, RFC 2822, "March 5, 2024",
// "5 de marzo de 2024", "2024年3月5日", seconds since the epoch…); each is read here to milliseconds
// since the epoch, or not at all. A date without a zone is taken as UTC: the page does not say
// where it was written, and the rule that compares dates (lib/report/original.ts) asks for more
// than a day between them. A form that could be read two ways (03/05/2024) is not read.

/** Dates before this are not believed (the web of articles with dates starts about then). */
export const EARLIEST_DATE = Date.UTC(1995, 0, 1);
/**
 * A date this far past the reading time is still "now": a page's date without a time (midnight
 * UTC) is already today in UTC+14 while UTC is still on the day before.
 */
export const FUTURE_SLACK_MS = 14 * 3_600_000;

const MONTHS: Readonly<Record<string, number>> = {
  // English
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11,
  dec: 12, december: 12,
  // Spanish
  ene: 1, enero: 1, febrero: 2, marzo: 3, abr: 4, abril: 4, mayo: 5, junio: 6, julio: 7, ago: 8, agosto: 8,
  septiembre: 9, setiembre: 9, octubre: 10, noviembre: 11, dic: 12, diciembre: 12,
  // French and German
  janvier: 1, février: 2, fevrier: 2, mars: 3, avril: 4, mai: 5, juin: 6, juillet: 7, août: 8, aout: 8,
  septembre: 9, octobre: 10, novembre: 11, décembre: 12, decembre: 12,
  januar: 1, februar: 2, märz: 3, maerz: 3, juni: 6, juli: 7, oktober: 10, dezember: 12,
};

/** Milliseconds of a valid calendar date and time in UTC, shifted by `offsetMinutes` east of UTC; null if any part is out of range. */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0, offsetMinutes = 0): number | null {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 60) return null;
  // Date.UTC reads the years 0 to 99 as 1900 to 1999; 24:00 is only the end of a day (24:00:00)
  if (year < 100 || (hour === 24 && minute + second + ms > 0)) return null;
  // 31 February rolls over into March: not a date (the date alone is checked: 24:00 and a leap second roll over into the next day)
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000;
}

/** "+01:00", "-0800", "+01", "Z", "UTC", "GMT", or "" (none): minutes east of UTC; null if unreadable. */
function zoneOffset(zone: string): number | null {
  const z = zone.trim();
  if (z === '' || /^(z|utc|gmt|ut)$/i.test(z)) return 0;
  const m = /^(?:(?:utc|gmt))?([+-])(\d{2}):?(\d{2})?$/i.exec(z);
  if (m === null) return null;
  if (Number(m[3] ?? 0) > 59) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return minutes > 14 * 60 ? null : m[1] === '-' ? -minutes : minutes;
}

/** Hours of a 12-hour clock with its am/pm, or the hour as written. */
function hour24(hour: number, meridiem: string | undefined): number {
  if (meridiem === undefined) return hour;
  const pm = /^p/i.test(meridiem);
  return (hour % 12) + (pm ? 12 : 0);
}

const TIME = String.raw`(?:[T\s,]+(?:at\s+)?(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([ap]\.?m\.?)?)?`;
const ZONE = String.raw`\s*(Z|[+-]\d{2}(?::?\d{2})?|(?:UTC|GMT)(?:[+-]\d{2}(?::?\d{2})?)?)?`;

/** Reads the time part captured by TIME and ZONE (groups from `at`), with the date. */
function withTime(year: number, month: number, day: number, m: RegExpExecArray, at: number): number | null {
  const [h, min, s, frac, meridiem, zone] = m.slice(at, at + 6);
  const offset = zoneOffset(zone ?? '');
  if (offset === null) return null;
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  return utc(year, month, day, h === undefined ? 0 : hour24(Number(h), meridiem), Number(min ?? 0), Number(s ?? 0), ms, offset);
}

const monthOf = (name: string): number | undefined => MONTHS[name.toLowerCase().replace(/\.$/, '')];

/** Each form a page's date is read in: a pattern, and how its groups make a time. */
const FORMS: readonly { pattern: RegExp; read(m: RegExpExecArray): number | null }[] = [
  // ISO 8601 and its common looser forms: 2024-03-05, 2024-03-05T10:00:00.000+01:00, 2017-11-03 03:01:00.000000, 2024/03/05 10:00
  { pattern: new RegExp(String.raw`^(\d{4})[-/](\d{1,2})[-/](\d{1,2})${TIME}${ZONE}$`, 'i'), read: (m) => withTime(Number(m[1]), Number(m[2]), Number(m[3]), m, 4) },
  // compact ISO: 20240305, 20240305T100000Z
  { pattern: /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?)?(Z|[+-]\d{2}:?\d{2})?$/i, read: (m) => { const offset = zoneOffset(m[7] ?? ''); return offset === null ? null : utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), 0, offset); } },
  // RFC 2822 / HTTP: Tue, 05 Mar 2024 10:00:00 GMT; 5 March 2024; 5. März 2024; 5 de marzo de 2024; 5 mars 2024 à 10:00
  { pattern: new RegExp(String.raw`^(?:[a-zé]{2,9}\.?,?\s+)?(\d{1,2})\.?\s+(?:de\s+)?([a-zéèûä]{3,10}\.?)\s+(?:de\s+|del\s+)?(\d{4})(?:\s+à)?${TIME}${ZONE}$`, 'i'), read: (m) => { const month = monthOf(m[2]!); return month === undefined ? null : withTime(Number(m[3]), month, Number(m[1]), m, 4); } },
  // March 5, 2024; Mar. 5 2024 10:30 AM EST is not read (a zone name), Mar 5, 2024 10:30 am is
  { pattern: new RegExp(String.raw`^(?:[a-z]{3,9}\.?,?\s+)?([a-z]{3,9}\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})${TIME}${ZONE}$`, 'i'), read: (m) => { const month = monthOf(m[1]!); return month === undefined ? null : withTime(Number(m[3]), month, Number(m[2]), m, 4); } },
  // 2024年3月5日 10:30
  { pattern: new RegExp(String.raw`^(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日${TIME}${ZONE}$`), read: (m) => withTime(Number(m[1]), Number(m[2]), Number(m[3]), m, 4) },
  // 05.03.2024 (day first: the dotted form is the European one)
  { pattern: new RegExp(String.raw`^(\d{1,2})\.(\d{1,2})\.(\d{4})${TIME}${ZONE}$`), read: (m) => withTime(Number(m[3]), Number(m[2]), Number(m[1]), m, 4) },
  // 31/12/2024 or 12/31/2024, only when one of the two cannot be a month
  {
    pattern: new RegExp(String.raw`^(\d{1,2})/(\d{1,2})/(\d{4})${TIME}${ZONE}$`),
    read: (m) => {
      const [a, b] = [Number(m[1]), Number(m[2])];
      if (a > 12 && b <= 12) return withTime(Number(m[3]), b, a, m, 4);
      if (b > 12 && a <= 12) return withTime(Number(m[3]), a, b, m, 4);
      return null;
    },
  },
  // seconds (10 digits) or milliseconds (13 digits) since the epoch
  { pattern: /^(\d{10}|\d{13})$/, read: (m) => (m[1]!.length === 10 ? Number(m[1]) * 1000 : Number(m[1])) },
];

/**
 * The time a page's date text states, in milliseconds since the epoch; null when it is not a date
 * in one of the forms above, or is before EARLIEST_DATE, or is past `now` + FUTURE_SLACK_MS.
 */
export function parsePageDate(text: string, now: number): number | null {
  const value = text.trim().replace(/\s+/g, ' ');
  if (value.length === 0 || value.length > 64) return null;
  for (const { pattern, read } of FORMS) {
    const m = pattern.exec(value);
    if (m === null) continue;
    const time = read(m);
    if (time === null || !Number.isFinite(time)) return null;
    return time < EARLIEST_DATE || time > now + FUTURE_SLACK_MS ? null : time;
  }
  return null;
}
