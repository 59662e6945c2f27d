// Character shingles and Jaccard similarity: the exact set measure that simhash estimates
// cheaply. Used to reproduce seed 004 and as a reference in tests.

/** The distinct k-character shingles of a text, as is (no case folding, punctuation kept). */
export function characterShingles(text: string, k: number): Set<string> {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`shingle length must be a positive integer: got ${k}`);
  const chars = Array.from(text);
  const out = new Set<string>();
  for (let i = 0; i + k <= chars.length; i++) out.add(chars.slice(i, i + k).join(''));
  return out;
}

export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}
