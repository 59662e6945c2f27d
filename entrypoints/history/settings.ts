// Settings on the history page: k, pausing, private windows, sites never recorded, clearing all
// data. Each change goes to the worker at once (the popup and the content script read the same
// settings); a change of k then has the worker regroup the store, its progress shown here.
import type { Settings } from '@/lib/protocol/messages';
import { $, errorText, l, organiseNow, organiseText, pagesChanged, send, settings, writerJob } from './shared';

const view = {
  k: $<HTMLInputElement>('k'),
  kValue: $<HTMLOutputElement>('k-value'),
  kStatus: $('k-status'),
  kProgress: $<HTMLProgressElement>('k-progress'),
  paused: $<HTMLInputElement>('paused'),
  incognito: $<HTMLInputElement>('incognito'),
  excluded: $<HTMLUListElement>('excluded-sites'),
  excludeForm: $<HTMLFormElement>('exclude-form'),
  excludeSite: $<HTMLInputElement>('exclude-site'),
  clearAll: $<HTMLButtonElement>('clear-all'),
  clearDialog: $<HTMLDialogElement>('clear-dialog'),
  status: $('settings-status'),
};

function show(current: Settings): void {
  view.k.value = String(current.k);
  view.kValue.value = String(current.k);
  view.paused.checked = current.paused;
  view.incognito.checked = current.recordIncognito;
  view.excluded.replaceChildren();
  if (current.excludedSites.length === 0) {
    const none = document.createElement('li');
    none.className = 'detail';
    none.textContent = l.t('noneExcluded');
    view.excluded.append(none);
  }
  for (const site of current.excludedSites) {
    const item = document.createElement('li');
    item.dataset['excluded'] = site;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = l.t('recordAgain');
    button.setAttribute('aria-label', l.t('recordSiteAgain', site));
    button.addEventListener('click', () => void change(() => send('site/exclude', { site, excluded: false })));
    item.append(site, ' ', button);
    view.excluded.append(item);
  }
}

async function change(act: () => Promise<Settings>): Promise<void> {
  view.status.textContent = '';
  try {
    show(await act());
  } catch (error) {
    view.status.textContent = l.t('changeFailed', errorText(error));
    show(await settings());
  }
}

/** A host from what a person typed: "Example.com", "https://example.com/x" → "example.com". */
function hostOf(typed: string): string | null {
  const text = typed.trim();
  if (text === '') return null;
  try {
    return new URL(/^[a-z]+:\/\//i.test(text) ? text : `https://${text}`).host || null;
  } catch {
    return null;
  }
}

async function setK(k: number): Promise<void> {
  view.k.disabled = true;
  view.kStatus.textContent = l.count('regroupingFor', k);
  try {
    await send('settings/k', { k });
    view.kProgress.hidden = false;
    view.kProgress.removeAttribute('value');
    await organiseNow((progress) => {
      view.kProgress.max = Math.max(progress.total, 1);
      view.kProgress.value = progress.done;
      view.kStatus.textContent = organiseText(progress);
    });
    view.kStatus.textContent = l.count('nearDuplicatesNowWithin', k);
    pagesChanged();
  } catch (error) {
    view.kStatus.textContent = l.t('changeFailed', errorText(error));
    show(await settings());
  } finally {
    view.kProgress.hidden = true;
    view.k.disabled = false;
  }
}

export function setupSettings(): void {
  view.k.addEventListener('input', () => (view.kValue.value = view.k.value));
  view.k.addEventListener('change', () => void setK(Number(view.k.value)));
  view.paused.addEventListener('change', () => void change(() => send('settings/pause', { paused: view.paused.checked })));
  view.incognito.addEventListener('change', () => void change(() => send('settings/incognito', { recordIncognito: view.incognito.checked })));
  view.excludeForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const site = hostOf(view.excludeSite.value);
    if (site === null) {
      view.status.textContent = l.t('notASiteAddress', view.excludeSite.value);
      return;
    }
    void change(async () => {
      const { forgotten, ...next } = await send('site/exclude', { site, excluded: true });
      view.excludeSite.value = '';
      view.status.textContent = forgotten > 0 ? l.count('siteExcludedForgot', forgotten, site) : l.t('siteExcluded', site);
      if (forgotten > 0) pagesChanged();
      return next;
    });
  });
  view.clearAll.addEventListener('click', () => view.clearDialog.showModal());
  view.clearDialog.addEventListener('close', async () => {
    if (view.clearDialog.returnValue !== 'confirm') return;
    view.clearDialog.returnValue = '';
    try {
      const { forgotten = 0 } = await writerJob({ type: 'data/clear' }, { onWaiting: () => (view.status.textContent = l.t('waitingForWorker')) });
      view.status.textContent = l.count('forgotPages', forgotten);
      pagesChanged();
    } catch (error) {
      view.status.textContent = l.t('clearFailed', errorText(error));
    }
  });
  void settings().then(show, (error: unknown) => (view.status.textContent = l.t('settingsFailed', errorText(error))));
}
