// The rewrite detector (lib/fingerprint/rewrites.ts): numbers and dates in three languages, the
// anchors of small texts, pairs, the consistent sample, the byte format, containment on planted
// texts, bad inputs, and the postings lookup against comparing every pair.
import { germanNounShape } from '../lib/fingerprint/rewrite-languages';
import { describe, expect, it } from 'vitest';
import { COMMON_WORDS } from '../lib/fingerprint/common-words';
import { HashTable32, foldWord, hashWord, hashWordInText } from '../lib/fingerprint/rewrite-words';
import { MIN_SHARED, REWRITE_PARAMS, REWRITE_RULE, type RewriteFingerprints, type RewriteRule, compareRewrites, isRewritePair, pairHashes, rewriteFingerprints, sampleHashes, sharedAnchorRanges, translated, truncateHashes } from '../lib/fingerprint/rewrites';
import { decimalString } from '../lib/fingerprint/rewrite-numbers';
import { decodeRewriteBytes, encodeRewriteBytes, rewriteByteSize } from '../lib/fingerprint/rewrite-codec';
import { RewriteIndex, findRewriteMatches, findRewritePairs } from '../lib/index/rewrite-index';
import { ASCII_CLASS, classifyCodePoint, pageAnchors, rewriteAnchors } from '../lib/fingerprint/rewrite-anchors';
import { mulberry32, pick, uint32s } from '../lib/random';
import { randomRewritePages } from './support/rewrite-pages';

const tokens = (text: string): string[] => pageAnchors(text).anchors.map((a) => a.token);

describe('numbers', () => {
  it.each([
    // thousands separators: a separator followed by exactly three digits
    ['1,000 people', ['#1000']],
    ['1.000 personas', ['#1000']],
    ['1 000 personas', ['#1000']],
    ['1\u00a0000 personas', ['#1000']],
    ['12,345,678 views', ['#12345678']],
    ['1,000.5 metres', ['#1000.5']],
    ['1.000,5 metros', ['#1000.5']],
    // decimals
    ['$9.99 a month', ['#9.99']],
    ['9,99 dólares al mes', ['#9.99']],
    ['version 3.14159', ['#3.14159']],
    // scales, in three languages, to one value
    ['19 billion dollars', ['#19000000000']],
    ['19.000 millones de dólares', ['#19000000000']],
    ['190亿美元', ['#19000000000']],
    ['$4.8 billion', ['#4800000000']],
    ['4.800 millones', ['#4800000000']],
    ['48亿', ['#4800000000']],
    ['1.5万人', ['#15000']],
    ['3000万', ['#30000000']],
    ['1,5 millones', ['#1500000']],
    ['3 mil millones', ['#3000000000']],
    ['2 mil euros', ['#2000']],
    ['un billón', []],
    ['2 billones', ['#2000000000000']],
    ['2 trillion', ['#2000000000000']],
    ['$2bn deal', ['#2000000000']],
    ['$150K dress', ['#150000']],
    // percentages
    ['45% of them', ['#45%']],
    ['45 % de ellos', ['#45%']],
    ['45 percent', ['#45%']],
    ['45 per cent', ['#45%']],
    ['45 por ciento', ['#45%']],
    ['45％的人', ['#45%']],
    // French and German: the same values
    ['3,5 % des voix', ['#3.5%']],
    ['3,5\u00a0% des voix', ['#3.5%']],
    ['3,5 pour cent des voix', ['#3.5%']],
    ['3,5 Prozent', ['#3.5%']],
    ['1\u202f000 habitants', ['#1000']],
    ['4,8 milliards de dollars', ['#4800000000']],
    ['1,5 million de visiteurs', ['#1500000']],
    ['4,8 Milliarden', ['#4800000000']],
    ['1,5 Millionen', ['#1500000']],
    ['19 Mrd. und', ['#19000000000']],
    ['2 Mio. und', ['#2000000']],
    ['2 Billionen', ['#2000000000000']],
    // small whole numbers are no anchors; ordinal endings and units glued to digits are dropped
    ['3 people and 9 dogs', []],
    ['the 1st and the 21st', ['#21']],
    ['a 3D printer on 5G', []],
    ['the 1990s', ['#1990']],
    // a space before three digits separates thousands, also in a list of numbers
    ['scores of 120 115 and 98', ['#120115', '#98']],
  ])('%s → %j', (text, expected) => {
    expect(tokens(text)).toEqual(expected);
  });

  it.each([
    ['1', '5', 4, '15000'],
    ['19000', '', 6, '19000000000'],
    ['9', '990', 0, '9.99'],
    ['0', '05', 0, '0.05'],
    ['007', '', 0, '7'],
    ['0', '', 0, '0'],
    ['1', '25', 1, '12.5'],
    ['12', '', -3, '0.012'],
  ])('decimalString(%s, %s, %i) is %s', (whole, fraction, exponent, expected) => {
    expect(decimalString(whole, fraction, exponent)).toBe(expected);
  });
});

describe('dates', () => {
  it.each([
    ['On December 15, 2016, it closed.', ['#2016', '@12-15']],
    ['El 15 de diciembre de 2016 cerró.', ['#2016', '@12-15']],
    ['2016年12月15日关闭。', ['#2016', '@12-15']],
    ['22 Dec, 2016', ['#2016', '@12-22']],
    ['on the 15th of December', ['@12-15']],
    ['December 15th', ['@12-15']],
    ['in December 2016', ['#2016', '@12']],
    ['en diciembre de 2016', ['#2016', '@12']],
    ['2016年12月', ['#2016', '@12']],
    ['In December he left.', ['@12']],
    ['En diciembre se fue.', ['@12']],
    ['12月他走了。', ['@12']],
    ['3个月后', []],
    ['2016年', ['#2016']],
    ['On May 5 Theresa May spoke.', ['@5-5', 'theresa']],
    ['Le 15 décembre 2016, il a fermé.', ['#2016', '@12-15']],
    ['le 1er janvier 2020', ['#2020', '@1-1']],
    ['en avril, puis en août 2019', ['@4', '#2019', '@8']],
    ['Am 15. Dezember 2016 schloss es.', ['#2016', '@12-15']],
    ['seit dem 3. März', ['@3-3']],
    ['im Oktober 2019', ['#2019', '@10']],
    ['Die Mission zum Mars startet.', ['mars']],
    ['Visit the Mayo Clinic today, said Dr. Lee of Mayo.', ['mayo', 'clinic', 'lee', 'mayo']],
    ['On Monday, Google said so, and on Tuesday Yahoo did.', ['google', 'yahoo']],
  ])('%s → %j', (text, expected) => {
    expect(tokens(text)).toEqual(expected);
  });
});

describe('anchors', () => {
  it.each([
    ['English', 'Yesterday Barack Obama met Angela Merkel in Berlin.', ['barack', 'obama', 'angela', 'merkel', 'berlin']],
    ['Spanish, accents folded', 'Ayer, Barack Obama se reunió con Angela Merkel en Berlín.', ['barack', 'obama', 'angela', 'merkel', 'berlin']],
    ['Chinese: Latin names only', '昨天，奥巴马在柏林会见了Angela Merkel，还谈到了nodejs。', ['angela', 'merkel']],
    ['acronyms, camel case and codes', 'The NASA and ESA budget covers the new iPhone and its A10 chip.', ['nasa', 'esa', 'iphone', 'a10']],
    ['a shouted headline and an emphasised word', 'BREAKING NEWS: but never AFTER they buy, said NASA.', ['nasa']],
    ['a sentence opener only a name if also inside a sentence', 'Zuckerberg spoke. Critics said Zuckerberg was wrong. Meanwhile nothing.', ['zuckerberg', 'zuckerberg']],
    ['a capitalised word also written in lower case', 'Blanket is a tool. Wrap the blanket around Mocha, said Blanket users.', ['mocha']],
    ['a line in title case', 'How to Add Code Coverage to Your Frontend Tests\n\nThe frontend tests use Mocha.', ['mocha']],
    ['after "Mr." a sentence goes on', 'He met Mr. Okonkwo in Lagos.', ['okonkwo', 'lagos']],
    [
      'German: a capitalised word after an article is a noun, everywhere in the text',
      'Laut dem Entwickler Ammar Askar ist die Schwachstelle von Mojang nicht behoben, und sie ist seit Jahren bekannt. Die neue Schwachstelle betrifft mit dem Angriff auch Server in Pakistan, sagte Askar am Montag.',
      // "Jahren" and "Server" never follow one here: nouns still, taken for names
      ['ammar', 'askar', 'mojang', 'jahren', 'server', 'pakistan', 'askar'],
    ],
    [
      'German: after a comma "die" is a relative pronoun, and a name after it stays one',
      'Das ist die Software, die Siemens entwickelt hat und die nicht sicher ist. Auf eine Anfrage von uns schweigt Siemens, sagte Frau Okafor.',
      ['siemens', 'siemens', 'okafor'],
    ],
    ['English keeps its capitalised words after "die" and "den"', 'Die Antwoord played in Den Haag with Der Spiegel watching.', ['antwoord', 'den', 'haag', 'der', 'spiegel']],
  ])('%s', (_name, text, expected) => {
    expect(tokens(text)).toEqual(expected);
  });

  it('gives offsets in the text as given, also where NFKC changes it', () => {
    const text = 'ﬁrst: １２月１５日，Ｇｏｏｇｌｅ宣布';
    expect(rewriteAnchors(text).map((a) => [a.token, text.slice(a.start, a.end)])).toEqual([
      ['@12-15', '１２月１５日'],
      ['google', 'Ｇｏｏｇｌｅ'],
    ]);
    const plain = 'Then Okonkwo paid 1,000 dollars.';
    expect(rewriteAnchors(plain).map((a) => plain.slice(a.start, a.end))).toEqual(['Okonkwo', '1,000']);
  });

  it.each([
    ['Bogotá', 'bogota'],
    ['ÉCOLE', 'ecole'],
    ['Zürich', 'zurich'],
    ['plain', 'plain'],
  ])('folds %s to %s', (word, folded) => {
    expect(foldWord(word)).toBe(folded);
  });

  it('hashes a word in a text as its folded form, for every Latin letter and beyond', () => {
    for (let c = 0x41; c < 0x500; c++) {
      const word = `X${String.fromCharCode(c)}yz`;
      expect(hashWordInText(word)).toBe(hashWord(word));
    }
    for (const word of ['Según', 'TAMBIÉN', 'İstanbul', 'Ωmega', 'Ærø', 'straße']) expect(hashWordInText(word)).toBe(hashWord(word));
  });

  it.each([
    ['The report said that the company was growing and that this is the plan for the year.', 'en'],
    ['El informe dijo que la empresa crecía y que los planes son, según ellos, para el año con las cifras.', 'es'],
    ['Le rapport dit que les chiffres sont dans une hausse pour les clients et pour le pays.', 'fr'],
    ['Der Bericht sagt, dass die Firma und das Land nicht mit den Zahlen auf sich warten.', 'de'],
    ['报告说，公司正在增长，这是今年的计划。', 'zh'],
    ['報告によると、会社は成長しているとのことです。', 'ja'],
    ['보고서에 따르면 회사는 성장하고 있습니다.', 'ko'],
    ['قال التقرير إن الشركة تنمو.', 'ar'],
    ['Okonkwo Lagos', 'und'],
  ])('guesses the language of %s: %s', (text, lang) => {
    expect(pageAnchors(text).lang).toBe(lang);
  });

  it.each([
    ['en', 'es', true],
    ['en', 'zh', true],
    ['en', 'en', false],
    ['und', 'es', false],
  ] as const)('translated(%s, %s) is %s', (a, b, expected) => {
    expect(translated({ lang: a }, { lang: b })).toBe(expected);
  });
});

describe('pairs', () => {
  const P = (hashes: number[], phrases = hashes.map((_, i) => i), kept = hashes.map(() => 0)) => ({ hashes: Uint32Array.from(hashes), phrases: Int32Array.from(phrases), kept: Uint8Array.from(kept) });
  const params = { ...REWRITE_PARAMS.pairs, keptChannel: false };
  const shared = (a: Uint32Array, b: Uint32Array): number => [...a].filter((h) => b.includes(h)).length;

  it.each([
    ['window 1: neighbours', { window: 1 }, [1, 2, 3, 4], 3],
    ['window 2', { window: 2 }, [1, 2, 3, 4], 5],
    ['window 3', { window: 3 }, [1, 2, 3, 4], 6],
    ['repeats in a row pair with nothing', { window: 1 }, [1, 1, 2, 2, 3], 2],
    ['a mention within the gap is left out', { window: 1, repeatGap: 8 }, [1, 2, 1, 3], 2],
    ['a mention past the gap comes back', { window: 1, repeatGap: 1 }, [1, 2, 1, 3], 3],
    ['triples', { window: 3, arity: 3 as const }, [1, 2, 3, 4], 4],
  ])('%s', (_name, patch, hashes, count) => {
    expect(pairHashes(P(hashes), { ...params, ...patch }).length).toBe(count);
  });

  it('keeps the order unless told not to', () => {
    const forward = P([1, 2, 3]);
    const backward = P([3, 2, 1]);
    expect(shared(pairHashes(forward, params), pairHashes(backward, params))).toBe(0);
    const unordered = { ...params, ordered: false };
    expect(shared(pairHashes(forward, unordered), pairHashes(backward, unordered))).toBe(3);
  });

  it('pairs no two words of one name, and pairs the kept anchors among themselves', () => {
    // "Barack Obama" (one phrase), then two numbers with a name between
    expect(pairHashes(P([1, 2, 3]), { ...params, window: 2 }).length).toBe(3);
    expect(pairHashes(P([1, 2, 3], [0, 0, 1]), { ...params, window: 2 }).length).toBe(2);
    const page = P([10, 1, 2, 3, 11], [0, 1, 2, 3, 4], [1, 0, 0, 0, 1]);
    const withKept = pairHashes(page, { ...params, window: 1, keptChannel: true });
    expect(withKept.length).toBe(5); // four neighbours and 10 → 11
  });

  it('refuses a window or a gap that makes no sense', () => {
    expect(() => pairHashes(P([1, 2]), { ...params, window: 0 })).toThrow('the window must be a positive integer: got 0');
    expect(() => pairHashes(P([1, 2]), { ...params, repeatGap: -1 })).toThrow('the repeat gap must be 0 or more: got -1');
  });
});

describe('the consistent sample', () => {
  const sorted = (values: number[]): Uint32Array => Uint32Array.from(new Set(values)).sort();

  it.each([
    ['below the cap: all, at the share', [5, 2 ** 31, 2 ** 32 - 1], { share: 1, cap: 4 }, [5, 2 ** 31, 2 ** 32 - 1], 2 ** 32],
    ['a share of 1/2', [5, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1], { share: 1 / 2, cap: 4 }, [5, 2 ** 31 - 1], 2 ** 31],
    ['capped: the limit falls to a step of 2^16 at or below the next hash', [1, 70_000, 200_000, 300_000], { share: 1, cap: 2 }, [1, 70_000], 196_608],
    ['capped where the next hash shares a step: fewer kept', [1, 70_000, 70_001, 300_000], { share: 1, cap: 2 }, [1], 65_536],
  ])('%s', (_name, hashes, params, kept, limit) => {
    expect(sampleHashes(sorted(hashes), { ...params, bits: 32 })).toEqual({ hashes: Uint32Array.from(kept), limit });
  });

  it('keeps a hash on every page that has it, so that two samples cut to the smaller limit hold the pages\' shared hashes', () => {
    const next = uint32s(20261127);
    const random = mulberry32(7);
    for (let trial = 0; trial < 200; trial++) {
      const universe = Array.from({ length: 400 }, () => Math.floor(next() / 4096) * 4096);
      const a = sorted(universe.filter(() => random() < 0.3));
      const b = sorted(universe.filter(() => random() < 0.3));
      const params = { share: pick(random, [1, 1 / 2, 1 / 4]), cap: pick(random, [8, 32, 64, 512]), bits: 20 };
      const sa = sampleHashes(a, params);
      const sb = sampleHashes(b, params);
      const limit = Math.min(sa.limit, sb.limit);
      const below = (xs: Uint32Array): number[] => [...xs].filter((h) => h < limit);
      // every hash of a page below its limit is in its sample
      expect(below(sa.hashes)).toEqual([...a].filter((h) => h < limit));
      expect(below(sb.hashes)).toEqual([...b].filter((h) => h < limit));
      const both = below(a).filter((h) => b.includes(h));
      const fa: RewriteFingerprints = { ...sa, anchors: 0, lang: 'en' };
      const fb: RewriteFingerprints = { ...sb, anchors: 0, lang: 'en' };
      const c = compareRewrites(fa, fb);
      expect(c.shared).toBe(both.length);
      expect(c.aInB).toBe(below(a).length === 0 ? 0 : both.length / below(a).length);
      expect(c.bInA).toBe(below(b).length === 0 ? 0 : both.length / below(b).length);
    }
  });

  it('cuts hashes to their top bits, each once', () => {
    expect([...truncateHashes(Uint32Array.of(0, 4095, 4096, 8191, 2 ** 32 - 1), 20)]).toEqual([0, 4096, 2 ** 32 - 4096]);
    expect(() => truncateHashes(new Uint32Array(0), 12)).toThrow('bits must be a whole number from 16 to 32: got 12');
  });

  it('refuses a share or a cap that makes no sense', () => {
    expect(() => sampleHashes(new Uint32Array(0), { share: 0.3, cap: 4, bits: 32 })).toThrow('the share must be a multiple of 1/65536 in (0, 1]: got 0.3');
    expect(() => sampleHashes(new Uint32Array(0), { share: 1, cap: 0, bits: 32 })).toThrow('the cap must be a positive integer: got 0');
  });
});

describe('bytes', () => {
  const sample = REWRITE_PARAMS.sample;
  const unit = 2 ** (32 - sample.bits);

  it.each([
    ['no hash', { hashes: [], limit: 2 ** 32, anchors: 0, lang: 'und' }, [0, 0, 0]],
    // one hash, value 5 in 20-bit units: k = 18, a 0 bit, then 5 in 18 bits
    ['one hash', { hashes: [5 * unit], limit: 2 ** 32, anchors: 1, lang: 'en' }, [1, 2, 1, 0x00, 0x00, 0xa0]],
    // three hashes, values 0, 1, 2: gaps of 0, k = 17: 3 × 18 zero bits
    ['three hashes', { hashes: [0, unit, 2 * unit], limit: 2 ** 32, anchors: 5, lang: 'es' }, [5, 6, 2, 0, 0, 0, 0, 0, 0, 0]],
    // capped: the limit follows as a varint of its 2^16 steps
    ['capped', { hashes: [0], limit: 3 * 2 ** 16, anchors: 130, lang: 'zh' }, [0x82, 0x01, 3, 3, 8, 0x00]],
  ] as const)('%s', (_name, f, bytes) => {
    const fingerprints: RewriteFingerprints = { ...f, hashes: Uint32Array.from(f.hashes) };
    const encoded = encodeRewriteBytes(fingerprints);
    expect([...encoded]).toEqual(bytes);
    expect(rewriteByteSize(fingerprints)).toBe(bytes.length);
    expect(decodeRewriteBytes(encoded)).toEqual(fingerprints);
  });

  it('round-trips seeded fingerprints, capped or not, at every hash width', () => {
    const next = uint32s(99);
    const random = mulberry32(3);
    for (let trial = 0; trial < 300; trial++) {
      const bits = pick(random, [16, 20, 24, 32]);
      const params = { share: pick(random, [1, 1 / 2]), cap: pick(random, [4, 64, 300]), bits };
      const n = Math.floor(random() * 250);
      const all = truncateHashes(Uint32Array.from({ length: n }, () => next()).sort(), bits);
      const { hashes, limit } = sampleHashes(all, params);
      const f: RewriteFingerprints = { hashes, limit, anchors: Math.floor(random() * 1000), lang: pick(random, ['en', 'es', 'zh', 'und'] as const) };
      const bytes = encodeRewriteBytes(f, params);
      expect(bytes.length).toBe(rewriteByteSize(f, params));
      expect(decodeRewriteBytes(bytes, params)).toEqual(f);
    }
  });

  it('round-trips the fingerprints of a text', () => {
    const f = rewriteFingerprints(article(1, NAMES).join('\n\n'));
    const { note: _note, ...stored } = f;
    expect(f.hashes.length).toBeGreaterThan(10);
    expect(decodeRewriteBytes(encodeRewriteBytes(f))).toEqual(stored);
  });

  it.each([
    ['the bytes end inside a number', [0x80]],
    ['the bytes end before the language', [1, 2]],
    ['language 99 is unknown', [1, 2, 99]],
    ['the bytes end inside a hash', [1, 2, 1, 0]],
    ['bytes are left after the last hash', [1, 2, 1, 0, 0, 0xa0, 0]],
    ['200 hashes: at most 64 a page', [1, 0x90, 0x03, 1]],
    ['a limit of 0 · 2^16 is out of range', [1, 3, 0, 1]],
  ])('refuses bytes where %s', (message, bytes) => {
    expect(() => decodeRewriteBytes(Uint8Array.from(bytes))).toThrow(message);
  });

  it('refuses to encode hashes that are not sorted, below the limit and cut to the width', () => {
    const f = (hashes: number[], limit = 2 ** 32): RewriteFingerprints => ({ hashes: Uint32Array.from(hashes), limit, anchors: 0, lang: 'en' });
    expect(() => encodeRewriteBytes(f([2 * unit, unit]))).toThrow('hash 1 is not sorted');
    expect(() => encodeRewriteBytes(f([unit + 1]))).toThrow('cut to 20 bits');
    expect(() => encodeRewriteBytes(f([2 ** 17], 2 ** 16))).toThrow('below the limit');
    expect(() => encodeRewriteBytes(f([], 5))).toThrow('the limit must be a multiple of 2^16 in (0, 2^32]: got 5');
  });
});

// ---------- Planted texts ----------

const NAMES = ['Okonkwo', 'Lindqvist', 'Castellano', 'Ishikawa', 'Petrakis', 'Halvorsen', 'Quintero', 'Jablonski', 'Nakamura', 'Ekwueme', 'Fairbanks', 'Montoya', 'Rasmussen', 'Sandoval', 'Bertrand', 'Dunmore', 'Gutierrez', 'Kowalczyk', 'Tanaka', 'Villanueva'];
const OTHER_NAMES = ['Abernathy', 'Brightwater', 'Colquhoun', 'Delacroix', 'Espinosa', 'Fitzgerald', 'Gallagher', 'Hargreaves', 'Iglesias', 'Jorgensen', 'Kaczmarek', 'Lombardi', 'Mcallister', 'Nordstrom', 'Ortega', 'Pemberton'];
const FILLER = ['the', 'said', 'that', 'with', 'after', 'from', 'about', 'their', 'which', 'would', 'report', 'meeting', 'plan', 'city', 'money', 'week', 'people', 'told', 'over', 'into'];

/** The anchors of an article: names (a third of them repeated soon after) and numbers, seeded. */
function anchorSequence(seed: number, names: readonly string[], length = 40): string[] {
  const random = mulberry32(seed);
  const out: string[] = [];
  for (let i = 0; i < length; i++) out.push(random() < 0.2 ? String(100 + Math.floor(random() * 9000)) : pick(random, names));
  return out;
}

/** Paragraphs that carry the anchors in order, two a sentence, in filler of the given seed. */
function sentences(anchors: readonly string[], seed: number): string[] {
  const random = mulberry32(seed);
  const words = (n: number): string => Array.from({ length: n }, () => pick(random, FILLER)).join(' ');
  const paragraphs: string[] = [];
  for (let i = 0; i < anchors.length; i += 6) {
    const sentencesOf: string[] = [];
    for (let j = i; j < Math.min(i + 6, anchors.length); j += 2) sentencesOf.push(`It was ${words(3)} ${anchors[j]} ${words(4)}${j + 1 < anchors.length ? ` ${anchors[j + 1]}` : ''} ${words(2)}.`);
    paragraphs.push(sentencesOf.join(' '));
  }
  return paragraphs;
}

/** An article: a seeded anchor sequence in seeded filler. */
function article(seed: number, names: readonly string[]): string[] {
  return sentences(anchorSequence(seed, names), seed + 1000);
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = mulberry32(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('containment on planted texts', () => {
  const anchors = anchorSequence(11, NAMES);
  const original = rewriteFingerprints(sentences(anchors, 1).join('\n\n'));
  const cases: [string, string, (c: ReturnType<typeof compareRewrites>) => void, boolean][] = [
    ['a rewrite: the same anchors in other words', sentences(anchors, 2).join('\n\n'), (c) => expect([c.aInB, c.bInA]).toEqual([1, 1]), true],
    ['its first half', sentences(anchors.slice(0, 20), 3).join('\n\n'), (c) => expect(c.aInB).toBe(1), true],
    ['its second half', sentences(anchors.slice(20), 4).join('\n\n'), (c) => expect(c.aInB).toBeGreaterThan(0.5), true],
    ['its paragraphs in another order', shuffled(sentences(anchors, 5), 6).join('\n\n'), (c) => expect(c.aInB).toBeGreaterThan(REWRITE_RULE.threshold), true],
    ['the same names in another order', sentences(shuffled(anchors, 7), 8).join('\n\n'), (c) => expect(Math.max(c.aInB, c.bInA)).toBeLessThan(REWRITE_RULE.threshold), false],
    ['another article on other names', article(12, OTHER_NAMES).join('\n\n'), (c) => expect(c.shared).toBe(0), false],
  ];

  it.each(cases)('%s', (_name, text, check, linked) => {
    const c = compareRewrites(rewriteFingerprints(text), original);
    check(c);
    expect(isRewritePair(c)).toBe(linked);
  });

  it('finds a translation that keeps the names and writes the numbers its own way', () => {
    const english = 'Okonkwo met Lindqvist in Lagos on December 15, 2016. Castellano paid $4.8 billion to Ishikawa. Petrakis and Halvorsen signed 19,000 contracts. Quintero told Jablonski that Nakamura owed 1.5 million.';
    const spanish = 'Okonkwo se reunió con Lindqvist en Lagos el 15 de diciembre de 2016. Castellano pagó 4.800 millones de dólares a Ishikawa. Petrakis y Halvorsen firmaron 19.000 contratos. Quintero dijo a Jablonski que Nakamura debía 1,5 millones.';
    const chinese = '2016年12月15日，奥孔克沃在尼日利亚最大的城市拉各斯会见了来自瑞典的Lindqvist。卡斯特利亚诺向日本商人Ishikawa支付了48亿美元，这是今年规模最大的一笔交易。佩特拉基斯和哈尔沃森签署了1.9万份合同。金特罗告诉Jablonski，中村仍然欠着150万。';
    const [en, es, zh] = [english, spanish, chinese].map((t) => rewriteFingerprints(t));
    expect(isRewritePair(compareRewrites(es!, en!))).toBe(true);
    expect(isRewritePair(compareRewrites(zh!, en!))).toBe(true);
    expect(translated(es!, en!) && translated(zh!, en!)).toBe(true);
  });
});

describe('bad input', () => {
  const random = mulberry32(5);
  const common = 'the of and to in is it that was for on are with as they at be this from have or by had not but what all were when we there can an your which their said if do will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people made over did down only way find use may water long little very after words called just where most know'.split(' ');
  const planted = Array.from({ length: 12 }, (_, i) => rewriteFingerprints(article(100 + i, i % 2 ? NAMES : OTHER_NAMES).join('\n\n')));
  const sentence = 'Yesterday Barack Obama met Angela Merkel in Berlin to discuss the 2016 budget of 19 billion euros. ';
  // 200,000 words: filler with a seeded made-up name every twenty words
  const syllables = ['ka', 'lo', 'mir', 'tu', 'ven', 'sha', 'ro', 'dez', 'qui', 'bran', 'el', 'os'];
  const madeUpName = (): string => Array.from({ length: 3 }, () => pick(random, syllables)).join('').replace(/^./, (c) => c.toUpperCase());
  const long = Array.from({ length: 200_000 }, (_, i) => (i % 20 === 19 ? madeUpName() : pick(random, common))).join(' ');
  const cases: [string, string, RegExp | undefined, number?][] = [
    ['an empty page', '', /^no words$/],
    ['common words only', Array.from({ length: 3000 }, () => pick(random, common)).join(' '), /^no names, rare words or numbers/],
    ['common words, all capitalised', Array.from({ length: 300 }, () => pick(random, common).replace(/^./, (c) => c.toUpperCase())).join(' '), /^no names, rare words or numbers/],
    ['numbers only', Array.from({ length: 5000 }, (_, i) => String(i + 1)).join(', '), /^numbers only \(5000 numbers, 0 words\): not compared$/],
    ['a table of numbers', Array.from({ length: 400 }, () => String(Math.floor(random() * 3000))).join(' | '), /^numbers only/],
    ['Arabic', 'قال الرئيس إن فشله في تمرير القوانين هو أكبر إحباط في رئاسته عام 2016. '.repeat(40), /^the text is in arabic script, which has no capitals/],
    ['Thai', 'ประธานาธิบดีกล่าวว่าความล้มเหลวเป็นความผิดหวังที่ยิ่งใหญ่ที่สุด '.repeat(40), /^the text is in thai script/],
    ['Korean', '대통령은 총기 안전법을 통과시키지 못한 것이 가장 큰 좌절이라고 말했다 2016년 12월 15일. '.repeat(40), /^the text is in hangul script/],
    ['one sentence 500 times', sentence.repeat(500), /^repetitive: 3500 anchors but 9 distinct pairs$/],
    ['200,000 words', long, undefined, REWRITE_PARAMS.sample.cap],
  ];

  it.each(cases)('%s: a note, and no link', (_name, text, note, hashes) => {
    const f = rewriteFingerprints(text);
    if (note) expect(f.note).toMatch(note);
    else expect(f.note).toBeUndefined();
    if (hashes !== undefined) expect(f.hashes.length).toBeLessThanOrEqual(hashes);
    for (const other of planted) expect(isRewritePair(compareRewrites(f, other))).toBe(false);
  });
});

// ---------- Finding pairs ----------

/** Pages drawn from a small pool of hashes, so that they overlap; some capped. */
const pages = (seed: number, count: number): RewriteFingerprints[] => randomRewritePages(seed, count);

describe('findRewritePairs', () => {
  /** The reference: compare every pair, hashes on more than maxPages pages left out. */
  /** The reference: compare every pair that shares minIndexShared index hashes, hashes indexed on more than maxPages pages left out. */
  function bruteForce(all: RewriteFingerprints[], rule: RewriteRule, maxPages: number): string[] {
    const indexed = all.map((f) => new Set(Array.from(f.hashes).filter((h) => h < f.limit * rule.indexShare)));
    const pagesOf = new Map<number, number>();
    for (const set of indexed) for (const h of set) pagesOf.set(h, (pagesOf.get(h) ?? 0) + 1);
    const frequent = (h: number): boolean => (pagesOf.get(h) ?? 0) > maxPages;
    const out: string[] = [];
    for (let a = 0; a < all.length; a++) {
      for (let b = a + 1; b < all.length; b++) {
        if ([...indexed[a]!].filter((h) => indexed[b]!.has(h) && !frequent(h)).length < rule.minIndexShared) continue;
        // shared hashes on too many pages left out below both index limits; a hash one page has always counts
        const below = Math.min(all[a]!.limit, all[b]!.limit) * rule.indexShare;
        const c = compareRewrites(all[a]!, all[b]!, (h) => h < below && frequent(h));
        if (isRewritePair(c, rule)) out.push(`${a} ${b} ${c.shared} ${c.aInB} ${c.bInA}`);
      }
    }
    return out;
  }

  it.each([
    [1, REWRITE_RULE, Infinity],
    [2, { threshold: 0.1, minShared: 1, indexShare: 1, minIndexShared: 1 }, Infinity],
    [3, { threshold: 0.3, minShared: 3, indexShare: 0.5, minIndexShared: 2 }, 20],
    [4, { threshold: 0.2, minShared: 2, indexShare: 0.25, minIndexShared: 1 }, 12],
    [5, { threshold: 0, minShared: 1, indexShare: 1, minIndexShared: 3 }, 6],
  ])('seed %i, rule %j, hashes on more than %s pages left out: the pairs of comparing every pair', (seed, rule, maxPages) => {
    const all = pages(seed, 80);
    const expected = bruteForce(all, rule, maxPages);
    expect(expected.length).toBeGreaterThan(0);
    expect(findRewritePairs(all, rule, maxPages).map(({ a, b, comparison: c }) => `${a} ${b} ${c.shared} ${c.aInB} ${c.bInA}`)).toEqual(expected);
  });

  it('compares only pages sharing minIndexShared index hashes: a pair sharing hashes above half their limits is not found at share 1/2', () => {
    const limit = 2 ** 32;
    const high = Uint32Array.from([0x9000_0000, 0xa000_0000, 0xb000_0000, 0xc000_0000]);
    const a = { hashes: Uint32Array.from([0x1000_0000, ...high]), limit, anchors: 5, lang: 'en' as const };
    const b = { hashes: Uint32Array.from([0x1000_0000, ...high]), limit, anchors: 5, lang: 'en' as const };
    expect(isRewritePair(compareRewrites(a, b))).toBe(true);
    expect(findRewritePairs([a, b], REWRITE_RULE)).toEqual([]);
    expect(findRewritePairs([a, b], { ...REWRITE_RULE, minIndexShared: 1 }).map(({ a, b }) => [a, b])).toEqual([[0, 1]]);
    expect(findRewritePairs([a, b], { ...REWRITE_RULE, indexShare: 1 }).map(({ a, b }) => [a, b])).toEqual([[0, 1]]);
  });

  it('refuses a rule that would link pages sharing no hash', () => {
    expect(() => findRewritePairs([], { ...REWRITE_RULE, minIndexShared: 0 })).toThrow('minIndexShared must be 1 or more, got 0');
  });
});

describe('HashTable32', () => {
  it('answers as a Map does, for keys in and out', () => {
    const next = uint32s(41);
    const entries = Array.from({ length: 3000 }, (_, i) => [next() >>> 0, i % 100] as const);
    const table = new HashTable32(entries, entries.length);
    const map = new Map(entries);
    for (const [key] of entries) expect(table.get(key)).toBe(map.get(key));
    for (let i = 0; i < 3000; i++) {
      const key = next() >>> 0;
      expect(table.get(key)).toBe(map.get(key) ?? -1);
    }
  });
});

describe('the shipped common words', () => {
  const words = COMMON_WORDS.split(' ');

  it('are folded, sorted and distinct', () => {
    expect(words.every((w) => w === foldWord(w) && /^\p{L}{2,}$/u.test(w))).toBe(true);
    expect([...words].sort()).toEqual(words);
    expect(new Set(words).size).toBe(words.length);
  });

  it.each([
    ['the', true],
    ['said', true],
    ['el', true],
    ['tambien', true],
    ['google', false],
    ['december', false],
    ['paris', false],
  ])('%s is common: %s', (word, common) => {
    expect(words.includes(word)).toBe(common);
  });
});

describe('findRewriteMatches over RewriteIndex', () => {
  /** The reference: the looked-up page against every earlier page, its hashes on more than maxPages of them left out. */
  function bruteForce(all: RewriteFingerprints[], b: number, rule: RewriteRule, maxPages: number): string[] {
    const indexed = all.map((f) => new Set(Array.from(f.hashes).filter((h) => h < f.limit * rule.indexShare)));
    const pagesOf = new Map<number, number>();
    for (let a = 0; a < b; a++) for (const h of indexed[a]!) pagesOf.set(h, (pagesOf.get(h) ?? 0) + 1);
    const own = all[b]!;
    const skip = (h: number): boolean => indexed[b]!.has(h) && (pagesOf.get(h) ?? 0) > maxPages;
    const found: { a: number; larger: number; line: string }[] = [];
    for (let a = 0; a < b; a++) {
      if ([...indexed[b]!].filter((h) => indexed[a]!.has(h) && !skip(h)).length < rule.minIndexShared) continue;
      const below = Math.min(own.limit, all[a]!.limit) * rule.indexShare;
      const skipShared = (h: number): boolean => h < below && skip(h);
      const c = compareRewrites(own, all[a]!, skipShared);
      if (!isRewritePair(c, rule)) continue;
      const theirs = new Set(all[a]!.hashes);
      const limit = Math.min(own.limit, all[a]!.limit);
      const shared = Array.from(own.hashes).filter((h) => h < limit && theirs.has(h) && !skipShared(h));
      found.push({ a, larger: Math.max(c.aInB, c.bInA), line: `${a} ${c.shared} ${c.aInB} ${c.bInA} ${shared.join(',')}` });
    }
    return found.sort((x, y) => y.larger - x.larger || x.a - y.a).map((f) => f.line);
  }

  it.each([
    [1, REWRITE_RULE, Infinity],
    [2, { threshold: 0.3, minShared: MIN_SHARED, indexShare: 1, minIndexShared: MIN_SHARED }, Infinity],
    [3, { threshold: 0.3, minShared: 3, indexShare: 0.5, minIndexShared: 2 }, 20],
    [4, { threshold: 0.2, minShared: 2, indexShare: 0.25, minIndexShared: 1 }, 12],
    [5, { threshold: 0, minShared: 1, indexShare: 1, minIndexShared: 1 }, 6],
  ])('seed %i, rule %j, maxPages %s: each page against every earlier one, as comparing every pair', async (seed, rule, maxPages) => {
    const all = pages(seed, 80);
    const index = new RewriteIndex(maxPages, rule.indexShare);
    let matched = 0;
    for (let b = 0; b < all.length; b++) {
      const expected = bruteForce(all, b, rule, maxPages);
      const found = await findRewriteMatches(index, all[b]!, b, { rule, maxCandidates: Infinity });
      expect(found.map((m) => `${m.id} ${m.comparison.shared} ${m.comparison.aInB} ${m.comparison.bInA} ${m.shared.join(',')}`)).toEqual(expected);
      matched += found.length;
      index.add(b, all[b]!);
    }
    expect(matched).toBeGreaterThan(0);
  });

  it.each([
    [3, { threshold: 0.3, minShared: 3, indexShare: 0.5, minIndexShared: 2 }, 20],
    [4, { threshold: 0.2, minShared: 2, indexShare: 0.25, minIndexShared: 1 }, 12],
    [5, { threshold: 0, minShared: 1, indexShare: 1, minIndexShared: 1 }, 6],
  ])('seed %i, rule %j, maxPages %s: every page looked up in the whole index, each link found from both of its pages, with the same counts', async (seed, rule, maxPages) => {
    const all = pages(seed, 80);
    expect(new Set(all.map((f) => f.limit)).size).toBeGreaterThan(1); // pages of different limits: where the two lookups read different postings
    const index = new RewriteIndex(maxPages, rule.indexShare);
    all.forEach((f, id) => index.add(id, f));
    const links = new Map<string, string>();
    for (let a = 0; a < all.length; a++) {
      for (const m of await findRewriteMatches(index, all[a]!, a, { rule, maxCandidates: Infinity })) {
        links.set(`${a} ${m.id}`, `${m.comparison.shared} ${m.comparison.aInB} ${m.comparison.bInA}`);
      }
    }
    expect(links.size).toBeGreaterThan(0);
    for (const [pair, counts] of links) {
      const [a, b] = pair.split(' ');
      const [shared, aInB, bInA] = counts.split(' ');
      expect([pair, links.get(`${b} ${a}`)]).toEqual([pair, `${shared} ${bInA} ${aInB}`]);
    }
  });

  it('leaves out the pages it is told to, keeps the candidates sharing most, and says when two pages are in different languages', async () => {
    const index = new RewriteIndex();
    const hashes = Uint32Array.from([1, 2, 3, 4, 5, 6].map((h) => h * 4096));
    index.add(0, { hashes, limit: 2 ** 32, anchors: 6, lang: 'en' });
    index.add(1, { hashes: hashes.slice(0, 4), limit: 2 ** 32, anchors: 4, lang: 'es' });
    const own = { hashes, limit: 2 ** 32, anchors: 6, lang: 'en' as const };
    const both = await findRewriteMatches(index, own, 2);
    expect(both.map((m) => [m.id, m.translated, m.shared.length])).toEqual([[0, false, 6], [1, true, 4]]);
    expect((await findRewriteMatches(index, own, 2, { exclude: (id) => id === 0 })).map((m) => m.id)).toEqual([1]);
    expect((await findRewriteMatches(index, own, 2, { maxCandidates: 1 })).map((m) => m.id)).toEqual([0]);
    expect(() => index.add(1, own)).toThrow('page 1 is already in the rewrite index');
    await expect(findRewriteMatches(index, own, 2, { rule: { ...REWRITE_RULE, indexShare: 1 } })).rejects.toThrow("the rule's index share (1) is not the index's (0.5)");
  });
});

describe('sharedAnchorRanges', () => {
  const ORIGINAL = [
    'Volunteers in Wrenmouth restarted the tide mill on 27 April after eleven years of work by the Wrenmouth Tide Mill Trust.',
    'The mill, built in 1793 for the Pellow family, ground grain for farms along the River Wren until 1938.',
    'Engineer Margaret Osei said the new oak wheel weighs 4,200 kilograms and turns twelve times a minute.',
    'The Heritage Lottery Fund gave £340,000, and Cornwall Council added £85,000 for the sluice gates.',
    'From June the mill will open to visitors on Saturdays, and schools from Truro and Falmouth have booked visits.',
  ].join('\n');
  const SPANISH = [
    'Los voluntarios de Wrenmouth pusieron en marcha el molino de marea el 27 de abril, tras once años de trabajo del Wrenmouth Tide Mill Trust.',
    'El molino, construido en 1793 para la familia Pellow, molió grano para las granjas del río Wren hasta 1938.',
    'La ingeniera Margaret Osei dijo que la nueva rueda de roble pesa 4.200 kilos y gira doce veces por minuto.',
    'El Heritage Lottery Fund aportó 340.000 libras y el Cornwall Council añadió 85.000 libras para las compuertas.',
    'Desde junio el molino abrirá a los visitantes los sábados, y colegios de Truro y Falmouth ya han reservado visitas.',
  ].join('\n');

  it('marks, on a page with more around it, the rare words of the pairs it shares with a translation, and nothing else', () => {
    const original = rewriteFingerprints(ORIGINAL);
    const spanish = rewriteFingerprints(SPANISH);
    const theirs = new Set(spanish.hashes);
    const shared = Array.from(original.hashes).filter((h) => theirs.has(h));
    expect(shared.length).toBeGreaterThanOrEqual(3);
    // the live page: navigation before the article, a footer after it
    const live = `Home | News | Sport\n${ORIGINAL}\nCopyright Estuary Gazette 2024`;
    const ranges = sharedAnchorRanges(live, shared);
    const marked = ranges.map(({ start, end }) => live.slice(start, end));
    expect(marked.length).toBeGreaterThanOrEqual(3);
    // each mark is one of the live page's anchors, and a rare word the Spanish page has too
    const tokenAt = new Map(rewriteAnchors(live).map((a) => [`${a.start} ${a.end}`, a.token]));
    const spanishTokens = new Set(pageAnchors(SPANISH).anchors.map((a) => a.token));
    for (const { start, end } of ranges) expect(spanishTokens.has(tokenAt.get(`${start} ${end}`) ?? ''), live.slice(start, end)).toBe(true);
    expect(marked).not.toContain('Home');
    expect(marked).not.toContain('Estuary');
    // in order, each once
    const starts = sharedAnchorRanges(live, shared).map((r) => r.start);
    expect(starts).toEqual([...new Set(starts)].sort((a, b) => a - b));
    expect(sharedAnchorRanges(live, [])).toEqual([]);
    expect(sharedAnchorRanges(UNRELATED_TEXT, shared)).toEqual([]);
  });
});

const UNRELATED_TEXT = 'Researchers in Oslo counted 1,204 foxes in Bergen and Trondheim between 2019 and 2021, the Norwegian Institute for Nature Research said on Tuesday.';

describe('the rare-word scan\'s ASCII classes', () => {
  it('are classify\'s, written out so that no regular expression is compiled when the content script loads', () => {
    expect(Array.from(ASCII_CLASS)).toEqual(Array.from({ length: 128 }, (_, c) => classifyCodePoint(c)));
  });
});

describe('the shapes of German nouns', () => {
  it.each([
    ['schwachstelle', false, true], // 13 letters
    ['regierung', false, true], // a noun's ending
    ['möglichkeit', false, true],
    ['müller', false, true], // an umlaut: a German name is lost with the nouns
    ['straße', false, true],
    ['monate', true, true], // after a number: "21 Monate"
    ['askar', false, false],
    ['mojang', false, false],
    ['pakistan', false, false],
    ['server', false, false], // a noun no rule tells from a name
  ])('%s (after a number: %s) → %s', (word, afterNumber, noun) => {
    expect(germanNounShape(word, afterNumber)).toBe(noun);
  });
});
