// Conventions that keep the codebase honest (STYLE.md): every lib/ module is imported by a test.
// (That every message type has a handler is checked in recorder.test.ts.)
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
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
});
