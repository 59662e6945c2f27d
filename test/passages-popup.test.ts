// lib/ui/passages-view.ts: the popup's list of earlier pages sharing passages and its "Show on the
// page" toggle, on linkedom over the popup's own HTML (entrypoints/popup/index.html), in the three
// languages, with a fake tab: what is sent, what the page then says, and every error in words.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { localizePage } from '../lib/ui/i18n';
import type { PassageMatch } from '../lib/protocol/messages';
import { ALSO_IN_SHOWN, type PassagesView, type TabLink, createPassagesControl, otherShareNotable, passageItem, passageSets, slotOf, swatch } from '../lib/ui/passages-view';
import { PASSAGE_SLOTS, type PassageMarks, type TabMessage } from '../lib/protocol/tab-protocol';
import { LIMITS } from '../lib/protocol/validation';
import { localizerFor } from './support/catalogues';

const ROOT = new URL('..', import.meta.url).pathname;
const POPUP_HTML = readFileSync(join(ROOT, 'entrypoints/popup/index.html'), 'utf8');
const en = localizerFor('en');
const READ_ON = Date.UTC(2026, 10, 19, 12, 0);

function match(over: Partial<PassageMatch> = {}): PassageMatch {
  return {
    url: 'https://earlier.example/story',
    title: 'The tide mill',
    site: 'earlier.example',
    simhash: '0123456789abcdef',
    firstSeen: READ_ON,
    lastSeen: READ_ON,
    visits: 1,
    share: 0.62,
    otherShare: 0.55,
    original: false,
    passages: 2,
    hashes: [1, 2, 3],
    ends: [{ first: 1, lead: 0, last: 3, trail: 2 }],
    alsoIn: [],
    ...over,
  };
}

const two = [match(), match({ url: 'https://other.example/a', title: 'A walk', site: 'other.example', share: 0.05, otherShare: 0.8, passages: 1, hashes: [9], ends: [{ first: 9, lead: 2, last: 9, trail: 1 }] })];

/** The "Also in" line of an entry with these copies, in a language. */
function localizedAlsoIn(folder: 'es' | 'zh_CN', alsoIn: PassageMatch['alsoIn']): string {
  const l = localizerFor(folder);
  return passageItem(popup(l).doc, l, match({ alsoIn }), 0).querySelector('.also-in')!.textContent!;
}

/** The popup's page, localized, and the section's elements. */
function popup(l = en) {
  const { document } = parseHTML(POPUP_HTML);
  const doc = document as unknown as Document;
  localizePage(doc, l);
  const $ = <T extends HTMLElement>(id: string): T => doc.getElementById(id) as T;
  const view: PassagesView = { section: $('passages-section'), heading: $('passages-heading'), list: $('passages'), button: $<HTMLButtonElement>('show-passages'), status: $('passages-status') };
  const errors: (string | null)[] = [];
  return { doc, view, errors, showError: (message: string | null) => void errors.push(message) };
}

/** A fake tab: answers each message with `answer` (a reply, or a thrown error), and records what it was sent. */
function fakeTab(answer: (message: TabMessage) => unknown, open = true): TabLink & { sent: TabMessage[] } {
  const sent: TabMessage[] = [];
  return {
    sent,
    send: async (message) => {
      sent.push(message);
      return answer(message);
    },
    isOpen: async () => open,
  };
}

/** A content script that marks `ranges[i]` for the i-th set and remembers it for passages/get. */
function contentScript(ranges: (id: string) => number = () => 1): (message: TabMessage) => unknown {
  let marks: PassageMarks = { marked: 0, sets: [] };
  return (message) => {
    if (message.type === 'passages/show') {
      const sets = (message.payload as { sets: { id: string }[] }).sets.map(({ id }) => ({ id, ranges: ranges(id) }));
      marks = { marked: sets.reduce((n, s) => n + s.ranges, 0), sets };
    } else if (message.type === 'passages/clear') {
      marks = { marked: 0, sets: [] };
    }
    return { ok: true, value: marks };
  };
}

const items = (view: PassagesView) => [...view.list.querySelectorAll<HTMLElement>('li.passage')];

describe('passageSets', () => {
  it('one set per entry in order: the URL as id, the slot round the six, its hashes and ends', () => {
    const list = Array.from({ length: 8 }, (_, i) => match({ url: `https://p${i}.example/`, hashes: [i], ends: [{ first: i, lead: i, last: i, trail: 8 - i }] }));
    expect(passageSets(list)).toEqual(list.map((m, i) => ({ id: m.url, slot: i % PASSAGE_SLOTS, hashes: [i], ends: [{ first: i, lead: i, last: i, trail: 8 - i }] })));
    expect([0, 5, 6, 13].map(slotOf)).toEqual([0, 5, 0, 1]);
  });

  it('keeps within the protocol\'s limits, leaving out the hashes and entries past them', () => {
    const perSet = LIMITS.passageHashesPerSet + 10;
    const big = Array.from({ length: LIMITS.passageSets + 2 }, (_, i) => match({ url: `https://p${i}.example/`, hashes: new Array(i < 5 ? perSet : 3).fill(i) }));
    const sets = passageSets(big);
    expect(sets).toHaveLength(LIMITS.passageSets);
    expect(sets.map((s) => s.hashes.length).slice(0, 6)).toEqual([...new Array(4).fill(LIMITS.passageHashesPerSet), 0, 0]);
    expect(sets.reduce((n, s) => n + s.hashes.length, 0)).toBe(LIMITS.passageHashes);
    expect(sets.at(-1)!.hashes).toEqual([]);
  });
});

describe('an entry of the list', () => {
  it('says how much of this page appeared in that page, links it, and names the site and the passages', () => {
    const { doc } = popup();
    const item = passageItem(doc, en, match(), 0);
    expect(item.getAttribute('data-share')).toBe('0.62');
    expect(item.dataset['url']).toBe('https://earlier.example/story');
    expect(item.dataset['slot']).toBe('0');
    const link = item.querySelector('a')!;
    expect([link.getAttribute('href'), link.getAttribute('target'), link.getAttribute('rel'), link.textContent]).toEqual(['https://earlier.example/story', '_blank', 'noopener noreferrer', 'The tide mill']);
    expect(item.querySelector('.passage-line')!.textContent).toBe('62% of this page appeared in The tide mill, which you read on Nov 19, 2026');
    expect(item.querySelector('time')!.getAttribute('datetime')).toBe('2026-11-19T12:00:00.000Z');
    expect(item.querySelector('.meta')!.textContent).toBe('earlier.example · 2 shared passages');
    expect(item.querySelector<HTMLElement>('.not-on-page')!.hidden).toBe(true);
  });

  it('adds that page\'s share where it is the notable one: a long page holding a short excerpt', () => {
    const { doc } = popup();
    expect(passageItem(doc, en, two[1]!, 1).querySelector('.passage-line')!.textContent).toBe('5% of this page appeared in A walk (80% of that page), which you read on Nov 19, 2026');
    expect([otherShareNotable({ share: 0.05, otherShare: 0.8 }), otherShareNotable({ share: 0.62, otherShare: 0.55 }), otherShareNotable({ share: 0.5, otherShare: 0.55 })]).toEqual([true, false, false]);
  });

  it('takes a title as text, never markup, and links only http(s) addresses', () => {
    const { doc } = popup();
    const item = passageItem(doc, en, match({ title: '<img src=x onerror=alert(1)>Story', url: 'javascript:alert(1)' }), 2);
    expect(item.querySelector('a')).toBeNull();
    expect(item.querySelector('img')).toBeNull();
    expect(item.querySelector('.title')!.textContent).toBe('<img src=x onerror=alert(1)>Story');
    expect(passageItem(doc, en, match({ title: '' }), 0).querySelector('a')!.textContent).toBe('https://earlier.example/story');
  });

  it.each([
    ['es', match(), /^El 62 % de esta página aparece en The tide mill, que leíste el 19 nov 2026$/, 'earlier.example · 2 pasajes en común'],
    ['es', two[1]!, /^El 5 % de esta página aparece en A walk \(el 80 % de aquella\), que leíste el 19 nov 2026$/, 'other.example · 1 pasaje en común'],
    ['zh_CN', match(), /^此页有 62% 的内容出现在你 2026年11月19日 读过的 The tide mill 中$/, 'earlier.example · 2 个相同段落'],
    ['zh_CN', two[1]!, /^此页有 5% 的内容出现在你 2026年11月19日 读过的 A walk 中（占该网页的 80%）$/, 'other.example · 1 个相同段落'],
  ] as const)('in %s', (folder, entry, line, meta) => {
    const l = localizerFor(folder);
    const { doc } = popup(l);
    const item = passageItem(doc, l, entry, 0);
    // Intl writes a no-break space before the Spanish percent sign
    expect(item.querySelector('.passage-line')!.textContent!.replace(/\u00a0/g, ' ')).toMatch(line);
    expect(item.querySelector('.meta')!.textContent).toBe(meta);
  });

  it('names the copies sharing the same passages under the entry: each site a link titled with its page, at most ALSO_IN_SHOWN', () => {
    const copy = (n: number) => ({ ...match(), url: `https://copy${n}.example/story`, title: `The tide mill (copy ${n})`, site: `copy${n}.example` });
    const { doc } = popup();
    expect(passageItem(doc, en, match(), 0).querySelector('.also-in')).toBeNull();
    const one = passageItem(doc, en, match({ alsoIn: [copy(1)] }), 0).querySelector('.also-in')!;
    expect(one.textContent).toBe('Also in 1 other page you read: copy1.example');
    expect([...one.querySelectorAll('a')].map((a) => [a.getAttribute('href'), a.getAttribute('title'), a.getAttribute('target'), a.getAttribute('rel')])).toEqual([
      ['https://copy1.example/story', 'The tide mill (copy 1)', '_blank', 'noopener noreferrer'],
    ]);
    const many = passageItem(doc, en, match({ alsoIn: [1, 2, 3, 4, 5].map(copy) }), 0).querySelector('.also-in')!;
    expect(many.textContent).toBe('Also in 5 other pages you read: copy1.example, copy2.example, copy3.example, 2 more');
    expect(many.querySelectorAll('a')).toHaveLength(ALSO_IN_SHOWN);
    // an address that is not http(s) is named, not linked; a title is text
    const odd = passageItem(doc, en, match({ alsoIn: [{ ...copy(1), url: 'javascript:alert(1)', title: '<b>x</b>' }] }), 0).querySelector('.also-in')!;
    expect([odd.querySelectorAll('a').length, odd.querySelector('span span')!.getAttribute('title'), odd.querySelector('b')]).toEqual([0, '<b>x</b>', null]);
    expect(localizedAlsoIn('es', [copy(1)])).toBe('También en 1 página más que leíste: copy1.example');
    expect(localizedAlsoIn('es', [copy(1), copy(2)])).toBe('También en 2 páginas más que leíste: copy1.example y copy2.example');
    expect(localizedAlsoIn('zh_CN', [copy(1), copy(2)])).toBe('你读过的另外 2 个网页中也有这些段落：copy1.example、copy2.example');
    expect(localizedAlsoIn('es', [1, 2, 3, 4].map(copy))).toBe('También en 4 páginas más que leíste: copy1.example, copy2.example, copy3.example y 1 más');
    expect(localizedAlsoIn('zh_CN', [1, 2, 3, 4].map(copy))).toBe('你读过的另外 4 个网页中也有这些段落：copy1.example、copy2.example、copy3.example、另外 1 个');
  });

  it('has a swatch per slot, each named in words for screen readers', () => {
    const { doc } = popup();
    const names = Array.from({ length: PASSAGE_SLOTS }, (_, slot) => swatch(doc, en, slot)).map((s) => [s.getAttribute('role'), s.dataset['slot'], s.getAttribute('aria-label'), s.textContent]);
    expect(names).toEqual([
      ['img', '0', 'Marked in yellow, underlined', 'Aa'],
      ['img', '1', 'Marked in blue, with a dashed underline', 'Aa'],
      ['img', '2', 'Marked in pink, with a dotted underline', 'Aa'],
      ['img', '3', 'Marked in green, with a double underline', 'Aa'],
      ['img', '4', 'Marked in orange, with a wavy underline', 'Aa'],
      ['img', '5', 'Marked in purple, with a line above', 'Aa'],
    ]);
  });
});

describe('the swatches look like the marks', () => {
  /** Each slot's declarations in a sheet, by the selector's slot number. */
  function slots(css: string, selector: RegExp): Map<string, string> {
    const found = new Map<string, string>();
    for (const m of css.matchAll(new RegExp(`${selector.source}\\s*\\{([^}]*)\\}`, 'g'))) {
      const declarations = m[2]!.split(';').map((d) => d.trim().replace(/\s+/g, ' ')).filter((d) => d !== '').sort();
      found.set(m[1]!, declarations.join('; '));
    }
    return found;
  }

  it('the popup\'s swatch of each slot has the colours and underline of assets/passages.css', () => {
    const marks = slots(readFileSync(join(ROOT, 'assets/passages.css'), 'utf8'), /::highlight\(doppel-passage-(\d)\)/);
    const swatches = slots(readFileSync(join(ROOT, 'entrypoints/popup/style.css'), 'utf8'), /\.swatch\[data-slot='(\d)'\]/);
    expect(marks.size).toBe(PASSAGE_SLOTS);
    expect(swatches).toEqual(marks);
  });
});

describe('the section and its toggle', () => {
  it('is hidden while the list is empty, and lists the entries with a heading that counts them', async () => {
    const { doc, view, showError } = popup();
    const control = createPassagesControl(doc, en, view, fakeTab(contentScript()), showError);
    await control.render([]);
    expect(view.section.hidden).toBe(true);
    await control.render(two);
    expect(view.section.hidden).toBe(false);
    expect(view.heading.textContent).toBe('2 pages you read before share passages with this one');
    expect(items(view).map((li) => li.getAttribute('data-share'))).toEqual(['0.62', '0.05']);
    expect(doc.querySelectorAll('#passages > li')).toHaveLength(2);
    await control.render([match()]);
    expect(view.heading.textContent).toBe('1 page you read before shares passages with this one');
    expect(view.button.hidden).toBe(false);
    expect(view.button.textContent).toBe('Show on the page');
  });

  it('has no button without a tab to mark (the popup opened for an address)', async () => {
    const { doc, view, showError } = popup();
    const control = createPassagesControl(doc, en, view, null, showError);
    await control.render(two);
    await control.sync();
    expect([view.section.hidden, view.button.hidden, view.section.dataset['marks']]).toEqual([false, true, 'none']);
    await control.toggle();
    expect(view.button.getAttribute('aria-pressed')).toBe('false');
  });

  it('marks one set per entry on the first press and clears them on the second', async () => {
    const { doc, view, errors, showError } = popup();
    const tab = fakeTab(contentScript((id) => (id === 'https://other.example/a' ? 2 : 1)));
    const control = createPassagesControl(doc, en, view, tab, showError);
    await control.render(two);
    await control.sync();
    expect(view.section.dataset['marks']).toBe('none');
    expect(view.button.getAttribute('aria-pressed')).toBe('false');

    await control.toggle();
    expect(tab.sent.at(-1)).toEqual({
      type: 'passages/show',
      payload: {
        sets: [
          { id: 'https://earlier.example/story', slot: 0, hashes: [1, 2, 3], ends: [{ first: 1, lead: 0, last: 3, trail: 2 }] },
          { id: 'https://other.example/a', slot: 1, hashes: [9], ends: [{ first: 9, lead: 2, last: 9, trail: 1 }] },
        ],
      },
    });
    expect(view.button.getAttribute('aria-pressed')).toBe('true');
    expect(view.section.dataset['marks']).toBe('shown');
    expect(view.status.textContent).toBe('Marked in 3 places on the page. Press again to remove the marks.');
    expect(items(view).map((li) => li.dataset['ranges'])).toEqual(['1', '2']);
    expect(errors).toEqual([null]);

    await control.toggle();
    expect(tab.sent.at(-1)).toEqual({ type: 'passages/clear', payload: {} });
    expect(view.button.getAttribute('aria-pressed')).toBe('false');
    expect([view.section.dataset['marks'], view.status.textContent]).toEqual(['none', '']);
    expect(items(view).map((li) => li.dataset['ranges'])).toEqual([undefined, undefined]);
  });

  it('says which entries are not on the page, and when none is', async () => {
    const { doc, view, showError } = popup();
    let found = (id: string): number => (id === 'https://other.example/a' ? 0 : 1);
    const control = createPassagesControl(doc, en, view, fakeTab(contentScript((id) => found(id))), showError);
    await control.render(two);
    await control.toggle();
    expect(items(view).map((li) => li.querySelector<HTMLElement>('.not-on-page')!.hidden)).toEqual([true, false]);
    expect(items(view)[1]!.querySelector('.not-on-page')!.textContent).toBe('Not on the page as it is now.');
    expect(view.status.textContent).toBe('Marked in 1 place on the page. Press again to remove the marks.');
    await control.toggle();

    found = () => 0;
    await control.toggle();
    expect(view.button.getAttribute('aria-pressed')).toBe('false');
    expect(view.section.dataset['marks']).toBe('not-found');
    expect(view.status.textContent).toBe('None of these passages is on the page as it is now: it may have changed since Doppel read it.');
  });

  it('starts pressed when the page shows this list\'s marks (passages/get), changing nothing', async () => {
    const { doc, view, showError } = popup();
    const script = contentScript();
    script({ type: 'passages/show', payload: { sets: passageSets(two) } });
    const tab = fakeTab(script);
    const control = createPassagesControl(doc, en, view, tab, showError);
    expect(view.section.dataset['marks']).toBe('unknown');
    await control.render(two);
    await control.sync();
    expect(tab.sent).toEqual([{ type: 'passages/get', payload: {} }]);
    expect(view.button.getAttribute('aria-pressed')).toBe('true');
    expect(items(view).map((li) => li.dataset['ranges'])).toEqual(['1', '1']);
    await control.toggle();
    expect(tab.sent.at(-1)!.type).toBe('passages/clear');
  });

  it('brings marks made for another list up to date, and clears them when the list is empty', async () => {
    const { doc, view, showError } = popup();
    const script = contentScript();
    script({ type: 'passages/show', payload: { sets: passageSets([two[1]!]) } });
    const tab = fakeTab(script);
    const control = createPassagesControl(doc, en, view, tab, showError);
    await control.render(two);
    await control.sync();
    expect(tab.sent.map((m) => m.type)).toEqual(['passages/get', 'passages/show']);
    expect(view.button.getAttribute('aria-pressed')).toBe('true');

    // a re-render with the same list sends nothing; with another, the marks follow it
    await control.render(two);
    expect(tab.sent).toHaveLength(2);
    await control.render([two[1]!]);
    expect(tab.sent.at(-1)).toEqual({ type: 'passages/show', payload: { sets: [{ id: 'https://other.example/a', slot: 0, hashes: [9], ends: [{ first: 9, lead: 2, last: 9, trail: 1 }] }] } });
    expect(items(view).map((li) => li.dataset['ranges'])).toEqual(['1']);
    await control.render([]);
    expect(tab.sent.at(-1)!.type).toBe('passages/clear');
    expect(view.button.getAttribute('aria-pressed')).toBe('false');
  });

  it('ignores a second press while the first is under way', async () => {
    const { doc, view, showError } = popup();
    let release = (): void => {};
    const script = contentScript();
    const tab = fakeTab(async (message) => {
      await new Promise<void>((resolve) => (release = resolve));
      return script(message);
    });
    const control = createPassagesControl(doc, en, view, tab, showError);
    await control.render(two);
    const first = control.toggle();
    expect(view.button.getAttribute('aria-busy')).toBe('true');
    await control.toggle();
    release();
    await first;
    expect(tab.sent.map((m) => m.type)).toEqual(['passages/show']);
    expect([view.button.getAttribute('aria-pressed'), view.button.hasAttribute('aria-busy')]).toEqual(['true', false]);
  });

  it('starts unpressed, saying nothing, when the tab cannot answer passages/get', async () => {
    const { doc, view, errors, showError } = popup();
    const control = createPassagesControl(doc, en, view, fakeTab(() => ({ ok: false, error: 'Malformed message: unknown message type "passages/get"' })), showError);
    await control.render(two);
    await control.sync();
    expect([view.button.getAttribute('aria-pressed'), view.section.dataset['marks'], errors]).toEqual(['false', 'none', []]);
  });

  const unsupported = en.t('passagesUnsupported');
  it.each([
    ['no content script in the tab', () => Promise.reject(new Error('Could not establish connection. Receiving end does not exist.')), true, 'Reload the page to mark its passages: it was opened before Doppel was installed or updated.'],
    ['no answer', () => undefined, true, 'Reload the page to mark its passages: it was opened before Doppel was installed or updated.'],
    ['the tab closed', () => Promise.reject(new Error('No tab with id: 7.')), false, 'The tab with this page has been closed, so its passages cannot be marked.'],
    ['a browser without CSS.highlights', () => ({ ok: false, error: unsupported }), true, unsupported],
    ['a refusal', () => ({ ok: false, error: 'The passages could not be marked: boom' }), true, 'Doppel could not mark the passages: The passages could not be marked: boom'],
    ['a malformed answer', () => ({ ok: true, value: { marked: 2, sets: [] } }), true, "Doppel could not mark the passages: marked must be the sum of the sets' ranges: got 2, the sets add up to 0"],
  ])('says so in words: %s', async (_name, answer, open, error) => {
    const { doc, view, errors, showError } = popup();
    const control = createPassagesControl(doc, en, view, fakeTab(answer, open), showError);
    await control.render(two);
    await control.toggle();
    expect(errors).toEqual([null, error]);
    expect([view.button.getAttribute('aria-pressed'), view.section.dataset['marks']]).toEqual(['false', 'failed']);
  });

  it('words the errors in Spanish and Chinese', async () => {
    for (const [folder, error] of [
      ['es', 'Vuelve a cargar la página para marcar sus pasajes: se abrió antes de que Doppel se instalara o se actualizara.'],
      ['zh_CN', '此网页所在的标签页已关闭，无法标记段落。'],
    ] as const) {
      const l = localizerFor(folder);
      const { doc, view, errors, showError } = popup(l);
      const control = createPassagesControl(doc, l, view, fakeTab(() => Promise.reject(new Error('gone')), folder === 'es'), showError);
      await control.render(two);
      await control.toggle();
      expect(errors.at(-1)).toBe(error);
    }
  });

  it('a failed clear keeps the button pressed and says why', async () => {
    const { doc, view, errors, showError } = popup();
    const script = contentScript();
    const tab = fakeTab((m) => (m.type === 'passages/clear' ? { ok: false, error: 'no' } : script(m)));
    const control = createPassagesControl(doc, en, view, tab, showError);
    await control.render(two);
    await control.toggle();
    await control.toggle();
    expect(errors.at(-1)).toBe('Doppel could not remove the marks: no');
    expect(view.button.getAttribute('aria-pressed')).toBe('true');
  });
});
