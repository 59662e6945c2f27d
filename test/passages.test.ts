// Passages: fingerprints with positions, matches chained into passages, shares, and the passage
// index with its boilerplate rule, checked against brute-force references on seeded texts.
import { describe, expect, it } from 'vitest';
import { MIN_PASSAGE_WORDS, PASSAGE_PARAMS, type PassageFingerprints, passageFingerprints } from '../lib/fingerprint/passages';
import { PassageIndex, comparePassages, findSharedPassages, passageCandidates } from '../lib/index/passage-index';
import { coveredShare, passageLength, sharedPassages } from '../lib/index/passage-match';
import { findReuse } from '../lib/scan/reuse';
import { mulberry32 } from '../lib/random';
import { hashRange } from '../lib/fingerprint/hash';

/** Seeded random words from a vocabulary of 20,000 ("w0" … "w19999"), so unrelated texts share only chance words. */
function wordsFrom(seed: number) {
  const random = mulberry32(seed);
  return (n: number): string[] => Array.from({ length: n }, () => `w${Math.floor(random() * 20000)}`);
}

const join = (...parts: string[][]): string => parts.flat().join(' ');

describe('passageFingerprints', () => {
  it(`uses k = 5, w = 26: w + k − 1 = ${MIN_PASSAGE_WORDS}`, () => {
    expect(PASSAGE_PARAMS.w + PASSAGE_PARAMS.k - 1).toBe(MIN_PASSAGE_WORDS);
  });

  it('keeps positions in order and within the text', () => {
    const text = join(wordsFrom(1)(500));
    const f = passageFingerprints(text);
    expect(f.words).toBe(500);
    expect(f.hashes.length).toBe(f.positions.length);
    for (let i = 1; i < f.positions.length; i++) expect(f.positions[i]).toBeGreaterThan(f.positions[i - 1]!);
    expect(f.positions.at(-1)).toBeLessThanOrEqual(500 - PASSAGE_PARAMS.k);
    // About 2 / (w + 1) of the k-grams are selected.
    expect(f.hashes.length).toBeGreaterThan(496 * 0.05);
    expect(f.hashes.length).toBeLessThan(496 * 0.1);
  });

  it('does not depend on case, punctuation or spacing', () => {
    expect(passageFingerprints('The Quick, brown fox; jumps over the lazy dog again.', { k: 3, w: 2 }).hashes).toEqual(
      passageFingerprints('the quick brown   FOX jumps over the lazy dog again', { k: 3, w: 2 }).hashes,
    );
  });

  it('rejects bad parameters', () => {
    expect(() => passageFingerprints('a b c', { k: 0, w: 3 })).toThrow('k and w must be positive integers: got k = 0, w = 3');
  });

  it.each([
    ['English with an expanding ß, ligatures and soft hyphens', 'Die Straße: ﬁne ﬂow, co\u00adop\u00aderation and Cafe\u0301 déjà vu. İstanbul!'],
    ['Chinese (characters)', '知乎上有个提问,小时候缺爱的女孩子,长大后该怎么办?'],
    ['Japanese with a character beyond the BMP', 'かな𠮷と東京大学へ行きます。'],
    ['Thai', 'ประเทศไทยมีประวัติศาสตร์ยาวนานและวัฒนธรรมที่หลากหลาย'],
  ])('hashes exactly the words wordSpans maps back to the text: %s', (_name, text) => {
    const f = passageFingerprints(text, { k: 2, w: 2 });
    const spans = f.spans;
    expect(spans.count).toBe(f.words);
    expect(f.words).toBeGreaterThan(5);
    const h = { hi: 0, lo: 0 };
    for (let i = 0; i < f.words; i++) expect(hashRange(spans.normalized, spans.normalizedStart[i]!, spans.normalizedEnd[i]!, h).lo).toBe(f.wordHashes[i]);
    expect(f.spans).toBe(spans); // worked out once
  });
});

describe('sharedPassages', () => {
  it('finds every shared run of 30 to 80 words exactly, wherever it sits, and nothing shorter than 30', () => {
    const random = mulberry32(30);
    const words = wordsFrom(31);
    for (let round = 0; round < 100; round++) {
      const length = 25 + Math.floor(random() * 56);
      const run = words(length);
      const beforeA = words(Math.floor(random() * 200));
      const beforeB = words(Math.floor(random() * 200));
      const a = passageFingerprints(join(beforeA, run, words(Math.floor(random() * 200))));
      const b = passageFingerprints(join(beforeB, run, words(Math.floor(random() * 200))));
      const passages = comparePassages(a, b).passages;
      if (length < MIN_PASSAGE_WORDS) {
        expect(passages, `a run of ${length}`).toEqual([]);
        continue;
      }
      expect(passages.map((p) => [p.a.start, p.a.end, p.b.start, p.b.end]), `a run of ${length}`).toEqual([
        [beforeA.length, beforeA.length + length, beforeB.length, beforeB.length + length],
      ]);
    }
  });

  it('gives spans in characters of the text as given', () => {
    const run = wordsFrom(2)(40);
    const aText = `Intro: ${run.join(', ')}. Outro!`;
    const bText = `Something else entirely — ${run.join(' ').toUpperCase()}`;
    const a = passageFingerprints(aText);
    const b = passageFingerprints(bText);
    const [p] = comparePassages(a, b).passages;
    expect(aText.slice(a.spans.start[p!.a.start], a.spans.end[p!.a.end - 1])).toBe(run.join(', '));
    expect(bText.slice(b.spans.start[p!.b.start], b.spans.end[p!.b.end - 1])).toBe(run.join(' ').toUpperCase());
  });

  it('chains a lightly edited copy (2% of words dropped or replaced) into passages covering almost all of it', () => {
    const words = wordsFrom(3);
    const original = words(800);
    const random = mulberry32(4);
    const edited = original.flatMap((w) => (random() >= 0.02 ? [w] : random() < 0.5 ? [] : words(1)));
    const found = comparePassages(passageFingerprints(join(original)), passageFingerprints(join(edited)));
    expect(found.share).toBeGreaterThan(0.9);
    expect(found.otherShare).toBeGreaterThan(0.9);
  });

  it('finds passages in a different order in each text, each in order within itself', () => {
    const words = wordsFrom(5);
    const [x, y, z] = [words(60), words(60), words(100)];
    const found = comparePassages(passageFingerprints(join(x, z, y)), passageFingerprints(join(y, words(50), x)));
    expect(found.passages.map((p) => [p.a.start, p.a.end, p.b.start, p.b.end])).toEqual([
      [0, 60, 110, 170],
      [160, 220, 0, 60],
    ]);
    expect(found.share).toBeCloseTo(120 / 220, 10);
    expect(found.otherShare).toBeCloseTo(120 / 170, 10);
  });

  it('from fingerprints without word bits (imported from an older file), spans the matched k-grams, inside the shared run', () => {
    const words = wordsFrom(6);
    const run = words(200);
    const { wordBits: _a, ...a } = passageFingerprints(join(words(50), run));
    const { wordBits, ...b } = passageFingerprints(join(run, words(50)));
    const passages = sharedPassages(a, b);
    // word bits on one side only change nothing
    expect(sharedPassages(a, { ...b, wordBits })).toEqual(passages);
    expect(passages).toHaveLength(1);
    const p = passages[0]!;
    expect(p.a.start).toBeGreaterThanOrEqual(50);
    expect(p.a.end).toBeLessThanOrEqual(250);
    expect(p.a.start - 50).toBe(p.b.start);
    // The first and last windows inside the run each select a k-gram within w of its ends.
    expect(passageLength(p)).toBeGreaterThanOrEqual(200 - 2 * PASSAGE_PARAMS.w + 2);
  });

  it('from fingerprints and word bits alone, finds every shared run of 30 to 80 words to within a few words of its ends, and rarely a phrase under 23', () => {
    // The reference is the run itself, where it was put; the word bits extend a match past it only
    // while they agree by chance (half the time a word), so a phrase of 23 words or fewer needs 8
    // chance words to reach 30.
    const random = mulberry32(60);
    const words = wordsFrom(61);
    const strip = ({ words: n, hashes, positions, wordBits }: PassageFingerprints): PassageFingerprints => ({ words: n, hashes, positions, wordBits });
    const endErrors: number[] = [];
    let phrasesFound = 0;
    for (let round = 0; round < 400; round++) {
      const length = round % 2 === 0 ? 30 + Math.floor(random() * 51) : 8 + Math.floor(random() * 16);
      const run = words(length);
      const beforeA = words(50 + Math.floor(random() * 100));
      const beforeB = words(50 + Math.floor(random() * 100));
      const a = strip(passageFingerprints(join(beforeA, run, words(100))));
      const b = strip(passageFingerprints(join(beforeB, run, words(100))));
      const passages = sharedPassages(a, b);
      if (length < MIN_PASSAGE_WORDS) {
        phrasesFound += passages.length;
        continue;
      }
      expect(passages, `a run of ${length}`).toHaveLength(1);
      const p = passages[0]!;
      expect(p.a.start - beforeA.length).toBe(p.b.start - beforeB.length);
      endErrors.push(beforeA.length - p.a.start, p.a.end - (beforeA.length + length));
    }
    // never short of the run: the bits inside it agree
    expect(Math.min(...endErrors)).toBe(0);
    expect(endErrors.filter((e) => e <= 5).length / endErrors.length).toBeGreaterThanOrEqual(0.97);
    expect(phrasesFound).toBeLessThanOrEqual(2);
  });

  it('ignores the hashes it is told to (boilerplate)', () => {
    const run = wordsFrom(7)(100);
    const a = passageFingerprints(join(wordsFrom(8)(40), run));
    const b = passageFingerprints(join(run, wordsFrom(9)(40)));
    expect(comparePassages(a, b).passages).toHaveLength(1);
    expect(comparePassages(a, b, { ignore: () => true }).passages).toEqual([]);
  });
});

describe('coveredShare', () => {
  it.each<[string, [number, number][], number, number]>([
    ['nothing', [], 10, 0],
    ['one range', [[2, 7]], 10, 0.5],
    ['overlapping ranges count once', [[0, 6], [4, 10]], 10, 1],
    ['nested and unsorted', [[5, 8], [0, 10], [1, 2]], 20, 0.5],
    ['no words', [], 0, 0],
  ])('%s', (_name, ranges, words, share) => {
    expect(coveredShare(ranges.map(([start, end]) => ({ start, end })), words)).toBe(share);
  });
});

describe('PassageIndex', () => {
  const pages = Array.from({ length: 60 }, (_, i) => {
    // Pages 0–29 on site "s", some sharing a 60-word block; the rest on no site.
    const words = wordsFrom(100 + i);
    const shared = i % 7 === 0 ? wordsFrom(99)(60) : [];
    return { fingerprints: passageFingerprints(join(words(150), shared, words(50))), site: i < 30 ? 's' : null };
  });

  it('gives as candidates exactly the pages sharing a hash that is not boilerplate (brute force)', () => {
    const index = new PassageIndex({ maxPages: 5, maxSitePages: 4 });
    pages.forEach((p, i) => index.add(i, p.fingerprints, p.site));
    pages.forEach((p, i) => {
      const expected = pages
        .map((q, j) => j)
        .filter((j) => j !== i && [...p.fingerprints.hashes].some((h) => !index.isBoilerplate(h) && pages[j]!.fingerprints.hashes.includes(h)));
      const candidates = passageCandidates(p.fingerprints, i, index.postingsOf(p.fingerprints.hashes), index.boilerplate, 1);
      expect(candidates.map((c) => c.id).sort((x, y) => x - y)).toEqual(expected);
    });
  });

  it('calls a hash boilerplate on more than maxPages pages, or on maxSitePages pages of one site', () => {
    const block = passageFingerprints(join(wordsFrom(99)(60))).hashes[0]!;
    const count = (maxPages: number, maxSitePages: number) => {
      const index = new PassageIndex({ maxPages, maxSitePages });
      pages.forEach((p, i) => index.add(i, p.fingerprints, p.site));
      return { df: index.documentFrequency(block), boilerplate: index.isBoilerplate(block) };
    };
    // The block is on pages 0, 7, …, 56: 9 pages, 5 of them on site "s".
    expect(count(100, 100)).toEqual({ df: 9, boilerplate: false });
    expect(count(8, 100)).toEqual({ df: 9, boilerplate: true });
    expect(count(9, 100)).toEqual({ df: 9, boilerplate: false });
    expect(count(100, 5)).toEqual({ df: 9, boilerplate: true });
    expect(count(100, 6)).toEqual({ df: 9, boilerplate: false });
  });

  it('judges boilerplate anew after a page is added: a lookup after it does not reuse the zones of one before', async () => {
    const index = new PassageIndex({ maxPages: 2, maxSitePages: 100 });
    // Pages 0 and 1 share 80 words and, right after them, a 60-word block that page 2 also holds.
    const own = wordsFrom(97)(80);
    const block = wordsFrom(98)(60);
    const a = passageFingerprints(join(wordsFrom(1)(150), own, block, wordsFrom(2)(150)));
    const b = passageFingerprints(join(wordsFrom(3)(150), own, block, wordsFrom(4)(150)));
    const c = passageFingerprints(join(wordsFrom(5)(150), block, wordsFrom(6)(150)));
    index.add(0, a);
    index.add(1, b);
    const before = await findSharedPassages(index, a, 0);
    expect(before.map((m) => m.id)).toEqual([1]);
    expect(before[0]!.passages.map((p) => passageLength(p))).toEqual([140]);
    // With page 2 the block is on more than maxPages pages: boilerplate, cut from the passage with
    // the words a boilerplate fingerprint's window may reach (w − 1 = 25) before it.
    index.add(2, c);
    const after = await findSharedPassages(index, a, 0);
    expect(after.map((m) => m.id)).toEqual([1]);
    expect(after[0]!.passages).toHaveLength(1);
    expect(passageLength(after[0]!.passages[0]!)).toBeGreaterThanOrEqual(80 - 25);
    expect(passageLength(after[0]!.passages[0]!)).toBeLessThanOrEqual(80);
  });

  it('refuses a page added twice and a rule that cannot work', () => {
    const index = new PassageIndex();
    index.add(7, pages[0]!.fingerprints);
    expect(() => index.add(7, pages[0]!.fingerprints)).toThrow('page 7 is already in the passage index');
    expect(() => new PassageIndex({ maxPages: 0, maxSitePages: 5 })).toThrow(RangeError);
  });
});

describe('findReuse', () => {
  it('pairs a quote and its source, not the pages that only share a promo on one site', async () => {
    const promo = wordsFrom(500)(45);
    const source = wordsFrom(501)(300);
    const pages = [
      { text: join(source), site: 'origin' },
      { text: join(wordsFrom(502)(200), source.slice(100, 160), wordsFrom(503)(200)), site: 'blog' },
      ...Array.from({ length: 25 }, (_, i) => ({ text: join(wordsFrom(600 + i)(200), promo, wordsFrom(700 + i)(30)), site: 'farm' })),
    ].map((p) => ({ fingerprints: passageFingerprints(p.text), site: p.site }));
    const reuse = await findReuse(pages);
    expect(reuse.map((r) => [r.a, r.b, r.passages.length])).toEqual([[0, 1, 1]]);
    expect(reuse[0]!.aShare).toBeCloseTo(60 / 300, 10);
    expect(reuse[0]!.bShare).toBeCloseTo(60 / 460, 10);
    // Without the site rule, the promo pages pair with one another.
    expect((await findReuse(pages, undefined, { maxPages: 100, maxSitePages: 1000 })).length).toBe(1 + (25 * 24) / 2);
    expect(await findReuse(pages, (a, b) => a === 0 && b === 1)).toEqual([]);
  });
});
