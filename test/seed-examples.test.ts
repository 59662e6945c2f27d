// The design documents' worked examples (../shared/seeds), reproduced exactly.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MinHasher, estimateJaccard } from '../lib/fingerprint/minhash';
import { NILSIMSA_THREE_SIGMA, compareNilsimsa, nilsimsaFromHex, nilsimsaOfText, nilsimsaToHex } from '../lib/fingerprint/nilsimsa';
import { hash64 } from '../lib/fingerprint/hash';
import { bandingProbability, lshCandidates } from '../lib/index/lsh';
import { uint32s } from '../lib/random';
import { fingerprintText } from '../lib/fingerprint/features';
import { hammingDistance } from '../lib/fingerprint/bits';
import { karpRabinHashes, winnow } from '../lib/fingerprint/winnow';
import { characterShingles, jaccard } from './support/shingles';
import { fingerprintOfVector, simhash, simhashVector } from '../lib/fingerprint/simhash';
import { NLTK_ENGLISH_STOPWORDS } from './support/stopwords';
import { designTables } from '../lib/index/tables';
import { tokenize } from '../lib/text/words';

const md5 = (s: string): bigint => BigInt('0x' + createHash('md5').update(s, 'utf8').digest('hex'));

function termFrequencies(words: string[]): [string, number][] {
  const tf = new Map<string, number>();
  for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
  return [...tf];
}

describe('seed 000: simhash of "Tropical fish…" with MD5, 8 bits, NLTK stop words, tf weights', () => {
  const text =
    'Tropical fish include fish found in tropical environments around the world, including both freshwater and salt water species.';
  const seedWords = (fold: boolean) => tokenize(text, { fold }).filter((w) => !NLTK_ENGLISH_STOPWORDS.has(w));

  it('tokenizes as the seed does', () => {
    expect(seedWords(true)).toEqual([
      'tropical', 'fish', 'include', 'fish', 'found', 'tropical', 'environments', 'around', 'world', 'including',
      'freshwater', 'salt', 'water', 'species',
    ]);
  });

  it('gives V = [4, 0, 2, -4, -2, 2, 0, 4] and fingerprint 165', () => {
    const v = simhashVector(termFrequencies(seedWords(true)), { bits: 8, hash: md5 });
    expect(v).toEqual([4, 0, 2, -4, -2, 2, 0, 4]);
    expect(fingerprintOfVector(v)).toBe(165n);
    expect((165).toString(2)).toBe('10100101');
  });

  it('uses the low 8 bits of each MD5, as the seed prints them', () => {
    const low8 = (w: string) => Number(md5(w) & 0xffn).toString(2);
    expect(['environments', 'salt', 'fish', 'tropical'].map(low8)).toEqual(['101111', '11101110', '1001', '11110101']);
  });

  it('without lower-casing gives 167, one bit away', () => {
    const folded = simhash(termFrequencies(seedWords(true)), { bits: 8, hash: md5 });
    const kept = simhash(termFrequencies(seedWords(false)), { bits: 8, hash: md5 });
    expect(kept).toBe(167n);
    expect(hammingDistance((folded as never), (kept as never))).toBe(1);
  });
});

describe('seed 004: Jaccard similarity of 4-character shingles', () => {
  const texts = [
    'el perro persigue al gato, pero no lo alcanza',
    'el gato persigue al perro, pero no lo alcanza',
    'este es el documento de ejemplo',
    'el documento habla de perros, gatos, y otros animales',
  ];
  const shingles = texts.map((t) => characterShingles(t, 4));

  it('lists the shingles of text 1 as the seed does', () => {
    expect([...shingles[0]!].slice(0, 10)).toEqual(['el p', 'l pe', ' per', 'perr', 'erro', 'rro ', 'ro p', 'o pe', 'pers', 'ersi']);
    expect(shingles[0]!.size).toBe(40);
  });

  it.each([
    [1, 2, 0.739],
    [1, 3, 0],
    [1, 4, 0.0595],
    [3, 4, 0.167],
    [2, 4, 0.0595],
  ])('texts %i and %i: %f', (a, b, expected) => {
    const j = jaccard(shingles[a - 1]!, shingles[b - 1]!);
    expect(Number(j.toPrecision(3))).toBe(expected);
  });

  describe('MinHash and LSH banding', () => {
    const hasher = new MinHasher(200, 2024);
    const signatures = shingles.map((set) => hasher.signature([...set].map((s) => hash64(s).lo))!);

    it.each([
      [1, 2],
      [1, 3],
      [1, 4],
      [2, 3],
      [2, 4],
      [3, 4],
    ])('texts %i and %i: the estimate from 200 hash functions is within 0.07 of the exact Jaccard', (a, b) => {
      const exact = jaccard(shingles[a - 1]!, shingles[b - 1]!);
      expect(Math.abs(estimateJaccard(signatures[a - 1]!, signatures[b - 1]!) - exact)).toBeLessThanOrEqual(0.07);
    });

    it.each([
      [0.739, 20, 5, 1 - (1 - 0.739 ** 5) ** 20],
      [0.167, 20, 5, 1 - (1 - 0.167 ** 5) ** 20],
      [0.5, 2, 3, 1 - 0.875 ** 2],
      [0.8, 1, 1, 0.8],
    ])('a pair at s = %f is a candidate under %i bands of %i rows with probability 1 − (1 − s^r)^b = %f', (s, bands, rows, p) => {
      expect(bandingProbability(s, { bands, rows })).toBeCloseTo(p, 12);
    });

    // Planted pairs: two sets of 100 distinct values sharing s·100 of them, so Jaccard is exactly s.
    // 400 pairs at each s; the rate of candidates is binomial, and 4.5 standard errors (plus one
    // pair) bound it with a chance of a false failure below 1 in 100,000 for any seed.
    it.each([0.2, 0.4, 0.6, 0.8])('planted pairs at s = %f become candidates at the predicted rate (20 bands of 5 rows)', (s) => {
      const banding = { bands: 20, rows: 5 };
      const pairHasher = new MinHasher(100, 7);
      const next = uint32s(Math.round(s * 1000));
      const trials = 400;
      const shared = Math.round(100 * s);
      const only = (100 - shared) / 2;
      let candidates = 0;
      for (let t = 0; t < trials; t++) {
        const common = Array.from({ length: shared }, next);
        const a = [...common, ...Array.from({ length: only }, next)];
        const b = [...common, ...Array.from({ length: only }, next)];
        expect(jaccard(new Set(a), new Set(b))).toBeCloseTo(s, 12);
        candidates += lshCandidates([pairHasher.signature(a), pairHasher.signature(b)], banding).length;
      }
      const p = bandingProbability(s, banding);
      const bound = 4.5 * Math.sqrt((p * (1 - p)) / trials) + 1 / trials;
      expect(Math.abs(candidates / trials - p)).toBeLessThanOrEqual(bound);
    });
  });
});

describe('seed 002: nilsimsa', () => {
  const printed1 = '773e2df0a02a319ec34a0b71d54029111da90838cbc20ecd3d2d4e18c25a3025';
  const printed2 = '47182cf0802a11dec24a3b75d5042d310ca90838c9d20ecc3d610e98560a3645';

  it('the two printed codes compare at 92: 36 bits differ', () => {
    const score = compareNilsimsa(nilsimsaFromHex(printed1), nilsimsaFromHex(printed2));
    expect(score).toBe(92);
    expect(128 - score).toBe(36);
  });

  // The seed's two spam messages, as its web page shows them. The page turned the indents into
  // non-breaking spaces (written back as spaces here) and lost the mails' original line ends and
  // trailing whitespace, so the printed codes cannot be reproduced bit for bit. What can be
  // checked: the codes of these texts are far above the 3-sigma line of 24 with each other and
  // with both printed codes (the cleaned-up copy comes within 5 bits of its printed code).
  const spam1 = [
    'Dear Sir / Madam,',
    '         It is a great honour to have the chance to introduce our company(Guangdong',
    'Kestar Electronic Co.Ltd.) and our main products.',
    '     Guangdong Kestar Electronic Co.Ltd. is located in Guangdong province mainland',
    'China.It is a professional manufcturer on Varistors ,equipped with a complete',
    'set of advanced machinery,possessed high abilities of development & exploitation.We',
    'have 10 years experience in managing large size production.',
    '     Our main seven series varistors are WYG current varistor, MYL lihtningproof',
    'varistor,MYE high load varistor,MYA minitype varistor,MYP squareness varistor,MYR',
    'highly reliable&varistor,low-pressure power supply lightning arrester.. The',
    'Varistors conform to ISO9002 .The products have passed several international',
    'authentication.',
    '      if you are interested in our products, please contact us without hesitate.',
    '',
    'yours truely Lin Cang.',
    '',
    'Guangdong Kestar Electronic Co.Ltd',
  ].join('\n');
  const spam2 = [
    'Dear Sir / Madam,',
    '     It is a great honour to have the chance to introduce our company (Guangdong',
    'Kestar Electronic Co. Ltd.) and our main products.',
    '     Guangdong Kestar Electronic Co.Ltd. is located in Guangdong province, mainland',
    'China. It is a professional manufacturer of varistors, equipped with a complete',
    'set of advanced machinery, possessing high abilities of development & exploitation. We',
    'have 10 years experience in managing large size production.',
    '     Our main seven series varistors are WYG current varistor, MYL lightningproof',
    'varistor, MYE high load varistor, MYA minitype varistor, MYP squareness varistor, MYR',
    'highly reliable varistor, low-pressure power supply lightning arrester. The',
    'Varistors conform to ISO9002. The products have passed several international',
    'authentications.',
    '      if you are interested in our products, please contact us without hesitation.',
    '',
    'yours truly, Lin Cang.',
    '',
    'Guangdong Kestar Electronic Co. Ltd',
  ].join('\n');
  const code1 = nilsimsaOfText(spam1);
  const code2 = nilsimsaOfText(spam2);

  it.each([
    ['spam 1', code1, 'spam 2', code2, 99],
    ['spam 1', code1, 'printed code 1', nilsimsaFromHex(printed1), 104],
    ['spam 2', code2, 'printed code 2', nilsimsaFromHex(printed2), 123],
    ['spam 1', code1, 'printed code 2', nilsimsaFromHex(printed2), 102],
    ['spam 2', code2, 'printed code 1', nilsimsaFromHex(printed1), 89],
  ])('%s against %s compares at %i, well above 24', (_a, a, _b, b, score) => {
    expect(compareNilsimsa(a, b)).toBe(score);
    expect(score).toBeGreaterThan(3 * NILSIMSA_THREE_SIGMA);
  });

  // A published reference: the digests in the test suite of the npm package nilsimsa@2.0.3
  // (test/nilsimsa.test.js, citing asecuritysite.com's nilsimsa page), which follows cmeclax's C code.
  it.each([
    ['The quick brown fox', '0a31b4be01a0808a29e0ec60e9a258545dc0526770022348380a2128708f2fdb'],
    ['The quicker brown fox', '1a31bc3e02a080a28b642864ea224857ddd0526f78022b48380e2269329d3fdb'],
  ])('the nilsimsa of %j is the published %s', (text, hex) => {
    expect(nilsimsaToHex(nilsimsaOfText(text))).toBe(hex);
  });

  it('the two published digests compare at 91, as published', () => {
    expect(compareNilsimsa(nilsimsaOfText('The quick brown fox'), nilsimsaOfText('The quicker brown fox'))).toBe(91);
  });
});

describe('seed 001: Chinese text', () => {
  // The seed's three paragraphs: an unrelated one, the original and its lightly edited copy.
  const unrelated =
    '1993年,南京大学有这样一个男生寝室,四个男生都没有女朋友,于是搞了个组合叫“名草无主四大天王”。这四大天王坚持每晚举行“卧谈会”,从各种学术上讨论如何摆脱光棍状态。这一年的11月,校园的梧桐树落叶凋零,令他们分外伤情。他们在11日这一天晚上卧谈时,符号学的灵感突然登门造访。11月11日,四个1字排开,不正是好像四根光秃秃的棍子吗?这四根光棍不正是在巧妙地诉说着“名草无名四大天王”的凄凉吗?';
  const original =
    '知乎上有个提问,小时候缺爱的女孩子,长大后该怎么办?或许在我这里,只是希望一直有人陪。喜宝说,我想要很多很多的爱,要不就是很多很多的钱,实在不行,有健康也是好的。我有个坏毛病,经常会半夜饿到不行,爬起来找吃的。是真的饿到胃疼,有时候直接饿醒了,每次看到电影里的台词,睡着了就不饿了,我是压根不相信。为什么会半夜饿?究其原因,是大学的时候没人陪我吃饭,每次都是一直等到有人陪我的时候,我才会去吃饭,最后把自己饿到胃疼,久而久之,就渐渐习惯了熬到很晚才吃饭。我不喜欢一个人吃饭,也不喜欢一个人逛街,更不喜欢一个人呆着,可是成长啊,往往是越不喜欢的便越要学会接受它。(二)讲讲上一段恋爱吧。我和他认识的时候,是因为贴吧聚餐,他主动找我要的微信,附带一个如沐春风般的笑容。我一直以为他是被我的美色打动,后来问他原因。他说,他第一次看见那么能吃的女孩子,他惊呆了,可是有觉得看我吃饭很意思,仿佛食物都有了灵魂,让人的心情莫名的好了起来。我们初相识,是因为他看见了我饿死鬼投胎的吃相。我们在一起,是因为他厨艺很好,好到什么程度呢?就是那种你吃过一顿,就能惦记一辈子的感觉。即便是现在回忆起他来,我的味蕾都会有反应。他总是给我做很多很多好吃的,午后阳光从窗子洒进来,窗帘是淡绿色的小碎花,空气里弥漫着饭香味,我们两个人坐在桌前,一边吃饭,一边聊天。我喜欢和他一起手挽着手去菜市场买菜,西红柿土豆黄瓜小白菜,手里拎着的这些果蔬食物,就好像我拥有的全世界。有一次,我们从菜市场回去的路上,明明是艳阳高照的天气,却突然间下起了冰雹,那是他第一次看见冰雹,被砸了一下之后,便立马丢了手里的菜,双手护住我,我傻了吧唧的去捡菜,被砸了一身。他立马臭骂了我一顿,说我是他见过,最好吃的女孩子了。';
  const edited =
    '知乎上有个提问,小时候缺爱的女孩子,长大后该怎么办?或许在我这里,只是希望一直有人陪。喜宝说,我想要很多很多的爱,要不就是很多很多的钱,实在不行,我有个坏毛病,经常会半夜饿到不行,爬起来找吃的。是真的饿到胃疼,有时候直接饿醒了,每次看到电影里的台词,睡着了就不饿了,我是压根不相信。究其原因,是大学的时候没人陪我吃饭,每次都是一直等到有人陪我的时候,我才会去吃饭,最后把自己饿到胃疼,久而久之我不喜欢一个人吃饭,也不喜欢一个人逛街,更不喜欢一个人呆着,可是成长啊,往往是越不喜欢的便越要学会接受它。我和他认识的时候,是因为贴吧聚餐,他主动找我要的微信,附带一个如沐春风般的笑容。我一直以为他是被我的美色打动,后来问他原因。他说,他第一次看见那么能吃的女孩子,他惊呆了,可是有觉得看我吃饭很意思,仿佛食物都有了灵魂,让人的心情莫名的好了起来。我们初相识,是因为他看见了我饿死鬼投胎的吃相。我们在一起,是因为他厨艺很好,好到什么程度呢?就是那种你吃过一顿,就能惦记一辈子的感觉。即便是现在回忆起他来,我的味蕾都会有反应。他总是给我做很多很多好吃的,午后阳光从窗子洒进来,窗帘是淡绿色的小碎花,空气里弥漫着饭香味,我们两个人坐在桌前,一边吃饭,一边聊天。我喜欢和他一起手挽着手去菜市场买菜,西红柿土豆黄瓜小白菜,手里拎着的这些果蔬食物,有一次,我们从菜市场回去的路上,明明是艳阳高照的天气,却突然间下起了冰雹,那是他第一次看见冰雹,被砸了一下之后,便立马丢了手里的菜,双手护住我,我傻了吧唧的去捡菜,被砸了一身。他立马臭骂了我一顿,说我是他见过,最好吃的女孩子了。';

  it('tokenizes Chinese into characters and character bigrams, not one token per run', () => {
    expect(tokenize('葫芦娃,一根藤')).toEqual(['葫', '芦', '娃', '葫芦', '芦娃', '一', '根', '藤', '一根', '根藤']);
  });

  it('the paragraph and its lightly edited copy are within k = 3', () => {
    const d = hammingDistance(fingerprintText(original).simhash, fingerprintText(edited).simhash);
    expect(d).toBeLessThanOrEqual(3);
  });

  it('the two unrelated paragraphs are at least 16 bits apart', () => {
    const d = hammingDistance(fingerprintText(unrelated).simhash, fingerprintText(original).simhash);
    expect(d).toBeGreaterThanOrEqual(16);
  });
});

describe("seed 002: Manku's table designs for f = 64, k = 3", () => {
  it('4 blocks give 4 tables keyed on 16 bits', () => {
    const design = designTables({ k: 3, b: 4 });
    expect(design.blocks.map((b) => b.bits)).toEqual([16, 16, 16, 16]);
    expect(design.tables.map((t) => [t.chosen, t.keyBits])).toEqual([
      [[0], 16],
      [[1], 16],
      [[2], 16],
      [[3], 16],
    ]);
  });

  it('6 blocks of 11, 11, 11, 11, 10, 10 bits give C(6,3) = 20 tables keyed on 31–33 bits', () => {
    const design = designTables({ k: 3, b: 6 });
    expect(design.blocks.map((b) => b.bits)).toEqual([11, 11, 11, 11, 10, 10]);
    expect(design.tables.map((t) => [t.chosen.join(''), t.keyBits])).toEqual([
      ['012', 33], ['013', 33], ['014', 32], ['015', 32], ['023', 33],
      ['024', 32], ['025', 32], ['034', 32], ['035', 32], ['045', 31],
      ['123', 33], ['124', 32], ['125', 32], ['134', 32], ['135', 32],
      ['145', 31], ['234', 32], ['235', 32], ['245', 31], ['345', 31],
    ]);
  });
});

describe("seed 003: winnowing with the seed's own procedure (characters lower-cased only, n = 5, t = 9, base 17)", () => {
  const test1 =
    'In many applications it is useful to record not only the fingerprints of a document, but also the position of the fingerprints in the document. For example, we need positional information to show the matching substrings in a user interface. An efficient implementation of winnowing also needs to retain the position of the most recently selected fingerprint. Figure 2(f) shows the set of [fingerprint, position] pairs for this example (the first position is numbered 0). To avoid the notational complexity of indexing all hashes with their position in the global sequence of hashes of k-grams of a document, we suppress most explicit references to the position of k-grams in documents in our presentation.';
  const test2 =
    "An efficient implementation of winnowing needs to keep the pos of most recently selected fingerprint, too. To avoid the complexity of indexing hashes with position in global sequence of hashes of k-grams in a document. It is very useful in many applications to not only record the fingerprints of documents, but also to record the fingerprints. For example, if we need positions to show the matching substrings in a user's interface.";
  // preprocessing: the seed's `re.compile(r'^a-zA-Z')` matches nothing, so only lower() applies.
  const seedFingerprint = (text: string) => {
    const codePoints = Array.from(text.toLowerCase(), (c) => c.codePointAt(0)!);
    return winnow(karpRabinHashes(codePoints, 5, 17), 9 - 5 + 1);
  };
  /** The seed's `comparison`: values of the first found in the second, each repeat counted, over the smaller count. */
  const seedComparison = (a: number[], b: number[]) => a.filter((v) => b.includes(v)).length / Math.min(a.length, b.length);
  const f1 = seedFingerprint(test1);
  const f2 = seedFingerprint(test2);

  it('selects 220 and 133 positions', () => {
    expect(f1.positions).toHaveLength(220);
    expect(f2.positions).toHaveLength(133);
  });

  it("gives the seed's comparison 1.0677, which exceeds 1 because a repeated value counts each time", () => {
    expect(seedComparison(f1.values, f2.values)).toBeCloseTo(1.0677, 4);
    expect(seedComparison(f1.values, f2.values)).toBeGreaterThan(1);
  });

  it('over distinct values: 160 and 111, 89 shared, containment 0.802, Jaccard 0.489', () => {
    const d1 = new Set(f1.values);
    const d2 = new Set(f2.values);
    const shared = [...d1].filter((v) => d2.has(v)).length;
    expect([d1.size, d2.size, shared]).toEqual([160, 111, 89]);
    expect(shared / Math.min(d1.size, d2.size)).toBeCloseTo(0.802, 3);
    expect(jaccard(d1, d2)).toBeCloseTo(0.489, 3);
  });
});
