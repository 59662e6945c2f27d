// `tsx bin/scan.ts ...args` as a child process, for tests of the CLI end to end.
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** tsx's own entry point: `npx` would add npm's warnings to stderr. */
export function runScan(args: string[], cwd = ROOT): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [TSX, join(ROOT, 'bin', 'scan.ts'), ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}
