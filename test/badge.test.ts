// lib/ui/badge.ts: the toolbar badge's number and its title in words, each count with its own plural,
// in the three languages.
import { describe, expect, it } from 'vitest';
import { badgeText, badgeTitle } from '../lib/ui/badge';
import { localizerFor } from './support/catalogues';

describe('the badge', () => {
  it('counts the near-duplicates, the pages sharing passages and the rewrites together; nothing when there is none', () => {
    expect([badgeText(0, 0), badgeText(2, 0), badgeText(0, 3), badgeText(2, 3), badgeText(0, 0, 1), badgeText(2, 3, 4)]).toEqual(['', '2', '3', '5', '1', '9']);
  });

  it.each([
    ['en', 0, 0, 1, 'Doppel: 1 page you have read tells the same story as this one in other words'],
    ['en', 0, 0, 2, 'Doppel: 2 pages you have read tell the same story as this one in other words'],
    ['en', 1, 0, 2, 'Doppel: among the pages you have read, 1 is a near-duplicate of this one and 2 tell the same story in other words'],
    ['en', 0, 3, 1, 'Doppel: among the pages you have read, 3 share passages with it and 1 tells the same story in other words'],
    ['en', 2, 3, 1, 'Doppel: among the pages you have read, 2 are near-duplicates of this one, 3 share passages with it and 1 tells the same story in other words'],
    ['es', 0, 0, 1, 'Doppel: 1 página que has leído cuenta la misma historia que esta con otras palabras'],
    ['es', 1, 1, 2, 'Doppel: entre las páginas que has leído, 1 es un casi duplicado de esta, 1 comparte pasajes con ella y 2 cuentan la misma historia con otras palabras'],
    ['zh_CN', 0, 0, 2, 'Doppel：你读过的网页中有 2 个用不同的措辞讲述与此页相同的文章'],
    ['zh_CN', 2, 0, 1, 'Doppel：你读过的网页中，2 个与此页近似重复，1 个用不同的措辞讲述同一篇文章'],
  ] as const)('%s: %d near-duplicates, %d pages sharing passages, %d rewrites', (folder, matches, passages, rewrites, title) => {
    expect(badgeTitle(localizerFor(folder), matches, passages, rewrites)).toBe(title);
  });

  it.each([
    ['en', 0, 0, 'Doppel'],
    ['en', 1, 0, 'Doppel: 1 near-duplicate of this page among the pages you have read'],
    ['en', 0, 1, 'Doppel: 1 page you have read shares passages with this one'],
    ['en', 0, 3, 'Doppel: 3 pages you have read share passages with this one'],
    ['en', 2, 3, 'Doppel: among the pages you have read, 2 are near-duplicates of this one and 3 share passages with it'],
    ['en', 1, 1, 'Doppel: among the pages you have read, 1 is a near-duplicate of this one and 1 shares passages with it'],
    ['en', 1234, 2, 'Doppel: among the pages you have read, 1,234 are near-duplicates of this one and 2 share passages with it'],
    ['es', 0, 1, 'Doppel: 1 página que has leído comparte pasajes con esta'],
    ['es', 0, 4, 'Doppel: 4 páginas que has leído comparten pasajes con esta'],
    ['es', 2, 1, 'Doppel: entre las páginas que has leído, 2 son casi duplicados de esta y 1 comparte pasajes con ella'],
    ['es', 1, 3, 'Doppel: entre las páginas que has leído, 1 es un casi duplicado de esta y 3 comparten pasajes con ella'],
    ['es', 1_000_000, 1, 'Doppel: entre las páginas que has leído, 1.000.000 de ellas son casi duplicados de esta y 1 comparte pasajes con ella'],
    ['zh_CN', 0, 3, 'Doppel：你读过的网页中有 3 个与此页有相同的段落'],
    ['zh_CN', 2, 3, 'Doppel：你读过的网页中，2 个与此页近似重复，3 个与此页有相同的段落'],
    ['zh_CN', 2, 0, 'Doppel：你读过的网页中有 2 个与此页近似重复'],
  ] as const)('%s: %d near-duplicates, %d pages sharing passages', (folder, matches, passages, title) => {
    expect(badgeTitle(localizerFor(folder), matches, passages)).toBe(title);
  });
});
