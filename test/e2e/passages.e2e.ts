// Marking shared passages on a live page, end to end in Chromium with the built extension: an
// extension page (the popup, opened as a tab) sends `passages/show` to the article's tab, the
// content script sets CSS highlights over exactly the passage, the page's markup stays
// byte-identical, and `passages/clear` removes the marks. The worker's side (which hashes are
// shared) is computed here as the extension computes it: the page's HTML read with Readability,
// passage fingerprints of that article text, the hashes inside the passage it shares with an
// earlier page.
import type { Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readHtml } from '../../lib/background/html-reader';
import { PASSAGE_PARAMS, passageFingerprints } from '../../lib/fingerprint/passages';
import { type WordRange, sharedPassages } from '../../lib/index/passage-match';
import { type PassageEnd, passageEnds } from '../../lib/index/passage-index';
import { wordSpans } from '../../lib/text/words';
import { EXTENSION_DIR, type ExtensionSession, seededProse, type Session, type Site, sleep, startSession, tabIdOf, visit } from './harness';


const words = seededProse(5);
const paragraphs = Array.from({ length: 6 }, () => words(70));
// The earlier page shares the last 45 words of the second paragraph and the first 50 of the third.
const run = [...paragraphs[1]!.slice(-45), ...paragraphs[2]!.slice(0, 50)];
const other = seededProse(6);
const earlierText = [...other(150), ...run, ...other(150)].join(' ');

/** The third paragraph with an <a> and an <em> inside the shared run. */
function third(p: string[]): string {
  return `${p.slice(0, 12).join(' ')} <a href="/elsewhere">${p.slice(12, 16).join(' ')}</a> ${p.slice(16, 20).join(' ')} <em>${p.slice(20, 23).join(' ')}</em> ${p.slice(23).join(' ')}`;
}

const STORY = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The story</title></head>
<body>
<header><nav><ul>${Array.from({ length: 6 }, (_, i) => `<li><a href="/s${i}">${words(3).join(' ')}</a></li>`).join('')}</ul></nav></header>
<main><article>
<h1>${words(6).join(' ')}</h1>
${paragraphs.map((p, i) => `<p>${i === 2 ? third(p) : p.join(' ')}</p>`).join('\n')}
</article></main>
<footer><p>${words(25).join(' ')}</p></footer>
</body></html>`;

let session: Session<'site'>;
let site: Site;
let ext: ExtensionSession;

beforeAll(async () => {
  session = await startSession({ site: { '/news/story.html': STORY } });
  ({ site } = session.sites);
  ext = session.ext!;
});

afterAll(() => session?.close());

const collapse = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The worker's side: this page's hashes inside the passage it shares with the earlier page, where the passage's ends lie from them, and its text. */
function workerSide(): { hashes: number[]; ends: PassageEnd[]; text: string; words: WordRange; articleWords: string[] } {
  const read = readHtml(STORY, site.url('/news/story.html'), (html) => parseHTML(html).document as unknown as Document);
  if (read.outcome.kind !== 'article') throw new Error(`not read as an article: ${read.outcome.message}`);
  const article = read.outcome.text;
  const current = passageFingerprints(article);
  const passages = sharedPassages(current, passageFingerprints(earlierText));
  expect(passages).toHaveLength(1);
  const p = passages[0]!.a;
  const hashes = [...current.hashes].filter((_, i) => current.positions[i]! >= p.start && current.positions[i]! + PASSAGE_PARAMS.k <= p.end);
  const spans = wordSpans(article);
  const articleWords = Array.from(spans.start, (start, i) => article.slice(start, spans.end[i]));
  return { hashes, ends: passageEnds(current, [p]), text: collapse(article.slice(spans.start[p.start], spans.end[p.end - 1])), words: p, articleWords };
}

type Chrome = { chrome: { tabs: { sendMessage(tabId: number, message: unknown): Promise<unknown> } } };

/** Sends a message to the tab from the popup page, as the popup does; retries while the content script is not there yet. */
async function sendFromPopup(popup: Page, tabId: number, message: unknown): Promise<unknown> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const result = await popup.evaluate(
      async ([id, m]) => {
        try {
          return { reply: await (globalThis as unknown as Chrome).chrome.tabs.sendMessage(id as number, m) };
        } catch (error) {
          return { failed: String(error) };
        }
      },
      [tabId, message] as const,
    );
    if ('reply' in result) return result.reply;
    if (Date.now() > deadline) throw new Error(`the content script did not answer: ${result.failed}`);
    await sleep(200);
  }
}

/** The page's highlight `name`: whether it is there, and the text of each of its ranges. */
function highlightOf(page: Page, name: string): Promise<{ has: boolean; size: number; texts: string[] }> {
  return page.evaluate((n) => {
    const highlight = CSS.highlights.get(n);
    return { has: CSS.highlights.has(n), size: CSS.highlights.size, texts: highlight ? [...highlight].map((r) => (r as Range).toString()) : [] };
  }, name);
}

describe('marking shared passages', () => {
  test('the built manifest injects the highlight colours with the content script', () => {
    const manifest = JSON.parse(readFileSync(join(EXTENSION_DIR, 'manifest.json'), 'utf8')) as { content_scripts: { css?: string[]; js: string[] }[] };
    expect(manifest.content_scripts).toHaveLength(1);
    const css = manifest.content_scripts[0]!.css ?? [];
    expect(css).toEqual(['content-scripts/content.css']);
    const sheet = readFileSync(join(EXTENSION_DIR, css[0]!), 'utf8');
    for (let slot = 0; slot < 6; slot++) expect(sheet).toContain(`::highlight(doppel-passage-${slot})`);
  });

  test('show marks exactly the passage, clear removes it, and the page is byte-identical throughout', async () => {
    const worker = workerSide();
    expect(worker.hashes.length).toBeGreaterThan(1);

    const page = await ext.ctx.newPage();
    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        (window as unknown as { __before: string }).__before = document.documentElement.outerHTML;
      });
    });
    await visit(page, site.url('/news/story.html'));
    const tabId = await tabIdOf(await ext.getWorker(), page);
    const popup = await ext.ctx.newPage();
    await popup.goto(ext.popupUrl(site.url('/news/story.html')), { waitUntil: 'domcontentloaded' });

    const loaded = await page.evaluate(() => document.documentElement.outerHTML);
    expect(await page.evaluate(() => (window as unknown as { __before?: string }).__before)).toBe(loaded);
    expect(await highlightOf(page, 'doppel-passage-0')).toEqual({ has: false, size: 0, texts: [] });

    // the copied run's words in the article: the mark must start and end within 5 words of them
    const bare = (w: string): string => w.replace(/[.,]/g, '');
    const runStart = worker.articleWords.findIndex((_, i) => run.every((w, j) => bare(worker.articleWords[i + j] ?? '') === bare(w)));
    expect(runStart).toBeGreaterThan(0);
    expect(Math.abs(worker.words.start - runStart)).toBeLessThanOrEqual(5);
    expect(Math.abs(worker.words.end - (runStart + run.length))).toBeLessThanOrEqual(5);

    const show = { type: 'passages/show', payload: { sets: [{ id: 'earlier', slot: 0, hashes: worker.hashes, ends: worker.ends }] } };
    expect(await sendFromPopup(popup, tabId, show)).toEqual({ ok: true, value: { marked: 1, sets: [{ id: 'earlier', ranges: 1 }] } });
    const marked = await highlightOf(page, 'doppel-passage-0');
    expect(marked.has).toBe(true);
    expect(marked.size).toBe(1);
    expect(marked.texts.map(collapse)).toEqual([worker.text]);
    expect(worker.text.split(' ').length).toBeGreaterThanOrEqual(30);
    expect(await page.evaluate(() => document.documentElement.outerHTML)).toBe(loaded);

    // A malformed message is refused with its reason and leaves the marks as they were.
    const bad = { type: 'passages/show', payload: { sets: [{ id: 'earlier', slot: 9, hashes: [], ends: [] }] } };
    expect(await sendFromPopup(popup, tabId, bad)).toEqual({ ok: false, error: 'Malformed message: sets[0]: slot must be a whole number from 0 to 5' });
    expect((await highlightOf(page, 'doppel-passage-0')).texts.map(collapse)).toEqual([worker.text]);

    expect(await sendFromPopup(popup, tabId, { type: 'passages/clear', payload: {} })).toEqual({ ok: true, value: { marked: 0, sets: [] } });
    expect(await highlightOf(page, 'doppel-passage-0')).toEqual({ has: false, size: 0, texts: [] });
    expect(await page.evaluate(() => document.documentElement.outerHTML)).toBe(loaded);
    expect(ext.pageErrors).toEqual([]);
  });
});
