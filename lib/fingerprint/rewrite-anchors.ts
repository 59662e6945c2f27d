// A text's anchors for the rewrite detector (lib/fingerprint/rewrites.ts): its rare words in
// order, from the text with its case: names (capitalised, not common, not also written in lower
// case; at a sentence's start only if capitalised inside one too), acronyms, codes (A10, iPhone),
// numbers and dates (lib/fingerprint/rewrite-numbers.ts), and in Chinese or Japanese text the
// Latin-script words kept from the source. Also the language a text is in, guessed from its
// scripts and function words.
import { GLUE, MONTH, MONTHS, MONTHS_ALONE, NUMBER_TOKEN, type PushRaw, type Raw, SPANISH_MONTHS, WORD, assembleDates, scanNumber } from './rewrite-numbers';
import { type IsCommon, foldWord, hashFolded, isShippedCommon } from './rewrite-words';
import { DETERMINER, FUNCTION_WORDS, GLUE_WORD, LANGUAGE_SAMPLE_WORDS, LOWER_WORD_ROLES, MONTH_WORD, NOT_NAMES, ROLE, type RewriteLanguage, SCRIPT_LANGUAGE, germanNounShape } from './rewrite-languages';
import { nfkc } from '../text/words';

export { REWRITE_LANGUAGES, type RewriteLanguage } from './rewrite-languages';

// ---------- Characters and scripts ----------

const SEP = 0;
const LOWER = 1; // a lower-case letter of a script with case (Latin, Greek, Cyrillic, Armenian…)
const UPPER = 2;
const UNCASED = 3; // a letter of a script without case, written with spaces (Arabic, Hebrew, Hangul, Thai…)
const HAN = 4; // Han, and kana below: written without spaces; their names cannot be told from other words
const KANA = 5;
const MARK = 6;
const DIGIT = 7;

function classify(cp: number): number {
  if (cp >= 48 && cp <= 57) return DIGIT;
  const ch = String.fromCodePoint(cp);
  if (/[\p{Script=Hiragana}\p{Script=Katakana}\u30fc]/u.test(ch)) return KANA;
  if (/[\p{Script=Han}\u3005]/u.test(ch)) return HAN;
  if (/\p{M}/u.test(ch)) return MARK;
  if (!/\p{L}/u.test(ch)) return SEP;
  if (ch.toLowerCase() !== ch) return UPPER;
  if (ch.toUpperCase() !== ch) return LOWER;
  return UNCASED;
}

// ASCII's classes written out (classify's regular expressions would be compiled at load: the content
// script loads this module on every page, and test/rewrites.test.ts holds the two equal)
export const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, c) => (c >= 48 && c <= 57 ? DIGIT : c >= 65 && c <= 90 ? UPPER : c >= 97 && c <= 122 ? LOWER : SEP));
export { classify as classifyCodePoint };
// Classes of the other BMP code points, a 256-code-point page at a time, filled on first use.
const classPages: (Uint8Array | undefined)[] = new Array(256);
function classOf(cp: number): number {
  if (cp < 128) return ASCII_CLASS[cp]!;
  if (cp > 0xffff) return classify(cp);
  let page = classPages[cp >>> 8];
  if (!page) {
    page = new Uint8Array(256);
    for (let i = 0; i < 256; i++) {
      const c = (cp & 0xff00) | i;
      page[i] = c >= 0xd800 && c <= 0xdfff ? SEP : classify(c);
    }
    classPages[cp >>> 8] = page;
  }
  return page[cp & 0xff]!;
}

/** Scripts whose letters are counted: to guess a page's language and say when its names cannot be anchors. */
const SCRIPTS = ['latin', 'cyrillic', 'greek', 'han', 'kana', 'hangul', 'arabic', 'hebrew', 'devanagari', 'thai', 'other'] as const;
const [LATIN, CYRILLIC, GREEK, HAN_SCRIPT, KANA_SCRIPT, , , , , , OTHER] = SCRIPTS.map((_, i) => i) as number[];
const SCRIPT_TESTS = SCRIPTS.slice(0, -1).map((name) => new RegExp(name === 'kana' ? '[\\p{Script=Hiragana}\\p{Script=Katakana}]' : `\\p{Script=${name[0]!.toUpperCase()}${name.slice(1)}}`, 'u'));
const scriptCache = new Map<number, number>();
function scriptOf(cp: number): number {
  if (cp < 0x250) return LATIN!;
  let s = scriptCache.get(cp);
  if (s === undefined) {
    const ch = String.fromCodePoint(cp);
    s = SCRIPT_TESTS.findIndex((re) => re.test(ch));
    if (s < 0) s = OTHER!;
    scriptCache.set(cp, s);
  }
  return s;
}


interface Scan {
  raws: Raw[];
  /** A bit for each hash of the words written in lower case (three letters or more): word (hash >>> 5) & (length − 1), bit hash & 31. */
  lowerWords: Uint32Array;
  /** Each line's words of four letters or more: capitalised, and in lower case. */
  capitalisedInLine: number[];
  lowerInLine: number[];
  words: number;
  numbers: number;
  /** Letters of each of SCRIPTS. */
  letters: Int32Array;
  /** Function words of each of FUNCTION_WORDS' languages. */
  functionWords: Int32Array;
}

/** Scans a text (NFKC, case kept) into the raw tokens that may become anchors. */
function scan(s: string, keepLowerWords: boolean, isCommon: IsCommon): Scan {
  const n = s.length;
  const raws: Raw[] = [];
  // A bit for each hash of a lower-case word, eight bits a character of text: about one name in a
  // hundred is taken for a word it is not, where a Set of numbers cost a tenth of the time.
  let lowerSize = 256;
  while (lowerSize * 32 < n * 8) lowerSize *= 2;
  const lowerWords = new Uint32Array(lowerSize);
  const lowerMask = lowerSize - 1;
  const letters = new Int32Array(SCRIPTS.length);
  const functionWords = new Int32Array(FUNCTION_WORDS.length);
  const capitalisedInLine: number[] = [];
  const lowerInLine: number[] = [];
  let at = 0;
  let numbers = 0;
  let marks = 0;
  let line = 0;
  let initial = true;
  let lastWordShortCapital = false; // "Mr", "Dr", "U": a full stop after it ends no sentence
  let determinerAt = -3; // the last German article's word number (not after a comma: ", die" is a relative pronoun)
  let lowerAt = -3; // the last lower-case word's
  const raw: PushRaw = (type, start, end, hash, text = '') => {
    const r: Raw = { type, start, end, at, marks, text, hash, upper: false, allUpper: false, camel: false, digits: false, initial, line, value: 0, plain: false, strong: false, afterArticle: false };
    raws.push(r);
    return r;
  };

  let i = 0;
  while (i < n) {
    let cp = s.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n) cp = s.codePointAt(i)!;
    const cls = classOf(cp);

    if (cls === DIGIT) {
      i = scanNumber(s, i, raw);
      numbers++;
      at++;
      initial = false;
      lastWordShortCapital = false;
      continue;
    }

    if (cls === LOWER || cls === UPPER) {
      // A word: letters and marks, then maybe digits ("A10", "mp3").
      const start = i;
      let uppers = 0;
      let lowers = 0;
      let digits = false;
      let script = LATIN!;
      while (i < n) {
        let c = s.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) c = s.codePointAt(i)!;
        const k = classOf(c);
        if (k === LOWER) lowers++;
        else if (k === UPPER) uppers++;
        else if (k === DIGIT) digits = true;
        else if (k !== MARK) break;
        if (c >= 128 && (k === UPPER || k === LOWER)) script = scriptOf(c);
        i += c > 0xffff ? 2 : 1;
      }
      const end = i;
      const letterCount = uppers + lowers;
      letters[script]! += letterCount;
      const upper = classOf(s.codePointAt(start)!) === UPPER;
      if (letterCount >= 4) {
        const counts = upper ? capitalisedInLine : lowerInLine;
        counts[line] = (counts[line] ?? 0) + 1;
      }
      if (uppers === 0 && !digits) {
        // A lower-case word: remembered (a capitalised word the text also writes in lower case
        // is no name), counted for the language guess, and a candidate only when asked for.
        const hash = hashFolded(s, start, end);
        if (letterCount >= 3) lowerWords[(hash >>> 5) & lowerMask]! |= 1 << (hash & 31);
        const roles = Math.max(0, LOWER_WORD_ROLES.get(hash));
        lowerAt = at;
        if (roles >= DETERMINER && !afterComma(s, start)) determinerAt = at;
        const role = roles & ROLE;
        if (role > 0 && role < GLUE_WORD) {
          if (at < LANGUAGE_SAMPLE_WORDS) functionWords[role - 1]!++;
        } else if (role === GLUE_WORD) raw(GLUE, start, end, hash);
        else if (role > MONTH_WORD) {
          const r = raw(MONTH, start, end, hash);
          r.value = role - MONTH_WORD;
          r.strong = true;
        } else if (keepLowerWords && letterCount >= 4) raw(WORD, start, end, hash);
      } else if (letterCount >= 2 || digits) {
        const hash = hashFolded(s, start, end);
        const month = upper && !digits ? MONTHS.get(hash) : -1;
        // A common word that opens a sentence ("The", "But") is never an anchor: no token for it.
        if (month < 0 && initial && lowers > 0 && !digits && isCommon(hash)) {
          at++;
          initial = false;
          lastWordShortCapital = upper && letterCount <= 3 && lowers <= 2;
          continue;
        }
        const r = raw(month > 0 ? MONTH : WORD, start, end, hash);
        r.afterArticle = upper && (determinerAt === at - 1 || (determinerAt === at - 2 && lowerAt === at - 1));
        r.upper = upper;
        r.allUpper = uppers >= 2 && lowers === 0;
        r.camel = !upper && uppers > 0;
        r.digits = digits && letterCount > 0;
        if (month > 0) {
          r.value = month;
          r.strong = MONTHS_ALONE.has(hash) && !SPANISH_MONTHS.has(hash);
        }
      }
      at++;
      initial = false;
      lastWordShortCapital = upper && letterCount <= 3 && lowers <= 2;
      continue;
    }

    if (cls === HAN || cls === KANA) {
      letters[cls === HAN ? HAN_SCRIPT! : KANA_SCRIPT!]!++;
      at++;
      initial = false;
      i += cp > 0xffff ? 2 : 1;
      continue;
    }

    if (cls === UNCASED || cls === MARK) {
      const start = i;
      let script = OTHER!;
      while (i < n) {
        let c = s.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) c = s.codePointAt(i)!;
        const k = classOf(c);
        if (k !== UNCASED && k !== MARK) break;
        if (k === UNCASED && script === OTHER) script = scriptOf(c);
        i += c > 0xffff ? 2 : 1;
      }
      letters[script]! += i - start;
      at++;
      initial = false;
      continue;
    }

    // Separators: what ends a sentence, what opens a quotation, line breaks.
    if (cp === 10) {
      line++;
      initial = true;
    } else if (cp === 46) {
      // A full stop ends a sentence when a space or the end follows, and not after "Mr" or "U".
      const next = i + 1 < n ? s.charCodeAt(i + 1) : 32;
      if ((next === 32 || next === 10 || next === 9 || next === 0xa0 || next === 34 || next === 0x201d || next === 41) && !lastWordShortCapital) initial = true;
    } else if (cp === 33 || cp === 63 || cp === 58 || cp === 59 || cp === 0x2026 || cp === 0x3002 || cp === 0xbf || cp === 0xa1 || cp === 0x201c || cp === 0xab || cp === 40 || cp === 91 || cp === 0x2022 || cp === 0x300c || cp === 0x300e) {
      initial = true;
    } else if (cp === 34 || cp === 0x2018) {
      // A straight quote or a left single quote opens a quotation after a space.
      const before = i > 0 ? s.charCodeAt(i - 1) : 32;
      if (before === 32 || before === 10 || before === 0xa0 || before === 40) initial = true;
    }
    if (cp !== 32 && cp !== 0xa0 && cp !== 9 && cp !== 13) marks++;
    i += cp > 0xffff ? 2 : 1;
  }

  return { raws, lowerWords, capitalisedInLine, lowerInLine, words: at, numbers, letters, functionWords };
}

/** Whether a comma stands right before s[start] (spaces between). */
function afterComma(s: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && s.charCodeAt(i) === 32) i--;
  return i >= 0 && s.charCodeAt(i) === 44;
}

function guessLanguage(sc: Scan, cjk: boolean, mainScript: string): RewriteLanguage {
  if (cjk) return sc.letters[KANA_SCRIPT!]! * 10 > sc.letters[HAN_SCRIPT!]! ? 'ja' : 'zh';
  if (mainScript !== 'latin') return SCRIPT_LANGUAGE[mainScript] ?? 'und';
  let best: RewriteLanguage = 'und';
  let bestCount = 2; // three function words at least
  sc.functionWords.forEach((k, l) => {
    if (k > bestCount) {
      best = FUNCTION_WORDS[l]![0];
      bestCount = k;
    }
  });
  return best;
}

// ---------- Anchors ----------

export type AnchorKind = 'name' | 'acronym' | 'code' | 'word' | 'number' | 'date';

export interface Anchor {
  /** What is compared: a folded word, `#` and a number, `@` and a month (and day). */
  token: string;
  /** Offsets in the text as given. */
  start: number;
  end: number;
  kind: AnchorKind;
}

/** What decides which candidates are anchors (the bench measures the alternatives). */
export interface AnchorParams {
  /** Uncommon lower-case words are anchors too, not only names, acronyms and numbers. */
  lowerWords: boolean;
  /** A capitalised common word is a name when it opens no sentence and is in no title-case line. */
  capitalisedCommonWords: boolean;
  /** A capitalised word that the text also writes in lower case is no name. */
  seenInLowerCase: boolean;
  /** A capitalised word that opens a sentence is a name only if the text also capitalises it inside one. */
  initialNeedsInside: boolean;
  /** Whole numbers below this are no anchors (lists and steps number 1, 2, 3; "two" and "2" swap). */
  minNumber: number;
  /** In German text, a capitalised word that follows an article somewhere in the text is a noun, no name. */
  germanNouns: boolean;
  /** In German text, a capitalised word shaped like a German noun (an umlaut or ß, a noun's ending, 13 letters or more, after a number) is no name. */
  germanNounShapes: boolean;
}

export const ANCHOR_PARAMS: AnchorParams = { lowerWords: false, capitalisedCommonWords: false, seenInLowerCase: true, initialNeedsInside: true, minNumber: 10, germanNouns: true, germanNounShapes: true };

/** A page's anchors with what the fingerprints need. */
export interface PageAnchors {
  /** Offsets are in the text's NFKC form (rewriteAnchors maps them back). */
  anchors: Anchor[];
  hashes: Uint32Array;
  /** Anchors with the same phrase number are adjacent words with no punctuation between: one name. */
  phrases: Int32Array;
  /** 1 for the anchors every translation keeps as they are: numbers, dates, acronyms, codes. */
  kept: Uint8Array;
  lang: RewriteLanguage;
  /** The text is mostly Chinese or Japanese: its Latin-script words were kept from the source. */
  cjk: boolean;
  /** The script of most of the letters when it has no capitals and spaces its words (Arabic, Hangul, Thai…): its names cannot be anchors. */
  uncasedScript: string | null;
  /** Words (a Han or kana character counts one) and, among them, numbers. */
  words: number;
  numbers: number;
}

/**
 * The anchors of a text, in order. `isCommon` says which folded words are common (the shipped
 * list unless given). Without `tokens` the anchors' tokens are left empty: fingerprints need only
 * their hashes, and folding every name cost a twentieth of the time.
 */
export function pageAnchors(text: string, params: AnchorParams = ANCHOR_PARAMS, isCommon: IsCommon = isShippedCommon, { tokens = true } = {}): PageAnchors {
  const normalized = nfkc(text);
  const sc = scan(normalized, params.lowerWords, isCommon);
  const L = sc.letters;
  // A CJK character carries about as much as a word of five letters: weigh one as three letters.
  const cjk = 3 * (L[HAN_SCRIPT!]! + L[KANA_SCRIPT!]!) > L[LATIN!]! + L[CYRILLIC!]! + L[GREEK!]!;
  let main = 0;
  L.forEach((k, script) => {
    if (k > L[main]!) main = script;
  });
  const all = L.reduce((sum, k) => sum + k, 0);
  const uncased = L.reduce((sum, k, script) => (script > KANA_SCRIPT! ? sum + k : sum), 0);

  const raws = assembleDates(sc.raws);
  const fold = (r: Raw): string => (r.text ||= foldWord(normalized.slice(r.start, r.end)));
  // A line in title case ("How to Add Code Coverage to Your Tests") has mostly capitalised words, a
  // common one among them inside a sentence; a line of names ("Obama met Merkel in Berlin") has none.
  const linesWithCapitalisedCommon = new Set<number>();
  for (const r of raws) if (r.type === WORD && r.upper && !r.allUpper && !r.initial && r.end - r.start >= 4 && isCommon(r.hash)) linesWithCapitalisedCommon.add(r.line);
  const titleLines = new Set<number>();
  for (const line of linesWithCapitalisedCommon) {
    const capitalised = sc.capitalisedInLine[line] ?? 0;
    if (capitalised >= 2 && capitalised >= 3 * (sc.lowerInLine[line] ?? 0)) titleLines.add(line);
  }
  // Words capitalised inside a sentence (not first, not in a title): what a name looks like.
  const inside = new Set<number>();
  for (const r of raws) if (r.type === WORD && r.upper && !r.allUpper && !r.initial && !titleLines.has(r.line)) inside.add(r.hash);
  const anchors: Anchor[] = [];
  const hashes: number[] = [];
  const phrases: number[] = [];
  const kept: number[] = [];
  let phrase = -1;
  let previous: Raw | undefined;
  const push = (r: Raw, kind: AnchorKind): void => {
    // A name of several words ("Barack Obama") is one phrase: adjacent words, no mark between.
    const isName = kind === 'name' || kind === 'word';
    const sameName = previous !== undefined && r.at === previous.at + 1 && r.marks === previous.marks && kind !== 'number' && kind !== 'date';
    if (!sameName) phrase++;
    previous = r;
    anchors.push({ token: tokens ? fold(r) : '', start: r.start, end: r.end, kind });
    hashes.push(r.hash);
    phrases.push(phrase);
    kept.push(isName ? 0 : 1);
  };
  const lowerMask = sc.lowerWords.length - 1;
  const seenInLowerCase = (hash: number): boolean => (sc.lowerWords[(hash >>> 5) & lowerMask]! & (1 << (hash & 31))) !== 0;
  const lang = guessLanguage(sc, cjk, SCRIPTS[main]!);
  // German capitalises its nouns: a capitalised word the text puts after an article anywhere is a
  // noun, no name ("der Server", "eine neue Schwachstelle"; "Askar", "Mojang" stand alone)
  const nouns = new Set<number>();
  if (lang === 'de') {
    for (let k = 0; k < raws.length; k++) {
      const r = raws[k]!;
      if (r.type !== WORD || !r.upper || r.allUpper || r.digits) continue;
      if (params.germanNouns && r.afterArticle) nouns.add(r.hash);
      else if (params.germanNounShapes) {
        const before = raws[k - 1];
        const afterNumber = before !== undefined && before.type === NUMBER_TOKEN && before.at === r.at - 1;
        if (germanNounShape(normalized.slice(r.start, r.end).toLowerCase(), afterNumber)) nouns.add(r.hash);
      }
    }
  }
  for (let k = 0; k < raws.length; k++) {
    const r = raws[k]!;
    if (r.type === NUMBER_TOKEN) {
      if (r.text.charCodeAt(0) === 64) push(r, 'date');
      else if (!r.plain || r.value >= params.minNumber) push(r, 'number');
      continue;
    }
    if (r.type !== WORD) continue;
    const common = isCommon(r.hash);
    if (cjk) {
      // In Chinese or Japanese text a Latin word with a capital or a digit was kept from the
      // source ("iPhone", "BBC", "A10"): an anchor wherever it stands. Lower-case Latin words
      // (code, addresses) are no anchors here, as in English text.
      if (r.upper || r.digits || r.camel) push(r, r.digits ? 'code' : r.allUpper ? 'acronym' : 'name');
      continue;
    }
    if (r.digits) push(r, 'code');
    else if (r.camel) push(r, 'name');
    else if (r.allUpper) {
      // An acronym, unless a common word in a run of capitals (a shouted headline) or a long
      // common word on its own ("but never AFTER they buy").
      const shouted = common && (r.end - r.start > 3 || [raws[k - 1], raws[k + 1]].some((o) => o?.allUpper && Math.abs(o.at - r.at) === 1));
      if (!shouted) push(r, 'acronym');
    } else if (r.upper) {
      if (NOT_NAMES.has(r.hash) || nouns.has(r.hash)) continue;
      const titled = r.initial || titleLines.has(r.line);
      const name = common
        ? params.capitalisedCommonWords && !titled
        : !(params.seenInLowerCase && seenInLowerCase(r.hash)) && !(params.initialNeedsInside && titled && !inside.has(r.hash));
      if (name) push(r, 'name');
    } else if (params.lowerWords && !common) push(r, 'word');
  }
  return {
    anchors,
    hashes: Uint32Array.from(hashes),
    phrases: Int32Array.from(phrases),
    kept: Uint8Array.from(kept),
    lang,
    cjk,
    uncasedScript: uncased * 2 > all ? SCRIPTS[main]! : null,
    words: sc.words,
    numbers: sc.numbers,
  };
}

/** The anchors of a text, with their offsets in it: what a report shows as the shared rare words. */
export function rewriteAnchors(text: string, params: AnchorParams = ANCHOR_PARAMS): Anchor[] {
  return inText(text, pageAnchors(text, params).anchors);
}

/** Anchors found in `text`'s NFKC form (pageAnchors), their offsets mapped back to `text`. */
export function inText(text: string, anchors: Anchor[]): Anchor[] {
  if (nfkc(text) === text) return anchors;
  // NFKC changed the text: map offsets back, a cluster (a character and its marks) at a time.
  const source: number[] = [];
  const cluster = /\P{M}\p{M}*|\p{M}+/gsu;
  for (let m = cluster.exec(text); m; m = cluster.exec(text)) {
    const piece = m[0].normalize('NFKC');
    for (let i = 0; i < piece.length; i++) source.push(m.index);
  }
  source.push(text.length);
  const end = (offset: number): number => {
    let i = offset;
    while (i < source.length - 1 && source[i] === source[offset - 1]) i++;
    return source[i]!;
  };
  return anchors.map((a) => ({ ...a, start: source[a.start]!, end: end(a.end) }));
}
