// `scan`'s inputs as bin/scan-jobs.ts reads them: the files of the paths given, and the documents of
// their containers (bin/scan-sources.ts) with the notes on what could not be read, written as they
// come, and a line for each container once it is read.
import type { Listed } from './scan-read';
import { CONTAINER_ENDINGS, type ContainerSummary, type InputFile, MAX_DOCUMENT_BYTES, type SourceOptions, readSources } from './scan-sources';

/** Notes printed for one container; the rest are counted on its summary line. */
export const NOTES_PER_CONTAINER = 20;

export const INPUTS_HELP = `  PATH            folders and files to scan, as many as wanted (default: the repo's samples/ folder)
                  a folder: its .html, .htm and .txt files, recursively, and the containers in it
                  a WARC or WET file (${CONTAINER_ENDINGS.warc.join(', ')}): each 2xx response whose
                      HTTP Content-Type is HTML, named by its WARC-Target-URI, and each conversion
                      record (WET), as plain text; other records (requests, metadata, revisits,
                      images, scripts, redirects, errors…) are counted on stderr
                  a JSONL file (${CONTAINER_ENDINGS.jsonl.join(', ')}): one JSON object
                      a line, {"id" or "url", "text" or "html"} ("text" when both), named by its
                      id, else its url, else FILE:LINE
                  Records and lines over ${MAX_DOCUMENT_BYTES / (1024 * 1024)} MiB, or that cannot be read, are skipped with a
                  note on stderr naming the file and the record or line. With more than one PATH,
                  a folder's files are named with the folder's path.`;

/**
 * What readFiles reads: the list of files when no path holds a container (read as scan always
 * has), else a stream of files and documents in the paths' order, a repeated name made unique
 * with where it came from. `count`: how many were read (once done).
 */
export function listedOf(files: readonly InputFile[], write: (line: string) => void, options: SourceOptions = {}): { files: readonly Listed[] | AsyncIterable<Listed>; count: () => number } {
  if (files.every((f) => f.format === 'html' || f.format === 'text')) {
    const listed = files.map((f): Listed => ({ path: f.name, absolute: f.absolute, kind: f.format as Listed['kind'] }));
    return { files: listed, count: () => listed.length };
  }
  let count = 0;
  async function* stream(): AsyncGenerator<Listed> {
    const names = new Set<string>();
    let notes = 0;
    for await (const item of readSources(files, options)) {
      if (item.type === 'file') {
        names.add(item.file.name);
        count++;
        yield { path: item.file.name, absolute: item.file.absolute, kind: item.file.kind };
      } else if (item.type === 'document') {
        const { document } = item;
        const name = names.has(document.name) ? `${document.name} (${document.where})` : document.name;
        names.add(name);
        count++;
        yield { path: name, absolute: document.position.file, kind: document.kind, content: document.content, ...(document.url === undefined ? {} : { url: document.url }) };
      } else if (item.type === 'note') {
        if (++notes <= NOTES_PER_CONTAINER) write(`${item.note.where}: ${item.note.message}`);
      } else {
        write(summaryLine(item.summary, Math.max(0, notes - NOTES_PER_CONTAINER)));
        notes = 0;
      }
    }
  }
  return { files: stream(), count: () => count };
}

/** `crawl.warc.gz: 3 documents of 10 records; 7 skipped: 3 request, …; 1 note`. */
export function summaryLine(summary: ContainerSummary, notesNotShown = 0): string {
  const unit = summary.format === 'warc' ? 'record' : 'line';
  const parts = [`${summary.documents} ${summary.documents === 1 ? 'document' : 'documents'} of ${summary.entries} ${summary.entries === 1 ? unit : `${unit}s`}`];
  const skipped = Object.entries(summary.skipped).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  const total = skipped.reduce((sum, [, n]) => sum + n, 0);
  if (total > 0) parts.push(`${total} skipped: ${skipped.map(([what, n]) => `${n} ${what}`).join(', ')}`);
  if (summary.notes > 0) parts.push(`${summary.notes} ${summary.notes === 1 ? 'note' : 'notes'}${notesNotShown > 0 ? ` (${notesNotShown} not shown)` : ''}`);
  if (!summary.complete) parts.push('not read to its end');
  return `${summary.where}: ${parts.join('; ')}`;
}
