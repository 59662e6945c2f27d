// lib/ui/rewrites-view.ts: the popup's #rewrites list, on linkedom over the popup's own HTML, in the
// three languages: which sentence each entry gets (a rewrite or a translation, of an earlier page or
// by a later one), the language named in the UI's language, links, data-share, and the section
// hidden when there is nothing to list.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import type { OriginalSummary, RewriteSummary } from '../lib/protocol/messages';
import { languageName, rewriteItem, rewriteList } from '../lib/ui/rewrites-view';
import { createMarksControl } from '../lib/ui/passages-view';
import { localizerFor } from './support/catalogues';

const ROOT = new URL('..', import.meta.url).pathname;
const POPUP_HTML = readFileSync(join(ROOT, 'entrypoints/popup/index.html'), 'utf8');
const READ_ON = Date.UTC(2026, 10, 19, 12, 0);
const LATER = Date.UTC(2026, 10, 21, 12, 0);

function rewrite(over: Partial<RewriteSummary> = {}): RewriteSummary {
  return {
    url: 'https://wrenmouth.example/mill',
    title: 'Wrenmouth tide mill turns again',
    site: 'wrenmouth.example',
    simhash: '0123456789abcdef',
    firstSeen: READ_ON,
    lastSeen: READ_ON,
    visits: 1,
    share: 0.4375,
    translated: false,
    language: 'en',
    ownLanguage: 'en',
    hashes: [4096, 8192, 12288],
    original: false,
    ...over,
  };
}

const item = (folder: 'en' | 'es' | 'zh_CN', match: RewriteSummary, ownFirstSeen = LATER, original: OriginalSummary | null = null): HTMLLIElement => {
  const { document } = parseHTML(POPUP_HTML);
  return rewriteItem(document as unknown as Document, localizerFor(folder), match, ownFirstSeen, original);
};

describe('rewriteItem and the story\'s original', () => {
  const original = (self: boolean): OriginalSummary => ({ url: self ? 'https://this.example/' : 'https://wrenmouth.example/mill', title: 'T', site: 's', self, evidence: 'published', days: 3 });
  it('a rewrite of the original read later is still "a rewrite of" it, tagged Original with why', () => {
    const entry = item('en', rewrite({ firstSeen: LATER + 1, original: true }), LATER, original(false));
    expect(entry.dataset['kind']).toBe('rewriteOf');
    expect(entry.querySelector('.tag-original')?.textContent).toBe('Original');
    expect(entry.querySelector('.tag-original')?.getAttribute('data-evidence')).toBe('published');
    expect(entry.querySelector('.original-why')?.textContent).toBe(' · published 3 days earlier');
  });
  it('when this page is the original, a page read before it rewrites this page', () => {
    const entry = item('en', rewrite({ firstSeen: READ_ON }), LATER, original(true));
    expect(entry.dataset['kind']).toBe('rewrittenAs');
    expect(entry.querySelector('.tag-original')).toBeNull();
  });
});

describe('rewriteItem', () => {
  it.each([
    ['en', rewrite(), 'rewriteOf', 'Looks like a rewrite of Wrenmouth tide mill turns again, which you read on Nov 19, 2026 (wrenmouth.example)'],
    ['en', rewrite({ translated: true, ownLanguage: 'es' }), 'translationOf', 'Looks like the Spanish translation of Wrenmouth tide mill turns again, which you read on Nov 19, 2026 (wrenmouth.example)'],
    ['es', rewrite({ translated: true, ownLanguage: 'es' }), 'translationOf', 'Parece la traducción al español de Wrenmouth tide mill turns again, que leíste el 19 nov 2026 (wrenmouth.example)'],
    ['zh_CN', rewrite({ translated: true, ownLanguage: 'es' }), 'translationOf', '看起来是你 2026年11月19日 读过的 Wrenmouth tide mill turns again（wrenmouth.example）的西班牙语译本'],
    ['en', rewrite({ firstSeen: LATER + 1 }), 'rewrittenAs', 'Wrenmouth tide mill turns again, which you read on Nov 21, 2026 (wrenmouth.example), looks like a rewrite of this page'],
    ['en', rewrite({ firstSeen: LATER + 1, translated: true, language: 'zh', ownLanguage: 'en' }), 'translatedAs', 'Wrenmouth tide mill turns again, which you read on Nov 21, 2026 (wrenmouth.example), looks like the Chinese translation of this page'],
    ['es', rewrite(), 'rewriteOf', 'Parece una reescritura de Wrenmouth tide mill turns again, que leíste el 19 nov 2026 (wrenmouth.example)'],
    // a translation whose language is unknown is worded as a rewrite
    ['en', rewrite({ translated: true, ownLanguage: 'und' }), 'rewriteOf', 'Looks like a rewrite of Wrenmouth tide mill turns again, which you read on Nov 19, 2026 (wrenmouth.example)'],
  ] as const)('%s: %j is worded %s', (folder, match, kind, sentence) => {
    const li = item(folder, match);
    expect(li.dataset['kind']).toBe(kind);
    expect(li.querySelector('.rewrite-line')!.textContent).toBe(sentence);
    expect(li.dataset['share']).toBe('0.4375');
    expect(li.dataset['url']).toBe(match.url);
    const link = li.querySelector('a.title')!;
    expect(link.getAttribute('href')).toBe(match.url);
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(li.querySelector('time')!.getAttribute('datetime')).toBe(new Date(match.firstSeen).toISOString());
  });

  it('says the share of rare-word pairs, and keeps a hostile title as text', () => {
    const li = item('en', rewrite({ title: '<img src=x onerror=alert(1)>', url: 'javascript:alert(1)' }));
    expect(li.querySelector('.meta')!.textContent).toBe('43% of their pairs of names, places and numbers come in the same order');
    expect(li.querySelector('img')).toBeNull();
    expect(li.querySelector('a')).toBeNull(); // not an http(s) link: the title is plain text
    expect(li.querySelector('.title')!.textContent).toBe('<img src=x onerror=alert(1)>');
  });

  it('names languages in the UI\'s language, and none for an unknown one', () => {
    expect((['en', 'es', 'zh_CN'] as const).map((f) => languageName(localizerFor(f), 'zh'))).toEqual(['Chinese', 'chino', '中文']);
    expect(languageName(localizerFor('en'), 'und')).toBeNull();
  });
});

describe('the rewrites section with its toggle', () => {
  it('fills the section with a heading that counts, and hides it when there is none; the sets carry each page\'s shared hashes', async () => {
    const { document } = parseHTML(POPUP_HTML);
    const doc = document as unknown as Document;
    const view = { section: doc.getElementById('rewrites-section')!, heading: doc.getElementById('rewrites-heading')!, list: doc.getElementById('rewrites')!, button: doc.getElementById('show-rewrites') as HTMLButtonElement, status: doc.getElementById('rewrites-status')! };
    expect(view.section.hidden).toBe(true);
    const list = rewriteList(doc, localizerFor('en'), view, () => LATER);
    const control = createMarksControl(localizerFor('en'), view, null, () => {}, list);
    const two = [rewrite(), rewrite({ url: 'https://b.example/', site: 'b.example', hashes: [77 << 12] })];
    await control.render(two);
    expect(view.section.hidden).toBe(false);
    expect(view.button.hidden).toBe(true); // no tab to mark
    expect(view.heading.textContent).toBe('2 pages you read before tell this story in other words');
    expect([...view.list.querySelectorAll('li')].map((li) => li.dataset['url'])).toEqual(['https://wrenmouth.example/mill', 'https://b.example/']);
    expect(list.sets(two)).toEqual([
      { id: 'https://wrenmouth.example/mill', slot: 0, hashes: [4096, 8192, 12288], ends: [] },
      { id: 'https://b.example/', slot: 0, hashes: [77 << 12], ends: [] },
    ]);
    await createMarksControl(localizerFor('es'), view, null, () => {}, rewriteList(doc, localizerFor('es'), view, () => LATER)).render([rewrite()]);
    expect(view.heading.textContent).toBe('1 página leída antes cuenta esta historia con otras palabras');
    await control.render([]);
    expect(view.section.hidden).toBe(true);
    expect(view.list.children).toHaveLength(0);
  });
});
