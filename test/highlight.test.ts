// Marking shared passages on the live page (lib/content/highlight.ts, lib/content/marks.ts), on
// linkedom. The worker's side is computed as the extension computes it: the page's HTML read with
// Readability (lib/background/html-reader.ts readHtml), passage fingerprints of that article text alone, and
// its hashes inside the passages it shares with an earlier page (sharedPassages from fingerprints
// alone, as for a page whose text is not kept). The page side then reads the whole live page
// (navigation, footer and all) and must mark exactly the words of those passages.
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { readHtml } from '../lib/background/html-reader';
import { PASSAGE_PARAMS, passageFingerprints } from '../lib/fingerprint/passages';
import { type PageText, type RangeBounds, type SharedSet, collectPageText, locatePassages, probablyHidden, rangeBounds, toDomRanges } from '../lib/content/highlight';
import { createPassageMarker } from '../lib/content/marks';
import { rewriteFingerprints, sharedAnchorRanges } from '../lib/fingerprint/rewrites';
import type { PassageMarks } from '../lib/protocol/tab-protocol';
import { type WordRange, sharedPassages } from '../lib/index/passage-match';
import { type PassageEnd, passageEnds } from '../lib/index/passage-index';
import { mulberry32 } from '../lib/random';
import { wordSpans } from '../lib/text/words';

const { k, w } = PASSAGE_PARAMS;
const linkedom = (html: string): Document => parseHTML(html).document as unknown as Document;

/** Seeded random words from a vocabulary of 20,000, so unrelated texts share only chance words. */
function wordsFrom(seed: number): (n: number) => string[] {
  const random = mulberry32(seed);
  return (n) => Array.from({ length: n }, () => `w${Math.floor(random() * 20000)}`);
}

/** Seeded random Chinese characters (the 20,902 of U+4E00 … U+9FA5). */
function hanziFrom(seed: number): (n: number) => string[] {
  const random = mulberry32(seed);
  return (n) => Array.from({ length: n }, () => String.fromCodePoint(0x4e00 + Math.floor(random() * 20902)));
}

/** Words as a reader sees them: a comma after every 7th word, a full stop after every 15th (Readability scores commas). */
const prose = (words: readonly string[]): string => words.map((x, i) => (i % 15 === 14 ? `${x}.` : i % 7 === 6 ? `${x},` : x)).join(' ');
const chineseProse = (chars: readonly string[]): string => chars.map((x, i) => (i % 20 === 19 ? `${x}。` : i % 9 === 8 ? `${x}，` : x)).join('');

/** The words passages are made of (normalised; Chinese characters one by one). */
function wordsOf(text: string): string[] {
  const s = wordSpans(text);
  return Array.from({ length: s.count }, (_, i) => s.normalized.slice(s.normalizedStart[i], s.normalizedEnd[i]));
}

/** Where `run` starts in `words` (it must occur exactly once). */
function indexOfRun(words: readonly string[], run: readonly string[]): number {
  const found: number[] = [];
  for (let i = 0; i + run.length <= words.length; i++) if (run.every((x, j) => words[i + j] === x)) found.push(i);
  expect(found, `the run ${run.slice(0, 3).join(' ')}… occurs once`).toHaveLength(1);
  return found[0]!;
}

/**
 * What the worker sends for one earlier page: the article's (Readability text's) passage
 * fingerprints inside the passages it shares with the earlier page, where those passages' ends
 * lie from them, and the passages (from both pages' fingerprints and word bits, as the store keeps them).
 */
function workerSide(articleText: string, earlierText: string): { hashes: number[]; ends: PassageEnd[]; passages: WordRange[] } {
  const { wordHashes: _c, ...current } = passageFingerprints(articleText);
  const { wordHashes: _e, ...earlier } = passageFingerprints(earlierText);
  const passages = sharedPassages(current, earlier).map((p) => p.a);
  const hashes: number[] = [];
  current.hashes.forEach((h, i) => {
    const at = current.positions[i]!;
    if (passages.some((p) => at >= p.start && at + k <= p.end)) hashes.push(h);
  });
  return { hashes, ends: passageEnds(current, passages), passages };
}

/** The page's HTML, as the content script sends it, read as the worker reads it. */
function workerText(html: string): string {
  const read = readHtml(html, 'https://news.example/story', linkedom);
  if (read.outcome.kind !== 'article') throw new Error(`not read as an article: ${read.outcome.message}`);
  return read.outcome.text;
}

/**
 * The text a DOM range covers, read from its nodes (not from page.text): the nodes' data between
 * the bounds, with a line break where the page's text has a block edge between two nodes.
 */
function domText(page: PageText, b: RangeBounds): string {
  const s = page.nodes.indexOf(b.startContainer);
  const e = page.nodes.indexOf(b.endContainer);
  expect(s).toBeGreaterThanOrEqual(0);
  expect(e).toBeGreaterThanOrEqual(s);
  let out = '';
  for (let i = s; i <= e; i++) {
    const data = page.nodes[i]!.data;
    if (i > s && page.starts[i] !== page.starts[i - 1]! + page.nodes[i - 1]!.data.length) out += '\n';
    out += data.slice(i === s ? b.startOffset : 0, i === e ? b.endOffset : data.length);
  }
  return out;
}

const page = (body: string): string =>
  `<!doctype html><html lang="en"><head><title>A story</title></head><body>${body}</body></html>`;

const NAV = (words: (n: number) => string[]) =>
  `<header><nav><ul>${Array.from({ length: 8 }, (_, i) => `<li><a href="/s${i}">${words(3).join(' ')}</a></li>`).join('')}</ul></nav></header>`;
const FOOTER = (words: (n: number) => string[]) =>
  `<footer><p>${prose(words(25))}</p><ul><li><a href="/about">${words(2).join(' ')}</a></li><li><a href="/privacy">${words(2).join(' ')}</a></li></ul></footer>`;

/**
 * Marks the passages of `html` that the worker found shared with `earlierText` and checks them:
 * one DOM range per passage, whose words are exactly the passage's. Returns the page's text and
 * the ranges for the case's own checks.
 */
function markAndCheck(html: string, earlierText: string) {
  const article = workerText(html);
  const worker = workerSide(article, earlierText);
  expect(worker.passages.length, 'the worker finds a shared passage').toBeGreaterThan(0);
  expect(worker.hashes.length).toBeGreaterThan(0);
  const doc = linkedom(html);
  const before = doc.documentElement.outerHTML;
  const text = collectPageText(doc.body, probablyHidden);
  const [located] = locatePassages(text.text, [{ id: 'earlier', hashes: Uint32Array.from(worker.hashes), ends: worker.ends }]);
  const bounds = toDomRanges(text, located!.passages, (b) => b);
  expect(bounds).toHaveLength(worker.passages.length);
  const articleWords = wordsOf(article);
  bounds.forEach((b, i) => {
    expect(wordsOf(domText(text, b))).toEqual(articleWords.slice(worker.passages[i]!.start, worker.passages[i]!.end));
  });
  expect(doc.documentElement.outerHTML).toBe(before);
  return { text, bounds, located: located!, worker, article };
}

describe('marking the passages an article shares, on a page with navigation and a footer', () => {
  const words = wordsFrom(11);
  const paragraphs = Array.from({ length: 6 }, (_, i) => words(55 + i * 7));
  // The shared run: the last 50 words of the third paragraph and the first 45 of the fourth.
  const run = [...paragraphs[2]!.slice(-50), ...paragraphs[3]!.slice(0, 45)];
  const html = page(
    `${NAV(words)}<main><article><h1>${words(6).join(' ')}</h1>` +
      paragraphs.map((p) => `<p>${prose(p)}</p>`).join('\n') +
      `</article><aside class="related"><h2>Related</h2><ul><li><a href="/r1">${words(9).join(' ')}</a></li></ul></aside></main>${FOOTER(words)}`,
  );
  const other = wordsFrom(12);
  const earlier = prose([...other(150), ...run, ...other(120)]);

  it('the worker reads the article alone, and finds the passage to within 5 words of the shared run\'s ends', () => {
    const article = workerText(html);
    const articleWords = wordsOf(article);
    expect(articleWords).toEqual(paragraphs.flat()); // Readability kept the paragraphs, and nothing else
    const { passages } = workerSide(article, earlier);
    expect(passages).toHaveLength(1);
    const start = indexOfRun(articleWords, run);
    const p = passages[0]!;
    // From fingerprints and word bits a passage runs to the shared run's ends, and past them while
    // the words' bits agree by chance (half the time a word).
    expect(p.start).toBeLessThanOrEqual(start);
    expect(p.end).toBeGreaterThanOrEqual(start + run.length);
    expect(start - p.start).toBeLessThanOrEqual(5);
    expect(p.end - (start + run.length)).toBeLessThanOrEqual(5);
  });

  it('marks exactly the words of that passage on the live page, across the two paragraphs, and nothing of the navigation or footer', () => {
    const { text, bounds, located, worker, article } = markAndCheck(html, earlier);
    const liveWords = wordsOf(text.text);
    const articleWords = wordsOf(article);
    // The article's words sit in the live text after the navigation's and the headline's, which
    // Readability leaves out of the article.
    const offset = indexOfRun(liveWords, articleWords.slice(0, 40));
    expect(offset).toBe(8 * 3 + 6);
    const p = worker.passages[0]!;
    const marked = located.passages[0]!.words;
    // The marks may differ from the worker's passage only where the live text's windows do (the
    // article's edges, see lib/content/highlight.ts), and then by less than a k-gram: at most
    // k − 1 words at each end, never outside it. This passage is far from the edges: no slack.
    const startSlack = marked.start - offset - p.start;
    const endSlack = p.end - (marked.end - offset);
    expect(startSlack).toBeGreaterThanOrEqual(0);
    expect(startSlack).toBeLessThanOrEqual(k - 1);
    expect(endSlack).toBeGreaterThanOrEqual(0);
    expect(endSlack).toBeLessThanOrEqual(k - 1);
    expect([startSlack, endSlack]).toEqual([0, 0]);
    // One range, from a text node of the third paragraph to one of the fourth.
    expect(bounds).toHaveLength(1);
    const [b] = bounds as [RangeBounds];
    expect(b.startContainer.parentNode).not.toBe(b.endContainer.parentNode);
    expect(b.startContainer.data.slice(b.startOffset).startsWith(articleWords[p.start]!)).toBe(true);
    expect(b.endContainer.data.slice(0, b.endOffset).endsWith(articleWords[p.end - 1]!)).toBe(true);
    expect(domText(text, b)).toContain('\n'); // the paragraph break
  });
});

interface MarkCase {
  name: string;
  /** The page's body. */
  body: string;
  /** The earlier page's text. */
  earlier: string;
  /** Checks of the case's own on the page's text and the ranges. */
  check(text: PageText, bounds: RangeBounds[]): void;
}

/** The shared run `run`, dressed as `dress` says, between seeded paragraphs of `words`. */
function articleAround(words: (n: number) => string[], runHtml: string): string {
  return `${NAV(words)}<article><h1>${words(5).join(' ')}</h1><p>${prose(words(70))}</p>${runHtml}<p>${prose(words(80))}</p><p>${prose(words(60))}</p></article>${FOOTER(words)}`;
}

const cases: MarkCase[] = (() => {
  const out: MarkCase[] = [];
  {
    const words = wordsFrom(21);
    const run = words(90);
    const other = wordsFrom(22);
    // <a> around words 30–34, <em> around 40–43, and word 50 split in two by <em> (still one word):
    // all inside words 25–64, which the worker's passage covers wherever in the first and last
    // w − 1 words of the run it begins and ends.
    const w50 = run[50]!;
    const dressed = [
      prose(run.slice(0, 30)),
      `<a href="/elsewhere">${run.slice(30, 35).join(' ')}</a>`,
      prose(run.slice(35, 40)),
      `<em>${run.slice(40, 44).join(' ')}</em>`,
      run.slice(44, 50).join(' '),
      `${w50.slice(0, 2)}<em>${w50.slice(2)}</em>`,
      prose(run.slice(51)),
    ].join(' ');
    out.push({
      name: 'a passage across inline elements (<a>, <em>, a word split by <em>)',
      body: articleAround(words, `<p>${prose(words(20))} ${dressed} ${prose(words(20))}</p>`),
      earlier: prose([...other(100), ...run, ...other(100)]),
      check(text, bounds) {
        expect(bounds).toHaveLength(1);
        const marked = wordsOf(domText(text, bounds[0]!));
        expect(marked).toContain(w50); // "w5" + <em>"0123"</em> is one word
        expect(marked).toEqual(expect.arrayContaining([...run.slice(30, 35), ...run.slice(40, 44)]));
        expect(bounds[0]!.startContainer).not.toBe(bounds[0]!.endContainer);
      },
    });
  }
  {
    const words = wordsFrom(31);
    const a = words(60);
    const b = words(60);
    const other = wordsFrom(32);
    out.push({
      name: 'a passage across two paragraphs',
      body: articleAround(words, `<p>${prose(a)}</p>\n<p>${prose(b)}</p>`),
      earlier: prose([...other(100), ...a.slice(20), ...b.slice(0, 40), ...other(100)]),
      check(text, bounds) {
        expect(bounds).toHaveLength(1);
        const { startContainer, endContainer } = bounds[0]!;
        expect((startContainer.parentNode as Element).tagName).toBe('P');
        expect(startContainer.parentNode).not.toBe(endContainer.parentNode);
        expect(startContainer.data).toContain(a[59]!); // starts in the first paragraph…
        expect(endContainer.data).toContain(b[0]!); // …and ends in the second
      },
    });
  }
  {
    const words = wordsFrom(41);
    const run = words(90);
    const hidden = wordsFrom(42);
    const h = [hidden(6), hidden(5), hidden(4)];
    const other = wordsFrom(43);
    const dressed =
      `${prose(run.slice(0, 30))} <span hidden>${h[0]!.join(' ')}</span> ${prose(run.slice(30, 55))}` +
      ` <span style="display: none">${h[1]!.join(' ')}</span> ${prose(run.slice(55, 70))}` +
      ` <b aria-hidden="true">${h[2]!.join(' ')}</b> ${prose(run.slice(70))}`;
    out.push({
      name: 'hidden elements skipped (hidden, display: none, aria-hidden)',
      body: articleAround(words, `<p>${dressed}</p>`),
      earlier: prose([...other(100), ...run, ...other(100)]),
      check(text, bounds) {
        expect(bounds).toHaveLength(1);
        for (const x of h.flat()) expect(text.text).not.toContain(x);
        expect(wordsOf(domText(text, bounds[0]!)).some((x) => h.flat().includes(x))).toBe(false);
      },
    });
  }
  {
    const words = wordsFrom(51);
    const run = words(90);
    const other = wordsFrom(52);
    const dressed = `${prose(run.slice(0, 40))} <script>var s9 = "code words here";</script><style>.s8 { color: red }</style> ${prose(run.slice(40))}`;
    out.push({
      name: 'script and style skipped',
      body: articleAround(words, `<p>${dressed}</p>`),
      earlier: prose([...other(100), ...run, ...other(100)]),
      check(text, bounds) {
        expect(bounds).toHaveLength(1);
        for (const x of ['s9', 'code', 's8', 'color']) expect(wordsOf(text.text)).not.toContain(x);
        // The range still runs across the script: its text is in the DOM range, not in the marks' words.
        expect(bounds[0]!.startContainer).not.toBe(bounds[0]!.endContainer);
      },
    });
  }
  {
    const chars = hanziFrom(61);
    const run = chars(100);
    const other = hanziFrom(62);
    const dressed = `${chineseProse(run.slice(0, 45))}<a href="/zh">${run.slice(45, 52).join('')}</a>${chineseProse(run.slice(52))}`;
    out.push({
      name: 'Chinese text, each character a word',
      body: `<nav><a href="/">${chars(8).join('')}</a></nav><article><h1>${chars(10).join('')}</h1><p>${chineseProse(chars(150))}</p><p>${chineseProse(chars(30))}${dressed}${chineseProse(chars(30))}</p><p>${chineseProse(chars(160))}</p></article><footer><p>${chars(20).join('')}</p></footer>`,
      earlier: chineseProse([...other(200), ...run, ...other(200)]),
      check(text, bounds) {
        expect(bounds).toHaveLength(1);
        const marked = wordsOf(domText(text, bounds[0]!));
        expect(marked.every((x) => [...x].length === 1)).toBe(true);
        expect(marked.length).toBeGreaterThanOrEqual(30);
        expect(marked).toEqual(expect.arrayContaining(run.slice(45, 52)));
      },
    });
  }
  return out;
})();

describe('marks exactly the passages the worker found', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const { text, bounds } = markAndCheck(page(c.body), c.earlier);
    c.check(text, bounds);
  });
});

describe('marks nothing', () => {
  const words = wordsFrom(71);
  const paragraphs = Array.from({ length: 4 }, () => words(70));
  const html = page(`${NAV(words)}<article>${paragraphs.map((p) => `<p>${prose(p)}</p>`).join('')}</article>${FOOTER(words)}`);
  const text = collectPageText(linkedom(html).body, probablyHidden);
  const article = workerText(html);
  const unrelated = wordsFrom(72);

  const none = (hashes: readonly number[]) => expect(locatePassages(text.text, [{ id: 'x', hashes }])).toEqual([{ id: 'x', passages: [] }]);

  it('for an empty set', () => none([]));

  it("for hashes absent from the page (an unrelated article's)", () => {
    const hashes = [...passageFingerprints(prose(unrelated(300))).hashes];
    expect(hashes.length).toBeGreaterThan(15);
    expect(hashes.filter((h) => passageFingerprints(text.text).hashes.includes(h))).toEqual([]);
    none(hashes);
  });

  it('for a run shorter than 30 words shared with an earlier page: the worker has no passage, so no hashes', () => {
    const worker = workerSide(article, prose([...unrelated(100), ...paragraphs[1]!.slice(10, 35), ...unrelated(100)]));
    expect(worker).toEqual({ hashes: [], ends: [], passages: [] });
    none(worker.hashes);
  });

  it('a hash on the page more than 8 times (a refrain) is not marked; one that is there once is', () => {
    const refrain = words(40);
    const filler = wordsFrom(73);
    const body = Array.from({ length: 9 }, () => `<p>${prose(filler(60))}</p><p>${prose(refrain)}</p>`).join('');
    const t = collectPageText(linkedom(page(body)).body);
    const f = passageFingerprints(t.text);
    const counts = new Map<number, number>();
    for (const h of f.hashes) counts.set(h, (counts.get(h) ?? 0) + 1);
    const refrained = [...counts].filter(([, n]) => n === 9).map(([h]) => h);
    const once = f.hashes.findIndex((h) => counts.get(h) === 1);
    expect(refrained.length).toBeGreaterThan(0);
    expect(locatePassages(t.text, [{ id: 'r', hashes: [...refrained, f.hashes[once]!] }])[0]!.passages.map((p) => p.words)).toEqual([
      { start: f.positions[once], end: f.positions[once]! + k },
    ]);
  });
});

describe('locatePassages', () => {
  const words = wordsFrom(81);
  const text = prose(words(600));
  const f = passageFingerprints(text);

  it('chains two fingerprints up to 2w + k words apart into one passage, and not two further apart', () => {
    const gap = 2 * w + k;
    const at = (i: number): number => f.positions[i]!;
    const near = f.positions.findIndex((p, i) => i >= 2 && p - at(0) <= gap && at(i + 1) - at(0) > gap);
    const far = f.positions.findIndex((p) => p - at(0) > gap);
    expect(near).toBeGreaterThan(0);
    expect(far).toBe(near + 1);
    const words = (hashes: number[]) => locatePassages(text, [{ id: 'g', hashes }])[0]!.passages.map((p) => p.words);
    // Only the two selected: the fingerprints between them are not in the set.
    expect(words([f.hashes[0]!, f.hashes[near]!])).toEqual([{ start: at(0), end: at(near) + k }]);
    expect(words([f.hashes[0]!, f.hashes[far]!])).toEqual([{ start: at(0), end: at(0) + k }, { start: at(far), end: at(far) + k }]);
  });

  it('covers each chain from the first word of its first k-gram to the last word of its last, in characters of the text', () => {
    const [located] = locatePassages(text, [{ id: 'all', hashes: f.hashes }]);
    const all = wordsOf(text);
    expect(located!.passages).toHaveLength(1);
    const p = located!.passages[0]!;
    expect(p.words).toEqual({ start: f.positions[0], end: f.positions.at(-1)! + k });
    expect(wordsOf(text.slice(p.start, p.end))).toEqual(all.slice(p.words.start, p.words.end));
  });

  it('extends a chain by its set\'s ends: the lead before its first fingerprint, the trail after its last, within the text and the chain before', () => {
    const at = (i: number): number => f.positions[i]!;
    const marked = (set: SharedSet) => locatePassages(text, [set])[0]!.passages.map((p) => p.words);
    const middle = f.hashes.slice(10, 20);
    expect(marked({ id: 'm', hashes: middle, ends: [{ first: f.hashes[10]!, lead: 4, last: f.hashes[19]!, trail: 7 }] })).toEqual([{ start: at(10) - 4, end: at(19) + k + 7 }]);
    // an end keyed by a hash that does not start or end the chain extends nothing
    expect(marked({ id: 'm', hashes: middle, ends: [{ first: f.hashes[11]!, lead: 4, last: f.hashes[18]!, trail: 7 }] })).toEqual([{ start: at(10), end: at(19) + k }]);
    // clamped to the text
    const all = f.hashes;
    expect(marked({ id: 'a', hashes: all, ends: [{ first: all[0]!, lead: at(0) + 50, last: all.at(-1)!, trail: 1_000 }] })).toEqual([{ start: 0, end: f.words }]);
    // never back into the chain before it
    const gap = 2 * w + k;
    const far = f.positions.findIndex((p) => p - at(0) > gap);
    expect(marked({ id: 'two', hashes: [all[0]!, all[far]!], ends: [{ first: all[far]!, lead: 1_000, last: all[far]!, trail: 0 }] })).toEqual([
      { start: at(0), end: at(0) + k },
      { start: at(0) + k, end: at(far) + k },
    ]);
  });

  it('answers each set on its own, in the order given, and takes number arrays and Uint32Arrays alike', () => {
    const first = [f.hashes[0]!];
    const last = Uint32Array.of(f.hashes.at(-1)!);
    const located = locatePassages(text, [{ id: 'b', hashes: last }, { id: 'a', hashes: first }, { id: 'none', hashes: [] }]);
    expect(located.map((s) => [s.id, s.passages.map((p) => p.words)])).toEqual([
      ['b', [{ start: f.positions.at(-1), end: f.positions.at(-1)! + k }]],
      ['a', [{ start: f.positions[0], end: f.positions[0]! + k }]],
      ['none', []],
    ]);
  });
});

describe('collectPageText', () => {
  it.each([
    ['block edges break words, inline ones do not', '<p>alpha</p><p>beta<b>gamma</b></p><div>delta</div>epsilon<br>zeta', ['alpha', 'betagamma', 'delta', 'epsilon', 'zeta']],
    ['script, style, noscript, template, textarea, select, button and svg are skipped', 'one<script>s1</script><style>s2</style><noscript>s3</noscript><template>s4</template><textarea>s5</textarea><select><option>s6</option></select><button>s7</button><svg><text>s8</text></svg>two', ['onetwo']],
    ['comments are not text', 'one <!-- two --> three', ['one', 'three']],
    ['table cells are blocks', '<table><tr><td>a1</td><td>b2</td></tr></table>', ['a1', 'b2']],
  ])('%s', (_name, body, expected) => {
    const text = collectPageText(linkedom(page(body)).body);
    expect(wordsOf(text.text)).toEqual(expected);
    // Every node's data sits in the text where `starts` says.
    text.nodes.forEach((node, i) => expect(text.text.slice(text.starts[i], text.starts[i]! + node.data.length)).toBe(node.data));
  });

  it('skips what the predicate calls hidden, with all it holds', () => {
    const doc = linkedom(page('<p>kept <span class="x">gone <b>also gone</b></span> too</p>'));
    const text = collectPageText(doc.body, (el) => el.getAttribute('class') === 'x');
    expect(wordsOf(text.text)).toEqual(['kept', 'too']);
  });

  it('stops at maxChars, cutting a node, and says so', () => {
    const doc = linkedom(page('<p>abcdef</p><p>ghijkl</p>'));
    const text = collectPageText(doc.body, undefined, 10);
    expect(text).toMatchObject({ text: '\nabcdef\n\ng', truncated: true });
    expect(text.starts).toEqual([1, 9]);
    const whole = collectPageText(doc.body, undefined, 100);
    expect(whole).toMatchObject({ text: '\nabcdef\n\nghijkl\n', truncated: false });
  });

  it('reads a page nested 20,000 elements deep (no recursion)', () => {
    const doc = linkedom(page('<div id="top"></div>'));
    let at = doc.getElementById('top')!;
    for (let i = 0; i < 20_000; i++) at = at.appendChild(doc.createElement(i % 2 ? 'div' : 'span'));
    at.appendChild(doc.createTextNode('deep'));
    doc.body.appendChild(doc.createTextNode('after'));
    expect(wordsOf(collectPageText(doc.body).text)).toEqual(['deep', 'after']);
  });
});

describe('probablyHidden (Readability\'s rule)', () => {
  it.each([
    ['<p hidden>x</p>', true],
    ['<p style="display: none">x</p>', true],
    ['<p style="visibility: hidden">x</p>', true],
    ['<p aria-hidden="true">x</p>', true],
    ['<p aria-hidden="true" class="mwe-math-fallback-image-inline">x</p>', false],
    ['<div role="dialog" aria-modal="true">x</div>', true],
    ['<div role="dialog">x</div>', false],
    ['<p aria-hidden="false" style="display: block">x</p>', false],
    ['<p class="hidden">x</p>', false], // hidden by a stylesheet: read, as Readability reads it
  ])('%s → %s', (html, hidden) => {
    expect(probablyHidden(linkedom(page(html)).body.firstElementChild!)).toBe(hidden);
  });
});

describe('rangeBounds', () => {
  // text: "\nab" "cd" "\n\n" "ef" "\n"
  const doc = linkedom(page('<p>ab<i>cd</i></p><p>ef</p>'));
  const text = collectPageText(doc.body);
  const [ab, cd, ef] = text.nodes as [Text, Text, Text];

  it.each([
    ['inside one node', 1, 3, [ab, 0, ab, 2]],
    ['across an inline edge', 2, 5, [ab, 1, cd, 2]],
    ['across a block edge', 4, 8, [cd, 1, ef, 1]],
    ['starting on a block break: at the next node', 5, 10, [ef, 0, ef, 2]],
    ['ending on a block break: at the end of the node before', 3, 7, [cd, 0, cd, 2]],
  ] as const)('%s', (_name, start, end, [sc, so, ec, eo]) => {
    expect(text.text).toBe('\nabcd\n\nef\n');
    expect(rangeBounds(text, start, end)).toEqual({ startContainer: sc, startOffset: so, endContainer: ec, endOffset: eo });
  });

  it('is null for a range with no character in a node', () => {
    expect(rangeBounds(text, 5, 7)).toBeNull();
    expect(rangeBounds(text, 3, 3)).toBeNull();
    expect(toDomRanges(text, [{ start: 5, end: 7 }, { start: 1, end: 2 }], (b) => b.startContainer.data)).toEqual(['ab']);
  });
});

describe('createPassageMarker (the content script)', () => {
  const ext = { id: 'doppel@test', origin: 'chrome-extension://doppelid/' };
  const popup = { id: ext.id, url: 'chrome-extension://doppelid/popup.html' };
  const words = wordsFrom(91);
  const paragraphs = Array.from({ length: 5 }, () => words(80));
  const html = page(`${NAV(words)}<article>${paragraphs.map((p) => `<p>${prose(p)}</p>`).join('')}</article>${FOOTER(words)}`);
  const article = workerText(html);
  const other = wordsFrom(92);
  const setA = workerSide(article, prose([...other(100), ...paragraphs[1]!.slice(10, 70), ...other(100)])).hashes;
  // Two passages of this page 200 words apart: two ranges.
  const setB = workerSide(article, prose([...other(100), ...paragraphs[0]!.slice(0, 60), ...other(50), ...paragraphs[3]!.slice(10, 75), ...other(100)])).hashes;

  function setUp(registryPresent = true) {
    const doc = linkedom(html);
    const registry = new Map<string, { ranges: RangeBounds[] }>();
    const marker = createPassageMarker({
      registry: () => (registryPresent ? registry : undefined),
      highlight: (ranges: RangeBounds[]) => ({ ranges }),
      range: (b) => b,
      root: () => doc.body,
      isHidden: probablyHidden,
      unsupported: () => 'This browser cannot mark passages.',
      anchorRanges: async () => {
        throw new Error('the worker is not asked for passages');
      },
    });
    return { doc, registry, marker };
  }

  it('marks each set in its slot, replaces the marks on the next show, clears them, and leaves the DOM as it was', () => {
    const { doc, registry, marker } = setUp();
    const before = doc.documentElement.outerHTML;
    const show = {
      type: 'passages/show',
      payload: { sets: [{ id: 'a', slot: 0, hashes: setA }, { id: 'b', slot: 3, hashes: setB }, { id: 'c', slot: 3, hashes: [12345] }] },
    };
    expect(marker.handle(show, popup, ext)).toEqual({ ok: true, value: { marked: 3, sets: [{ id: 'a', ranges: 1 }, { id: 'b', ranges: 2 }, { id: 'c', ranges: 0 }] } });
    expect([...registry.keys()]).toEqual(['doppel-passage-0', 'doppel-passage-3']);
    expect(registry.get('doppel-passage-3')!.ranges).toHaveLength(2);
    expect(doc.documentElement.outerHTML).toBe(before);

    // The popup opened as a tab sends from a tab: still one of Doppel's pages.
    const again = { type: 'passages/show', payload: { sets: [{ id: 'a', slot: 5, hashes: setA }] } };
    expect(marker.handle(again, { ...popup, tab: { id: 4 }, frameId: 0 }, ext)).toEqual({ ok: true, value: { marked: 1, sets: [{ id: 'a', ranges: 1 }] } });
    expect([...registry.keys()]).toEqual(['doppel-passage-5']);

    expect(marker.handle({ type: 'passages/clear', payload: {} }, popup, ext)).toEqual({ ok: true, value: { marked: 0, sets: [] } });
    expect(registry.size).toBe(0);
    expect(doc.documentElement.outerHTML).toBe(before);
  });

  it('answers passages/get with what is marked, changing nothing', () => {
    const { doc, registry, marker } = setUp();
    const get = { type: 'passages/get', payload: {} };
    expect(marker.handle(get, popup, ext)).toEqual({ ok: true, value: { marked: 0, sets: [] } });
    const show = { type: 'passages/show', payload: { sets: [{ id: 'a', slot: 0, hashes: setA }, { id: 'b', slot: 1, hashes: setB }, { id: 'c', slot: 2, hashes: [12345] }] } };
    const marks = { marked: 3, sets: [{ id: 'a', ranges: 1 }, { id: 'b', ranges: 2 }, { id: 'c', ranges: 0 }] };
    expect(marker.handle(show, popup, ext)).toEqual({ ok: true, value: marks });
    const before = new Map(registry);
    // The popup opened again (or as a tab) asks, twice: the same answer, the same highlights.
    expect(marker.handle(get, popup, ext)).toEqual({ ok: true, value: marks });
    expect(marker.handle(get, { ...popup, tab: { id: 4 }, frameId: 0 }, ext)).toEqual({ ok: true, value: marks });
    expect(registry).toEqual(before);
    expect([...registry].every(([name, h]) => before.get(name) === h)).toBe(true);
    expect(doc.body.innerHTML).toBe(linkedom(html).body.innerHTML);

    marker.handle({ type: 'passages/clear', payload: {} }, popup, ext);
    expect(marker.handle(get, popup, ext)).toEqual({ ok: true, value: { marked: 0, sets: [] } });
  });

  it('passages/get leaves out a set whose highlight the page deleted or replaced, and says nothing is marked once all are gone', () => {
    const { registry, marker } = setUp();
    const get = { type: 'passages/get', payload: {} };
    marker.handle({ type: 'passages/show', payload: { sets: [{ id: 'a', slot: 0, hashes: setA }, { id: 'b', slot: 1, hashes: setB }, { id: 'c', slot: 2, hashes: [12345] }] } }, popup, ext);
    registry.delete('doppel-passage-1'); // the page's own script
    expect(marker.handle(get, popup, ext)).toEqual({ ok: true, value: { marked: 1, sets: [{ id: 'a', ranges: 1 }, { id: 'c', ranges: 0 }] } });
    registry.set('doppel-passage-0', { ranges: [] });
    expect(marker.handle(get, popup, ext)).toEqual({ ok: true, value: { marked: 0, sets: [] } });
  });

  it.each([
    ['a content script', { id: ext.id, url: 'https://news.example/story', frameId: 0, tab: { id: 1 } }, "Passages are marked only for Doppel's own pages: it came from a content script."],
    ['another extension', { id: 'other@ext', url: 'chrome-extension://other/popup.html' }, "Passages are marked only for Doppel's own pages: it came from another extension or a web page."],
    ['a page of another extension with our id claimed in no URL', { id: ext.id }, "Passages are marked only for Doppel's own pages: it came from neither a tab nor a Doppel page."],
  ])('refuses a message from %s and changes nothing', (_name, sender, error) => {
    const { registry, marker } = setUp();
    registry.set('doppel-passage-1', { ranges: [] });
    expect(marker.handle({ type: 'passages/clear', payload: {} }, sender, ext)).toEqual({ ok: false, error });
    expect(marker.handle({ type: 'passages/get', payload: {} }, sender, ext)).toEqual({ ok: false, error });
    expect([...registry.keys()]).toEqual(['doppel-passage-1']);
  });

  it('refuses a malformed message with its reason and keeps the marks it had', () => {
    const { registry, marker } = setUp();
    marker.handle({ type: 'passages/show', payload: { sets: [{ id: 'a', slot: 1, hashes: setA }] } }, popup, ext);
    const kept = registry.get('doppel-passage-1');
    const bad = { type: 'passages/show', payload: { sets: [{ id: 'a', slot: 1, hashes: setA }, { id: 'b', slot: 6, hashes: [] }] } };
    expect(marker.handle(bad, popup, ext)).toEqual({ ok: false, error: 'Malformed message: sets[1]: slot must be a whole number from 0 to 5' });
    expect([...registry.keys()]).toEqual(['doppel-passage-1']);
    expect(registry.get('doppel-passage-1')).toBe(kept);
  });

  it('marks a rewrite\'s shared rare words in doppel-rewrite beside the passages, found by the worker; each kind is shown and cleared alone', async () => {
    const sentences = [
      'Volunteers in Wrenmouth restarted the tide mill on 27 April after eleven years of work by the Wrenmouth Tide Mill Trust.',
      'The mill, built in 1793 for the Pellow family, ground grain for farms along the River Wren until 1938.',
      'Engineer Margaret Osei said the new oak wheel weighs 4,200 kilograms and turns twelve times a minute.',
      'The Heritage Lottery Fund gave £340,000, and Cornwall Council added £85,000 for the sluice gates.',
    ];
    const spanish = rewriteFingerprints(
      'Los voluntarios de Wrenmouth pusieron en marcha el molino el 27 de abril, tras once años de trabajo del Wrenmouth Tide Mill Trust. ' +
        'El molino, construido en 1793 para la familia Pellow, molió grano para las granjas del río Wren hasta 1938. ' +
        'La ingeniera Margaret Osei dijo que la rueda pesa 4.200 kilos. El Heritage Lottery Fund aportó 340.000 libras y el Cornwall Council 85.000 libras.',
    );
    const doc = linkedom(page(`<nav><a href="/">Home</a> <a href="/news">News</a></nav><article>${sentences.map((t) => `<p>${t}</p>`).join('')}</article>${FOOTER(words)}`));
    const registry = new Map<string, { ranges: RangeBounds[] }>();
    // the worker's side of rewrites/anchors, and what the content script sent it
    const asked: string[] = [];
    let worker = async (text: string, sets: number[][]) => (asked.push(text), sets.map((hashes) => sharedAnchorRanges(text, hashes)));
    const marker = createPassageMarker({ registry: () => registry, highlight: (ranges: RangeBounds[]) => ({ ranges }), range: (b) => b, root: () => doc.body, isHidden: probablyHidden, unsupported: () => '', anchorRanges: (text, sets) => worker(text, sets) });
    const before = doc.documentElement.outerHTML;
    const theirs = new Set(spanish.hashes);
    const shared = Array.from(rewriteFingerprints(sentences.join('\n')).hashes).filter((h) => theirs.has(h));
    expect(shared.length).toBeGreaterThanOrEqual(3);
    const showRewrites = { type: 'passages/show', payload: { kind: 'rewrites', sets: [{ id: 'https://es.example/molino', slot: 0, hashes: shared }, { id: 'none', slot: 0, hashes: [4096] }] } };
    const shown = await marker.handle(showRewrites, popup, ext);
    expect(shown.ok).toBe(true);
    expect(asked).toHaveLength(1);
    for (const sentence of sentences) expect(asked[0]).toContain(sentence);
    const value = (shown as { value: PassageMarks }).value;
    expect(value.sets.map((s) => [s.id, s.kind])).toEqual([['https://es.example/molino', 'rewrites'], ['none', 'rewrites']]);
    const n = value.sets[0]!.ranges;
    expect(n).toBeGreaterThanOrEqual(3);
    expect(value.sets[1]!.ranges).toBe(0);
    // the marks are the article's rare words: names and numbers, none in the navigation
    const marked = registry.get('doppel-rewrite')!.ranges.map((b) => b.startContainer.data.slice(b.startOffset, b.endOffset));
    expect(marked).toHaveLength(n);
    for (const word of marked) expect(word, word).toMatch(/^(?:[A-Z][a-z]+|[\d,]+|\d+ [A-Z][a-z]+)$/); // a name, a number, a date
    expect(marked).not.toContain('Home');
    expect(doc.documentElement.outerHTML).toBe(before);
    // the passages' show and clear leave the rewrites' marks; the rewrites' clear removes them
    const rewritesOnly = { marked: n, sets: [{ id: 'https://es.example/molino', ranges: n, kind: 'rewrites' }, { id: 'none', ranges: 0, kind: 'rewrites' }] };
    expect(marker.handle({ type: 'passages/show', payload: { sets: [{ id: 'p', slot: 2, hashes: [12345] }] } }, popup, ext)).toEqual({ ok: true, value: rewritesOnly });
    expect(marker.handle({ type: 'passages/clear', payload: {} }, popup, ext)).toEqual({ ok: true, value: rewritesOnly });
    expect(registry.has('doppel-rewrite')).toBe(true);
    expect(marker.handle({ type: 'passages/clear', payload: { kind: 'rewrites' } }, popup, ext)).toEqual({ ok: true, value: { marked: 0, sets: [] } });
    expect(registry.size).toBe(0);
    expect(marker.handle({ type: 'passages/clear', payload: { kind: 'both' } }, popup, ext)).toEqual({ ok: false, error: 'Malformed message: kind must be one of passages, rewrites' });
    // a worker that fails: the reply says why, and nothing is marked
    worker = async () => {
      throw new Error('Doppel’s background worker did not answer.');
    };
    expect(await marker.handle(showRewrites, popup, ext)).toEqual({ ok: false, error: 'The passages could not be marked: Doppel’s background worker did not answer.' });
    expect(registry.size).toBe(0);
  });

  it('says the browser cannot mark passages where CSS.highlights is missing', () => {
    const { marker } = setUp(false);
    expect(marker.handle({ type: 'passages/show', payload: { sets: [] } }, popup, ext)).toEqual({ ok: false, error: 'This browser cannot mark passages.' });
    expect(marker.handle({ type: 'passages/clear', payload: {} }, popup, ext)).toEqual({ ok: false, error: 'This browser cannot mark passages.' });
    expect(marker.handle({ type: 'passages/get', payload: {} }, popup, ext)).toEqual({ ok: false, error: 'This browser cannot mark passages.' });
  });
});
