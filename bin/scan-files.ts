// The files `scan` reads under a folder: every .html, .htm and .txt file, sorted by relative path.
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { type Listed, kindOf, reasonOf } from './scan-read';

export interface Listing {
  files: Listed[];
  problems: { path: string; reason: string }[];
}

/** Every .html/.htm/.txt file under root, sorted by relative path; symlinked folders are followed once. */
export async function listFiles(root: string): Promise<Listing> {
  const files: Listed[] = [];
  const problems: Listing['problems'] = [];
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
          if (kindOf(entry.name)) problems.push({ path: toRelative(absolute), reason });
          continue;
        }
      }
      if (isDir) await walk(absolute);
      else if (isFile) {
        const kind = kindOf(entry.name);
        if (kind) files.push({ path: toRelative(absolute), absolute, kind });
      }
    }
  };
  await walk(root);
  const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  files.sort(byPath);
  problems.sort(byPath);
  return { files, problems };
}
