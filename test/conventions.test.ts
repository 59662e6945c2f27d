// Conventions that keep the codebase honest (STYLE.md): every lib/ module is imported by a test,
// no lib/ module imports itself through others (an import cycle), type imports included, and the
// folders of lib/ are stages that import only what their README's "May import:" line lists (so
// the tree reads like the pipeline). Sizes are held too: no file of lib/, entrypoints/ or bin/
// over 500 lines, lib/store at most 3,000, at most three loose files in lib/.
// (That every message type has a handler is checked in recorder.test.ts.)
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

describe('conventions', () => {
  const tests = filesUnder(join(ROOT, 'test'), (n) => /\.(test|e2e)\.ts$|^index-suite\.ts$/.test(n)).map((f) => readFileSync(f, 'utf8'));
  const modules = filesUnder(join(ROOT, 'lib'), (n) => n.endsWith('.ts')).map((f) => relative(ROOT, f).replace(/\.ts$/, ''));

  it('finds the lib modules and the tests', () => {
    expect(modules.length).toBeGreaterThan(20);
    expect(tests.length).toBeGreaterThan(20);
  });

  it.each(modules)('%s is imported by a test', (module) => {
    const importPath = new RegExp(`from '(\\.\\./)+${module.replace(/[/.]/g, '\\$&')}'`);
    expect(tests.some((source) => importPath.test(source))).toBe(true);
  });

  it('lib/ has no import cycle', () => {
    const graph = importGraph(modules.map((m) => join(ROOT, `${m}.ts`)));
    expect(graph.size).toBe(modules.length);
    expect(cyclesOf(graph).map((cycle) => cycle.map((f) => relative(ROOT, f)).join(' → '))).toEqual([]);
  });

  it.each(stages())('lib/%s/ has a README whose "May import:" names every folder and loose file it imports', (stage, allowed) => {
    const graph = importGraph(modules.filter((m) => m.startsWith(`lib/${stage}/`)).map((m) => join(ROOT, `${m}.ts`)));
    const imported = new Set<string>();
    for (const targets of graph.values()) for (const target of targets) imported.add(stageOf(relative(ROOT, target)));
    imported.delete(`lib/${stage}/`);
    expect([...imported].filter((name) => !allowed.includes(name)).sort()).toEqual([]);
  });

  it('the stages form an order: no folder may import a folder that may import it', () => {
    const allowed = new Map(stages());
    const cycles = cyclesOf(new Map([...allowed].map(([stage, names]) => [`lib/${stage}/`, new Set(names.filter((n) => n.endsWith('/')))])));
    expect(cycles).toEqual([]);
    expect(allowed.size).toBeGreaterThanOrEqual(10);
  });

  it('sizes: no file of lib/, entrypoints/ or bin/ over 500 lines; lib/store at most 3,000; at most three loose files in lib/', () => {
    const lines = (file: string): number => readFileSync(file, 'utf8').split('\n').length - 1;
    const code = ['lib', 'entrypoints', 'bin'].flatMap((dir) => filesUnder(join(ROOT, dir), (n) => /\.ts$/.test(n)));
    expect(code.filter((file) => lines(file) > 500).map((file) => relative(ROOT, file))).toEqual([]);
    expect(filesUnder(join(ROOT, 'lib/store'), (n) => n.endsWith('.ts')).reduce((sum, file) => sum + lines(file), 0)).toBeLessThanOrEqual(3000);
    expect(readdirSync(join(ROOT, 'lib'), { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts')).length).toBeLessThanOrEqual(3);
  });

  it('the stage check reads a README and names a folder or a loose file', () => {
    expect(stageOf('lib/store/pages.ts')).toBe('lib/store/');
    expect(stageOf('lib/url.ts')).toBe('lib/url.ts');
    expect(mayImport('# x\n\nWords.\n\nMay import: lib/text/, lib/url.ts\n')).toEqual(['lib/text/', 'lib/url.ts']);
    expect(mayImport('# x\n\nNo line.\n')).toEqual([]);
  });

  it('the cycle check finds a cycle, and a type import closes one', () => {
    const graph = importGraph([], {
      '/x/a.ts': "import { b } from './b';",
      '/x/b.ts': "import type { C } from './c';\nexport { d } from './d';",
      '/x/c.ts': "import {\n  type A,\n} from './a';",
      '/x/d.ts': "import { readFileSync } from 'node:fs';\nconst s = \"from './a'\";",
    });
    expect([...graph.get('/x/b.ts')!]).toEqual(['/x/c.ts', '/x/d.ts']);
    expect(cyclesOf(graph)).toEqual([['/x/a.ts', '/x/b.ts', '/x/c.ts', '/x/a.ts']]);
  });
});

/** The folder a lib/ file belongs to ('lib/store/'), or the loose file itself ('lib/url.ts'). */
function stageOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file;
}

/** The names a README's "May import:" line lists (folders end with /). */
function mayImport(readme: string): string[] {
  const line = /^May import: (.*)$/m.exec(readme);
  return line === null ? [] : line[1]!.split(',').map((name) => name.trim()).filter((name) => name !== '' && name !== 'nothing');
}

/** Every folder of lib/ with what its README says it may import (a folder without a README fails here). */
function stages(): [string, string[]][] {
  return readdirSync(join(ROOT, 'lib'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => [e.name, mayImport(readFileSync(join(ROOT, 'lib', e.name, 'README.md'), 'utf8'))]);
}

/** The relative `import … from` and `export … from` of each file, resolved to files (`sources` in place of reading them: tests). */
function importGraph(files: readonly string[], sources?: Record<string, string>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources === undefined ? files : Object.keys(sources)) {
    const text = sources?.[file] ?? readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(/^(?:import|export)\b[^;'"]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gm)) {
      const target = resolve(dirname(file), match[1]!);
      targets.add(sources !== undefined || existsSync(`${target}.ts`) ? `${target}.ts` : join(target, 'index.ts'));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** One cycle through each strongly connected part of the graph that has one (a depth-first search), as [a, b, …, a]. */
function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}
