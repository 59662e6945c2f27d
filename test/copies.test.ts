// The copy rule (lib/report/copies.ts), table-driven: which page can copy which, the share that
// makes a passage copy, and what counts as a copy.
import { describe, expect, it } from 'vitest';
import { PASSAGE_COPY_SHARE, isCopy, isPassageCopy, isPassageCopyOf, mayCopy } from '../lib/report/copies';

const page = (site: string, firstSeen: number, url = `https://${site}/p`) => ({ site, firstSeen, url });

describe('the copy rule', () => {
  it.each([
    ['an earlier page of another site', page('b.example', 2), page('a.example', 1), true],
    ['a later page of another site', page('b.example', 1), page('a.example', 2), false],
    ['an earlier page of the same site', page('a.example', 2, 'https://a.example/2'), page('a.example', 1, 'https://a.example/1'), false],
    ['the same moment, the smaller URL first', page('b.example', 1, 'https://b.example/x'), page('a.example', 1, 'https://a.example/x'), true],
    ['the same moment, the larger URL later', page('a.example', 1, 'https://a.example/x'), page('b.example', 1, 'https://b.example/x'), false],
  ])('mayCopy: %s → %s', (_what, copy, source, expected) => {
    expect(mayCopy(copy, source)).toBe(expected);
  });

  it.each([
    [0.5, true],
    [PASSAGE_COPY_SHARE, true],
    [0.4999, false],
    [1, true],
    [0, false],
  ])('isPassageCopyOf an earlier page of another site at share %f → %s', (share, expected) => {
    expect(isPassageCopyOf(page('b.example', 2), page('a.example', 1), share)).toBe(expected);
    expect(isPassageCopyOf(page('b.example', 2), page('a.example', 1), () => share)).toBe(expected);
  });

  it('works out a lazy share only when the source can be copied', () => {
    let asked = 0;
    const share = (): number => {
      asked++;
      return 1;
    };
    expect(isPassageCopyOf(page('a.example', 1), page('b.example', 2), share)).toBe(false);
    expect(asked).toBe(0);
    expect(isPassageCopyOf(page('b.example', 2), page('a.example', 1), share)).toBe(true);
    expect(asked).toBe(1);
  });

  it('isPassageCopy: any match makes it; none, or only later or same-site pages, do not', () => {
    const copy = page('b.example', 5);
    expect(isPassageCopy(copy, [])).toBe(false);
    expect(isPassageCopy(copy, [{ record: page('c.example', 9), match: { share: 0.9 } }, { record: page('b.example', 1, 'https://b.example/0'), match: { share: 0.9 } }])).toBe(false);
    expect(isPassageCopy(copy, [{ record: page('a.example', 1), match: { share: 0.3 } }, { record: page('c.example', 2), match: { share: 0.6 } }])).toBe(true);
  });

  it.each([
    [{}, false],
    [{ copySite: 'b.example' }, true],
    [{ contentCopy: true as const }, true],
    [{ copySite: 'b.example', contentCopy: true as const }, true],
  ])('isCopy %j → %s', (record, expected) => {
    expect(isCopy(record)).toBe(expected);
  });
});
