// `scan`'s progress line on a terminal: the stage, the documents read, documents/s, MB/s of input
// read and an ETA, redrawn in place (bin/scan-progress.ts draws it). The ETA comes from the input's
// bytes: their sizes are known at listing, and the readers say how many they have consumed (a
// gzipped file's compressed bytes), so that an hour of reading left is said an hour ahead, however
// the documents' sizes vary. Rates are averages over the stage so far: steady, and exact to test.
// The clock is injected (milliseconds), so that every figure can be checked to the character.

/** Redraws at most this often, in milliseconds: ten times a second. */
export const REDRAW_MS = 100;

/** The reading stage's name: the one with rates and an ETA (the join's steps have none). */
export const READING = 'reading';

export class ProgressMeter {
  /** Documents read so far. */
  documents = 0;
  /** Input bytes consumed so far. */
  bytes = 0;
  private stage = READING;
  private stageStarted: number;
  private lastDraw = Number.NEGATIVE_INFINITY;

  /** `totalBytes`: the input's size, which may be set once known (null or 0: unknown, so no MB/s, share or ETA). */
  constructor(
    private readonly now: () => number,
    public totalBytes: number | null,
  ) {
    this.stageStarted = now();
  }

  /** A new stage begins now: its time counts from here. */
  begin(stage: string): void {
    this.stage = stage;
    this.stageStarted = this.now();
  }

  /** The line to draw now, or null when one was drawn less than REDRAW_MS ago. */
  frame(columns: number): string | null {
    const now = this.now();
    if (now - this.lastDraw < REDRAW_MS) return null;
    this.lastDraw = now;
    return this.line(columns);
  }

  /** The line as it stands, cut to fit `columns` less one (a line that wraps cannot be redrawn in place). */
  line(columns: number): string {
    const elapsed = Math.max(0, this.now() - this.stageStarted);
    const parts = [`scan: ${this.stage}`, `${count(this.documents)} ${this.documents === 1 ? 'document' : 'documents'}`];
    if (this.stage === READING) {
      const seconds = elapsed / 1000;
      // the bytes consumed are known with the input's size (bin/scan-progress.ts takes both at once)
      const total = this.totalBytes ?? 0;
      if (seconds > 0) parts.push(`${rate(this.documents / seconds)} docs/s`);
      if (seconds > 0 && total > 0) parts.push(`${rate(this.bytes / 1e6 / seconds)} MB/s`);
      if (total > 0) {
        parts.push(`${Math.min(100, Math.floor((100 * this.bytes) / total))}%`);
        const left = etaSeconds(this.bytes, total, elapsed);
        // rounded up: what is left is never said to be done before it is
        parts.push(left === null ? 'ETA …' : `ETA ${duration(Math.ceil(left))}`);
      }
    } else parts.push(duration(elapsed / 1000));
    return parts.join(' · ').slice(0, Math.max(0, columns - 1));
  }
}

/**
 * Seconds left to read the rest of `total` bytes at the rate of the `bytes` read in `elapsed`
 * milliseconds; null before a second has passed or a byte has been read (no rate to trust yet).
 */
export function etaSeconds(bytes: number, total: number, elapsed: number): number | null {
  if (bytes <= 0 || elapsed < 1000) return null;
  return (Math.max(0, total - bytes) * elapsed) / bytes / 1000;
}

/** 1234567 → "1,234,567". */
export function count(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** A rate to about three figures: two decimals under 1 ("0.25"), one under 100 ("7.5", "42.0"), else whole ("1,234"). */
export function rate(perSecond: number): string {
  if (perSecond < 1) return perSecond.toFixed(2);
  return perSecond < 100 ? perSecond.toFixed(1) : count(perSecond);
}

/** Whole seconds as m:ss, or h:mm:ss from an hour (a part of a second is dropped). */
export function duration(seconds: number): string {
  const whole = Math.floor(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
