// Conventions that keep the codebase honest (STYLE.md): every lib/ module is imported by a test,
// no lib/ module imports itself through others (an import cycle), type imports included, and the
// folders of lib/ are stages that import only what their README's "May import:" line lists (so
// the tree reads like the pipeline). Sizes are held too: no file of lib/, entrypoints/ or bin/
// over 500 lines, lib/store at most 3,000, at most three loose files in lib/.
// bench/ is held to the same: folders with a README and a "May import:" line, no cycle, no file over
// 500 lines, and every `npm run bench:*` or `check:*` name runs a file whose folder's README names it.
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

describe('conventions of bench/', () => {
  const BENCH = join(ROOT, 'bench');
  const files = filesUnder(BENCH, (n) => n.endsWith('.ts'));
  const folders = readdirSync(BENCH, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  const scripts = Object.entries((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts)
    .filter(([name]) => name === 'bench' || name.startsWith('bench:') || name.startsWith('check:'));

  it('finds the bench files, folders and npm names', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(folders.length).toBeGreaterThanOrEqual(6);
    expect(scripts.length).toBeGreaterThan(10);
  });

  it('every bench file is in a folder, and no bench file is over 500 lines', () => {
    expect(files.filter((file) => dirname(file) === BENCH).map((file) => relative(ROOT, file))).toEqual([]);
    expect(files.filter((file) => readFileSync(file, 'utf8').split('\n').length - 1 > 500).map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('bench/ has no import cycle', () => {
    expect(cyclesOf(importGraph(files)).map((cycle) => cycle.map((f) => relative(ROOT, f)).join(' → '))).toEqual([]);
  });

  it.each(stages('bench'))('bench/%s/ has a README whose "May import:" names every bench folder it imports', (folder, allowed) => {
    const graph = importGraph(files.filter((file) => file.startsWith(join(BENCH, folder, '/'))));
    const imported = new Set<string>();
    for (const targets of graph.values()) for (const target of targets) if (target.startsWith(`${BENCH}/`)) imported.add(stageOf(relative(ROOT, target)));
    imported.delete(`bench/${folder}/`);
    expect([...imported].filter((name) => !allowed.includes(name)).sort()).toEqual([]);
  });

  it('the bench folders form an order: no folder may import a folder that may import it', () => {
    const allowed = new Map(stages('bench'));
    expect(cyclesOf(new Map([...allowed].map(([folder, names]) => [`bench/${folder}/`, new Set(names)])))).toEqual([]);
  });

  it.each(scripts)('npm run %s runs a bench file whose folder README names it', (name, command) => {
    const file = /^tsx (bench\/[\w/.-]+\.ts)$/.exec(command)?.[1];
    expect(file, command).toBeDefined();
    expect(existsSync(join(ROOT, file!))).toBe(true);
    expect(readFileSync(join(ROOT, dirname(file!), 'README.md'), 'utf8')).toContain(name === 'bench' ? '`npm run bench`' : name);
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

/** Every folder of lib/ (or bench/) with what its README says it may import (a folder without a README fails here). */
function stages(top = 'lib'): [string, string[]][] {
  return readdirSync(join(ROOT, top), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => [e.name, mayImport(readFileSync(join(ROOT, top, e.name, 'README.md'), 'utf8'))]);
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
