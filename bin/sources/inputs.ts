// What `scan` reads from the paths it is given: a folder's .html, .htm and .txt files (recursively,
// symlinked folders followed once) and its containers (WARC, WET, JSONL files, read record by record
// or line by line), and any such file named on the command line.
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { kindOf, reasonOf } from '../scan-read';
import type { ContainerFormat } from './types';

export type InputFormat = 'html' | 'text' | ContainerFormat;

/** A file to read: how the report or the notes name it, where it is, and how it is read. */
export interface InputFile {
  name: string;
  absolute: string;
  format: InputFormat;
}

export interface Problem {
  path: string;
  reason: string;
}

/** The name endings scan reads, for the help text and errors. */
export const CONTAINER_ENDINGS: Record<ContainerFormat, readonly string[]> = {
  warc: ['.warc', '.warc.gz', '.wet', '.wet.gz'],
  jsonl: ['.jsonl', '.jsonl.gz', '.ndjson', '.ndjson.gz'],
};

/** How scan reads a file by its name: as a page, as text, as a container, or not at all. */
export function formatOf(name: string): InputFormat | null {
  const kind = kindOf(name);
  if (kind !== null) return kind;
  const lower = name.toLowerCase();
  for (const [format, endings] of Object.entries(CONTAINER_ENDINGS) as [ContainerFormat, readonly string[]][]) {
    if (endings.some((ending) => lower.endsWith(ending))) return format;
  }
  return null;
}

/**
 * Every file scan reads under root, sorted by relative path, named `prefix` + that path; symlinked
 * folders are followed once. A scanned name that cannot be opened is a problem; others are passed over.
 */
export async function listFolder(root: string, prefix = ''): Promise<{ files: InputFile[]; problems: Problem[] }> {
  const files: InputFile[] = [];
  const problems: Problem[] = [];
  const seenDirs = new Set<string>();
  const toRelative = (absolute: string): string => relative(root, absolute).split(sep).join('/');

  const walk = async (dir: string): Promise<void> => {
    let real: string;
    try {
      real = await realpath(dir);
    } catch (error) {
      problems.push({ path: toRelative(dir), reason: reasonOf(error) });
      return;
    }
    if (seenDirs.has(real)) return;
    seenDirs.add(real);
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      problems.push({ path: toRelative(dir) || '.', reason: reasonOf(error) });
      return;
    }
    for (const entry of entries) {
      const absolute = join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const target = await stat(absolute);
          isDir = target.isDirectory();
          isFile = target.isFile();
        } catch (error) {
          // A broken link with a scanned name is a file we were meant to read.
          const code = (error as NodeJS.ErrnoException).code;
          const reason = code === 'ENOENT' ? 'broken symbolic link (its target does not exist)' : reasonOf(error);
          if (formatOf(entry.name)) problems.push({ path: toRelative(absolute), reason });
          continue;
        }
      }
      if (isDir) await walk(absolute);
      else if (isFile) {
        const format = formatOf(entry.name);
        if (format) files.push({ name: toRelative(absolute), absolute, format });
      }
    }
  };
  await walk(root);
  const order = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  files.sort((a, b) => order(a.name, b.name));
  problems.sort((a, b) => order(a.path, b.path));
  return {
    files: files.map((f) => ({ ...f, name: prefix + f.name })),
    problems: problems.map((p) => ({ ...p, path: prefix + p.path })),
  };
}

/** Why a path given on the command line cannot be read at all: the run stops before it starts. */
export class InputError extends Error {}

/**
 * The files of the paths given, in their order: a folder's as listFolder lists them, a file as
 * given. With one folder alone, its files are named by their paths under it (as scan always has);
 * with more than one path, by the path given and that, so that two folders' names cannot meet.
 */
export async function listInputs(paths: readonly string[]): Promise<{ files: InputFile[]; problems: Problem[] }> {
  const files: InputFile[] = [];
  const problems: Problem[] = [];
  for (const path of paths) {
    const absolute = resolve(path);
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(absolute)).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new InputError(`${code === 'ENOENT' ? 'no such file or folder' : code === 'ENOTDIR' ? 'not a directory' : `cannot open (${reasonOf(error)})`}: ${path}`);
    }
    if (isDirectory) {
      const listed = await listFolder(absolute, paths.length === 1 ? '' : `${path.replace(/\/+$/, '')}/`);
      files.push(...listed.files);
      problems.push(...listed.problems);
      continue;
    }
    const format = formatOf(path);
    if (format === null) {
      const endings = ['.html', '.htm', '.txt', ...Object.values(CONTAINER_ENDINGS).flat()];
      throw new InputError(`not a directory, nor a file scan reads (${endings.join(', ')}): ${path}`);
    }
    files.push({ name: path, absolute, format });
  }
  return { files, problems };
}
