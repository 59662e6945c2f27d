// Whether the built extension a browser benchmark loads is older than the code: the benchmarks
// say so beside their figures rather than measure a stale build silently.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time under dir (files only), in ms; 0 if dir is missing. */
function newestMtime(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True if a file under root's lib/ or entrypoints/ changed after `builtAt` (ms). */
export function sourcesNewerThan(root: string, builtAt: number): boolean {
  return Math.max(newestMtime(join(root, 'lib')), newestMtime(join(root, 'entrypoints'))) > builtAt;
}
