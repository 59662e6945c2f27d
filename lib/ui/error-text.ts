// How a page words an error: the failures it knows in the reader's language, any other with its
// own words as the detail, which the page places inside a localised message ("Could not change it: $1").
import { WorkerFailed } from '../protocol/send';
import type { Localizer } from './i18n';
import { WriterStopped } from './writer-client';

export function errorText(l: Localizer, error: unknown): string {
  if (error instanceof WriterStopped) return l.t('workerStopped');
  if (error instanceof WorkerFailed && error.failure === 'storage-unavailable') return l.t('storageUnavailable');
  return error instanceof Error ? error.message : String(error);
}
