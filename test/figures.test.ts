// The documents' figures are the outputs' figures: scripts/figures.ts rebuilds the README's headline
// rows, docs/benchmarks.md's full table and docs/methods.md's methods from docs/bench, and this test
// fails when a document says anything else.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS, FIGURES, type Figure, FigureError, HEADLINES, end, figuresTable, find, methodsTable, parseBenchOutput, rebuiltDocument, start, withBlock } from '../scripts/figures';

const ROOT = new URL('..', import.meta.url).pathname;
const readOutput = (file: string): string => readFileSync(join(ROOT, 'docs/bench', file), 'utf8');

describe('the documents\' figures', () => {
  it.each(DOCUMENTS.map((d) => d.path))('%s matches the outputs it cites', (path) => {
    const text = readFileSync(join(ROOT, path), 'utf8');
    expect(rebuiltDocument(path, text, readOutput)).toBe(text);
  });

  it('every row names its output, command, date, commit and machine; the README keeps at most 8 of docs/benchmarks.md\'s rows', () => {
    for (const row of figuresTable(readOutput).split('\n').slice(2)) expect(row).toMatch(/\| \[\d{4}-\d\d-\d\d-[\w-]+\]\(docs\/bench\/[\w.-]+\): `[^`]*npm run [^`]+`, \d{4}-\d\d-\d\d \d\d:\d\d UTC, [0-9a-f]{7,}, \d+ × .+ \|$/);
    expect(figuresTable(readOutput, FIGURES, 'docs/')).toContain('](bench/2026-');
    expect(HEADLINES.length).toBeLessThanOrEqual(8);
    const full = figuresTable(readOutput, FIGURES);
    for (const headline of HEADLINES.filter((h) => FIGURES.includes(h))) expect(full).toContain(`| ${headline.figure.replace(/\|/g, '\\|')} |`);
  });

  it('the README shows no other table of measured figures', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const outside = ['figures'].reduce((text, block) => text.slice(0, text.indexOf(start(block))) + text.slice(text.indexOf(end(block)) + end(block).length), readme);
    expect(outside).not.toMatch(/\| \d[\d,.]* ?(?:%|×|pages\/s|MB\/s|ms|B) \|/);
    expect(methodsTable(readOutput)).toMatch(/^\| simhash \(k ≤ 3\) \| \d+(?:\.\d)?% \|/m);
  });
});

const OUTPUT = [
  '# command: npm run bench',
  '# date: 2026-11-27 03:00 UTC',
  '# commit: abc1234',
  '# machine: 2 × AMD EPYC, v20.20.2, load average 0.10 at the start',
  '',
  'In the worker:',
  '  median   9.0 ms',
  'Round trip:',
  '  median   10.6 ms',
].join('\n');

describe('figuresTable and its parts', () => {
  const figure: Figure = { figure: 'lookup | median', target: '≤ 15 ms', source: 'x.txt', measured: (o) => `${find(o, /median\s+([\d.]+) ms/, 'Round trip')[0]} ms` };

  it('reads the header and the figure after its section', () => {
    expect(figuresTable(() => OUTPUT, [figure]).split('\n')[2]).toBe('| lookup \\| median | 10.6 ms | ≤ 15 ms | [x](docs/bench/x.txt): `npm run bench`, 2026-11-27 03:00 UTC, abc1234, 2 × AMD EPYC |');
  });

  it('gives a figure its repeated runs, and cites each after the first', () => {
    const runs = new Map([['x.txt', OUTPUT], ['y.txt', OUTPUT.replace('10.6 ms', '12.0 ms')], ['z.txt', OUTPUT.replace('10.6 ms', '9.4 ms')]]);
    const median: Figure = {
      ...figure,
      repeats: ['y.txt', 'z.txt'],
      measured: (o, _baseline, repeats = []) => [o, ...repeats].map((run) => find(run, /median\s+([\d.]+) ms/, 'Round trip')[0]).join(' / '),
    };
    const row = figuresTable((file) => runs.get(file)!, [median]).split('\n')[2]!;
    expect(row.startsWith('| lookup \\| median | 10.6 / 12.0 / 9.4 | ≤ 15 ms | [x](docs/bench/x.txt): ')).toBe(true);
    expect(row.match(/\[[xyz]\]\(docs\/bench\/[xyz]\.txt\)/g)).toEqual(['[x](docs/bench/x.txt)', '[y](docs/bench/y.txt)', '[z](docs/bench/z.txt)']);
  });

  it('refuses an output without its header, and a figure its output does not print', () => {
    expect(() => parseBenchOutput('old.txt', 'median 3 ms')).toThrow(new FigureError('old.txt: no "# command:" line in its header (record it with scripts/record-bench.sh)'));
    expect(() => find(parseBenchOutput('x.txt', OUTPUT), /p99\s+([\d.]+)/)).toThrow('x.txt: no line matches /p99\\s+([\\d.]+)/');
    expect(() => find(parseBenchOutput('x.txt', OUTPUT), /median/, 'Popup')).toThrow('x.txt: no line contains "Popup"');
  });

  it('a README whose number differs from its output is rewritten, and one without the block is refused', () => {
    const table = figuresTable(() => OUTPUT, [figure]);
    const drifted = `# Doppel\n\n${start('figures')}\n${table.replace('10.6 ms', '9.9 ms')}\n${end('figures')}\n`;
    expect(withBlock(drifted, 'figures', table)).not.toBe(drifted);
    expect(withBlock(drifted, 'figures', table)).toContain('| 10.6 ms |');
    expect(() => withBlock('# Doppel\n', 'figures', table)).toThrow(FigureError);
    expect(() => rebuiltDocument('docs/other.md', '', () => OUTPUT)).toThrow('docs/other.md has no figures that npm run figures writes');
  });
});
