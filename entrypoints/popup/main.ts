// The popup: the report for the active tab (or for `popup.html?url=…`), and its controls.
// Titles and URLs are data: they go into the page as text and validated link targets, never
// as markup.
//
// Opened as a page, `popup.html?url=<encoded URL>` shows the report for that address, and
// `&tab=<id>` names the tab that shows it, whose passages "Show on the page" then marks (the e2e
// tests open it so). Without `&tab=` no tab is marked: the passages are listed without the button.
import { browser } from 'wxt/browser';
import { createLocalizer, localizePage } from '@/lib/ui/i18n';
import type { MatchSummary, MessageType, OriginalSummary, Report, RewriteSummary } from '@/lib/protocol/messages';
import { originalStatus, originalTag } from '@/lib/ui/original-view';
import { createSend } from '@/lib/protocol/send';
import { type MarksControl, type PassagesControl, type TabLink, createMarksControl, createPassagesControl } from '@/lib/ui/passages-view';
import { rewriteList } from '@/lib/ui/rewrites-view';
import { STORAGE_STATUS_KEY, type StorageStatus } from '@/lib/protocol/messages';
import { isRecordableUrl, siteOf } from '@/lib/url';
import { errorText } from '@/lib/ui/error-text';

/** The popup's words, in the browser's language (public/_locales/). */
const l = createLocalizer((key, substitutions) => browser.i18n.getMessage(key as never, substitutions), browser.i18n.getUILanguage());
localizePage(document, l);

type ViewState = 'loading' | 'ready' | 'unknown' | 'not-article' | 'excluded' | 'paused' | 'storage-full' | 'unsupported' | 'error';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const view = {
  root: $('report'),
  title: $('page-title'),
  status: $('status-text'),
  detail: $('status-detail'),
  original: $('original-line'),
  matchesSection: $('matches-section'),
  matchesHeading: $('matches-heading'),
  matches: $<HTMLOListElement>('matches'),
  pause: $<HTMLButtonElement>('pause'),
  exclude: $<HTMLButtonElement>('exclude'),
  forget: $<HTMLButtonElement>('forget'),
  incognito: $<HTMLInputElement>('incognito'),
  error: $('error'),
  historyLink: $<HTMLAnchorElement>('history-link'),
  siteFlag: $('site-flag'),
  storageNotice: $('storage-notice'),
  storageText: $('storage-notice-text'),
  storageDismiss: $<HTMLButtonElement>('storage-dismiss'),
};

// "History and data": a real link (keyboard users can tab to it and open it), opened in a new tab
// with tabs.create, since a link in a popup does not reliably open one (the popup closes by itself
// once the new tab takes the focus).
const historyUrl = browser.runtime.getURL('/history.html');
view.historyLink.href = historyUrl;
view.historyLink.addEventListener('click', (event) => {
  event.preventDefault();
  browser.tabs.create({ url: historyUrl }).catch(() => window.open(historyUrl, '_blank', 'noopener'));
});

/** Messages to the worker, their replies validated; those that change nothing are sent again when their reply was lost. */
const send = createSend({
  sendMessage: (message) => browser.runtime.sendMessage(message),
  noAnswer: () => l.t('errorNoAnswer'),
  retry: new Set<MessageType>(['report/get', 'settings/get']),
});

/** The page the report is for, and the tab showing it (null: none to mark). */
async function target(): Promise<{ url: string | null; tabId: number | null }> {
  const query = new URLSearchParams(location.search);
  const fromQuery = query.get('url');
  if (fromQuery !== null) {
    const tab = query.get('tab') ?? '';
    return { url: fromQuery, tabId: /^\d{1,15}$/.test(tab) ? Number(tab) : null };
  }
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
  return { url: tab?.url ?? null, tabId: tab?.id ?? null };
}

/** The content script of a tab, for marking passages (lib/ui/passages-view.ts). */
function tabLink(tabId: number): TabLink {
  return {
    send: (message) => browser.tabs.sendMessage(tabId, message),
    isOpen: () => browser.tabs.get(tabId).then(
      () => true,
      () => false,
    ),
  };
}

function setState(state: ViewState): void {
  view.root.dataset['state'] = state;
}

function showError(message: string | null): void {
  view.error.hidden = message === null;
  view.error.textContent = message ?? '';
}

function matchItem(match: MatchSummary, now: number, original: OriginalSummary | null): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'match';
  const link = document.createElement('a');
  link.href = match.url; // http(s) only: validated before it was stored
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  link.textContent = match.title || match.url;
  item.append(link);
  if (match.original && original !== null) {
    item.append(' ', ...originalTag(document, l, original));
  } else if (match.earliest) {
    // the page seen first, named only where it is not the original
    const tag = document.createElement('span');
    tag.className = 'tag';
    tag.textContent = l.t('earliestSeen');
    item.append(' ', tag);
  }
  const meta = document.createElement('p');
  meta.className = 'meta';
  const when = document.createElement('time');
  when.dateTime = new Date(match.firstSeen).toISOString();
  when.title = l.t('firstSeenOn', l.date(match.firstSeen));
  when.textContent = l.t('firstSeenWhen', l.relative(match.firstSeen, now));
  meta.append(`${match.site} · `, when);
  const alike = document.createElement('p');
  alike.className = 'likeness';
  alike.textContent = l.t('likenessLine', l.likeness(match.distance), l.distanceDetail(match.distance));
  item.append(meta, alike);
  return item;
}

/** The flag of the page's site (lib/report/groups.ts), with the counts behind it, or that it republishes with credit; hidden otherwise. */
function renderSiteFlag(report: Report): void {
  const standing = report.site;
  const shown = standing !== null && (standing.flagged || standing.creditsSources);
  view.siteFlag.hidden = !shown;
  if (!shown) {
    delete view.siteFlag.dataset['flag'];
    return;
  }
  view.siteFlag.dataset['site'] = standing.site;
  view.siteFlag.dataset['flag'] = standing.flagged ? 'copies' : 'credited';
  if (!standing.flagged) view.siteFlag.textContent = l.t('siteCreditsSources', standing.site);
  else if (standing.mark === 'farm') view.siteFlag.textContent = l.t('siteMarkedFarm', standing.site);
  else view.siteFlag.textContent = l.count('siteLooksRepublisher', standing.copies - standing.credited, l.count('pagesCount', standing.pages), standing.site);
}

/** The notice that storage was full (lib/background/storage-full.ts); dismissable once recording goes on. */
function renderStorage(status: StorageStatus | null): void {
  view.storageNotice.hidden = status === null;
  if (status === null) return;
  view.storageNotice.dataset['storage'] = status.state;
  const when = l.date(status.at);
  if (status.state === 'evicted') {
    view.storageText.textContent = status.evicted > 0 ? l.count('storageWasFullRemoved', status.evicted, when) : l.t('storageWasFull', when);
  } else {
    view.storageText.textContent = status.evicted > 0 ? l.count('storageIsFullRemoved', status.evicted, when) : l.t('storageIsFull', when);
  }
  view.storageDismiss.hidden = status.state === 'full';
}

/** The page's first visit and its story's original, for the rewrites' wording (an earlier page or a later one) and tags; set by each render. */
let ownFirstSeen = 0;
let storyOriginal: OriginalSummary | null = null;

function render(report: Report, now: number, passages: PassagesControl, rewrites: MarksControl<RewriteSummary>): void {
  const site = siteOf(report.url);
  renderSiteFlag(report);
  ownFirstSeen = report.page?.firstSeen ?? now;
  storyOriginal = report.state === 'recorded' ? report.original : null;
  void passages.render(report.passages);
  void rewrites.render(report.state === 'recorded' ? report.rewrites : []);
  view.title.textContent = report.page?.title || report.url;
  view.matches.replaceChildren();
  view.matchesSection.hidden = true;
  view.detail.textContent = '';
  view.original.hidden = true;
  view.original.textContent = '';
  delete view.original.dataset['evidence'];
  switch (report.state) {
    case 'recorded': {
      const page = report.page!;
      const n = report.matches.length;
      view.status.textContent = n > 0 ? l.t('readBeforeElsewhere') : report.passages.length > 0 ? l.t('readPartsBefore') : report.rewrites.length > 0 ? l.t('readStoryBefore') : l.t('noNearDuplicates');
      // "the earliest-seen copy" only where that is not the original
      const earliestOnly = report.earliest && report.original?.self !== true;
      view.detail.textContent = l.t(earliestOnly ? 'recordedEarliest' : 'recorded', l.relative(page.firstSeen, now), l.count('visitsCount', page.visits));
      if (report.original !== null) {
        view.original.textContent = originalStatus(l, report.original);
        view.original.dataset['evidence'] = report.original.evidence;
        view.original.dataset['self'] = String(report.original.self);
        view.original.hidden = false;
      }
      if (n > 0) {
        view.matchesHeading.textContent = l.count('nearDuplicatesWithin', n, report.k);
        view.matches.append(...report.matches.map((m) => matchItem(m, now, report.original)));
        view.matchesSection.hidden = false;
      }
      setState('ready');
      break;
    }
    case 'not-article':
      view.status.textContent = l.t('notRecordedNotArticle');
      view.detail.textContent = l.notArticle(report.notArticle, report.reason);
      setState('not-article');
      break;
    case 'excluded':
      view.status.textContent = l.t('notRecordedExcluded', site);
      setState('excluded');
      break;
    case 'paused':
      view.status.textContent = l.t('recordingPaused');
      view.detail.textContent = l.t('recordingPausedDetail');
      setState('paused');
      break;
    case 'storage-full':
      view.status.textContent = l.t('notRecordedStorageFull');
      view.detail.textContent = l.t('notRecordedStorageFullDetail');
      setState('storage-full');
      break;
    case 'unknown':
      view.status.textContent = l.t('notRecordedYet');
      view.detail.textContent = l.t('notRecordedYetDetail');
      setState('unknown');
      break;
  }
  const excluded = report.settings.excludedSites.includes(site);
  view.pause.textContent = report.settings.paused ? l.t('resumeRecording') : l.t('pauseRecording');
  view.pause.setAttribute('aria-pressed', String(report.settings.paused));
  view.exclude.textContent = excluded ? l.t('recordSiteAgain', site) : l.t('neverRecordSite', site);
  view.exclude.dataset['excluded'] = String(excluded);
  delete view.exclude.dataset['confirm'];
  view.forget.disabled = report.state !== 'recorded';
  view.incognito.checked = report.settings.recordIncognito;
  renderStorage(report.storage ?? null);
}

async function main(): Promise<void> {
  const { url, tabId } = await target();
  if (url === null || !isRecordableUrl(url)) {
    view.status.textContent = l.t('onlyWebPages');
    view.title.textContent = url ?? '';
    for (const control of [view.pause, view.exclude, view.forget]) control.hidden = true;
    setState('unsupported');
    return;
  }
  const passages = createPassagesControl(
    document,
    l,
    { section: $('passages-section'), heading: $('passages-heading'), list: $('passages'), button: $<HTMLButtonElement>('show-passages'), status: $('passages-status') },
    tabId === null ? null : tabLink(tabId),
    showError,
    () => storyOriginal,
  );
  $('show-passages').addEventListener('click', () => void passages.toggle());
  const rewritesView = { section: $('rewrites-section'), heading: $('rewrites-heading'), list: $('rewrites'), button: $<HTMLButtonElement>('show-rewrites'), status: $('rewrites-status') };
  const rewrites = createMarksControl(l, rewritesView, tabId === null ? null : tabLink(tabId), showError, rewriteList(document, l, rewritesView, () => ownFirstSeen, () => storyOriginal));
  $('show-rewrites').addEventListener('click', () => void rewrites.toggle());
  const refresh = async (): Promise<void> => {
    render(await send('report/get', { url }), Date.now(), passages, rewrites);
  };
  const act = (fn: () => Promise<unknown>) => async () => {
    showError(null);
    try {
      await fn();
      await refresh();
    } catch (error) {
      showError(l.t('changeFailed', errorText(l, error)));
    }
  };
  view.pause.addEventListener('click', act(() => send('settings/pause', { paused: view.pause.getAttribute('aria-pressed') !== 'true' })));
  view.forget.addEventListener('click', act(() => send('page/forget', { url })));
  view.storageDismiss.addEventListener('click', act(() => send('storage/dismiss', {})));
  view.incognito.addEventListener('change', act(() => send('settings/incognito', { recordIncognito: view.incognito.checked })));
  view.exclude.addEventListener('click', async () => {
    const site = siteOf(url);
    if (view.exclude.dataset['excluded'] === 'true') return act(() => send('site/exclude', { site, excluded: false }))();
    // Excluding forgets the site's pages: ask once more, in place.
    if (view.exclude.dataset['confirm'] !== 'armed') {
      view.exclude.dataset['confirm'] = 'armed';
      view.exclude.textContent = l.t('confirmExcludeSite', site);
      return;
    }
    return act(() => send('site/exclude', { site, excluded: true }))();
  });
  // The worker updates the storage notice after a write lands (lib/background/storage-full.ts): an open popup
  // follows it instead of showing what it read a moment before.
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && STORAGE_STATUS_KEY in changes) void refresh().catch(() => {});
  });
  try {
    await refresh();
    void passages.sync(); // after the report: a popup opened while marks are shown starts pressed
    void rewrites.sync();
  } catch (error) {
    setState('error');
    view.status.textContent = l.t('reportFailed');
    showError(l.t('errorDetails', errorText(l, error)));
  }
}

void main();
