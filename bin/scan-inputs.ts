// `scan`'s inputs as bin/scan-jobs.ts reads them: the files of the paths given, and the documents of
// their containers (bin/scan-sources.ts) with the notes on what could not be read, written as they
// come, and a line for each container once it is read.
import type { Listed, Place } from './scan-read';
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

/** Where a resumed run starts: after the item at `after` (bin/scan-db/state.ts), the names already given taken. */
export interface ResumeFrom {
  after: Place;
  names: Iterable<string>;
}

/**
 * What readFiles reads: the list of files when no path holds a container (read as scan always
 * has), else a stream of files and documents in the paths' order, a
 * repeated name made unique with where it came from. `count`: how many were read (once done).
 * Each carries its place; with `resume`, what comes before it is passed over: the files before its
 * file unopened, its container read from the record or line it names (or read past up to it).
 * `onStream` hears each container's read stream (the progress line counts its bytes).
 */
export function listedOf(files: readonly InputFile[], write: (line: string) => void, resume?: ResumeFrom, { onStream }: Pick<SourceOptions, 'onStream'> = {}): { files: readonly Listed[] | AsyncIterable<Listed>; count: () => number } {
  const isPage = (f: InputFile): boolean => f.format === 'html' || f.format === 'text';
  const after = resume?.after;
  const firstFile = after === undefined ? 0 : isPage(files[after.file]!) ? after.file + 1 : after.file;
  if (files.every(isPage)) {
    const listed = files.map((f, n): Listed => ({ path: f.name, absolute: f.absolute, kind: f.format as Listed['kind'], place: { file: n, index: 0, offset: 0 } })).slice(firstFile);
    return { files: listed, count: () => listed.length };
  }
  let count = 0;
  async function* stream(): AsyncGenerator<Listed> {
    const names = new Set<string>(resume?.names);
    let notes = 0;
    for (let n = firstFile; n < files.length; n++) {
      // in the container a resumed run stopped in: from the last document read (or, with no offset to seek to, past it)
      const within = after !== undefined && n === after.file ? after : null;
      const startAt = within === null ? undefined : within.offset === null ? { index: within.index + 1 } : { index: within.index, offset: within.offset };
      for await (const item of readSources([files[n]!], { startAt: () => startAt, onStream })) {
        if (item.type === 'file') {
          names.add(item.file.name);
          count++;
          yield { path: item.file.name, absolute: item.file.absolute, kind: item.file.kind, place: { file: n, index: 0, offset: 0 } };
        } else if (item.type === 'document') {
          const { document } = item;
          if (within !== null && document.position.index <= within.index) continue;
          const name = names.has(document.name) ? `${document.name} (${document.where})` : document.name;
          names.add(name);
          count++;
          const { index, offset } = document.position;
          yield { path: name, absolute: document.position.file, kind: document.kind, content: document.content, ...(document.url === undefined ? {} : { url: document.url }), place: { file: n, index, offset } };
        } else if (item.type === 'note') {
          if (++notes <= NOTES_PER_CONTAINER) write(`${item.note.where}: ${item.note.message}`);
        } else {
          write(summaryLine(item.summary, Math.max(0, notes - NOTES_PER_CONTAINER)));
          notes = 0;
        }
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
