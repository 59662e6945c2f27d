// lib/report/fold.ts: matches sharing the same passages with a page made one entry, led by the
// page seen first. Table-driven: each case the matches in the store's order, and the entries.
import { describe, expect, it } from 'vitest';
import { type Foldable, foldSamePassages } from '../lib/report/fold';

const m = (url: string, firstSeen: number, hashes: number[]): Foldable => ({ url, firstSeen, hashes });
/** The entries as [lead, ...alsoIn] URLs. */
const urls = (matches: Foldable[]): string[][] => foldSamePassages(matches).map(({ lead, alsoIn }) => [lead.url, ...alsoIn.map((other) => other.url)]);

describe('foldSamePassages', () => {
  it.each<[string, Foldable[], string[][]]>([
    ['nothing', [], []],
    ['one match', [m('a', 5, [1, 2])], [['a']]],
    ['different hashes stay apart, in order', [m('a', 5, [1, 2]), m('b', 1, [1, 3])], [['a'], ['b']]],
    ['the same hashes: led by the page seen first', [m('copy', 9, [1, 2]), m('original', 3, [1, 2])], [['original', 'copy']]],
    ['a tie on firstSeen goes by URL', [m('b', 3, [7]), m('a', 3, [7]), m('c', 3, [7])], [['a', 'b', 'c']]],
    ['a subset is not the same passages', [m('a', 1, [1, 2, 3]), m('b', 2, [1, 2])], [['a'], ['b']]],
    ['the same hashes in another order are other passages', [m('a', 1, [1, 2]), m('b', 2, [2, 1])], [['a'], ['b']]],
    ['a group keeps the place of its first match', [m('x', 8, [4]), m('y', 1, [5]), m('z', 2, [4])], [['z', 'x'], ['y']]],
    ['matches without hashes are never folded', [m('a', 1, []), m('b', 2, [])], [['a'], ['b']]],
  ])('%s', (_name, matches, expected) => {
    expect(urls(matches)).toEqual(expected);
  });

  it('keeps the matches themselves (their other fields)', () => {
    const a = { ...m('a', 2, [1]), share: 0.4 };
    const b = { ...m('b', 1, [1]), share: 0.4 };
    const [entry] = foldSamePassages([a, b]);
    expect(entry!.lead).toBe(b);
    expect(entry!.alsoIn).toEqual([a]);
    expect(entry!.alsoIn[0]).toBe(a);
  });
});
