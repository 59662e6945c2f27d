// normalizeText, tokenize and forEachToken, script by script, with exact expected tokens.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../lib/random';
import { BIGRAM, SEGMENTED, WORD, type TokenKind, forEachToken, normalizeText, normalizeWithOffsets, tokenize, wordSpans } from '../lib/text/words';

/** forEachToken's calls, as [start, end, kind, text]. */
function ranges(normalized: string): [number, number, TokenKind, string][] {
  const out: [number, number, TokenKind, string][] = [];
  forEachToken(normalized, (start, end, kind) => out.push([start, end, kind, normalized.slice(start, end)]));
  return out;
}

describe('normalizeText', () => {
  it.each([
    ['fullwidth letters and digits (NFKC)', 'ＡＢＣ１２３', 'abc123'],
    ['halfwidth katakana (NFKC)', 'ｶﾀｶﾅ', 'カタカナ'],
    ['ligature ﬁ (NFKC)', 'ﬁnance ﬂow', 'finance flow'],
    ['roman numeral (NFKC)', 'Ⅻ', 'xii'],
    ['ASCII case', 'Hello WORLD', 'hello world'],
    ['capital sigma and final sigma fold to σ', 'ΣΊΣΥΦΟΣ', 'σίσυφοσ'],
    ['a lone final sigma', 'ς', 'σ'],
    ['ß → ss', 'Straße', 'strasse'],
    ['long s → s', 'ſtraſſe', 'strasse'],
    ['zero-width space', 'zero\u200bwidth', 'zerowidth'],
    ['zero-width non-joiner and joiner', 'a\u200cb\u200dc', 'abc'],
    ['word joiner and BOM', '\ufeffword\u2060joiner', 'wordjoiner'],
    ['soft hyphen', 'co\u00adop\u00aderation', 'cooperation'],
    ['combining acute composes (e + U+0301 → é)', 'Cafe\u0301', 'caf\u00e9'],
    ['Cyrillic case', 'МОСКВА', 'москва'],
    ['empty', '', ''],
  ])('%s', (_name, input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });

  it('composes a combining accent into one code unit', () => {
    expect(normalizeText('e\u0301')).toHaveLength(1);
    expect(normalizeText('e\u0301')).toBe(normalizeText('É'));
  });

  it('is idempotent', () => {
    const text = 'ＡＢＣ Straße ΣΊΣΥΦΟΣ ﬁ co\u00adop Cafe\u0301 東京 ไทย';
    expect(normalizeText(normalizeText(text))).toBe(normalizeText(text));
  });
});

describe('tokenize', () => {
  it.each<[string, string, string[]]>([
    [
      'English: apostrophes split, digits kept, punctuation dropped',
      "Don't stop: it's 2024, version 3.14 — rock'n'roll!",
      ['don', 't', 'stop', 'it', 's', '2024', 'version', '3', '14', 'rock', 'n', 'roll'],
    ],
    ['English: a typographic apostrophe splits the same way', 'It’s A1', ['it', 's', 'a1']],
    ['French and German accents stay inside words', 'Café déjà vu, naïve façade; Straße über Größe', ['café', 'déjà', 'vu', 'naïve', 'façade', 'strasse', 'über', 'grösse']],
    ['a decomposed accent stays inside its word', 'Cafe\u0301 ole\u0301', ['café', 'olé']],
    ['Russian', 'Москва — столица России, ёлка', ['москва', 'столица', 'россии', 'ёлка']],
    ['Greek, with final sigma folded', 'Η Αθήνα είναι ΟΔΟΣ ΣΟΦΟΚΛΕΟΥΣ', ['η', 'αθήνα', 'είναι', 'οδοσ', 'σοφοκλεουσ']],
    ['Arabic (RTL), Arabic comma as a separator', 'مرحبا بالعالم، هذه مدينة', ['مرحبا', 'بالعالم', 'هذه', 'مدينة']],
    ['Arabic with harakat (combining marks) stays whole', 'كَتَبَ الوَلَدُ', ['كَتَبَ', 'الوَلَدُ']],
    ['Hebrew (RTL)', 'שלום עולם, ספר', ['שלום', 'עולם', 'ספר']],
    ['Hebrew with niqqud stays whole', 'שָׁלוֹם', ['שָׁלוֹם']],
    ['Hindi: virama and vowel signs stay inside words, danda separates', 'नमस्ते दुनिया। हिन्दी भाषा क्षत्रिय', ['नमस्ते', 'दुनिया', 'हिन्दी', 'भाषा', 'क्षत्रिय']],
    ['Korean (spaced Hangul)', '안녕하세요 세계, 한국어 문장', ['안녕하세요', '세계', '한국어', '문장']],
    ['Chinese: characters, then bigrams, per run', '葫芦娃,一根藤', ['葫', '芦', '娃', '葫芦', '芦娃', '一', '根', '藤', '一根', '根藤']],
    ['Chinese: fullwidth comma separates runs', '我爱北京，你好', ['我', '爱', '北', '京', '我爱', '爱北', '北京', '你', '好', '你好']],
    [
      'Japanese: kanji, katakana, ー and hiragana form one run',
      '東京タワーに行きました',
      ['東', '京', 'タ', 'ワ', 'ー', 'に', '行', 'き', 'ま', 'し', 'た', '東京', '京タ', 'タワ', 'ワー', 'ーに', 'に行', '行き', 'きま', 'まし', 'した'],
    ],
    ['Latin next to Han splits at the script change', 'Doppel检测重复', ['doppel', '检', '测', '重', '复', '检测', '测重', '重复']],
    ['Han between digits', '2016年10月', ['2016', '年', '10', '月']],
    ['Thai: words from Intl.Segmenter', 'สวัสดีครับ ภาษาไทย', ['สวัสดี', 'ครับ', 'ภาษา', 'ไทย']],
    ['Thai: an unspaced sentence is several words, not one run', 'ภาษาไทยง่ายนิดเดียว', ['ภาษา', 'ไทย', 'ง่าย', 'นิด', 'เดียว']],
    ['emoji and symbols are dropped', 'I love 🍕 & pizza ★ © → $100 😀 ♥ ∑', ['i', 'love', 'pizza', '100']],
    ['astral Han (𠀀, two UTF-16 units) is one character', '𠀀𠀁字', ['𠀀', '𠀁', '字', '𠀀𠀁', '𠀁字']],
    ['a lone astral Han character', '𠀀', ['𠀀']],
    ['empty text', '', []],
    ['whitespace only', '   \n\t\u3000 ', []],
    ['punctuation only', '—!?…«»“”', []],
  ])('%s', (_name, input, expected) => {
    expect(tokenize(input)).toEqual(expected);
  });

  it('upper- and lower-case Greek give the same tokens', () => {
    expect(tokenize('ΟΔΌΣ')).toEqual(tokenize('οδός'));
  });

  it('fold: false keeps case but still applies NFKC', () => {
    expect(tokenize('Ｈello ＷORLD', { fold: false })).toEqual(['Hello', 'WORLD']);
  });

  // Regression test (was a bug): U+FE0F VARIATION SELECTOR-16 is a combining mark (\p{M}), so the emoji
  // presentation form "❤️" leaves a one-character token "\ufe0f".
  it('an emoji with a variation selector leaves no token', () => {
    expect(tokenize('I ❤️ NY')).toEqual(['i', 'ny']);
  });
});

describe('forEachToken', () => {
  it('token kinds are distinct constants', () => {
    expect(new Set([WORD, BIGRAM, SEGMENTED]).size).toBe(3);
  });

  it('gives ranges into the text and the kind of each token', () => {
    const text = normalizeText('Hi 中文 ไทย');
    expect(text).toBe('hi 中文 ไทย');
    expect(ranges(text)).toEqual([
      [0, 2, WORD, 'hi'],
      [3, 4, BIGRAM, '中'],
      [4, 5, BIGRAM, '文'],
      [3, 5, BIGRAM, '中文'],
      [6, 9, SEGMENTED, 'ไทย'],
    ]);
  });

  it('ranges of astral characters span both UTF-16 units', () => {
    expect(ranges('a𠀀b')).toEqual([
      [0, 1, WORD, 'a'],
      [1, 3, BIGRAM, '𠀀'],
      [3, 4, WORD, 'b'],
    ]);
  });

  it('calls nothing for an empty text', () => {
    expect(ranges('')).toEqual([]);
  });

  it('a Thai run longer than 2,000 characters is segmented chunk by chunk, every word found', () => {
    const run = 'ครับ'.repeat(750); // 3,000 characters, no space; 2,000 is a word boundary
    const tokens = ranges(run);
    expect(tokens).toHaveLength(750);
    tokens.forEach(([start, end, kind, word], i) => {
      expect([start, end, kind, word]).toEqual([4 * i, 4 * i + 4, SEGMENTED, 'ครับ']);
    });
  });

  it('a 14,000-character Thai run is cut every 2,000 characters: each cut inside a word adds one token', () => {
    const run = 'ภาษาไทย'.repeat(2000); // 'ภาษา' + 'ไทย', 7 characters, 4,000 words
    const tokens = ranges(run);
    // Cuts at 2,000 … 12,000 fall at offsets 5, 3, 1, 6, 4, 2 of a 7-character pair: offset 4 is
    // the word boundary between 'ภาษา' and 'ไทย', the other five cut a word in two.
    expect(tokens).toHaveLength(4000 + 5);
    expect(tokens.every((t) => t[2] === SEGMENTED)).toBe(true);
    expect(tokens.map((t) => t[3]).join('')).toBe(run); // contiguous, nothing lost
    expect(tokens.filter((t) => t[3] === 'ภาษา')).toHaveLength(2000 - 3);
    expect(tokens.filter((t) => t[3] === 'ไทย')).toHaveLength(2000 - 2);
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]![0]).toBe(tokens[i - 1]![1]);
  });

  // Regression test (was a bug): a chunk boundary that falls between a Thai consonant and its vowel mark drops
  // the mark: the next chunk starts with a lone "ั", which Intl.Segmenter does not call word-like.
  // 'สวัสดี' × 500 is cut at 2,000 = 333 × 6 + 2, i.e. 'สว' | 'ัสดี'.
  it('a word cut at a chunk boundary keeps all its characters', () => {
    const run = 'สวัสดี'.repeat(500);
    expect(ranges(run).map((t) => t[3]).join('')).toBe(run);
  });
});

describe('wordSpans: words with offsets in the text as given', () => {
  const words = (text: string) => {
    const s = wordSpans(text);
    return Array.from({ length: s.count }, (_, i) => [text.slice(s.start[i], s.end[i]), s.normalized.slice(s.normalizedStart[i], s.normalizedEnd[i])]);
  };

  it.each<[string, string, string[][]]>([
    ['English (no normalisation needed)', 'Hello, World: it works.', [['Hello', 'hello'], ['World', 'world'], ['it', 'it'], ['works', 'works']]],
    ['ß expands, offsets stay on the input', 'Die Straße hier', [['Die', 'die'], ['Straße', 'strasse'], ['hier', 'hier']]],
    ['a ligature expands', 'ﬁne ﬂow', [['ﬁne', 'fine'], ['ﬂow', 'flow']]],
    ['a decomposed accent composes', 'Cafe\u0301 ole\u0301!', [['Cafe\u0301', 'café'], ['ole\u0301', 'olé']]],
    ['invisible characters are dropped inside a word', 'co\u00adop\u00aderation x\u200by', [['co\u00adop\u00aderation', 'cooperation'], ['x\u200by', 'xy']]],
    ['fullwidth letters', 'ＡＢＣ １２', [['ＡＢＣ', 'abc'], ['１２', '12']]],
    ['Chinese: its characters, not their bigrams', '东京大学。', [['东', '东'], ['京', '京'], ['大', '大'], ['学', '学']]],
    ['Japanese kana and a character beyond the BMP', 'かな𠮷', [['か', 'か'], ['な', 'な'], ['𠮷', '𠮷']]],
    ['Turkish dotted capital I (lower-cases to two code units)', 'İstanbul ve', [['İstanbul', 'i̇stanbul'], ['ve', 've']]],
    ['empty', '', []],
  ])('%s', (_name, text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it('agrees with tokenize on spaced scripts, and maps back through normalizeWithOffsets', () => {
    const text = 'ＡＢＣ Straße ΣΊΣΥΦΟΣ ﬁ co\u00adop Cafe\u0301 déjà';
    const s = wordSpans(text);
    expect(Array.from({ length: s.count }, (_, i) => s.normalized.slice(s.normalizedStart[i], s.normalizedEnd[i]))).toEqual(tokenize(text));
    const { normalized, source } = normalizeWithOffsets(text);
    expect(normalized).toBe(normalizeText(text));
    expect(source).not.toBeNull();
    expect(normalizeWithOffsets('plain ascii text').source).toBeNull();
  });

  it('on seeded random text of awkward characters, normalises like normalizeText and maps each word back to input that normalises to it', () => {
    const pieces = ['a', 'B', 'ß', 'ﬁ', 'İ', 'Σ', 'ς', 'e\u0301', '\u0301', '\u00ad', '\u200b', 'Ａ', '１', '½', '東', '京', 'か', '𠮷', 'ไทย', ' ', ' ', '\u00a0', ',', '.', '…', '’', '\ufe0f', '😀'];
    const random = mulberry32(23);
    for (let n = 0; n < 300; n++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 30) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      expect(normalizeWithOffsets(text).normalized).toBe(normalizeText(text));
      const s = wordSpans(text);
      for (let i = 0; i < s.count; i++) {
        expect(s.start[i]).toBeLessThan(s.end[i]!);
        // In order; two words may come from one input character (½ → 1⁄2).
        if (i > 0) expect(s.start[i]).toBeGreaterThanOrEqual(s.start[i - 1]!);
        // The input of a word normalises to text containing the word (a cluster may carry neighbours along).
        expect(normalizeText(text.slice(s.start[i], s.end[i]))).toContain(s.normalized.slice(s.normalizedStart[i], s.normalizedEnd[i]));
      }
    }
  });
});
