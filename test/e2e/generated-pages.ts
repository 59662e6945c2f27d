// Big pages made when a run starts (too big to keep in the repo), seeded so that every run serves
// the same bytes: used by the hostile-pages e2e (test/e2e/hostile.e2e.ts) and by the content
// script's measures at and past the caps in `npm run bench:browser`.
import { mulberry32 } from '../../lib/random';

const SYLLABLES = ['ka', 'lo', 'mer', 'tan', 'si', 'vor', 'ne', 'bra', 'ul', 'dem', 'pa', 'ri', 'sto', 'gel', 'wen', 'fa'];

/** `count` made-up words of one to three syllables. */
export function pseudoWords(random: () => number, count: number): string {
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    let word = '';
    const n = 1 + Math.floor(random() * 3);
    for (let j = 0; j < n; j++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.push(word);
  }
  return words.join(' ');
}

/** About `bytes` of text in paragraphs of ~2,000 characters: one big article. */
export function hugeTextPage(bytes: number): string {
  const random = mulberry32(20);
  const parts = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A very long report</title></head><body><article><h1>A very long report</h1>\n'];
  let size = parts[0]!.length;
  while (size < bytes) {
    const p = `<p>${pseudoWords(random, 330)}.</p>\n`;
    parts.push(p);
    size += p.length;
  }
  parts.push('</article></body></html>');
  return parts.join('');
}

/** An article, then `count` more elements (empty spans in divs of 100). */
export function manyElementsPage(count: number): string {
  const random = mulberry32(200);
  const article = Array.from({ length: 5 }, () => `<p>${pseudoWords(random, 60)}.</p>`).join('\n');
  const groups: string[] = [];
  for (let i = 0; i < count / 101; i++) groups.push(`<div>${'<span></span>'.repeat(100)}</div>`);
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Many elements</title></head><body><article><h1>Many elements</h1>${article}</article>${groups.join('\n')}</body></html>`;
}
