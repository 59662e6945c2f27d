// The history page's "Your data" section: exporting the recorded pages to an NDJSON file and
// importing such a file (lib/store/transfer.ts).
//
// The export reads Doppel's IndexedDB database from this page (extension pages share the
// extension's IndexedDB, and a whole history need not cross a message). The import is written by
// the worker, the only context that writes the database: the file is read here and its lines go
// to the worker over a writer port in batches, the next batch when the worker has saved enough
// (lib/ui/writer-client.ts), so neither side holds a large file at once.
import { type Refusal, splitLines } from '@/lib/protocol/ndjson';
import { type ImportSummary, exportPages } from '@/lib/store/transfer';
import { problemsText } from '@/lib/ui/import-problems';
import { WriterFailed, WriterStopped, importThrough } from '@/lib/ui/writer-client';
import { $, errorText, l, localDate, organiseText, pagesChanged, store, writerPort } from './shared';

/** How many rejected lines are listed; the rest are counted ("and N more"). */
const MAX_REJECTIONS_SHOWN = 100;

const view = {
  exportButton: $<HTMLButtonElement>('export'),
  exportStatus: $('export-status'),
  form: $<HTMLFormElement>('import-form'),
  file: $<HTMLInputElement>('import-file'),
  importButton: $<HTMLButtonElement>('import'),
  progress: $<HTMLProgressElement>('import-progress'),
  summary: $('import-summary'),
  error: $('import-error'),
  rejections: $('import-rejections'),
  rejectionsHeading: $('rejections-heading'),
  rejected: $<HTMLUListElement>('rejected-lines'),
};


// ---------------------------------------------------------------------------------------------
// Export

async function exportHistory(): Promise<void> {
  view.exportButton.disabled = true;
  view.exportStatus.classList.remove('error');
  view.exportStatus.textContent = l.t('exporting');
  try {
    const now = Date.now();
    const parts: string[] = [];
    let lines = 0;
    for await (const line of exportPages(await store(), { now })) {
      parts.push(line, '\n');
      lines++;
    }
    const pages = lines - 1; // the first line is the header
    const blob = new Blob(parts, { type: 'application/x-ndjson' });
    const href = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = href;
    link.download = `doppel-history-${localDate(now)}.ndjson`;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(href), 60_000); // the download has started by then
    view.exportStatus.textContent = l.count('exportedPages', pages);
    view.exportButton.dataset['state'] = 'done';
  } catch (error) {
    view.exportStatus.classList.add('error');
    view.exportStatus.textContent = l.t('exportFailed', errorText(error));
  } finally {
    view.exportButton.disabled = false;
  }
}

// ---------------------------------------------------------------------------------------------
// Import

/** The chunks of a byte stream decoded as UTF-8, counting the bytes read into `read.bytes`. */
async function* decodedChunks(file: Blob, read: { bytes: number }): AsyncGenerator<string, void, undefined> {
  const counter = new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
    transform(chunk, controller) {
      read.bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const reader = file.stream().pipeThrough(counter).pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

function summaryText(summary: Readonly<ImportSummary>): string {
  return l.t('importSummary', l.count('pagesAdded', summary.added), l.count('pagesMerged', summary.merged), l.count('pagesUnchanged', summary.unchanged), l.count('linesRejected', summary.rejected.length));
}

function showRejections(summary: Readonly<ImportSummary>): void {
  const { rejected } = summary;
  view.rejected.replaceChildren();
  view.rejections.hidden = rejected.length === 0;
  if (rejected.length === 0) return;
  view.rejectionsHeading.textContent = l.count('linesNotImported', rejected.length);
  for (const { line, problems } of rejected.slice(0, MAX_REJECTIONS_SHOWN)) {
    const item = document.createElement('li');
    item.textContent = l.t('rejectedLine', line, problemsText(l, problems)); // text, never markup
    view.rejected.append(item);
  }
  if (rejected.length > MAX_REJECTIONS_SHOWN) {
    const more = document.createElement('li');
    more.textContent = l.count('andMore', rejected.length - MAX_REJECTIONS_SHOWN);
    view.rejected.append(more);
  }
}

function clearImportStatus(): void {
  view.summary.textContent = '';
  view.error.textContent = '';
  view.rejections.hidden = true;
  view.rejected.replaceChildren();
}

async function importFile(file: File): Promise<void> {
  view.importButton.disabled = true;
  view.file.disabled = true;
  view.form.dataset['state'] = 'importing';
  clearImportStatus();
  view.summary.textContent = l.t('importingFile', file.name);
  view.progress.max = Math.max(file.size, 1);
  view.progress.value = 0;
  view.progress.hidden = false;
  const read = { bytes: 0 };
  try {
    // the worker saves the lines and then brings the store up to date (imported pages arrive in no
    // group, and a large import can outgrow the table design), also when this tab is closed first
    const summary = await importThrough(writerPort(), splitLines(decodedChunks(file, read)), Date.now(), {
      onSaved: (saved) => {
        view.summary.textContent = l.t('importingFile', file.name); // no longer waiting, if it was
        view.progress.value = Math.min(read.bytes, view.progress.max);
        view.progress.setAttribute('aria-valuetext', l.count('linesRead', saved.through));
      },
      onAllSaved: (saved) => {
        view.summary.textContent = summaryText(saved);
        showRejections(saved);
        view.form.dataset['state'] = 'organising';
        view.progress.removeAttribute('value'); // indeterminate until the first report
      },
      onWaiting: () => (view.summary.textContent = l.t('waitingForWorker')),
      onOrganise: (progress) => {
        view.progress.max = Math.max(progress.total, 1);
        view.progress.value = progress.done;
        view.error.textContent = '';
        view.progress.setAttribute('aria-valuetext', organiseText(progress));
      },
    });
    view.summary.textContent = summaryText(summary);
    showRejections(summary);
    view.form.dataset['state'] = 'done';
    pagesChanged();
  } catch (error) {
    view.form.dataset['state'] = 'failed';
    const saved = error instanceof WriterStopped || error instanceof WriterFailed ? error.saved : null;
    if (error instanceof WriterFailed && error.failure === 'refused') {
      view.summary.textContent = '';
      view.error.textContent = refusalText(error.refusal, error.message);
    } else if (error instanceof WriterFailed && error.failure === 'grouping' && saved !== null) {
      // every line was saved; only bringing the groups up to date failed (the worker retries at its next start)
      view.summary.textContent = summaryText(saved);
      view.error.textContent = l.t('groupingFailed', errorText(error));
      showRejections(saved);
    } else if (error instanceof WriterStopped && saved !== null) {
      view.summary.textContent = summaryText(saved);
      view.error.textContent = l.count('importWorkerStopped', saved.through);
      showRejections(saved);
    } else if (saved !== null && saved.through > 0) {
      view.summary.textContent = summaryText(saved);
      view.error.textContent = l.count('importStopped', saved.through, errorText(error)); // the worker's own words: what stopped it
      showRejections(saved);
    } else {
      view.summary.textContent = '';
      view.error.textContent = l.t('importFailed', errorText(error));
    }
  } finally {
    view.progress.hidden = true;
    view.file.disabled = false;
    view.importButton.disabled = view.file.files?.length !== 1;
  }
}

/** Why a file was refused as a whole, in the UI's language (the worker's English words if it gave no reason). */
function refusalText(refusal: Refusal | null, message: string): string {
  switch (refusal?.code) {
    case 'not-export':
      return l.t('refusedNotExport');
    case 'bad-version':
      return l.t('refusedBadVersion');
    case 'newer-version':
      return l.t('refusedNewerVersion', refusal.version, refusal.newest);
    case 'empty':
      return l.t('refusedEmpty');
    default:
      // the message says "Nothing was imported." at its end; say it first instead
      return l.t('nothingImported', message.replace(/\s*Nothing was imported\.$/, ''));
  }
}

export function setupData(): void {
  view.exportButton.addEventListener('click', () => void exportHistory());
  view.file.addEventListener('change', () => {
    view.importButton.disabled = view.file.files?.length !== 1;
    clearImportStatus();
  });
  view.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const file = view.file.files?.[0];
    if (file) void importFile(file);
  });
}
