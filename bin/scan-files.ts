// The page and text files `scan` reads under a folder, as a list (bin/sources/inputs.ts listFolder
// walks it; containers are left out here): for tests that list a folder as scan does.
import type { Listed } from './scan-read';
import { listFolder } from './sources/inputs';

export interface Listing {
  files: Listed[];
  problems: { path: string; reason: string }[];
}

/** Every .html/.htm/.txt file under root, sorted by relative path; symlinked folders are followed once. */
export async function listFiles(root: string): Promise<Listing> {
  const { files, problems } = await listFolder(root);
  const pages = files.flatMap((f) => (f.format === 'html' || f.format === 'text' ? [{ path: f.name, absolute: f.absolute, kind: f.format }] : []));
  return { files: pages, problems };
}
