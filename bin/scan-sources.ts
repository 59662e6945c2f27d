// The documents `scan` reads, streamed from the paths it is given, mixed in one run: folders (their
// .html, .htm and .txt files, and their containers), WARC and WET files (.warc, .warc.gz, .wet,
// .wet.gz: bin/sources/warc.ts) and JSONL files (.jsonl, .ndjson, gzipped or not:
// bin/sources/jsonl.ts). A container is read a record or a line at a time, never whole; every
// document says where it is (Position), so that a run can start again after what it has read.
import { readFileSync } from 'node:fs';
import { decode, reasonOf } from './scan-read';
import type { InputFile } from './sources/inputs';
import { readJsonl } from './sources/jsonl';
import type { ContainerOptions, SourceFile, SourceItem, StartAt } from './sources/types';
import { readWarc } from './sources/warc';

export { CONTAINER_ENDINGS, InputError, type InputFile, formatOf, listFolder, listInputs } from './sources/inputs';
export { MAX_DOCUMENT_BYTES } from './sources/types';
export type { ContainerSummary, Position, SourceDocument, SourceFile, SourceItem, SourceNote, StartAt } from './sources/types';

export interface SourceOptions {
  /** Where to start in a container, by its absolute path (a resumed run); from its start when undefined. */
  startAt?: (absolute: string) => StartAt | undefined;
  /** Documents over this many bytes are skipped with a note (default MAX_DOCUMENT_BYTES). */
  maxDocumentBytes?: number;
  /** Given each container's read stream as its reading starts (ContainerOptions.onStream). */
  onStream?: ContainerOptions['onStream'];
}

/**
 * The files' documents, in order: a page or text file as a `file` item (read by whoever
 * fingerprints it: readFileDocument), a container's documents as `document` items, each with
 * the notes on what could not be read where it happened, and its summary once it is read.
 */
export async function* readSources(files: readonly InputFile[], { startAt, maxDocumentBytes, onStream }: SourceOptions = {}): AsyncGenerator<SourceItem> {
  for (const file of files) {
    if (file.format === 'html' || file.format === 'text') {
      yield { type: 'file', file: { name: file.name, absolute: file.absolute, kind: file.format } };
      continue;
    }
    const container = { absolute: file.absolute, where: file.name };
    const options = { startAt: startAt?.(file.absolute), maxDocumentBytes, onStream };
    yield* file.format === 'warc' ? readWarc(container, options) : readJsonl(container, options);
  }
}

/** A page or text file's content as a document (decoded as scan-read's decode does), or a note on why it cannot be read. */
export function readFileDocument(file: SourceFile): SourceItem {
  const position = { file: file.absolute, index: 0, offset: 0 };
  try {
    const content = decode(readFileSync(file.absolute), file.kind);
    return { type: 'document', document: { name: file.name, kind: file.kind, content, position, where: file.name } };
  } catch (error) {
    return { type: 'note', note: { where: file.name, message: reasonOf(error), position } };
  }
}

/** readSources with every file read in place: documents, notes and summaries only. */
export async function* readDocuments(files: readonly InputFile[], options: SourceOptions = {}): AsyncGenerator<Exclude<SourceItem, { type: 'file' }>> {
  for await (const item of readSources(files, options)) {
    if (item.type === 'file') {
      const read = readFileDocument(item.file);
      if (read.type !== 'file') yield read;
    } else yield item;
  }
}
