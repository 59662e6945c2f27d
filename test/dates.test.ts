// parsePageDate: each form a page writes its date in, read to milliseconds since the epoch, or
// null. Every expected value is written with Date.UTC (months from 0), never with the function.
import { describe, expect, it } from 'vitest';
import { EARLIEST_DATE, FUTURE_SLACK_MS, parsePageDate } from '../lib/text/dates';

/** The reading time of every test: 1 June 2025, noon UTC. */
const NOW = Date.UTC(2025, 5, 1, 12, 0);

describe('constants', () => {
  it('the earliest date is 1 January 1995 and the slack 14 hours', () => {
    expect(EARLIEST_DATE).toBe(Date.UTC(1995, 0, 1));
    expect(FUTURE_SLACK_MS).toBe(14 * 60 * 60 * 1000);
  });
});

describe('ISO 8601 and its looser forms', () => {
  it.each([
    // a date alone is midnight UTC
    ['2024-03-05', Date.UTC(2024, 2, 5)],
    ['2024-3-5', Date.UTC(2024, 2, 5)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['2000-02-29', Date.UTC(2000, 1, 29)],
    ['2024-03-05T10:00:00Z', Date.UTC(2024, 2, 5, 10, 0)],
    ['2024-03-05T10:00Z', Date.UTC(2024, 2, 5, 10, 0)],
    ['2024-03-05t10:00:00z', Date.UTC(2024, 2, 5, 10, 0)],
    ['2024-03-05T10:07:09Z', Date.UTC(2024, 2, 5, 10, 7, 9)],
    // offsets: minutes east of UTC are taken away
    ['2024-03-05T10:00:00+01:00', Date.UTC(2024, 2, 5, 9, 0)],
    ['2024-03-05T10:00:00+0100', Date.UTC(2024, 2, 5, 9, 0)],
    ['2024-03-05T10:00:00+01', Date.UTC(2024, 2, 5, 9, 0)],
    ['2024-03-05T10:00:00-0800', Date.UTC(2024, 2, 5, 18, 0)],
    ['2024-03-05T10:00:00-08:00', Date.UTC(2024, 2, 5, 18, 0)],
    ['2024-03-05T10:00:00+05:30', Date.UTC(2024, 2, 5, 4, 30)],
    ['2024-03-05T10:00:00-03:30', Date.UTC(2024, 2, 5, 13, 30)],
    ['2024-03-05T10:00:00+14:00', Date.UTC(2024, 2, 4, 20, 0)],
    ['2024-03-05T10:00:00-12:00', Date.UTC(2024, 2, 5, 22, 0)],
    ['2024-03-05T10:00:00+00:00', Date.UTC(2024, 2, 5, 10, 0)],
    ['2024-03-05T00:30:00+01:00', Date.UTC(2024, 2, 4, 23, 30)],
    // zone names that mean UTC, and GMT/UTC with an offset
    ['2024-03-05T10:00:00 UTC', Date.UTC(2024, 2, 5, 10, 0)],
    ['2024-03-05T10:00:00 GMT', Date.UTC(2024, 2, 5, 10, 0)],
    ['2024-03-05T10:00:00 GMT+01:00', Date.UTC(2024, 2, 5, 9, 0)],
    ['2024-03-05T10:00:00 UTC-0500', Date.UTC(2024, 2, 5, 15, 0)],
    ['2024-03-05 10:00:00 +0100', Date.UTC(2024, 2, 5, 9, 0)],
    // fractions of a second: milliseconds kept, finer digits cut (not rounded)
    ['2024-03-05T10:00:00.123Z', Date.UTC(2024, 2, 5, 10, 0, 0, 123)],
    ['2024-03-05T10:00:00.5Z', Date.UTC(2024, 2, 5, 10, 0, 0, 500)],
    ['2024-03-05T10:00:00,250Z', Date.UTC(2024, 2, 5, 10, 0, 0, 250)],
    ['2024-03-05T10:00:00.123456Z', Date.UTC(2024, 2, 5, 10, 0, 0, 123)],
    ['2024-03-05T10:00:00.999999999Z', Date.UTC(2024, 2, 5, 10, 0, 0, 999)],
    ['2024-03-05T10:00:00.000+01:00', Date.UTC(2024, 2, 5, 9, 0)],
    ['2017-11-03 03:01:00.000000', Date.UTC(2017, 10, 3, 3, 1)],
    // a space instead of T, and no zone: UTC
    ['2024-03-05 10:00:00', Date.UTC(2024, 2, 5, 10, 0)],
    ['2024-03-05 10:00', Date.UTC(2024, 2, 5, 10, 0)],
    // slashes
    ['2024/03/05', Date.UTC(2024, 2, 5)],
    ['2024/03/05 10:00', Date.UTC(2024, 2, 5, 10, 0)],
    // the end of a day, and a leap second, roll over
    ['2024-03-05T24:00:00Z', Date.UTC(2024, 2, 6, 0, 0)],
    ['2016-12-31T23:59:60Z', Date.UTC(2017, 0, 1, 0, 0)],
    // spaces around are not the date's
    ['  2024-03-05T10:00:00Z \n', Date.UTC(2024, 2, 5, 10, 0)],
  ])('%j → %d', (text, expected) => {
    expect(parsePageDate(text, NOW)).toBe(expected);
  });
});

describe('compact ISO 8601', () => {
  it.each([
    ['20240305', Date.UTC(2024, 2, 5)],
    ['20240305T100000Z', Date.UTC(2024, 2, 5, 10, 0)],
    ['20240305T1000Z', Date.UTC(2024, 2, 5, 10, 0)],
    ['20240305T100000+0100', Date.UTC(2024, 2, 5, 9, 0)],
    ['20240305T100000', Date.UTC(2024, 2, 5, 10, 0)],
  ])('%j → %d', (text, expected) => {
    expect(parsePageDate(text, NOW)).toBe(expected);
  });
});

describe('RFC 2822 and day-month-year with month names', () => {
  it.each([
    ['Tue, 05 Mar 2024 10:00:00 GMT', Date.UTC(2024, 2, 5, 10, 0)],
    ['Tue, 5 Mar 2024 10:00:00 +0000', Date.UTC(2024, 2, 5, 10, 0)],
    ['05 Mar 2024 10:00:00 -0500', Date.UTC(2024, 2, 5, 15, 0)],
    ['Tue, 05 Mar 2024 10:00 +0530', Date.UTC(2024, 2, 5, 4, 30)],
    ['5 March 2024', Date.UTC(2024, 2, 5)],
    ['5 Mar 2024', Date.UTC(2024, 2, 5)],
    ['5 MARCH 2024', Date.UTC(2024, 2, 5)],
    // Spanish
    ['5 de marzo de 2024', Date.UTC(2024, 2, 5)],
    ['5 de marzo del 2024', Date.UTC(2024, 2, 5)],
    ['martes, 5 de marzo de 2024', Date.UTC(2024, 2, 5)],
    ['17 de septiembre de 2024', Date.UTC(2024, 8, 17)],
    ['1 de enero de 2024 10:30', Date.UTC(2024, 0, 1, 10, 30)],
    // German
    ['5. März 2024', Date.UTC(2024, 2, 5)],
    ['5. Maerz 2024', Date.UTC(2024, 2, 5)],
    ['Dienstag, 5. März 2024', Date.UTC(2024, 2, 5)],
    ['24. Dezember 2024', Date.UTC(2024, 11, 24)],
    // French
    ['5 mars 2024', Date.UTC(2024, 2, 5)],
    ['mardi 5 mars 2024', Date.UTC(2024, 2, 5)],
    ['5 mars 2024 à 10:00', Date.UTC(2024, 2, 5, 10, 0)],
    ['1 février 2024', Date.UTC(2024, 1, 1)],
    ['12 août 2024', Date.UTC(2024, 7, 12)],
    ['25 décembre 2024', Date.UTC(2024, 11, 25)],
  ])('%j → %d', (text, expected) => {
    expect(parsePageDate(text, NOW)).toBe(expected);
  });
});

describe('English month-day-year', () => {
  it.each([
    ['March 5, 2024', Date.UTC(2024, 2, 5)],
    ['March 5 2024', Date.UTC(2024, 2, 5)],
    ['March 5th, 2024', Date.UTC(2024, 2, 5)],
    ['Tuesday, March 5, 2024', Date.UTC(2024, 2, 5)],
    ['Sept. 5, 2024', Date.UTC(2024, 8, 5)],
    ['Mar 5, 2024 10:30 am', Date.UTC(2024, 2, 5, 10, 30)],
    ['Mar 5, 2024 10:30 pm', Date.UTC(2024, 2, 5, 22, 30)],
    ['Mar 5, 2024 10:30PM', Date.UTC(2024, 2, 5, 22, 30)],
    // 12 am is midnight, 12 pm noon
    ['Mar. 5, 2024 12:15 a.m.', Date.UTC(2024, 2, 5, 0, 15)],
    ['March 5, 2024 12:15 PM', Date.UTC(2024, 2, 5, 12, 15)],
    ['March 5, 2024 at 10:30', Date.UTC(2024, 2, 5, 10, 30)],
    ['March 5, 2024 10:30 -05:00', Date.UTC(2024, 2, 5, 15, 30)],
  ])('%j → %d', (text, expected) => {
    expect(parsePageDate(text, NOW)).toBe(expected);
  });
});

describe('Chinese, dotted and slashed numeric dates', () => {
  it.each([
    ['2024年3月5日', Date.UTC(2024, 2, 5)],
    ['2024年03月05日', Date.UTC(2024, 2, 5)],
    ['2024年03月05日 10:30', Date.UTC(2024, 2, 5, 10, 30)],
    ['2024 年 3 月 5 日', Date.UTC(2024, 2, 5)],
    // dotted: day first
    ['05.03.2024', Date.UTC(2024, 2, 5)],
    ['5.3.2024', Date.UTC(2024, 2, 5)],
    ['05.03.2024 10:30', Date.UTC(2024, 2, 5, 10, 30)],
    // slashed: read only when one of the two numbers cannot be a month
    ['31/12/2024', Date.UTC(2024, 11, 31)],
    ['12/31/2024', Date.UTC(2024, 11, 31)],
    ['13/01/2024', Date.UTC(2024, 0, 13)],
    ['01/13/2024', Date.UTC(2024, 0, 13)],
    ['31/12/2024 23:59', Date.UTC(2024, 11, 31, 23, 59)],
  ])('%j → %d', (text, expected) => {
    expect(parsePageDate(text, NOW)).toBe(expected);
  });
});

describe('seconds and milliseconds since the epoch', () => {
  it.each([
    // 1709632800 s is 2024-03-05T10:00:00Z
    ['1709632800', Date.UTC(2024, 2, 5, 10, 0)],
    ['1709632800000', Date.UTC(2024, 2, 5, 10, 0)],
    ['1709632800123', Date.UTC(2024, 2, 5, 10, 0, 0, 123)],
    // 788918400 s is 1995-01-01 but has 9 digits: not read
    ['788918400', null],
    // 11 and 12 digits are neither
    ['17096328000', null],
    ['170963280000', null],
    // zero is 1970: before the earliest date
    ['0000000000', null],
    ['0000000000000', null],
  ])('%j → %s', (text, expected) => {
    expect(parsePageDate(text, NOW)).toBe(expected);
  });
});

describe('what is not read', () => {
  it.each([
    // ambiguous: March 5 or 3 May
    ['03/05/2024'],
    ['05/03/2024'],
    ['13/13/2024'],
    // impossible dates and times
    ['2024-02-30'],
    ['2023-02-29'],
    ['2024-04-31'],
    ['2024-13-01'],
    ['2024-00-10'],
    ['2024-03-00'],
    ['2024-03-32'],
    ['20240230'],
    ['20241305'],
    ['30.02.2024'],
    ['31 June 2024'],
    ['February 30, 2024'],
    ['2024年2月30日'],
    ['2024年13月1日'],
    ['2024-03-05T25:00:00Z'],
    ['2024-03-05T24:30:00Z'],
    ['2024-03-05T10:60:00Z'],
    ['2024-03-05T10:00:61Z'],
    // unknown month names
    ['5 Foo 2024'],
    ['Foo 5, 2024'],
    // garbage and partial dates
    ['yesterday'],
    ['not a date'],
    ['Tuesday'],
    ['2024'],
    ['2024-03'],
    ['March 2024'],
    ['3/5/24'],
    ['12345'],
    ['2024-03-05T10:00:00+01:00[Europe/Paris]'],
    ['2024-03-05 and more'],
    ['{{ post.date }}'],
    // empty
    [''],
    ['   '],
    ['\n\t'],
    // unreadable zones
    ['2024-03-05T10:00:00 EST'],
    ['2024-03-05T10:00:00 PST'],
    ['Mar 5, 2024 10:30 AM EST'],
    ['2024-03-05T10:00:00 Europe/Paris'],
    ['2024-03-05T10:00:00+25:00'],
    ['2024-03-05T10:00:00+15:00'],
    ['2024-03-05T10:00:00+01:75'],
    ['2024-03-05T10:00:00+1'],
    ['Tue, 05 Mar 2024 10:00:00 XYZ'],
    // two-digit years are not 19xx (Date.UTC would read 99 as 1999)
    ['0099-03-05'],
    ['0099-03-05T10:00:00Z'],
    ['00990305'],
  ])('%j → null', (text) => {
    expect(parsePageDate(text, NOW)).toBeNull();
  });

  it('a text of 10,000 characters is not read', () => {
    expect(parsePageDate(`2024-03-05${' x'.repeat(5_000)}`, NOW)).toBeNull();
    expect(parsePageDate('9'.repeat(10_000), NOW)).toBeNull();
  });
});

describe('the earliest date', () => {
  it.each([
    ['1995-01-01', Date.UTC(1995, 0, 1)],
    ['1995-01-01T00:00:00Z', Date.UTC(1995, 0, 1)],
    ['1 January 1995', Date.UTC(1995, 0, 1)],
    // the offset moves it back into 1994
    ['1995-01-01T00:30:00+01:00', null],
    ['1994-12-31', null],
    ['1994-12-31T23:59:59Z', null],
    ['1994-12-31T23:59:59.999Z', null],
    ['19941231', null],
    ['31 December 1994', null],
    ['December 31, 1994', null],
    ['1970-01-01T00:00:00Z', null],
    ['1900-01-01', null],
  ])('%j → %s', (text, expected) => {
    expect(parsePageDate(text, NOW)).toBe(expected);
  });
});

describe('the future', () => {
  // NOW is 2025-06-01T12:00Z; NOW + 14 h is 2025-06-02T02:00Z
  it.each([
    ['2025-06-01T12:00:00Z', Date.UTC(2025, 5, 1, 12, 0)],
    ['2025-06-02T02:00:00Z', Date.UTC(2025, 5, 2, 2, 0)],
    ['2025-06-02T02:00:00.001Z', null],
    ['2025-06-02T02:00:01Z', null],
    // tomorrow's date alone (midnight UTC) is already today somewhere east
    ['2025-06-02', Date.UTC(2025, 5, 2)],
    ['2025-06-03', null],
    // the same instant written with an offset
    ['2025-06-02T04:00:00+02:00', Date.UTC(2025, 5, 2, 2, 0)],
    ['2025-06-02T04:01:00+02:00', null],
    ['2030-01-01', null],
    ['9999-12-31', null],
    ['9999999999', null],
  ])('%j → %s', (text, expected) => {
    expect(parsePageDate(text, NOW)).toBe(expected);
  });

  it('is measured from the reading time it is given', () => {
    expect(parsePageDate('2025-06-03', NOW)).toBeNull();
    expect(parsePageDate('2025-06-03', Date.UTC(2025, 5, 3, 0, 0))).toBe(Date.UTC(2025, 5, 3));
    expect(parsePageDate('2024-03-05', Date.UTC(2024, 2, 4, 10, 0))).toBe(Date.UTC(2024, 2, 5));
    expect(parsePageDate('2024-03-05', Date.UTC(2024, 2, 4, 9, 59))).toBeNull();
  });
});
