// The history page (history.html, opened from the popup): the reading history deduplicated, the
// sites that copy, the settings, and the user's data (export and import). Each section lives in
// its own module; this one starts them, and first brings the store up to date if an import, an
// upgrade or a change of k left the groups incomplete (the worker may be doing it already: the
// Web Lock makes this wait for it).
import { onMoveProgress } from '@/lib/store/db';
import { needsRegroup } from '@/lib/store/groups';
import { setupData } from './data';
import { setupList } from './list';
import { localizePage } from '@/lib/i18n';
import { $, errorText, l, organiseNow, organiseText, pagesChanged, settings, store } from './shared';
import { setupSettings } from './settings';
import { setupSites } from './sites';

// After an update from a Doppel whose database was keyed by URL, opening the store first moves
// every page to its new key (lib/store/move.ts): say so while it lasts (the sections' own loading
// lines take over once the store is open).
localizePage(document, l);

const stopMoveProgress = onMoveProgress(({ moved, total }) => {
  const text = l.count('updatingStorageProgress', total, l.percent(total > 0 ? Math.min(100, Math.floor((100 * moved) / total)) : 0));
  $('overview').textContent = text;
  $('list-status').textContent = text;
});
void store().then(stopMoveProgress, stopMoveProgress);

setupList();
setupSites();
setupSettings();
setupData();

void (async () => {
  const { k } = await settings();
  if (!(await needsRegroup(await store(), k))) return;
  const status = $('overview');
  status.textContent = l.t('groupingHistory');
  await organiseNow(k, (progress) => (status.textContent = organiseText(progress)));
  pagesChanged();
})().catch((error: unknown) => ($('overview').textContent = l.t('groupingFailed', errorText(error))));
