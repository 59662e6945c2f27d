// The popup's list of the earlier pages that share passages with the page being read
// (Report.passages), each with the swatch of its colour, and the "Show on the page" toggle that
// marks those passages on the live page through the tab's content script (lib/protocol/tab-protocol.ts,
// lib/content/marks.ts). No browser globals: the popup passes its Document, its Localizer, its
// elements and a TabLink, so that all of it is tested on linkedom with a fake tab.
import { type Localizer, nodeAt, placeNodes } from './i18n';
import type { OriginalSummary, PassageMatch } from '../protocol/messages';
import { originalTag } from './original-view';
import { type MarkKind, PASSAGE_SLOTS, type PassageMarks, type SharedPassageSet, type TabMessage, parsePassageMarks } from '../protocol/tab-protocol';
import { LIMITS } from '../protocol/validation';

/** The colour and underline an entry is marked in: its place in the list, round the six slots. */
export const slotOf = (index: number): number => index % PASSAGE_SLOTS;

/**
 * One set per listed page, in the list's order: id its URL, slot its place (slotOf), hashes this
 * page's hashes inside the passages they share. Hashes past the protocol's limits are left out (a
 * few passages unmarked rather than none), so the content script never refuses the message.
 */
export function passageSets(passages: readonly PassageMatch[]): SharedPassageSet[] {
  let room = LIMITS.passageHashes;
  return passages.slice(0, LIMITS.passageSets).map((match, i) => {
    const hashes = match.hashes.slice(0, Math.min(LIMITS.passageHashesPerSet, room));
    room -= hashes.length;
    return { id: match.url, slot: slotOf(i), hashes, ends: match.ends.slice(0, LIMITS.passageEndsPerSet) };
  });
}

/**
 * Whether that page's share is worth saying too: at least 10 points above this page's, as when this
 * page is long and holds a short excerpt of that one (5% of this page, 80% of that one).
 */
export function otherShareNotable(match: Pick<PassageMatch, 'share' | 'otherShare'>): boolean {
  return match.otherShare - match.share >= 0.1;
}

/** The URL as a link target if it is http(s), else null (then the title is shown as text). */
function webHref(url: string): string | null {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** A link to `url` opening in a new tab, or a plain span if it is not http(s); its text is the caller's. */
function pageLink(doc: Document, url: string): HTMLElement {
  const href = webHref(url);
  if (href === null) return doc.createElement('span');
  const link = doc.createElement('a');
  link.href = href;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  return link;
}

/** A listed page's title, linking it (text only, never markup), and the day it was first read. */
export function titleAndDay(doc: Document, l: Localizer, page: { url: string; title: string; firstSeen: number }): [HTMLElement, HTMLTimeElement] {
  const title = pageLink(doc, page.url);
  title.className = 'title';
  title.textContent = page.title || page.url;
  const when = doc.createElement('time');
  when.dateTime = new Date(page.firstSeen).toISOString();
  when.title = l.date(page.firstSeen);
  when.textContent = l.day(page.firstSeen);
  return [title, when];
}

/** Each slot's look in words, for screen readers and as a tooltip ("yellow, solid underline"). */
const SLOT_NAMES = ['passageSlot0', 'passageSlot1', 'passageSlot2', 'passageSlot3', 'passageSlot4', 'passageSlot5'] as const;

/** The swatch of a slot: a sample of text marked as the page marks it (popup style.css), named for screen readers. */
export function swatch(doc: Document, l: Localizer, slot: number): HTMLElement {
  const span = doc.createElement('span');
  span.className = 'swatch';
  span.dataset['slot'] = String(slot);
  span.setAttribute('role', 'img');
  span.setAttribute('aria-label', l.t(SLOT_NAMES[slot]!));
  span.title = l.t(SLOT_NAMES[slot]!);
  span.textContent = l.t('swatchSample');
  return span;
}

/**
 * One entry: `<li class="passage" data-share data-url data-slot>` with its swatch, the sentence
 * ("62% of this page appeared in <a>title</a>, which you read on <time>"), and the site and the
 * number of passages. Titles and URLs are data: text and a checked link target, never markup.
 */
export function passageItem(doc: Document, l: Localizer, match: PassageMatch, index: number, original: OriginalSummary | null = null): HTMLLIElement {
  const item = doc.createElement('li');
  item.className = 'passage';
  item.dataset['share'] = String(match.share);
  item.dataset['url'] = match.url;
  item.dataset['slot'] = String(slotOf(index));

  const [title, when] = titleAndDay(doc, l, match);
  const words = otherShareNotable(match)
    ? l.t('passageShareBoth', l.share(match.share), nodeAt(0), nodeAt(1), l.share(match.otherShare))
    : l.t('passageShare', l.share(match.share), nodeAt(0), nodeAt(1));
  const line = doc.createElement('p');
  line.className = 'passage-line';
  line.append(...placeNodes(words, [title, when]).parts);
  if (match.original && original !== null) line.append(' ', ...originalTag(doc, l, original));

  const meta = doc.createElement('p');
  meta.className = 'meta';
  meta.textContent = `${match.site} · ${l.count('sharedPassagesCount', match.passages)}`;
  const parts: HTMLElement[] = [swatch(doc, l, slotOf(index)), line, meta];
  if (match.alsoIn.length > 0) parts.push(alsoInLine(doc, l, match.alsoIn));
  const missing = doc.createElement('p');
  missing.className = 'not-on-page';
  missing.textContent = l.t('passageNotOnPage');
  missing.hidden = true;
  item.append(...parts, missing);
  return item;
}

/** Sites named in an entry's "Also in" line at most; the count says how many there are. */
export const ALSO_IN_SHOWN = 3;

/**
 * "Also in 2 other pages you read: a.example, b.example": the copies sharing the same passages
 * (PassageMatch.alsoIn), each site a link to its page, titled with the page's title, listed the
 * language's way (Intl.ListFormat: "a, b", "a y b", "a、b"), past ALSO_IN_SHOWN as "and N more".
 */
function alsoInLine(doc: Document, l: Localizer, pages: PassageMatch['alsoIn']): HTMLParagraphElement {
  const names: (HTMLElement | string)[] = pages.slice(0, ALSO_IN_SHOWN).map((page) => {
    const name = pageLink(doc, page.url);
    name.title = page.title || page.url;
    name.textContent = page.site;
    return name;
  });
  if (pages.length > ALSO_IN_SHOWN) names.push(l.count('passageAlsoInMore', pages.length - ALSO_IN_SHOWN));
  const sites = doc.createElement('span');
  let next = 0;
  for (const part of new Intl.ListFormat(l.catalogLocale, { type: 'conjunction', style: 'narrow' }).formatToParts(names.map(String))) {
    sites.append(part.type === 'element' ? names[next++]! : part.value);
  }
  const line = doc.createElement('p');
  line.className = 'also-in';
  line.append(...placeNodes(l.count('passageAlsoIn', pages.length, nodeAt(0)), [sites]).parts);
  return line;
}

/** The tab whose page is marked: its content script's messages. */
export interface TabLink {
  /** browser.tabs.sendMessage to the tab; rejects when the tab or its content script is not there. */
  send(message: TabMessage): Promise<unknown>;
  /** Whether the tab is still open (browser.tabs.get). */
  isOpen(): Promise<boolean>;
}

/** The section's elements (entrypoints/popup/index.html). */
export interface PassagesView {
  /** #passages-section: hidden when the list is empty; data-marks says what is marked on the page. */
  section: HTMLElement;
  heading: HTMLElement;
  list: HTMLElement;
  /** #show-passages: a toggle, aria-pressed while the page shows the marks. */
  button: HTMLButtonElement;
  /** #passages-status, a status region: how many marks, or that none were found. */
  status: HTMLElement;
}

/**
 * What the section's `data-marks` says: `unknown` until the tab has answered, `shown` (marks on the
 * page), `none`, `not-found` (shown, but none of the passages is on the page as it is now), `failed`
 * (the last press failed; the error is in the popup's #error).
 */
export type MarksState = 'unknown' | 'shown' | 'none' | 'not-found' | 'failed';

export type PassagesControl = MarksControl<PassageMatch>;

export interface MarksControl<E> {
  /** Lists the entries (the section hidden when there are none); marks shown for another list are brought up to date. */
  render(entries: readonly E[]): Promise<void>;
  /** Asks the tab what it shows (passages/get): a popup opened while marks are shown starts pressed. Quiet when it cannot. */
  sync(): Promise<void>;
  /** The button: marks the passages, or clears the marks while they are shown. */
  toggle(): Promise<void>;
}

/** What a marks control shows and sends for one list of the popup (its passages, or its rewrites). */
export interface MarkedList<E> {
  kind: MarkKind;
  /** The list's items, each with `data-url` and a hidden `.not-on-page` line. */
  itemSelector: string;
  /** Fills the section's heading and list. */
  render(entries: readonly E[]): void;
  /** The sets a press marks, one per entry, in the list's order. */
  sets(entries: readonly E[]): SharedPassageSet[];
}

/** The passages' list: PassageMatch entries, marked in the six slots; `original`, the story's original (its entry is tagged). */
export const passageList = (doc: Document, l: Localizer, view: PassagesView, original: () => OriginalSummary | null = () => null): MarkedList<PassageMatch> => ({
  kind: 'passages',
  itemSelector: 'li.passage',
  render(passages) {
    view.list.replaceChildren(...passages.map((match, i) => passageItem(doc, l, match, i, original())));
    view.heading.textContent = l.count('passagesHeading', passages.length);
  },
  sets: passageSets,
});

/**
 * The list and its toggle. `tab` is null when the popup has no tab to mark (opened as a page for an
 * address, without `&tab=`): the list is shown, the button hidden. Errors go to `showError`, in words.
 */
export function createPassagesControl(doc: Document, l: Localizer, view: PassagesView, tab: TabLink | null, showError: (message: string | null) => void, original: () => OriginalSummary | null = () => null): PassagesControl {
  return createMarksControl(l, view, tab, showError, passageList(doc, l, view, original));
}

/** A section's list and its "Show on the page" toggle, for the marks of one kind (the other kind's are left alone). */
export function createMarksControl<E>(l: Localizer, view: PassagesView, tab: TabLink | null, showError: (message: string | null) => void, list: MarkedList<E>): MarksControl<E> {
  let entries: readonly E[] = [];
  /** What the page shows of this kind, as the tab last said; null: nothing marked. */
  let marks: PassageMarks | null = null;
  let busy = false;
  const kind = list.kind === 'passages' ? {} : { kind: list.kind };

  const ids = (sets: readonly { id: string }[]): string => JSON.stringify(sets.map((s) => s.id));
  /** The sets of this list's kind in what the tab says is marked. */
  const ofKind = (all: PassageMarks): PassageMarks => {
    const sets = all.sets.filter((s) => (s.kind ?? 'passages') === list.kind).map(({ id, ranges }) => ({ id, ranges }));
    return { marked: sets.reduce((n, s) => n + s.ranges, 0), sets };
  };

  /** Sends a message and reads the answer (this kind's marks); throws an Error in the reader's words. */
  const ask = async (link: TabLink, message: TabMessage, failed: 'passagesMarkFailed' | 'passagesClearFailed'): Promise<PassageMarks> => {
    let raw: unknown;
    try {
      raw = await link.send(message);
    } catch {
      // No content script answers: the page was loaded before Doppel was installed or updated
      // (or is one no extension may script), unless the tab itself is gone.
      throw new Error(l.t((await link.isOpen().catch(() => false)) ? 'passagesReloadPage' : 'passagesTabGone'));
    }
    if (raw === undefined) throw new Error(l.t('passagesReloadPage'));
    let reply;
    try {
      reply = parsePassageMarks(raw);
    } catch (error) {
      throw new Error(l.t(failed, error instanceof Error ? error.message : String(error)));
    }
    if (reply.ok) return ofKind(reply.value);
    // The content script's own words where the browser has no CSS.highlights (same catalogue).
    throw new Error(reply.error === l.t('passagesUnsupported') ? reply.error : l.t(failed, reply.error));
  };

  /** Shows what the page has: the button's state, each entry's marks, the status line. */
  const apply = (state: MarksState, now: PassageMarks | null): void => {
    marks = now !== null && now.marked > 0 ? now : null;
    view.section.dataset['marks'] = state;
    view.button.setAttribute('aria-pressed', String(marks !== null));
    const ranges = new Map(marks?.sets.map((s) => [s.id, s.ranges]));
    for (const item of view.list.querySelectorAll<HTMLElement>(list.itemSelector)) {
      const n = ranges.get(item.dataset['url'] ?? '');
      if (n === undefined) delete item.dataset['ranges'];
      else item.dataset['ranges'] = String(n);
      item.querySelector<HTMLElement>('.not-on-page')!.hidden = n !== 0;
    }
    view.status.textContent = state === 'shown' && marks !== null ? l.count('passagesMarked', marks.marked) : state === 'not-found' ? l.t('passagesNotFound') : '';
  };

  const run = async (link: TabLink, type: 'passages/show' | 'passages/clear'): Promise<void> => {
    busy = true;
    view.button.setAttribute('aria-busy', 'true');
    try {
      if (type === 'passages/show') {
        const shown = await ask(link, { type, payload: { sets: list.sets(entries), ...kind } }, 'passagesMarkFailed');
        apply(shown.marked > 0 ? 'shown' : 'not-found', shown);
      } else {
        apply('none', await ask(link, { type: 'passages/clear', payload: { ...kind } }, 'passagesClearFailed'));
      }
    } catch (error) {
      view.section.dataset['marks'] = 'failed';
      showError(error instanceof Error ? error.message : String(error));
    } finally {
      busy = false;
      view.button.removeAttribute('aria-busy');
    }
  };

  /** Marks shown for another list than this one (forgotten, or found since) are replaced, or cleared when the list is empty. */
  const follow = async (link: TabLink): Promise<void> => {
    if (marks === null || ids(marks.sets) === ids(list.sets(entries))) return;
    await run(link, entries.length === 0 ? 'passages/clear' : 'passages/show');
  };

  view.section.dataset['marks'] = 'unknown';
  return {
    async render(listed) {
      entries = listed;
      list.render(listed);
      view.section.hidden = listed.length === 0;
      view.button.hidden = tab === null;
      if (tab === null || marks === null) return;
      apply(view.section.dataset['marks'] as MarksState, marks);
      await follow(tab);
    },
    async sync() {
      if (tab === null) return apply('none', null);
      try {
        const now = await ask(tab, { type: 'passages/get', payload: {} }, 'passagesMarkFailed');
        apply(now.marked > 0 ? 'shown' : 'none', now);
      } catch {
        apply('none', null); // an old content script, or none: the first press says why
        return;
      }
      await follow(tab);
    },
    async toggle() {
      if (busy || tab === null) return;
      showError(null);
      await run(tab, marks === null ? 'passages/show' : 'passages/clear');
    },
  };
}
