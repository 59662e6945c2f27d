// `scan`'s progress line (lib/scan/progress.ts says what it shows): drawn on stderr when stderr is a
// terminal, redrawn in place by a timer at most ten times a second, and cleared before anything else
// is written there and at the end. Bytes consumed are polled when a line is drawn, never counted per
// chunk: the files read whole (pages, text files) are handed on in the order they were listed, so
// their bytes are a prefix sum of their sizes; a container's ReadStream, which its reader hands over
// once (bin/sources/), says its bytesRead.
import { stat } from 'node:fs/promises';
import { ProgressMeter, REDRAW_MS } from '../lib/scan/progress';
import type { Listed } from './scan-read';
import type { InputFile } from './sources/inputs';

/** A stream that counts the bytes it has read: a container's fs.ReadStream. */
export interface ByteCounter {
  readonly bytesRead: number;
}

/** Files sized at once while the sizes are taken: the thread pool's queue stays short. */
const STATS_AT_ONCE = 32;

export class ScanProgress {
  private readonly meter: ProgressMeter | null;
  private readonly counters: ByteCounter[] = [];
  /** Bytes of the first i files read whole, once every size is known. */
  private wholeFileBytes: Float64Array | null = null;
  private wholeFilesHanded = 0;
  private timer: NodeJS.Timeout | undefined;
  private drawn = false;

  /**
   * Shows the line on `stream` when `show` (a terminal, and not --quiet); notes are written either
   * way. The files' sizes are taken in the background as reading starts (a second or two at 100,000
   * files): until then the line has no share of the input and no ETA.
   */
  constructor(
    private readonly stream: NodeJS.WriteStream,
    files: readonly InputFile[],
    show: boolean,
    now: () => number = () => performance.now(),
  ) {
    this.meter = show ? new ProgressMeter(now, null) : null;
    if (this.meter === null) return;
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
    void this.size(files, this.meter);
  }

  /** A reader's stream of a container, whose bytesRead counts as consumed from now on. */
  readonly onStream = (counter: ByteCounter): void => {
    if (this.meter !== null) this.counters.push(counter);
  };

  /** The document or file at `index` (from 0) is handed on. */
  handed(index: number, file: Listed): void {
    if (this.meter === null) return;
    this.meter.documents = index + 1;
    if (file.content === undefined) this.wholeFilesHanded++;
  }

  /** A stage begins (a step of the join, the output): drawn at once unless a line was drawn just now. */
  readonly begin = (stage: string): void => {
    this.meter?.begin(stage);
    this.draw();
  };

  /** Writes a line on the stream (a note on bad input) above the progress line, which is redrawn next time. */
  note(line: string): void {
    this.clear();
    this.stream.write(`${line}\n`);
  }

  /** Clears the line for good. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  private draw(): void {
    if (this.meter === null || this.timer === undefined) return;
    let bytes = this.wholeFileBytes?.[this.wholeFilesHanded] ?? 0;
    for (const counter of this.counters) bytes += counter.bytesRead;
    this.meter.bytes = bytes;
    const line = this.meter.frame(this.stream.columns || 80);
    if (line === null) return;
    this.stream.write(`\r${line}\x1b[K`);
    this.drawn = true;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.stream.write('\r\x1b[K');
    this.drawn = false;
  }

  /** Takes every file's size; gives the meter the total, and the prefix sums of the files read whole. No total when a file cannot be sized. */
  private async size(files: readonly InputFile[], meter: ProgressMeter): Promise<void> {
    const sizes = new Float64Array(files.length);
    try {
      for (let from = 0; from < files.length; from += STATS_AT_ONCE) {
        const batch = files.slice(from, from + STATS_AT_ONCE);
        (await Promise.all(batch.map((f) => stat(f.absolute)))).forEach((s, i) => (sizes[from + i] = s.size));
      }
    } catch {
      return;
    }
    const whole = [0];
    files.forEach((file, i) => {
      if (file.format === 'html' || file.format === 'text') whole.push(whole[whole.length - 1]! + sizes[i]!);
    });
    this.wholeFileBytes = Float64Array.from(whole);
    meter.totalBytes = sizes.reduce((sum, size) => sum + size, 0);
  }
}
