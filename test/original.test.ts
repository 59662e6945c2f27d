// Which of two pages of one story is the original (lib/report/original.ts): the rule's four steps
// one table each, their ties, forged and backdated dates, and the group's original whatever the
// order its pages are given in.
import { describe, expect, it } from 'vitest';
import { type Claims, PUBLISHED_MARGIN_MS, addressKey, findOriginal, judgeOriginal, names, originalAmong, sameClaims } from '../lib/report/original';
import { mulberry32 } from '../lib/random';

const DAY = 86_400_000;
const T = Date.UTC(2026, 0, 10);

/** A page of `site` (its URL https://SITE/story), first seen `seen` days after T, with these claims. */
function page(site: string, seen: number, claims: Omit<Claims, 'url' | 'site' | 'firstSeen'> = {}): Claims {
  return { url: `https://${site}/story`, site, firstSeen: T + seen * DAY, ...claims };
}

const ORIGINAL_URL = 'https://pub.example/story';

describe('names', () => {
  it.each([
    ['the page itself', ORIGINAL_URL, 'page'],
    ['the page over http, with www. and a trailing slash', 'http://www.pub.example/story/', 'page'],
    ['the page with a fragment', 'https://pub.example/story#top', 'page'],
    ['another page of its site', 'https://pub.example/other', 'site'],
    ['its site through m.', 'https://m.pub.example/', 'site'],
    ['another site', 'https://else.example/story', null],
    ['a page of the same path with another query', 'https://pub.example/story?id=2', 'site'],
  ] as const)('a source naming %s', (_, source, want) => {
    expect(names(page('copy.example', 0, { source, sourceBy: 'canonical' }), page('pub.example', 1))).toBe(want);
  });

  it('no source names nothing', () => {
    expect(names(page('copy.example', 0), page('pub.example', 1))).toBeNull();
  });

  it('addressKey: one key for the spellings of one page, another for another page', () => {
    expect(addressKey('https://www.pub.example/a/b/?x=1')).toBe('pub.example/a/b?x=1');
    expect(addressKey('http://pub.example/a/b?x=1')).toBe('pub.example/a/b?x=1');
    expect(addressKey('https://pub.example/a/c')).not.toBe(addressKey('https://pub.example/a/b'));
    expect(addressKey('not a url')).toBe('not a url');
  });
});

describe('judgeOriginal', () => {
  const pub = 'pub.example';
  const copy = 'copy.example';
  // [what, a, b, the original (a or b), evidence]
  it.each<[string, Claims, Claims, 'a' | 'b', string]>([
    // 1. naming the other page
    ['a canonical link to the other page, though seen first', page(copy, 0, { source: ORIGINAL_URL, sourceBy: 'canonical' }), page(pub, 5), 'b', 'canonical'],
    ['a credit link to the other page, though seen first', page(copy, 0, { source: ORIGINAL_URL, sourceBy: 'credit' }), page(pub, 5), 'b', 'credit'],
    ['a credit link to the other page beats an earlier forged date', page(copy, 0, { published: T - 30 * DAY, source: ORIGINAL_URL, sourceBy: 'credit' }), page(pub, 5, { published: T }), 'b', 'credit'],
    ['the named page is the original when the namer is given second', page(pub, 5), page(copy, 0, { source: ORIGINAL_URL, sourceBy: 'canonical' }), 'a', 'canonical'],
    ['each names the other page: the dates decide', page('x.example', 0, { published: T, source: 'https://y.example/story', sourceBy: 'canonical' }), page('y.example', 1, { published: T - 3 * DAY, source: 'https://x.example/story', sourceBy: 'canonical' }), 'b', 'published'],
    ['each names the other page, no dates: seen first', page('x.example', 0, { source: 'https://y.example/story', sourceBy: 'canonical' }), page('y.example', 1, { source: 'https://x.example/story', sourceBy: 'credit' }), 'a', 'seen'],
    ['a page named beats one naming its site only', page('x.example', 0, { source: 'https://y.example/', sourceBy: 'credit' }), page('y.example', 1, { source: 'https://x.example/story', sourceBy: 'canonical' }), 'a', 'canonical'],
    // 1. naming the other site only: the copy unless the dates say otherwise
    ['naming the site only, no dates', page(copy, 0, { source: 'https://pub.example/', sourceBy: 'credit' }), page(pub, 5), 'b', 'credit'],
    ['naming the site only, its date later', page(copy, 0, { published: T + 2 * DAY, source: 'https://pub.example/', sourceBy: 'credit' }), page(pub, 5, { published: T }), 'b', 'credit'],
    ['naming the site only, its date the same day', page(copy, 0, { published: T, source: 'https://pub.example/', sourceBy: 'credit' }), page(pub, 5, { published: T }), 'b', 'credit'],
    ['naming the site only, its date two days earlier: the dates contradict it', page(copy, 0, { published: T - 2 * DAY, source: 'https://pub.example/', sourceBy: 'credit' }), page(pub, 5, { published: T }), 'a', 'published'],
    ['naming the site only, a date before the other was seen, which claims none: contradicted', page(copy, 4, { published: T, source: 'https://pub.example/', sourceBy: 'canonical' }), page(pub, 5), 'a', 'published'],
    ['both naming each other’s site: neither decides', page('x.example', 0, { source: 'https://y.example/', sourceBy: 'credit' }), page('y.example', 1, { source: 'https://x.example/', sourceBy: 'credit' }), 'a', 'seen'],
    // 2. both claim a date, more than a day apart
    ['the earlier date, though seen later', page(copy, 0, { published: T + 3 * DAY }), page(pub, 5, { published: T }), 'b', 'published'],
    ['the earlier date, given second or first', page(pub, 5, { published: T }), page(copy, 0, { published: T + 3 * DAY }), 'a', 'published'],
    ['a backdated copy wins (the known limit)', page(pub, 0, { published: T }), page(copy, 5, { published: T - 10 * DAY }), 'b', 'published'],
    ['dates exactly a day apart: seen first', page(copy, 0, { published: T + PUBLISHED_MARGIN_MS }), page(pub, 5, { published: T }), 'a', 'seen'],
    ['dates a day and a minute apart: the earlier', page(copy, 0, { published: T + PUBLISHED_MARGIN_MS + 60_000 }), page(pub, 5, { published: T }), 'b', 'published'],
    ['the same date: seen first', page(copy, 0, { published: T }), page(pub, 5, { published: T }), 'a', 'seen'],
    // 3. one claims a date before the other was first seen; the other claims none
    ['a date before the other was seen', page(copy, 2), page(pub, 5, { published: T + DAY }), 'b', 'published'],
    ['a date before the other was seen, given first', page(pub, 5, { published: T + DAY }), page(copy, 2), 'a', 'published'],
    ['a date after the other was seen: seen first', page(copy, 2), page(pub, 5, { published: T + 3 * DAY }), 'a', 'seen'],
    ['a date at the moment the other was seen: seen first', page(copy, 2), page(pub, 5, { published: T + 2 * DAY }), 'a', 'seen'],
    // 4. seen first
    ['no claims: seen first', page(copy, 0), page(pub, 5), 'a', 'seen'],
    ['no claims, seen at once: by URL', page('b.example', 0), page('a.example', 0), 'b', 'seen'],
    ['sources on unrelated sites say nothing: seen first', page(copy, 0, { source: 'https://else.example/x', sourceBy: 'canonical' }), page(pub, 5), 'a', 'seen'],
  ])('%s', (_, a, b, want, evidence) => {
    const verdict = judgeOriginal(a, b);
    expect(verdict.original).toBe(want === 'a' ? a : b);
    expect(verdict.copy).toBe(want === 'a' ? b : a);
    expect(verdict.evidence).toBe(evidence);
    // the same verdict whichever page comes first
    const swapped = judgeOriginal(b, a);
    expect([swapped.original, swapped.evidence]).toEqual([verdict.original, verdict.evidence]);
  });
});

describe('originalAmong', () => {
  const pub = page('pub.example', 6, { published: T });
  const late = page('farm-late.example', 0, { published: T + 4 * DAY });
  const nodate = page('farm-nodate.example', 1);
  const partner = page('partner.example', 2, { published: T + DAY / 2, source: ORIGINAL_URL, sourceBy: 'canonical' });

  it('the page every other loses to, however the pages are ordered', () => {
    const pages = [late, nodate, partner, pub];
    const random = mulberry32(46);
    for (let i = 0; i < 50; i++) {
      const shuffled = [...pages].sort(() => random() - 0.5);
      expect(originalAmong(shuffled)).toBe(pub);
    }
  });

  it('without any claim, the page seen first', () => {
    expect(originalAmong([page('b.example', 3), page('a.example', 1), page('c.example', 2)]).site).toBe('a.example');
  });

  it('one page is its own original; none is an error', () => {
    expect(originalAmong([pub])).toBe(pub);
    expect(() => originalAmong([])).toThrow('at least one page');
  });

  it('a cycle of verdicts is settled by the order of sight, the same for any order given', () => {
    // x names y's site (x the copy), y's date is 2 days after z's (z wins), z is seen after x with no claim against x
    const x = page('x.example', 0, { source: 'https://y.example/', sourceBy: 'credit' });
    const y = page('y.example', 1, { published: T + 5 * DAY });
    const z = page('z.example', 2, { published: T + 2 * DAY });
    expect([judgeOriginal(x, y).original, judgeOriginal(y, z).original, judgeOriginal(x, z).original]).toEqual([y, z, x]);
    const chosen = originalAmong([x, y, z]);
    for (const order of [[z, y, x], [y, x, z], [x, z, y]]) expect(originalAmong(order)).toBe(chosen);
  });
});

describe('findOriginal', () => {
  it('a copy read first: the original, the evidence against it, and by how many days', () => {
    const copy = page('farm.example', 0, { published: T + 3 * DAY + 5_000 });
    const original = page('pub.example', 4, { published: T });
    expect(findOriginal(copy, [original])).toEqual({ original, evidence: 'published', days: 3 });
  });

  it('a page that is the original: the evidence against the related page seen first', () => {
    const original = page('pub.example', 4, { published: T });
    const nodate = page('farm.example', 1);
    const partner = page('partner.example', 0, { source: ORIGINAL_URL, sourceBy: 'canonical' });
    expect(findOriginal(original, [nodate, partner])).toEqual({ original, evidence: 'canonical', days: null });
    // against a copy that claims no date, the days run to when it was first seen
    expect(findOriginal(original, [nodate])).toEqual({ original, evidence: 'published', days: 1 });
  });

  it('nothing related: nothing to say', () => {
    expect(findOriginal(page('a.example', 0), [])).toBeNull();
  });
});

describe('sameClaims', () => {
  it.each([
    [{}, {}, true],
    [{ published: T }, { published: T }, true],
    [{ published: T }, {}, false],
    [{ source: ORIGINAL_URL, sourceBy: 'canonical' as const }, { source: ORIGINAL_URL, sourceBy: 'credit' as const }, false],
    [{ source: ORIGINAL_URL, sourceBy: 'credit' as const }, { source: ORIGINAL_URL, sourceBy: 'credit' as const }, true],
  ])('%j and %j: %s', (a, b, want) => expect(sameClaims(a, b)).toBe(want));
});
