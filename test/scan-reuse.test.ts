// scan's reuse: pairs sharing passages (against every pair compared directly), the site a page
// names, the text section and the --compare view.
import { describe, expect, it } from 'vitest';
import { compareView, rareWordsView } from '../lib/scan/compare-view';
import { passageFingerprints } from '../lib/fingerprint/passages';
import { comparePassages } from '../lib/index/passage-index';
import { mulberry32 } from '../lib/random';
import { findScanReuse, formatReuse, reuseDocument, siteOfHtml } from '../lib/scan/reuse';

function wordsFrom(seed: number) {
  const random = mulberry32(seed);
  return (n: number): string[] => Array.from({ length: n }, () => `w${Math.floor(random() * 20000)}`);
}
const join = (...parts: string[][]): string => parts.flat().join(' ');

describe('findScanReuse', () => {
  // Ten texts cut from three sources: excerpts, stitched halves, quotes and unrelated texts.
  const sources = [wordsFrom(1)(400), wordsFrom(2)(400), wordsFrom(3)(400)];
  const texts = [
    join(sources[0]!),
    join(sources[1]!),
    join(sources[2]!),
    join(sources[0]!.slice(0, 120)),
    join(sources[0]!.slice(0, 200), sources[1]!.slice(200)),
    join(wordsFrom(4)(150), sources[2]!.slice(50, 110), wordsFrom(5)(150)),
    join(wordsFrom(6)(150), sources[2]!.slice(300, 329), wordsFrom(7)(150)), // 29 words: too short
    join(wordsFrom(8)(300)),
    '',
    join(sources[1]!.slice(390), wordsFrom(9)(100)),
  ];
  const documents = texts.map((text, i) => reuseDocument(`d${i}`, text || null, null));

  it('equals comparing every pair directly (no boilerplate among ten pages)', async () => {
    const fps = texts.map((t) => passageFingerprints(t));
    const expected = [];
    for (let a = 0; a < texts.length; a++) {
      for (let b = a + 1; b < texts.length; b++) {
        const found = comparePassages(fps[a]!, fps[b]!);
        if (found.passages.length) expected.push({ a: `d${a}`, b: `d${b}`, aShare: Math.round(found.share * 1000) / 1000, bShare: Math.round(found.otherShare * 1000) / 1000, passages: found.passages.length });
      }
    }
    expect(await findScanReuse(documents)).toEqual(expected);
    expect(expected.map((r) => `${r.a}-${r.b}`)).toEqual(['d0-d3', 'd0-d4', 'd1-d4', 'd2-d5', 'd3-d4']);
    expect(expected.find((r) => r.a === 'd0' && r.b === 'd3')).toMatchObject({ aShare: 0.3, bShare: 1, passages: 1 });
    expect(expected.find((r) => r.a === 'd2' && r.b === 'd5')).toMatchObject({ aShare: 0.15, bShare: 0.167, passages: 1 });
  });

  it('leaves out the pairs already near-duplicates, in either order', async () => {
    const reuse = await findScanReuse(documents, (a, b) => [a, b].sort().join() === 'd0,d3');
    expect(reuse.map((r) => `${r.a}-${r.b}`)).toEqual(['d0-d4', 'd1-d4', 'd2-d5', 'd3-d4']);
  });

  it('leaves out a box repeated on 20 pages of one site, and finds the same box on pages of 20 sites', async () => {
    const box = wordsFrom(10)(60);
    const pages = Array.from({ length: 20 }, (_, i) => join(wordsFrom(100 + i)(120), box, wordsFrom(200 + i)(40)));
    const oneSite = pages.map((text, i) => reuseDocument(`p${i}`, text, 'farm.example'));
    expect(await findScanReuse(oneSite)).toEqual([]);
    const manySites = pages.map((text, i) => reuseDocument(`p${i}`, text, `site${i}.example`));
    expect(await findScanReuse(manySites)).toHaveLength((20 * 19) / 2);
  });
});

describe('siteOfHtml', () => {
  it.each<[string, string, string | null]>([
    ['canonical link', '<head><link rel="canonical" href="https://www.example.com/a/b"></head>', 'example.com'],
    ['og:url before og:site_name', `<meta property="og:site_name" content="The Courier"><meta property='og:url' content='https://news.example.org/x'>`, 'news.example.org'],
    ['og:site_name only', '<meta property="og:site_name" content=" The Estuary Courier ">', 'The Estuary Courier'],
    ['relative canonical is skipped', '<link rel="canonical" href="/a"><meta name="og:site_name" content="S">', 'S'],
    ['nothing', '<html><head><title>x</title></head></html>', null],
  ])('%s', (_name, html, expected) => {
    expect(siteOfHtml(html)).toBe(expected);
  });
});

describe('formatReuse', () => {
  it('prints a line per pair with its shares, and the count when there are none', () => {
    const text = formatReuse([{ a: 'x.html', b: 'y.html', aShare: 0.3, bShare: 1, passages: 1 }], (p) => (p === 'x.html' ? '#1' : '#2'));
    expect(text.split('\n')).toEqual([
      'Pairs sharing passages of 30 words or more (1)',
      '  passages  share of a  share of b  a / b',
      '         1         30%        100%  #1 x.html  /  #2 y.html',
      '  (npm run scan -- --compare A B shows them side by side)',
      '',
    ]);
    expect(formatReuse([])).toBe('Pairs sharing passages of 30 words or more (0)\n');
  });
});

describe('compareView', () => {
  const source = wordsFrom(20)(200);
  const a = { name: 'a.txt', text: join(source) };
  const b = { name: 'b.txt', text: join(wordsFrom(21)(50), source.slice(100, 160), wordsFrom(22)(50)) };

  it('marks each passage with [[ ]] in both columns, lines within the width', () => {
    const whole = compareView(a, b, { columns: 80, context: 2 });
    // the passages, then the rare words (rareWordsView, tested below)
    const view = whole.slice(0, whole.indexOf('\nRare words'));
    expect(whole.endsWith(rareWordsView(a, b, { columns: 80 }))).toBe(true);
    const lines = view.split('\n');
    expect(lines.slice(0, 4)).toEqual(['A: a.txt (200 words, 30% in shared passages)', 'B: b.txt (160 words, 38% in shared passages)', '', "1 shared passage of 30 words or more, in A's order:"]);
    expect(lines[5]).toBe('1. A words 101–160 (60) · B words 51–110 (60)');
    expect(view).toContain(`[[${source[100]}`);
    expect(view).toContain(`${source[159]}]]`);
    const left = lines.slice(6).filter(Boolean).map((l) => l.split(' │ ')[0]!).join(' ');
    const right = lines.slice(6).filter(Boolean).map((l) => l.split(' │ ')[1] ?? '').join(' ');
    expect(left.replace(/\s+/g, ' ').trim()).toBe(`… ${source[98]} ${source[99]} [[${source.slice(100, 160).join(' ')}]] ${source[160]} ${source[161]} …`);
    expect(right.replace(/\s+/g, ' ').trim()).toContain(`[[${source.slice(100, 160).join(' ')}]]`);
    for (const line of whole.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('colours the passage on a terminal, closing the colour at each line end', () => {
    const view = compareView(a, b, { columns: 60, colour: true });
    expect(view).not.toContain('[[');
    expect(view).toContain(`\x1b[1;33m${source[100]}`);
    for (const line of view.split('\n').filter((l) => l.includes(' │ '))) {
      const left = line.split(' │ ')[0]!;
      expect(left.split('\x1b[1;33m').length).toBe(left.split('\x1b[0m').length);
    }
  });

  it('says so when nothing is shared', () => {
    expect(compareView(a, { name: 'c.txt', text: join(wordsFrom(23)(100)) })).toContain('No shared passage of 30 words or more.');
  });

  it('lists both texts\' rare words in order, marking those the other has, with the rewrite verdict', () => {
    const original = 'In 2016, Yahoo agreed to sell its web business to Verizon for $4.8 billion. Marissa Mayer said the deal closed in June 2017. AOL and Yahoo then formed Oath, led by Tim Armstrong.';
    const spanish = 'En 2016, Yahoo aceptó vender su negocio web a Verizon por 4.800 millones de dólares. Marissa Mayer dijo que el acuerdo se cerró en junio de 2017. AOL y Yahoo formaron entonces Oath, dirigida por Tim Armstrong.';
    const view = rareWordsView({ name: 'a', text: original }, { name: 'b', text: spanish }, { columns: 100 });
    expect(view).toMatch(/: a translation \(en \/ es\)\.\n/);
    for (const word of ['[[2016]]', '[[Yahoo]]', '[[Verizon]]', '[[4.8 billion]]', '[[4.800 millones]]', '[[June]]', '[[junio]]', '[[2017]]', '[[Oath]]']) expect(view).toContain(word);
    const unrelated = rareWordsView({ name: 'a', text: original }, { name: 'c', text: 'Nothing here names anyone; it is all plain words about the weather and the sea.' });
    expect(unrelated).toMatch(/: not a rewrite\.\n/);
    expect(unrelated).toContain('B: no names, rare words or numbers: nothing to compare');
  });
});
