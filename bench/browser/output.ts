// bench:browser's output: the results gathered for --json, the lines printed (none with --json),
// the progress on stderr, and the number formats and target verdicts every section prints with.
import { COMMAND, json } from './options';

export const results: Record<string, unknown> = { command: COMMAND };
export const log = (line = ''): void => {
  if (!json) console.log(line);
};
export const progress = (line: string): void => {
  console.error(line);
};
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');
export const ms = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(1)) + ' ms';
export const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
export const s = (seconds: number): string => `${seconds.toFixed(1)} s`;

/** "met", or "MISSED by …" for a value that must stay at most `target`. */
export function atMost(value: number, target: number, unit: (n: number) => string): string {
  return value <= target ? 'met' : `MISSED by ${unit(value - target)} (${(value / target).toFixed(2)}× the target)`;
}
/** "met", or "MISSED by …" for a value that must reach at least `target`. */
export function atLeast(value: number, target: number, unit: (n: number) => string): string {
  return value >= target ? 'met' : `MISSED by ${unit(target - value)} (${((value / target) * 100).toFixed(0)}% of the target)`;
}
/** CPU seconds by process kind or thread, as "name 1.2 s; name 0.3 s". */
export const cpuList = (cpu: [string, number][]): string => cpu.map(([k, c]) => `${k} ${s(c)}`).join('; ');
