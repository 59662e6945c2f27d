// What the history page's sections share: the store, opened by the page itself for reading
// (extension pages share the extension's IndexedDB), the message channel to the worker (settings
// go through it, so that the worker sees every change at once), and the writer port: the worker
// is the only context that writes the database (lib/ui/writer-client.ts).
import { browser } from 'wxt/browser';
import type { Settings } from '@/lib/protocol/messages';
import { createSend } from '@/lib/protocol/send';
import { WRITER_PORT } from '@/lib/protocol/messages';
import type { OrganiseProgress } from '@/lib/organise/regroup';
import { keptPageReader } from '@/lib/store/pages';
import type { PageRecord } from '@/lib/store/schema';
import { isRecordableUrl } from '@/lib/url';
import { type JobCallbacks, runJob } from '@/lib/ui/writer-client';
import { errorText as errorTextIn } from '@/lib/ui/error-text';
import { createLocalizer } from '@/lib/ui/i18n';

/** The page's words, in the browser's language (public/_locales/). */
export const l = createLocalizer((key, substitutions) => browser.i18n.getMessage(key as never, substitutions), browser.i18n.getUILanguage());

export const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

/** The page store, kept per connection (opened again if the browser closed it, after a full disk); it only reads. */
export const store = keptPageReader();

/** Marks `name` the first time only (a mark on the way to the page's first screen, read by npm run bench:browser). */
export function markOnce(name: string): void {
  if (performance.getEntriesByName(name, 'mark').length === 0) performance.mark(name);
}

/** An error as a reader sees it: the worker stopping is said in the page's language. */
export const errorText = (error: unknown): string => errorTextIn(l, error);

/** Messages to the worker, their replies validated. */
export const send = createSend({ sendMessage: (message) => browser.runtime.sendMessage(message), noAnswer: () => l.t('errorNoAnswer') });

export const settings = (): Promise<Settings> => send('settings/get', {});

/** A port for one job of the worker's writer. */
export const writerPort = () => browser.runtime.connect({ name: WRITER_PORT });

/** Runs a job in the worker: forgetting, clearing, organising. */
export const writerJob = (request: Parameters<typeof runJob>[1], callbacks?: JobCallbacks) => runJob(writerPort(), request, callbacks);

/** Has the worker bring the store up to date for the settings' k (table design, then groups). */
export async function organiseNow(onProgress?: (progress: OrganiseProgress) => void): Promise<void> {
  await writerJob({ type: 'store/organise' }, { onOrganise: onProgress });
}

/** "Moving the tables… 40%": a progress line for organise. */
export function organiseText(progress: OrganiseProgress): string {
  const phase = { design: 'organiseDesign', reading: 'organiseReading', comparing: 'organiseComparing', rewrites: 'organiseRewrites', writing: 'organiseWriting', passages: 'organisePassages', copies: 'organiseCopies' }[progress.phase];
  return progress.total > 0 ? l.t('progressShare', l.t(phase), l.percent(Math.floor((100 * progress.done) / progress.total))) : l.t(phase);
}

/** YYYY-MM-DD in local time. */
export function localDate(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Listeners for "the stored pages changed" (an import, forgetting, a change of k). */
const listeners: (() => void)[] = [];
export function onPagesChanged(listener: () => void): void {
  listeners.push(listener);
}
export function pagesChanged(): void {
  for (const listener of listeners) listener();
  // the toolbar badges of open tabs count near-duplicates that may have just gone or come
  void send('pages/changed', {}).catch(() => {});
}

/** A page's title as a link to it (a new tab); plain text for anything but an http(s) URL. */
export function pageLink(record: PageRecord, className = ''): HTMLElement {
  const text = record.title.trim() || record.url;
  const element = isRecordableUrl(record.url) ? document.createElement('a') : document.createElement('span');
  if (element instanceof HTMLAnchorElement) {
    element.href = record.url;
    element.target = '_blank';
    element.rel = 'noopener noreferrer';
  }
  if (className !== '') element.className = className;
  element.textContent = text; // text, never markup
  return element;
}
