// The history page (history.html, opened from the popup): the reading history deduplicated, the
// sites that copy, the settings, and the user's data (export and import). Each section lives in
// its own module; this one starts them, and first has the worker bring the store up to date if an
// import or a change of k left the groups incomplete (the worker may be doing it already: the job
// waits its turn).
import { needsRegroup } from '@/lib/organise/regroup';
import { setupData } from './data';
import { setupList } from './list';
import { localizePage } from '@/lib/ui/i18n';
import { $, errorText, l, organiseNow, organiseText, pagesChanged, settings, store } from './shared';
import { setupSettings } from './settings';
import { setupSites } from './sites';

localizePage(document, l);

setupList();
setupSites();
setupSettings();
setupData();

void (async () => {
  const { k } = await settings();
  if (!(await needsRegroup(await store(), k))) return;
  const status = $('overview');
  status.textContent = l.t('groupingHistory');
  await organiseNow((progress) => (status.textContent = organiseText(progress)));
  pagesChanged();
})().catch((error: unknown) => ($('overview').textContent = l.t('groupingFailed', errorText(error))));
