// Readability over the .html files of a folder (linkedom, one thread), run by `npm run bench:peers`
// as a process of its own: what a pipeline of Readability then Dolos spends before Dolos starts.
// Prints {files, articles, chars} as JSON.
//   tsx bench/peers/peers-readability.ts DIR
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readabilityText } from './peers-data';

async function main(dir: string): Promise<void> {
  const paths: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.html')) paths.push(join(entry.parentPath, entry.name));
  }
  let articles = 0;
  let chars = 0;
  for (const path of paths.sort()) {
    const text = readabilityText(await readFile(path, 'utf8'));
    if (text.length > 0) articles++;
    chars += text.length;
  }
  process.stdout.write(JSON.stringify({ files: paths.length, articles, chars }) + '\n');
}

const dir = process.argv[2];
if (dir === undefined) {
  process.stderr.write('usage: tsx bench/peers/peers-readability.ts DIR\n');
  process.exitCode = 2;
} else await main(dir);
