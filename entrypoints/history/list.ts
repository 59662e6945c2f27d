// The reading history: every recorded page, newest first, near-duplicates and rewrites folded into one entry
// (lib/ui/history-data.ts), with search, filters and forgetting.
//
// At a million pages the list cannot be built whole. It is read a chunk of entries at a time
// along the lastSeen index, as the end of the list comes into view, and it is virtualised: a
// chunk far outside the viewport is emptied and keeps only its measured height, and is drawn
// again when it comes back near. A search reads the store in slices of SEARCH_SCAN records,
// showing how far it got, so that a rare match in a large history never blocks the page.
import { type HistoryCursor, type HistoryEntry, type HistoryFilter, readHistory, readOverview } from '@/lib/ui/history-data';
import { $, errorText, l, markOnce, onPagesChanged, pageLink, pagesChanged, store, writerJob } from './shared';

/** Entries per chunk (one read, one block of the virtualised list). */
const CHUNK = 40;
/** Records passed per read while a search or filter has not filled a chunk. */
const SEARCH_SCAN = 4000;
/** Chunks within this distance of the viewport stay drawn. */
const DRAWN_MARGIN = '1500px';
/** How far below the viewport the list's end starts the next read. */
const LOAD_AHEAD_PX = 800;

performance.mark('doppel:history-script'); // the marks on the way to the first screen: read by npm run bench:browser

const view = {
  overview: $('overview'),
  filters: $<HTMLFormElement>('filters'),
  search: $<HTMLInputElement>('search'),
  from: $<HTMLInputElement>('from'),
  to: $<HTMLInputElement>('to'),
  hasCopies: $<HTMLInputElement>('has-copies'),
  list: $('list'),
  status: $('list-status'),
  end: $('list-end'),
  selectionCount: $('selection-count'),
  forgetSelected: $<HTMLButtonElement>('forget-selected'),
};

/**
 * Settles once the list's first screen is drawn (or failed). What is not on it (the counts, the
 * sites' table) is read after it, so that those longer reads do not hold up the first entries.
 */
let firstScreenShown: () => void = () => {};
export const firstScreen = new Promise<void>((resolve) => (firstScreenShown = resolve));

interface Chunk {
  element: HTMLElement;
  entries: HistoryEntry[];
  drawn: boolean;
}

const state = {
  filter: {} as HistoryFilter,
  generation: 0,
  cursor: null as HistoryCursor | null,
  ended: false,
  loading: false,
  shown: new Set<string>(),
  chunks: [] as Chunk[],
  scanned: 0,
  selected: new Set<string>(),
  firstScreen: false,
};

// ---------------------------------------------------------------------------------------------
// Drawing entries

function firstSeen(ms: number, now: number): HTMLTimeElement {
  const time = document.createElement('time');
  time.dateTime = new Date(ms).toISOString();
  time.title = l.date(ms);
  time.textContent = l.t('firstSeenWhen', l.relative(ms, now));
  return time;
}

function picker(urls: readonly string[], label: string): HTMLInputElement {
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.className = 'pick';
  box.dataset['urls'] = JSON.stringify(urls);
  box.setAttribute('aria-label', label);
  box.checked = urls.every((url) => state.selected.has(url));
  return box;
}

function entryElement(entry: HistoryEntry, now: number): HTMLElement {
  const pages = [entry.root, ...entry.copies];
  const article = document.createElement('article');
  article.className = 'entry';
  if (entry.copies.length > 0) article.dataset['group'] = entry.id;
  else article.dataset['page'] = entry.root.url;

  const title = entry.root.title.trim() || entry.root.url;
  const head = document.createElement('div');
  head.className = 'entry-head';
  head.append(picker(pages.map((p) => p.url), entry.copies.length > 0 ? l.count('selectEntryAndCopies', entry.copies.length, title) : l.t('selectEntry', title)));
  const body = document.createElement('div');
  body.className = 'entry-body';
  body.append(pageLink(entry.root, 'entry-title'));
  const meta = document.createElement('p');
  meta.className = 'meta';
  const visits = pages.reduce((sum, p) => sum + p.visits, 0);
  meta.append(`${entry.root.site} · `, firstSeen(entry.root.firstSeen, now), ` · ${l.count('visitsCount', visits)}`);
  if (entry.copies.length > 0) {
    const sites = new Set(pages.map((p) => p.site)).size;
    const tag = document.createElement('span');
    tag.className = 'tag';
    tag.textContent = sites > 1 ? l.count('metTimesOnSites', pages.length, sites) : l.count('metTimes', pages.length);
    meta.append(' · ', tag);
  }
  body.append(meta);
  if (entry.copies.length > 0) {
    const list = document.createElement('ul');
    list.className = 'copies';
    for (const copy of entry.copies) {
      const item = document.createElement('li');
      item.append(picker([copy.url], l.t('selectCopyOn', copy.site)));
      const text = document.createElement('div');
      text.append(pageLink(copy, 'copy-title'));
      const copyMeta = document.createElement('p');
      copyMeta.className = 'meta';
      copyMeta.append(`${copy.site} · `, firstSeen(copy.firstSeen, now));
      if (copy.copySite !== undefined) {
        const tag = document.createElement('span');
        tag.className = 'tag copy';
        tag.textContent = l.t('copyOfSite', entry.root.site);
        copyMeta.append(' · ', tag);
      }
      text.append(copyMeta);
      item.append(text);
      list.append(item);
    }
    body.append(list);
  }
  head.append(body);
  article.append(head);
  return article;
}

function draw(chunk: Chunk): void {
  const now = Date.now();
  chunk.element.replaceChildren(...chunk.entries.map((entry) => entryElement(entry, now)));
  chunk.element.style.height = '';
  chunk.drawn = true;
}

/**
 * Empties a chunk far from the viewport, keeping its height (unless it holds the focus). The
 * height comes from the observer's entry: reading offsetHeight here would force a layout for
 * every chunk emptied.
 */
function undraw(chunk: Chunk, height: number): void {
  if (!chunk.drawn || chunk.element.contains(document.activeElement)) return;
  chunk.element.style.height = `${height}px`;
  chunk.element.replaceChildren();
  chunk.drawn = false;
}

const chunkObserver = new IntersectionObserver(
  (changes) => {
    for (const change of changes) {
      const chunk = state.chunks.find((c) => c.element === change.target);
      if (chunk === undefined) continue;
      if (change.isIntersecting && !chunk.drawn) draw(chunk);
      else if (!change.isIntersecting && chunk.drawn) undraw(chunk, change.boundingClientRect.height);
    }
  },
  { rootMargin: `${DRAWN_MARGIN} 0px` },
);

const endObserver = new IntersectionObserver((changes) => {
  if (changes.some((c) => c.isIntersecting)) void loadMore();
}, { rootMargin: `0px 0px ${LOAD_AHEAD_PX}px 0px` }); // the region of endIsNear: the viewport and LOAD_AHEAD_PX below it

// ---------------------------------------------------------------------------------------------
// Reading

const filtering = (): boolean => Boolean(state.filter.text) || state.filter.hasCopies === true || state.filter.from !== undefined || state.filter.to !== undefined;

function setListState(value: 'loading' | 'ready' | 'empty' | 'searching' | 'error'): void {
  view.list.dataset['state'] = value;
  view.list.setAttribute('aria-busy', String(value === 'loading' || value === 'searching'));
}

/** True if the list's end is in the viewport or up to LOAD_AHEAD_PX below it: more entries are about to be seen. */
function endIsNear(): boolean {
  const end = view.end.getBoundingClientRect();
  return end.bottom >= 0 && end.top < window.innerHeight + LOAD_AHEAD_PX;
}

async function loadMore(): Promise<void> {
  if (state.loading || state.ended) return;
  state.loading = true;
  const generation = state.generation;
  const entries: HistoryEntry[] = [];
  try {
    const opened = await store();
    if (!state.firstScreen) performance.mark('doppel:history-store-opened');
    while (entries.length < CHUNK && !state.ended) {
      const page = await readHistory(opened, state.filter, { after: state.cursor, limit: CHUNK - entries.length, maxScan: SEARCH_SCAN, shown: state.shown });
      if (!state.firstScreen) performance.mark('doppel:history-read');
      if (generation !== state.generation) return; // a new search started meanwhile
      entries.push(...page.entries);
      state.cursor = page.next;
      state.ended = page.next === null;
      state.scanned += page.scanned;
      if (!state.ended && entries.length < CHUNK && filtering()) {
        if (state.chunks.length === 0) setListState('searching');
        view.status.textContent = l.count('searchingLooked', state.scanned);
      }
    }
    if (entries.length > 0) {
      const element = document.createElement('div');
      element.className = 'chunk';
      const chunk: Chunk = { element, entries, drawn: false };
      state.chunks.push(chunk);
      draw(chunk);
      view.list.append(element);
      chunkObserver.observe(element);
    }
    if (state.chunks.length === 0) {
      setListState('empty');
      view.status.textContent = filtering() ? l.t('noSearchMatch') : l.t('nothingRecordedYet');
    } else {
      setListState('ready');
      view.status.textContent = state.ended ? (filtering() ? l.t('endOfResults') : l.t('endOfHistory')) : '';
    }
    if (!state.firstScreen) {
      state.firstScreen = true;
      performance.mark('doppel:history-first-screen'); // read by npm run bench:browser
      firstScreenShown();
    }
  } catch (error) {
    if (generation !== state.generation) return;
    setListState('error');
    view.status.textContent = l.t('historyReadFailed', errorText(error));
    firstScreenShown();
  } finally {
    if (generation === state.generation) state.loading = false;
  }
  // still short of the viewport's end (a tall screen, or entries filtered out): read on. Not when
  // the list's end is above the viewport (the page is scrolled down to the import form, say):
  // each chunk added there moves nothing into view, and reading on would read the whole history.
  if (generation === state.generation && !state.ended && endIsNear()) void loadMore();
}

function readFilter(): HistoryFilter {
  const filter: HistoryFilter = {};
  const text = view.search.value.trim();
  if (text !== '') filter.text = text;
  if (view.hasCopies.checked) filter.hasCopies = true;
  if (view.from.value !== '') filter.from = new Date(`${view.from.value}T00:00:00`).getTime();
  if (view.to.value !== '') filter.to = new Date(`${view.to.value}T23:59:59.999`).getTime();
  return filter;
}

/** Starts the list again from the top, with the current filters. */
function restart(): void {
  state.generation++;
  for (const chunk of state.chunks) chunkObserver.unobserve(chunk.element);
  state.chunks = [];
  state.shown = new Set();
  state.cursor = null;
  state.ended = false;
  state.loading = false;
  state.scanned = 0;
  state.filter = readFilter();
  view.list.replaceChildren();
  setListState('loading');
  view.status.textContent = l.t('loading');
  void loadMore();
}

async function showOverview(): Promise<void> {
  try {
    const { pages, articles, groups } = await readOverview(await store());
    view.overview.textContent =
      pages === 0
        ? l.t('noPagesYet')
        : l.t('overview', l.count('pagesCount', pages), l.count('distinctArticles', articles), l.count('articlesMetMoreThanOnce', groups));
    markOnce('doppel:history-overview');
  } catch (error) {
    view.overview.textContent = l.t('countFailed', errorText(error));
  }
}

// ---------------------------------------------------------------------------------------------
// Selecting and forgetting

function showSelection(): void {
  const n = state.selected.size;
  view.selectionCount.textContent = n === 0 ? l.t('selectToForget') : l.count('pagesSelected', n);
  view.forgetSelected.disabled = n === 0;
  view.forgetSelected.textContent = l.t('forgetSelected');
  delete view.forgetSelected.dataset['confirm'];
}

async function forgetSelected(): Promise<void> {
  const urls = [...state.selected];
  if (view.forgetSelected.dataset['confirm'] !== 'armed') {
    view.forgetSelected.dataset['confirm'] = 'armed';
    view.forgetSelected.textContent = l.count('confirmForgetPages', urls.length);
    return;
  }
  view.forgetSelected.disabled = true;
  try {
    const { forgotten = 0 } = await writerJob({ type: 'pages/forget', urls }, { onWaiting: () => (view.selectionCount.textContent = l.t('waitingForWorker')) });
    state.selected.clear();
    showSelection();
    view.selectionCount.textContent = l.count('forgotPages', forgotten);
    pagesChanged();
  } catch (error) {
    showSelection();
    view.selectionCount.textContent = l.t('forgetFailed', errorText(error));
  }
}

export function setupList(): void {
  let typing: ReturnType<typeof setTimeout> | undefined;
  view.search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(restart, 250);
  });
  view.filters.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(typing);
    restart();
  });
  for (const input of [view.from, view.to, view.hasCopies]) input.addEventListener('change', restart);
  view.list.addEventListener('change', (event) => {
    const box = event.target;
    if (!(box instanceof HTMLInputElement) || !box.classList.contains('pick')) return;
    const urls = JSON.parse(box.dataset['urls'] ?? '[]') as string[];
    for (const url of urls) {
      if (box.checked) state.selected.add(url);
      else state.selected.delete(url);
    }
    // a group's box and its copies' boxes follow each other
    const entry = box.closest('.entry');
    if (entry) {
      for (const other of entry.querySelectorAll<HTMLInputElement>('input.pick')) {
        const its = JSON.parse(other.dataset['urls'] ?? '[]') as string[];
        other.checked = its.every((url) => state.selected.has(url));
      }
    }
    showSelection();
  });
  view.forgetSelected.addEventListener('click', () => void forgetSelected());
  onPagesChanged(() => {
    restart();
    void showOverview();
  });
  endObserver.observe(view.end);
  restart();
  void firstScreen.then(showOverview);
}
