// The history page (history.html, opened from the popup): the reading history deduplicated, the
// sites that copy, the settings, and the user's data (export and import). Each section lives in
// its own module; this one starts them, and first has the worker bring the store up to date if an
// import, an upgrade or a change of k left the groups incomplete (the worker may be doing it
// already: the job waits its turn).
import { onMoveProgress } from '@/lib/store/db';
import { needsRegroup } from '@/lib/store/groups';
import { setupData } from './data';
import { setupList } from './list';
import { $, errorText, organiseNow, organiseText, pagesChanged, settings, store } from './shared';
import { setupSettings } from './settings';
import { setupSites } from './sites';

// After an update from a Doppel whose database was keyed by URL, opening the store first moves
// every page to its new key (lib/store/move.ts): say so while it lasts (the sections' own loading
// lines take over once the store is open).
const stopMoveProgress = onMoveProgress(({ moved, total }) => {
  const share = total > 0 ? ` ${Math.min(100, Math.floor((100 * moved) / total))}%` : '';
  const text = `Updating how your history is stored (once, after an update of Doppel):${share} of ${total.toLocaleString('en')} pages…`;
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
  status.textContent = 'Grouping your history…';
  await organiseNow((progress) => (status.textContent = organiseText(progress)));
  pagesChanged();
})().catch((error: unknown) => ($('overview').textContent = `Could not group your history: ${errorText(error)}`));
