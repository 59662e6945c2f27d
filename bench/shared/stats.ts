// The statistics the benchmarks print, defined once so that their figures compare.

const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);

/** The middle value; the mean of the two middle ones for an even count. NaN for none. */
export function median(xs: readonly number[]): number {
  const v = sorted(xs);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** Nearest-rank percentile: p99 of 200 values is the 198th smallest. NaN for none. */
export function percentile(xs: readonly number[], p: number): number {
  const v = sorted(xs);
  if (v.length === 0) return NaN;
  return v[Math.min(v.length, Math.max(1, Math.ceil((p / 100) * v.length))) - 1]!;
}

export const max = (xs: readonly number[]): number => xs.reduce((m, x) => Math.max(m, x), -Infinity);
