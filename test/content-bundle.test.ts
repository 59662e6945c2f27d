// What the content script bundles runs on every page the reader opens: the modules it imports,
// followed from entrypoints/content.ts, must not include the rare-word scan (its common words and
// anchors: 34 kB, which once doubled content.js) nor the store. Type-only imports are not bundled.
// (With lib/content/marks.ts as it was at a97d1aa, importing lib/fingerprint/rewrites.ts, it fails.)
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The project's modules that `file` imports for their values (not `import type`), as paths from the root. */
function valueImports(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const match of source.matchAll(/^import\s+(type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    if (match[1] !== undefined) continue;
    const spec = match[2]!;
    const base = spec.startsWith('@/') ? join(ROOT, spec.slice(2)) : spec.startsWith('.') ? resolve(join(ROOT, dirname(file)), spec) : null;
    if (base === null) continue; // a package
    const path = [`${base}.ts`, join(base, 'index.ts'), base].find((p) => existsSync(p) && p.endsWith('.ts'));
    if (path !== undefined) out.push(relative(ROOT, path));
  }
  return out;
}

function bundled(entry: string): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) for (const next of valueImports(queue.pop()!)) if (!seen.has(next) && seen.add(next)) queue.push(next);
  return seen;
}

describe('the content script', () => {
  const modules = bundled('entrypoints/content.ts');

  it('bundles its own modules (the walk follows imports)', () => {
    expect(modules).toContain('lib/content/marks.ts');
    expect(modules).toContain('lib/content/page-reader.ts');
    expect(modules).toContain('lib/protocol/messages.ts');
  });

  it('does not bundle the rare-word scan nor the store (the passages\' winnowing it needs, to find them on the page)', () => {
    const heavy = [...modules].filter((m) => /^lib\/(fingerprint\/(rewrite|common-words)|store\/)/.test(m));
    expect(heavy).toEqual([]);
  });
});
