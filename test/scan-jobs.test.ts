// bin/scan-jobs.ts: files read on the main thread and on worker threads are handed on in the files'
// order, with the same results as on one thread, also when the read-ahead window fills (more files
// than 32 a job) and when some files cannot be read; a stream of documents (a container's, their
// content in hand) the same, pulled no further ahead than the window.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFiles } from '../bin/scan-jobs';
import type { Listed, ReadResult } from '../bin/scan-read';
import { mulberry32 } from '../lib/random';
import { KITE, SOUP } from './support/scan-texts';

const dir = mkdtempSync(join(tmpdir(), 'doppel-scan-jobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const random = mulberry32(36);
const FILES: Listed[] = Array.from({ length: 150 }, (_, i) => {
  const path = `doc-${String(i).padStart(3, '0')}.txt`;
  const absolute = join(dir, path);
  // every 17th file is never written: reading it fails, and the failure keeps its place
  if (i % 17 !== 5) {
    const source = i % 2 === 0 ? KITE : SOUP;
    const paragraphs = source.filter(() => random() < 0.7);
    writeFileSync(absolute, `Document ${i}\n\n${paragraphs.join('\n\n')}`);
  }
  return { path, absolute, kind: 'text' };
});

async function readAll(jobs: number, mainThread: 'all' | 'until-ready' | 'none' = 'all'): Promise<{ order: number[]; results: ReadResult[]; readBy: number[] }> {
  const order: number[] = [];
  const results: ReadResult[] = [];
  const readBy = await readFiles(FILES, 'simhash', jobs, (index, file, result) => {
    expect(file).toBe(FILES[index]);
    order.push(index);
    results.push(result);
  }, { copies: ['passages', 'rewrites'], mainThread });
  return { order, results, readBy };
}

describe('readFiles', () => {
  it('hands every file on in order, the same results on 1, 2 and 3 jobs', async () => {
    const one = await readAll(1);
    expect(one.order).toEqual(FILES.map((_, i) => i));
    expect(one.results.filter((r) => !r.ok)).toHaveLength(9);
    expect(one.results.filter((r) => r.ok)).toHaveLength(141);
    expect(one.readBy).toEqual([150]);
    for (const [jobs, mainThread] of [[2, 'all'], [3, 'all'], [2, 'until-ready'], [2, 'none'], [3, 'none']] as const) {
      const many = await readAll(jobs, mainThread);
      expect(many.order).toEqual(one.order);
      expect(many.results).toEqual(one.results);
      expect(many.readBy.reduce((a, b) => a + b)).toBe(150);
      // the workers start once their script is bundled: by then the main thread may have read all
      if (mainThread === 'all') expect(many.readBy.length).toBeLessThanOrEqual(jobs);
      else if (mainThread === 'until-ready') expect(many.readBy.length).toBeLessThanOrEqual(jobs + 1);
      else {
        // the workers alone read every file (which of them reads how many depends on when each is
        // ready: on a loaded machine one may start after the other has read them all)
        expect(many.readBy[0]).toBe(0);
        expect(many.readBy).toHaveLength(jobs + 1);
      }
    }
  }, 60_000);

  it('reads a stream of documents with their content as the files they came from, pulling at most the window ahead', async () => {
    const { readFileSync } = await import('node:fs');
    const one = await readAll(1);
    for (const jobs of [1, 2, 3]) {
      let pulled = 0;
      let handed = 0;
      let furthest = 0;
      async function* documents(): AsyncGenerator<Listed> {
        for (const file of FILES) {
          pulled++;
          furthest = Math.max(furthest, pulled - handed);
          let content: string;
          try {
            content = readFileSync(file.absolute, 'utf8');
          } catch {
            yield file; // unreadable: left to readDocument, which says why
            continue;
          }
          yield { path: file.path, absolute: join(dir, 'container.jsonl'), kind: 'text', content };
        }
      }
      const results: ReadResult[] = [];
      const readBy = await readFiles(documents(), 'simhash', jobs, (index, file, result) => {
        expect(index).toBe(handed);
        expect(file.path).toBe(FILES[index]!.path);
        handed++;
        results.push(result);
      }, { copies: ['passages', 'rewrites'] });
      expect(results).toEqual(one.results);
      expect(readBy.reduce((a, b) => a + b)).toBe(150);
      // the window: 32 a thread (one job: one at a time)
      expect(furthest).toBeLessThanOrEqual(jobs === 1 ? 1 : 32 * (jobs + 1) + 1);
      if (jobs > 1) expect(furthest).toBeGreaterThan(1);
    }
    const none = await readFiles((async function* () {})(), 'simhash', 2, () => {
      throw new Error('no document');
    });
    expect(none.reduce((a, b) => a + b, 0)).toBe(0);
  }, 60_000);

  it('rejects a job count that is not a positive integer', async () => {
    await expect(readFiles(FILES, 'simhash', 0, () => {})).rejects.toThrow(/positive integer/);
  });
});
