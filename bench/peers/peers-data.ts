// The pages of `npm run bench:peers`: the quality benchmark's originals and partial copies
// (excerpts, stitched pages, quotes: bench/data/republish.ts), and for a larger corpus, disguised copies
// of every page that match nothing: each word enciphered (the same word the same way within the
// page, another way in every other page), so that lengths, repeats and markup stay as they were.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';
import { mulberry32 } from '../../lib/random';
import { buildPartialCopies, buildQualitySet, hashName } from '../data/republish';
import type { PageSources } from '../quality/quality-score';

export interface PeerPage {
  /** Relative path of the HTML file; its text is at `${path}.txt`. */
  path: string;
  html: string;
  /** The article's text as Readability reads it from the HTML (what both tools get as .txt). */
  text: string;
}

export interface PeerSet {
  pages: PeerPage[];
  /** What each page must be found with, for scoring (disguises: only themselves). */
  sources: PageSources[];
  /** Pages of the corpus before disguises. */
  basePages: number;
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const ACCENTED = 'àáâãäåçèéêëìíîïñòóôõöùúûüýÿąćęłńśźżčďěňřšťůž';

/** A word enciphered for disguise `seed`: each character replaced by one of its kind, chosen by the word and the seed. */
export function cipherWord(word: string, seed: number): string {
  const random = mulberry32((hashName(word.toLowerCase()) ^ Math.imul(seed, 0x9e3779b1)) >>> 0);
  let out = '';
  for (const ch of word) {
    const code = ch.codePointAt(0)!;
    const r = random();
    if (ch >= '0' && ch <= '9') out += String(Math.floor(r * 10));
    else if (ch >= 'a' && ch <= 'z') out += LOWER[Math.floor(r * 26)];
    else if (ch >= 'A' && ch <= 'Z') out += LOWER[Math.floor(r * 26)]!.toUpperCase();
    else if (code >= 0x4e00 && code <= 0x9fff) out += String.fromCodePoint(0x4e00 + Math.floor(r * (0x9fff - 0x4e00)));
    else if (code >= 0x3040 && code <= 0x30ff) out += String.fromCodePoint(0x3040 + Math.floor(r * 0xc0));
    else if (/\p{Lu}/u.test(ch)) out += ACCENTED[Math.floor(r * ACCENTED.length)]!.toUpperCase();
    else out += ACCENTED[Math.floor(r * ACCENTED.length)]!;
  }
  return out;
}

const WORD_OR_ENTITY = /&#?\w+;|[\p{L}\p{N}]+/gu;

/** Text with every word enciphered (entities kept). */
export function cipherText(text: string, seed: number): string {
  return text.replace(WORD_OR_ENTITY, (w) => (w.startsWith('&') ? w : cipherWord(w, seed)));
}

/** HTML with the words of its text enciphered: tags, attributes, scripts and styles kept as they are. */
export function cipherHtml(html: string, seed: number): string {
  let inRaw: string | null = null; // inside <script> or <style>
  return html
    .split(/(<[^>]*>)/)
    .map((part) => {
      if (part.startsWith('<')) {
        const open = /^<(script|style)\b/i.exec(part);
        if (open) inRaw = open[1]!.toLowerCase();
        else if (inRaw !== null && new RegExp(`^</${inRaw}`, 'i').test(part)) inRaw = null;
        return part;
      }
      return inRaw === null ? cipherText(part, seed) : part;
    })
    .join('');
}

/** Readability's text of a page (linkedom), as the peers' pipeline reads it: '' when it finds no article. */
export function readabilityText(html: string): string {
  const { document } = parseHTML(html);
  const article = new Readability(document as unknown as Document).parse();
  return (article?.textContent ?? '').replace(/[ \t]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
}

/**
 * The corpus at `scale`: the originals and partial copies of the quality benchmark, and
 * `scale − 1` disguises of each of them.
 */
export function buildPeerSet(scale: number): PeerSet {
  const quality = buildQualitySet();
  const originals = quality.pages.filter((p) => p.kind === 'original');
  const partial = buildPartialCopies(quality);
  const base: PeerPage[] = [...originals.map((p) => ({ path: p.path, html: p.html })), ...partial.map((p) => ({ path: p.path, html: p.html }))]
    .map((p) => ({ ...p, text: readabilityText(p.html) }))
    .filter((p) => p.text.length > 0);
  const sources: PageSources[] = [
    ...originals.map((p) => ({ path: p.path, kind: 'original', sources: [p.article], related: [] })),
    ...partial.map((p) => ({ path: p.path, kind: p.kind, sources: p.sources, related: p.related })),
  ];
  const pages = [...base];
  for (let d = 1; d < scale; d++) {
    for (const p of base) {
      const path = `disguise-${d}/${p.path}`;
      // a cipher of its own for each disguised page: it shares no word with any other page, its disguised sources included
      const seed = hashName(path);
      pages.push({ path, html: cipherHtml(p.html, seed), text: cipherText(p.text, seed) });
      // a disguise is an article of its own: any link with it is false
      sources.push({ path, kind: 'disguise', sources: [], related: [path] });
    }
  }
  return { pages, sources, basePages: base.length };
}

/** Writes the set into `dir`: each page as html/PATH and its article text as txt/PATH.txt; the bytes of each. */
export function writePeerSet(set: PeerSet, dir: string): { htmlBytes: number; textBytes: number } {
  let htmlBytes = 0;
  let textBytes = 0;
  for (const page of set.pages) {
    const html = join(dir, 'html', page.path);
    const text = join(dir, 'txt', `${page.path}.txt`);
    mkdirSync(dirname(html), { recursive: true });
    mkdirSync(dirname(text), { recursive: true });
    writeFileSync(html, page.html);
    writeFileSync(text, page.text);
    htmlBytes += Buffer.byteLength(page.html);
    textBytes += Buffer.byteLength(page.text);
  }
  return { htmlBytes, textBytes };
}
