// docs/bench/ keeps only the benchmark outputs the documents cite, at most 24 (20 until issue 48's scale runs and issue 49's burst came): every output the
// README, docs/benchmarks.md or docs/methods.md cites is there, and every output there is cited by
// one of them; the README and docs/benchmarks.md stay at most 250 lines. (Any other document may cite a kept output; an output no longer kept is named with
// the commit that has it, `git show <commit>:docs/bench/FILE`, which is not a citation.)
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const CITING = ['README.md', 'docs/benchmarks.md', 'docs/methods.md'];
const MAX_OUTPUTS = 24;

/** The outputs a document's text cites: `docs/bench/NAME.txt` or, from docs/, `bench/NAME.txt`. */
export function citedOutputs(text: string): Set<string> {
  return new Set([...text.matchAll(/(?<![:\w/-])(?:docs\/)?bench\/(\d{4}-\d\d-\d\d-[\w.-]+?\.txt)/g)].map((m) => m[1]!));
}

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const documents = [...CITING, ...readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];

describe('docs/bench', () => {
  const kept = readdirSync(join(ROOT, 'docs/bench')).filter((n) => n.endsWith('.txt'));

  it(`keeps at most ${MAX_OUTPUTS} outputs, and only outputs`, () => {
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(MAX_OUTPUTS);
    expect(readdirSync(join(ROOT, 'docs/bench')).filter((n) => !n.endsWith('.txt'))).toEqual([]);
  });

  it.each([...new Set(documents)])('every output %s cites is kept', (path) => {
    expect([...citedOutputs(read(path))].filter((file) => !kept.includes(file))).toEqual([]);
  });

  it('every kept output is cited by the README, docs/benchmarks.md or docs/methods.md', () => {
    const cited = new Set(CITING.flatMap((path) => [...citedOutputs(read(path))]));
    expect(kept.filter((file) => !cited.has(file))).toEqual([]);
  });

  it('the README and docs/benchmarks.md stay short: at most 250 lines each', () => {
    for (const path of ['README.md', 'docs/benchmarks.md']) expect(read(path).split('\n').length - 1, path).toBeLessThanOrEqual(250);
  });

  it('reads citations, and not the commands that name an output no longer kept', () => {
    const text = '[x](docs/bench/2026-11-27-speed.txt) and [y](bench/2026-11-28-1m-a.txt), not `git show c2fd4c7:docs/bench/2026-11-22-old.txt` nor tests/bench/2026-11-22-x.txt';
    expect([...citedOutputs(text)]).toEqual(['2026-11-27-speed.txt', '2026-11-28-1m-a.txt']);
  });
});
