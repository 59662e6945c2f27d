// `npm run scan -- --compare A B`: the passages two files share, side by side (lib/scan/compare-view.ts).
import { resolve } from 'node:path';
import { compareView } from '../lib/scan/compare-view';
import { kindOf, readArticleText } from './scan-read';

export const COMPARE_USAGE = 'usage: npm run scan -- --compare A B   (two .html, .htm or .txt files)';

/** The article text of a file, read as scan reads it (bin/scan-read.ts), or why there is none. */
function textOf(file: string): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  const kind = kindOf(file);
  if (!kind) return Promise.resolve({ ok: false, reason: 'not an .html, .htm or .txt file' });
  return readArticleText({ path: file, absolute: resolve(file), kind });
}

/** Runs the comparison; the exit code (2: bad arguments or unreadable files). */
export async function runCompare(argv: readonly string[]): Promise<number> {
  const at = argv.indexOf('--compare');
  const files = argv.filter((arg, i) => i !== at && arg !== '--');
  if (files.length !== 2 || files.some((f) => f.startsWith('-'))) {
    process.stderr.write(`scan: --compare needs exactly two files${files.length ? `: got ${files.map((f) => JSON.stringify(f)).join(' ')}` : ''}. ${COMPARE_USAGE}\n`);
    return 2;
  }
  const texts = await Promise.all(files.map(textOf));
  let failed = false;
  texts.forEach((t, i) => {
    if (!t.ok) {
      process.stderr.write(`scan: ${files[i]}: ${t.reason}\n`);
      failed = true;
    }
  });
  if (failed) return 2;
  const [a, b] = texts.map((t, i) => ({ name: files[i]!, text: (t as { text: string }).text }));
  const tty = process.stdout.isTTY === true && !process.env['NO_COLOR'];
  process.stdout.write(compareView(a!, b!, { columns: tty ? process.stdout.columns || 100 : 100, colour: tty }));
  return 0;
}
