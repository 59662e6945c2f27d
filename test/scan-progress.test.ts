// scan's progress line: its figures from an injected clock (lib/scan/progress.ts), exact to the
// character, and the CLI drawing it on a real pseudo-terminal (util-linux's `script`), silenced by
// --quiet, and absent on a pipe.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProgressMeter, REDRAW_MS, count, duration, etaSeconds, rate } from '../lib/scan/progress';
import { mulberry32, pick } from '../lib/random';
import { ROOT, runScan } from './support/run-scan';

describe('the figures', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1000, '1,000'],
    [1234567, '1,234,567'],
    [12.6, '13'],
  ])('count(%d) = %s', (n, want) => expect(count(n)).toBe(want));

  it.each([
    [0, '0.00'],
    [0.254, '0.25'],
    [0.999, '1.00'],
    [1, '1.0'],
    [7.54, '7.5'],
    [42, '42.0'],
    [99.94, '99.9'],
    [100, '100'],
    [1234.5, '1,235'],
  ])('rate(%d) = %s', (n, want) => expect(rate(n)).toBe(want));

  it.each([
    [0, '0:00'],
    [0.9, '0:00'],
    [59, '0:59'],
    [61, '1:01'],
    [3599, '59:59'],
    [3600, '1:00:00'],
    [3661.5, '1:01:01'],
    [100 * 3600, '100:00:00'],
  ])('duration(%d) = %s', (seconds, want) => expect(duration(seconds)).toBe(want));

  it.each([
    ['nothing read yet', 0, 1000, 5000, null],
    ['under a second', 100, 1000, 999, null],
    ['a tenth read in 2 s: 18 s left', 100, 1000, 2000, 18],
    ['half read in 10 s: 10 s left', 500, 1000, 10_000, 10],
    ['all read', 1000, 1000, 4000, 0],
    ['more read than listed (a file grew): none left', 1200, 1000, 4000, 0],
  ])('etaSeconds: %s', (_, bytes, total, elapsed, want) => expect(etaSeconds(bytes, total, elapsed)).toBe(want));
});

describe('ProgressMeter', () => {
  /** A clock the test moves by hand, in milliseconds. */
  const clock = (): { now: () => number; at: (ms: number) => void } => {
    let t = 0;
    return { now: () => t, at: (ms) => (t = ms) };
  };

  it.each([
    // [at ms, documents, bytes, the line]
    [0, 0, 0, 'scan: reading · 0 documents · 0% · ETA …'],
    [500, 40, 2_000_000, 'scan: reading · 40 documents · 80.0 docs/s · 4.0 MB/s · 2% · ETA …'],
    [2000, 1, 5_000_000, 'scan: reading · 1 document · 0.50 docs/s · 2.5 MB/s · 5% · ETA 0:38'],
    [10_000, 12_345, 25_000_000, 'scan: reading · 12,345 documents · 1,235 docs/s · 2.5 MB/s · 25% · ETA 0:30'],
    [3_600_000, 2_000_000, 99_999_999, 'scan: reading · 2,000,000 documents · 556 docs/s · 0.03 MB/s · 99% · ETA 0:01'],
    [60_000, 100, 100_000_000, 'scan: reading · 100 documents · 1.7 docs/s · 1.7 MB/s · 100% · ETA 0:00'],
  ])('reading at %d ms, %d documents, %d bytes of 100 MB: %s', (at, documents, bytes, want) => {
    const time = clock();
    const meter = new ProgressMeter(time.now, 100_000_000);
    time.at(at);
    Object.assign(meter, { documents, bytes });
    expect(meter.line(200)).toBe(want);
  });

  it('with no size known yet: documents/s alone, then all once it is; a later stage: its own time, no rates', () => {
    const time = clock();
    const meter = new ProgressMeter(time.now, null);
    Object.assign(meter, { documents: 300, bytes: 3_000_000 });
    time.at(3000);
    expect(meter.line(200)).toBe('scan: reading · 300 documents · 100 docs/s');
    meter.totalBytes = 6_000_000;
    expect(meter.line(200)).toBe('scan: reading · 300 documents · 100 docs/s · 1.0 MB/s · 50% · ETA 0:03');
    meter.begin('simhash pairs');
    time.at(3000 + 83_500);
    expect(meter.line(200)).toBe('scan: simhash pairs · 300 documents · 1:23');
    expect(new ProgressMeter(time.now, 0).line(200)).toBe('scan: reading · 0 documents');
  });

  it('cuts the line to one column less than the terminal (a wrapped line cannot be redrawn in place)', () => {
    const meter = new ProgressMeter(() => 0, 1000);
    expect(meter.line(21)).toBe('scan: reading · 0 do');
    expect(meter.line(1)).toBe('');
  });

  it(`gives a frame at most every ${REDRAW_MS} ms`, () => {
    const time = clock();
    const meter = new ProgressMeter(time.now, 1000);
    const frames = [0, 40, 99, 100, 150, 199.9, 200, 450].map((ms) => {
      time.at(ms);
      return meter.frame(80) !== null;
    });
    expect(frames).toEqual([true, false, false, true, false, false, true, true]);
  });
});

/** Whether util-linux's `script` can give a child a pseudo-terminal here. */
function scriptWorks(): boolean {
  try {
    return execFileSync('script', ['-qec', 'test -t 2 && echo tty', '/dev/null'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).includes('tty');
  } catch {
    return false;
  }
}

const temporary = mkdtempSync(join(tmpdir(), 'doppel-progress-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

/** A JSONL file of 3,000 seeded texts of 120 words: a few seconds of reading, so that the line is drawn many times. */
function writeJsonl(): string {
  const random = mulberry32(7);
  const words = Array.from({ length: 400 }, (_, i) => `word${i.toString(36)}`);
  const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ id: `doc-${i}`, text: Array.from({ length: 120 }, () => pick(random, words)).join(' ') }));
  const file = join(temporary, 'set.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The CLI's output on a pseudo-terminal: stdout and stderr as the terminal shows them, bytes as written. */
function onTerminal(args: string[]): Promise<string> {
  const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const command = [process.execPath, tsx, join(ROOT, 'bin', 'scan.ts'), ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((done, fail) => {
    execFile('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => (error ? fail(error) : done(stdout)));
  });
}

const LINE = /\rscan: reading · [\d,]+ documents? · [\d.,]+ docs\/s · [\d.,]+ MB\/s · \d+% · ETA (…|\d+:\d\d)\x1b\[K/;

describe('the progress line of scan', () => {
  const jsonl = writeJsonl();
  const terminal = scriptWorks();
  if (!terminal) it.skip("on a terminal: util-linux's `script` cannot make a pseudo-terminal here, so the terminal cases are skipped", () => {});

  it.runIf(terminal)('is drawn on a terminal, redrawn in place, and cleared before the report', async () => {
    const shown = await onTerminal([jsonl, '--jobs', '1']);
    const draws = shown.match(new RegExp(LINE.source, 'g')) ?? [];
    expect(draws.length).toBeGreaterThanOrEqual(3);
    // the documents grow from draw to draw, the last of them cleared before the summary line
    const documents = draws.map((d) => Number(/ ([\d,]+) documents?/.exec(d)![1]!.replace(/,/g, '')));
    expect(documents).toEqual([...documents].sort((a, b) => a - b));
    const summary = shown.indexOf('3000 documents, 3000 fingerprinted');
    expect(summary).toBeGreaterThan(0);
    const lastClear = shown.lastIndexOf('\r\x1b[K', summary);
    expect(lastClear).toBeGreaterThan(shown.lastIndexOf('\rscan: '));
  }, 120_000);

  it.runIf(terminal)('is silenced by --quiet, which keeps the notes on bad input', async () => {
    const bad = join(temporary, 'bad.jsonl');
    writeFileSync(bad, '{"id": "a", "text": "one line of text"}\nnot json\n');
    const shown = await onTerminal([jsonl, bad, '--jobs', '1', '--quiet']);
    expect(shown).not.toContain('scan: reading');
    expect(shown).not.toContain('\x1b[K');
    expect(shown).toContain('bad.jsonl line 2: not JSON');
  }, 120_000);

  it('is not written on a pipe', async () => {
    const run = await runScan([jsonl, '--jobs', '1']);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('scan: reading');
    expect(run.stderr).not.toContain('\r');
  }, 120_000);
});
