// The history page (history.html, opened from the popup): the reading history deduplicated, the
// sites that copy, the settings, and the user's data (export and import). Each section lives in
// its own module; this one starts them, and first brings the store up to date if an import, an
// upgrade or a change of k left the groups incomplete (the worker may be doing it already: the
// Web Lock makes this wait for it).
import { needsRegroup } from '@/lib/store/regroup';
import { setupData } from './data';
import { setupList } from './list';
import { $, errorText, organiseNow, organiseText, pagesChanged, settings, store } from './shared';
import { setupSettings } from './settings';
import { setupSites } from './sites';

setupList();
setupSites();
setupSettings();
setupData();

void (async () => {
  const { k } = await settings();
  if (!(await needsRegroup(await store(), k))) return;
  const status = $('overview');
  status.textContent = 'Grouping your history…';
  await organiseNow(k, (progress) => (status.textContent = organiseText(progress)));
  pagesChanged();
})().catch((error: unknown) => ($('overview').textContent = `Could not group your history: ${errorText(error)}`));
