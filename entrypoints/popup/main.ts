// The popup: the report for the active tab (or for `popup.html?url=…`), and its controls.
// Titles and URLs are data: they go into the page as text and validated link targets, never
// as markup.
import { browser } from 'wxt/browser';
import { absoluteTime, distanceDetail, likeness, plural, relativeTime } from '@/lib/format';
import type { MatchSummary, MessageType, Reply, ReplyValue, Report, Request } from '@/lib/messages';
import { STORAGE_STATUS_KEY, type StorageStatus } from '@/lib/storage-full';
import { isRecordableUrl, siteOf } from '@/lib/url';

type ViewState = 'loading' | 'ready' | 'unknown' | 'not-article' | 'excluded' | 'paused' | 'storage-full' | 'unsupported' | 'error';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const view = {
  root: $('report'),
  title: $('page-title'),
  status: $('status-text'),
  detail: $('status-detail'),
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

/** Requests that change nothing, and so may be sent again when their reply was lost. */
const READ_ONLY: ReadonlySet<MessageType> = new Set(['report/get', 'settings/get']);

async function send<T extends MessageType>(type: T, payload: Request<T>): Promise<ReplyValue<T>> {
  let reply: Reply<T> | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      reply = (await browser.runtime.sendMessage({ type, payload })) as Reply<T> | undefined;
    } catch (error) {
      // The service worker stopped while it handled the message ("message channel closed",
      // "Receiving end does not exist"); the next message starts it again.
      if (attempt === 0 && READ_ONLY.has(type)) continue;
      throw error;
    }
    if (reply !== undefined || attempt > 0 || !READ_ONLY.has(type)) break;
  }
  if (!reply) throw new Error('Doppel did not answer. Try again in a moment.');
  if (!reply.ok) throw new Error(reply.error);
  return reply.value;
}

async function targetUrl(): Promise<string | null> {
  const fromQuery = new URLSearchParams(location.search).get('url');
  if (fromQuery !== null) return fromQuery;
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
  return tab?.url ?? null;
}

function setState(state: ViewState): void {
  view.root.dataset['state'] = state;
}

function showError(message: string | null): void {
  view.error.hidden = message === null;
  view.error.textContent = message ?? '';
}

function matchItem(match: MatchSummary, now: number): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'match';
  const link = document.createElement('a');
  link.href = match.url; // http(s) only: validated before it was stored
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  link.textContent = match.title || match.url;
  item.append(link);
  if (match.earliest) {
    const tag = document.createElement('span');
    tag.className = 'tag';
    tag.textContent = 'Earliest seen';
    item.append(' ', tag);
  }
  const meta = document.createElement('p');
  meta.className = 'meta';
  const when = document.createElement('time');
  when.dateTime = new Date(match.firstSeen).toISOString();
  when.title = `First seen ${absoluteTime(match.firstSeen)}`;
  when.textContent = `first seen ${relativeTime(match.firstSeen, now)}`;
  meta.append(`${match.site} · `, when);
  const alike = document.createElement('p');
  alike.className = 'likeness';
  alike.textContent = `${likeness(match.distance)} · ${distanceDetail(match.distance)}`;
  item.append(meta, alike);
  return item;
}

/** The flag of the page's site (lib/groups.ts), with the counts behind it; hidden if not flagged. */
function renderSiteFlag(report: Report): void {
  const standing = report.site;
  view.siteFlag.hidden = standing === null || !standing.flagged;
  if (standing === null || !standing.flagged) {
    delete view.siteFlag.dataset['flag'];
    return;
  }
  view.siteFlag.dataset['site'] = standing.site;
  view.siteFlag.dataset['flag'] = 'copies';
  view.siteFlag.textContent =
    standing.mark === 'farm'
      ? `You marked ${standing.site} as a content farm.`
      : `${standing.site} looks like a republisher: ${standing.copies} of the ${plural(standing.pages, 'page', 'pages')} you read there ` +
        `${standing.copies === 1 ? 'is a copy' : 'are copies'} of pages first seen on other sites.`;
}

/** "the 1,234 pages you saw longest ago" */
function oldestPages(n: number): string {
  return n === 1 ? 'the page you saw longest ago' : `the ${n.toLocaleString('en')} pages you saw longest ago`;
}

/** The notice that storage was full (lib/storage-full.ts); dismissable once recording goes on. */
function renderStorage(status: StorageStatus | null): void {
  view.storageNotice.hidden = status === null;
  if (status === null) return;
  view.storageNotice.dataset['storage'] = status.state;
  const when = absoluteTime(status.at);
  if (status.state === 'evicted') {
    view.storageText.textContent =
      status.evicted > 0
        ? `Storage was full (${when}): Doppel removed ${oldestPages(status.evicted)} to make room.`
        : `Storage was full (${when}); there is room again.`;
  } else {
    view.storageText.textContent =
      `Storage is full (since ${when}): Doppel records nothing new until there is room.` +
      (status.evicted > 0 ? ` It removed ${oldestPages(status.evicted)}, which was not enough.` : '');
  }
  view.storageDismiss.hidden = status.state === 'full';
}

function render(report: Report, now: number): void {
  const site = siteOf(report.url);
  renderSiteFlag(report);
  view.title.textContent = report.page?.title || report.url;
  view.matches.replaceChildren();
  view.matchesSection.hidden = true;
  view.detail.textContent = '';
  switch (report.state) {
    case 'recorded': {
      const page = report.page!;
      const n = report.matches.length;
      view.status.textContent = n > 0 ? 'You have read this before, elsewhere.' : 'No near-duplicates among the pages you have read.';
      view.detail.textContent = `Recorded ${relativeTime(page.firstSeen, now)} · ${plural(page.visits, 'visit', 'visits')}` +
        (report.earliest ? ' · this page is the earliest-seen copy' : '');
      if (n > 0) {
        view.matchesHeading.textContent = `${plural(n, 'near-duplicate', 'near-duplicates')} within ${report.k} bits`;
        view.matches.append(...report.matches.map((m) => matchItem(m, now)));
        view.matchesSection.hidden = false;
      }
      setState('ready');
      break;
    }
    case 'not-article':
      view.status.textContent = 'Not recorded: this page is not an article.';
      view.detail.textContent = report.reason ?? '';
      setState('not-article');
      break;
    case 'excluded':
      view.status.textContent = `Not recorded: you asked Doppel never to record ${site}.`;
      setState('excluded');
      break;
    case 'paused':
      view.status.textContent = 'Recording is paused.';
      view.detail.textContent = 'Pages you open are not recorded until you resume.';
      setState('paused');
      break;
    case 'storage-full':
      view.status.textContent = 'Not recorded: storage is full.';
      view.detail.textContent =
        'The browser has no room left for Doppel, even after it removed the pages you saw longest ago. ' +
        'Free some disk space, or forget pages in History and data; Doppel tries again with each page you open.';
      setState('storage-full');
      break;
    case 'unknown':
      view.status.textContent = 'Doppel has not recorded this page.';
      view.detail.textContent = 'Articles are recorded once they finish loading.';
      setState('unknown');
      break;
  }
  const excluded = report.settings.excludedSites.includes(site);
  view.pause.textContent = report.settings.paused ? 'Resume recording' : 'Pause recording';
  view.pause.setAttribute('aria-pressed', String(report.settings.paused));
  view.exclude.textContent = excluded ? `Record ${site} again` : `Never record ${site}`;
  view.exclude.dataset['excluded'] = String(excluded);
  delete view.exclude.dataset['confirm'];
  view.forget.disabled = report.state !== 'recorded';
  view.incognito.checked = report.settings.recordIncognito;
  renderStorage(report.storage ?? null);
}

async function main(): Promise<void> {
  const url = await targetUrl();
  if (url === null || !isRecordableUrl(url)) {
    view.status.textContent = 'Doppel records web pages (http and https) only.';
    view.title.textContent = url ?? '';
    for (const control of [view.pause, view.exclude, view.forget]) control.hidden = true;
    setState('unsupported');
    return;
  }
  const refresh = async (): Promise<void> => {
    render(await send('report/get', { url }), Date.now());
  };
  const act = (fn: () => Promise<unknown>) => async () => {
    showError(null);
    try {
      await fn();
      await refresh();
    } catch (error) {
      showError(error instanceof Error ? error.message : String(error));
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
      view.exclude.textContent = `Forget ${site}'s pages and never record it? Click again`;
      return;
    }
    return act(() => send('site/exclude', { site, excluded: true }))();
  });
  // The worker updates the storage notice after a write lands (lib/storage-full.ts): an open popup
  // follows it instead of showing what it read a moment before.
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && STORAGE_STATUS_KEY in changes) void refresh().catch(() => {});
  });
  try {
    await refresh();
  } catch (error) {
    setState('error');
    view.status.textContent = 'Doppel could not load the report for this page.';
    showError(error instanceof Error ? error.message : String(error));
  }
}

void main();
