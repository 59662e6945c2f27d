// The size of `scan`'s listed input, for the choice of its path (lib/scan/scan-path.ts): each file's
// size from the file system, counted by its format, until the on-disk path's threshold is reached
// (past it the answer is known, so a folder of millions of files is not stat'ed to its end).
import { statSync } from 'node:fs';
import { type InputEstimate, type OnDiskFrom, ON_DISK_FROM, type SizedFile, textBytesOf } from '../lib/scan/scan-path';
import type { InputFile } from './scan-sources';

/** How the estimate counts a listed file: WET files (text records) apart from WARC (HTML responses). */
export function sizedFormat(file: InputFile): Pick<SizedFile, 'format' | 'gzipped'> {
  const name = file.name.toLowerCase();
  const gzipped = name.endsWith('.gz');
  if (file.format === 'warc' && /\.wet(\.gz)?$/.test(name)) return { format: 'wet', gzipped };
  return { format: file.format, gzipped };
}

/** The input's files and expected text bytes, counted until either reaches `stopAt`; a file that cannot be stat'ed counts 0 bytes (its read will say why). */
export function estimateInput(files: readonly InputFile[], stopAt: OnDiskFrom = ON_DISK_FROM, sizeOf = (path: string): number => statSync(path).size): InputEstimate {
  let pages = 0;
  let textBytes = 0;
  for (const file of files) {
    if (textBytes >= stopAt.textBytes || pages >= stopAt.files) return { files: pages, textBytes, complete: false };
    let bytes = 0;
    try {
      bytes = sizeOf(file.absolute);
    } catch {
      // unreadable: the read reports it
    }
    if (file.format === 'html' || file.format === 'text') pages++;
    textBytes += textBytesOf({ ...sizedFormat(file), bytes });
  }
  return { files: pages, textBytes, complete: true };
}
