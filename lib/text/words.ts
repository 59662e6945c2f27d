// Text normalisation and tokenisation, for every script.
//
// Words are maximal runs of letters, marks and digits. Scripts written without spaces get
// their own treatment: Han and kana runs become their characters and overlapping character
// bigrams (the usual IR choice for Chinese and Japanese: a bigram is usually a word or straddles
// two, and costs nothing; the characters keep a light edit from moving the fingerprint: seed 001's
// edited paragraph is 2 bits from its original this way, 4 with bigrams alone, 5 with
// Intl.Segmenter's words). Thai, Lao, Khmer and Myanmar runs go through Intl.Segmenter, which is
// slow (see `npm run bench`) but is only called on those runs.

/**
 * A text's NFKC form. The last answer is kept: each detector normalises the same page text in
 * turn (simhash, passages, rare words), and NFKC is the costliest pass over it.
 */
export function nfkc(text: string): string {
  if (text !== lastNfkc.text) lastNfkc = { text, normalized: text.normalize('NFKC') };
  return lastNfkc.normalized;
}
let lastNfkc = { text: '', normalized: '' };

/** NFKC, case folding, and removal of invisible characters that would split words. */
export function normalizeText(text: string): string {
  if (text !== lastNormalized.text) lastNormalized = { text, normalized: foldText(text) };
  return lastNormalized.normalized;
}
let lastNormalized = { text: '', normalized: '' };

function foldText(text: string): string {
  let s = nfkc(text).toLowerCase();
  // Full case folding beyond toLowerCase for the letters that matter in practice.
  if (/[ςßſ]/.test(s)) s = s.replace(/ς/g, 'σ').replace(/ß/g, 'ss').replace(/ſ/g, 's');
  // Zero-width space/joiners, word joiner, BOM and soft hyphen: invisible, and inside words.
  // Variation selectors and the keycap mark: invisible too, and marks that would otherwise make
  // a token of their own after an emoji ("❤️").
  const invisible = /[\u200b-\u200d\u2060\ufeff\u00ad\ufe00-\ufe0f\u20e3]/;
  if (invisible.test(s)) s = s.replace(new RegExp(invisible.source, 'g'), '');
  return s;
}

/**
 * Words of spaced scripts shorter than this (UTF-16 code units) are left out of comparisons (the
 * simhash's and MinHash's features): one letter or digit says little about what a text is about.
 */
export const MIN_COMPARED_WORD_LENGTH = 2;

const SEPARATOR = 0;
/** Token kinds, passed to forEachToken's callback. */
export const WORD = 1; // a run of letters, marks and digits in a spaced script
export const BIGRAM = 2; // Han, Hiragana, Katakana: each character, then each pair of characters
export const SEGMENTED = 3; // Thai, Lao, Khmer, Myanmar: a word found by Intl.Segmenter
export type TokenKind = typeof WORD | typeof BIGRAM | typeof SEGMENTED;
type OnToken = (start: number, end: number, kind: TokenKind) => void;

const BIGRAM_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u3005]/u;
const SEGMENTED_SCRIPT = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

function classifyCodePoint(cp: number): number {
  const ch = String.fromCodePoint(cp);
  if (BIGRAM_SCRIPT.test(ch)) return BIGRAM;
  if (SEGMENTED_SCRIPT.test(ch)) return SEGMENTED;
  if (WORD_CHAR.test(ch)) return WORD;
  return SEPARATOR;
}

// Classes of BMP code points, filled lazily a 256-code-point page at a time, so that a text in
// one script pays for one or two pages of regex tests, once per process.
const bmpPages: (Uint8Array | undefined)[] = new Array(256);
const asciiClass = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  asciiClass[c] = (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) ? WORD : SEPARATOR;
}

function classOf(cp: number): number {
  if (cp < 128) return asciiClass[cp]!;
  if (cp > 0xffff) return classifyCodePoint(cp);
  const pageIndex = cp >>> 8;
  let page = bmpPages[pageIndex];
  if (!page) {
    page = new Uint8Array(256);
    for (let i = 0; i < 256; i++) {
      const c = (pageIndex << 8) | i;
      page[i] = c >= 0xd800 && c <= 0xdfff ? SEPARATOR : classifyCodePoint(c);
    }
    bmpPages[pageIndex] = page;
  }
  return page[cp & 0xff]!;
}

let segmenter: Intl.Segmenter | undefined;

/**
 * Calls onToken(start, end) for each token of an already normalised text, in order.
 * Tokens are ranges of the text, so callers can hash them without building substrings.
 */
export function forEachToken(text: string, onToken: OnToken): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) cp = text.codePointAt(i)!;
    const cls = classOf(cp);
    const width = cp > 0xffff ? 2 : 1;
    if (cls === SEPARATOR) {
      i += width;
      continue;
    }
    // Find the end of the run of this class. Combining marks (class WORD by \p{M}) that follow
    // a bigram or segmented character stay with it.
    const start = i;
    i += width;
    if (cls === WORD) {
      // Fast path for the common case: ASCII letters and digits.
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c >= 128 || asciiClass[c] !== WORD) break;
        i++;
      }
    }
    while (i < n) {
      let c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) c = text.codePointAt(i)!;
      const k = classOf(c);
      if (k !== cls && !(cls !== WORD && k === WORD && /\p{M}/u.test(String.fromCodePoint(c)))) break;
      i += c > 0xffff ? 2 : 1;
    }
    if (cls === WORD) onToken(start, i, WORD);
    else if (cls === BIGRAM) emitBigrams(text, start, i, onToken);
    else emitSegmented(text, start, i, onToken);
  }
}

function emitBigrams(text: string, start: number, end: number, onToken: OnToken): void {
  for (let i = start; i < end; i += charWidth(text, i)) onToken(i, i + charWidth(text, i), BIGRAM);
  let a = start;
  let b = a + charWidth(text, a);
  while (b < end) {
    const c = b + charWidth(text, b);
    onToken(a, c, BIGRAM);
    a = b;
    b = c;
  }
}

function charWidth(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff ? 2 : 1;
}

// V8's segment iterator copies its input into every segment it returns (Node 20: one 3 MB string
// exhausted a 4 GB heap), so long runs are segmented a chunk at a time. A word cut at a chunk
// boundary becomes two tokens, once per 2,000 characters.
const SEGMENT_CHUNK = 2000;

function emitSegmented(text: string, start: number, end: number, onToken: OnToken): void {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  let from = start;
  while (from < end) {
    let to = Math.min(end, from + SEGMENT_CHUNK);
    if (to < end && text.charCodeAt(to - 1) >= 0xd800 && text.charCodeAt(to - 1) <= 0xdbff) to--;
    // Never start the next chunk on a combining mark (a Thai vowel sign would be lost).
    while (to < end && to > from + 1 && /\p{M}/u.test(text[to]!)) to--;
    for (const seg of segmenter.segment(text.slice(from, to))) {
      if (seg.isWordLike) onToken(from + seg.index, from + seg.index + seg.segment.length, SEGMENTED);
    }
    from = to;
  }
}

/** The tokens of a text, as strings (normalised first; `fold: false` keeps case). For tests and inspection. */
export function tokenize(text: string, { fold = true }: { fold?: boolean } = {}): string[] {
  const normalized = fold ? normalizeText(text) : nfkc(text);
  const out: string[] = [];
  forEachToken(normalized, (s, e) => out.push(normalized.slice(s, e)));
  return out;
}

/**
 * normalizeText with a map back to the input: `source[i]` is the offset in `text` of the input
 * character that normalised character i came from, and `source[normalized.length]` is
 * text.length. Null when the normalised text lines up with the input one to one (most text: the
 * fast path costs two string passes).
 */
export function normalizeWithOffsets(text: string): { normalized: string; source: Int32Array | null } {
  const normalized = normalizeText(text);
  if (normalized.length === text.length && nfkc(text) === text && text.toLowerCase().length === text.length && !/[ςßſ\u200b-\u200d\u2060\ufeff\u00ad\ufe00-\ufe0f\u20e3]/.test(text)) {
    return { normalized, source: null };
  }
  // Normalise each base character with its following marks on its own: NFKC composes within such
  // a cluster, so the pieces join to the same text as normalising the whole.
  const pieces: string[] = [];
  const source: number[] = [];
  const cluster = /\P{M}\p{M}*|\p{M}+/gsu;
  for (let m = cluster.exec(text); m; m = cluster.exec(text)) {
    const piece = normalizeText(m[0]);
    pieces.push(piece);
    for (let i = 0; i < piece.length; i++) source.push(m.index);
  }
  source.push(text.length);
  return { normalized: pieces.join(''), source: Int32Array.from(source) };
}

/** The words of a text for passages, with their offsets in the text as given (not normalised). */
export interface WordSpans {
  count: number;
  /** Offsets in the input text: word i is text.slice(start[i], end[i]). */
  start: Int32Array;
  end: Int32Array;
  /** The normalised text and each word's range in it (what is hashed). */
  normalized: string;
  normalizedStart: Int32Array;
  normalizedEnd: Int32Array;
}

/**
 * Words of spaced scripts and Thai-like scripts, and single characters of Chinese and Japanese
 * (their bigrams are left out: a k-gram of characters already spans them), in order: each word's
 * range in `normalized` (a normalizeText result).
 */
export function normalizedWordRanges(normalized: string): { count: number; start: Int32Array; end: Int32Array } {
  let capacity = 64;
  let start = new Int32Array(capacity);
  let end = new Int32Array(capacity);
  let count = 0;
  forEachToken(normalized, (s, e, kind) => {
    if (kind === BIGRAM && e !== s + charWidth(normalized, s)) return;
    if (count === capacity) {
      capacity *= 2;
      const grownStart = new Int32Array(capacity);
      const grownEnd = new Int32Array(capacity);
      grownStart.set(start);
      grownEnd.set(end);
      start = grownStart;
      end = grownEnd;
    }
    start[count] = s;
    end[count++] = e;
  });
  return { count, start: start.slice(0, count), end: end.slice(0, count) };
}

/** The words of normalizedWordRanges, with their offsets in the text as given. */
export function wordSpans(text: string): WordSpans {
  const { normalized, source } = normalizeWithOffsets(text);
  const { count, start: normalizedStart, end: normalizedEnd } = normalizedWordRanges(normalized);
  let start = normalizedStart;
  let end = normalizedEnd;
  if (source) {
    start = normalizedStart.map((s) => source[s]!);
    // A word ends where the input character after its last normalised character begins.
    end = normalizedEnd.map((e) => nextSourceOffset(source, e));
  }
  return { count, start, end, normalized, normalizedStart, normalizedEnd };
}

/** The input offset just after normalised character e − 1 (the next distinct source offset). */
function nextSourceOffset(source: Int32Array, e: number): number {
  const from = source[e - 1]!;
  let i = e;
  while (source[i]! === from && i < source.length - 1) i++;
  return source[i]!;
}
