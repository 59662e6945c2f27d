// `scan`'s progress line (lib/scan/progress.ts says what it shows): drawn on stderr when stderr is a
// terminal, redrawn in place by a timer at most ten times a second, and cleared before anything else
// is written there and at the end. Bytes consumed are polled when a line is drawn, never counted per
// chunk: a file read whole counts its size once it is handed on, and a container's ReadStream, which
// its reader hands over once (bin/sources/), says its bytesRead.
import { statSync } from 'node:fs';
import { ProgressMeter, REDRAW_MS } from '../lib/scan/progress';
import type { Listed } from './scan-read';
import type { InputFile } from './sources/inputs';

/** A stream that counts the bytes it has read: a container's fs.ReadStream. */
export interface ByteCounter {
  readonly bytesRead: number;
}

export class ScanProgress {
  private readonly meter: ProgressMeter | null;
  private readonly sizes = new Map<string, number>();
  private readonly counters: ByteCounter[] = [];
  private wholeFileBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private drawn = false;

  /** Shows the line on `stream` when `show` (a terminal, and not --quiet); notes are written either way. */
  constructor(
    private readonly stream: NodeJS.WriteStream,
    files: readonly InputFile[],
    show: boolean,
    now: () => number = () => performance.now(),
  ) {
    this.meter = show ? new ProgressMeter(now, this.sizeAll(files)) : null;
    if (this.meter === null) return;
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
  }

  /** A reader's stream of a container, whose bytesRead counts as consumed from now on. */
  readonly onStream = (counter: ByteCounter): void => {
    if (this.meter !== null) this.counters.push(counter);
  };

  /** The document or file at `index` (from 0) is handed on: a file read whole counts its size. */
  handed(index: number, file: Listed): void {
    if (this.meter === null) return;
    this.meter.documents = index + 1;
    if (file.content === undefined) this.wholeFileBytes += this.sizes.get(file.absolute) ?? 0;
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
    let bytes = this.wholeFileBytes;
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

  /** The input's size in bytes, each file's kept for when it is read; null when a file cannot be sized. */
  private sizeAll(files: readonly InputFile[]): number | null {
    let total = 0;
    for (const file of files) {
      try {
        const { size } = statSync(file.absolute);
        this.sizes.set(file.absolute, size);
        total += size;
      } catch {
        return null;
      }
    }
    return total;
  }
}
