// The stored form of a page (lib/rows/codec.ts): every field back as
// it went in, and a damaged value refused with the field named.
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { type PageValue, decodePage, encodePage } from '../lib/rows/codec';

const PAGE: PageValue = {
  id: 123_456_789_012,
  url: 'https://www.harbour-council.example/news/2025/03/the-tide-mill-reopens',
  title: 'The tide mill reopens — «ouverture» 潮汐磨坊',
  site: 'www.harbour-council.example',
  simhash: '0123456789abcdef',
  check: 'fedcba9876543210',
  firstSeen: 1_700_000_123_456,
  lastSeen: 1_700_000_223_457,
  visits: 3,
};

describe('encodePage and decodePage', () => {
  it.each([
    { name: 'a page', page: PAGE, fingerprintBytes: 16 },
    { name: 'a page whose check is unknown (imported without one)', page: { ...PAGE, check: '' }, fingerprintBytes: 8 },
    { name: 'a page in a group', page: { ...PAGE, group: 'g-00af' }, fingerprintBytes: 16 },
    { name: 'a copy: group and copySite', page: { ...PAGE, group: 'g-00af', copySite: 'news.example' }, fingerprintBytes: 16 },
    { name: 'copySite without a group', page: { ...PAGE, copySite: 'news.example' }, fingerprintBytes: 16 },
    { name: 'a passage copy', page: { ...PAGE, contentCopy: true as const }, fingerprintBytes: 16 },
    { name: 'a passage copy in a group, a copy of its root too', page: { ...PAGE, group: 'g-00af', copySite: 'news.example', contentCopy: true as const }, fingerprintBytes: 16 },
    { name: 'fingerprints of all zeros and all ones', page: { ...PAGE, simhash: '0000000000000000', check: 'ffffffffffffffff' }, fingerprintBytes: 16 },
    { name: 'an unreadable simhash, kept as text', page: { ...PAGE, simhash: 'not a fingerprint', check: '' }, fingerprintBytes: null },
    { name: 'an uppercase check, kept as text', page: { ...PAGE, check: 'FEDCBA9876543210' }, fingerprintBytes: null },
    { name: 'an empty title, no visits, a date at 0', page: { ...PAGE, title: '', visits: 0, firstSeen: 0 }, fingerprintBytes: 16 },
    { name: 'a publication time alone', page: { ...PAGE, published: 1_699_000_020_000 }, fingerprintBytes: 16 },
    { name: 'a publication time and a canonical source', page: { ...PAGE, published: 1_699_000_000_000 - 40_000, source: 'https://origin.example/story', sourceBy: 'canonical' as const }, fingerprintBytes: 16 },
    { name: 'a credited source without a date, on a copy in a group', page: { ...PAGE, group: 'g-1', copySite: 'www.harbour-council.example', source: 'https://origin.example/story?id=3', sourceBy: 'credit' as const }, fingerprintBytes: 16 },
    { name: 'a content copy with a date', page: { ...PAGE, contentCopy: true as const, published: 0 }, fingerprintBytes: 16 },
  ])('give back $name exactly', ({ page, fingerprintBytes }) => {
    const stored = encodePage(page);
    expect(stored[2] instanceof Uint8Array ? stored[2].length : null).toBe(fingerprintBytes);
    expect(decodePage(page.id, structuredClone(stored))).toEqual(page);
  });

  it('do not store the site: it is the URL host', () => {
    const stored = encodePage(PAGE);
    expect(stored).not.toContain(PAGE.site);
    expect(decodePage(PAGE.id, stored).site).toBe('www.harbour-council.example');
    expect(decodePage(7, encodePage({ ...PAGE, url: 'http://127.0.0.1:8080/a' })).site).toBe('127.0.0.1:8080');
  });

  it('take about half the bytes of the record as an object with its table keys as strings, in V8 serialization, as IndexedDB writes it', () => {
    const version5 = { ...PAGE, keys: ['0:0123', '1:4567', '2:89ab', '3:cdef'] };
    const before = serialize(version5).length;
    const after = serialize(encodePage(PAGE)).length;
    // the URL and title alone take about 140 bytes of both
    expect(after / before).toBeLessThan(0.65);
  });

  const good = encodePage({ ...PAGE, group: 'g', copySite: 'c.example' }) as unknown[];
  const with_ = (i: number, v: unknown): unknown[] => good.map((x, j) => (j === i ? v : x));
  it.each([
    { name: 'an object', value: { url: PAGE.url }, why: 'it is not a list of 6 to 12 fields' },
    { name: 'too short', value: good.slice(0, 5), why: 'it is not a list of 6 to 12 fields' },
    { name: 'too long', value: [...good, 1, 1, 'https://x.example/', 1, 2], why: 'it is not a list of 6 to 12 fields' },
    { name: 'a ninth field that is not 1', value: [...good, true], why: 'its ninth field is not 1' },
    { name: 'a ninth field that is not 0 or 1 before a date', value: [...good, 2, 28_000_000], why: 'its ninth field is not 0 or 1' },
    { name: 'a date that is text', value: [...good, 0, '2025-01-01'], why: 'its published time is not a whole number of minutes' },
    { name: 'a fractional date', value: [...good, 0, 1.5], why: 'its published time is not a whole number of minutes' },
    { name: 'neither a date nor a source', value: [...good, 0, null], why: 'it has neither a published time nor a source' },
    { name: 'a source that is not an address', value: [...good, 0, null, 'javascript:alert(1)'], why: 'its source is not an http(s) address' },
    { name: 'a twelfth field that is not 1', value: [...good, 0, null, 'https://x.example/', 'credit'], why: 'its twelfth field is not 1' },
    { name: 'a null copySite without contentCopy', value: with_(7, null), why: 'its copySite is not text' },
    { name: 'a URL that is a number', value: with_(0, 5), why: 'its URL is not text' },
    { name: 'a URL that is not a URL', value: with_(0, 'nowhere'), why: 'its URL "nowhere" is not a URL' },
    { name: 'a title that is null', value: with_(1, null), why: 'its title is not text' },
    { name: '12 bytes of fingerprints', value: with_(2, new Uint8Array(12)), why: 'its fingerprints are not 8 or 16 bytes, nor two strings' },
    { name: 'fingerprints as one string', value: with_(2, ['0123456789abcdef']), why: 'its fingerprints are not 8 or 16 bytes, nor two strings' },
    { name: 'a firstSeen that is text', value: with_(3, '2025-01-01'), why: 'its firstSeen is not a time' },
    { name: 'a lastSeen that is NaN', value: with_(4, Number.NaN), why: 'its lastSeen is not a time' },
    { name: 'negative visits', value: with_(5, -1), why: 'its visits are not a count' },
    { name: 'fractional visits', value: with_(5, 1.5), why: 'its visits are not a count' },
    { name: 'a group that is a number', value: with_(6, 3), why: 'its group is not text' },
    { name: 'a null group alone', value: [...good.slice(0, 6), null], why: 'it has a null group and no copySite' },
  ])('refuses $name, naming it', ({ value, why }) => {
    expect(() => decodePage(42, value)).toThrow(`Doppel's stored page 42 is damaged: ${why}.`);
  });
});
