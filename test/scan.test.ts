import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintText } from '../lib/fingerprint/features';
import { type Fingerprint, asFingerprint } from '../lib/fingerprint/bits';
import {
  NO_TEXT_NOTE,
  type ScanInput,
  type ScanReport,
  bruteForcePairs,
  findNearPairs,
  titleOfText,
} from '../lib/scan/scan';
import { scanDocumentsBy } from '../lib/scan/detector';
import { simhash } from '../lib/scan/detectors/simhash';
import { KITE, SOUP } from './support/scan-texts';

const parseHtml = (html: string): Document => parseHTML(html).document as unknown as Document;

function page(title: string, paragraphs: string[], site: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title} - ${site}</title></head><body>
<header><a href="/">${site}</a><nav><a href="/news">News</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav></header>
<main><article><h1>${title}</h1><p class="byline">By a reporter</p>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</article></main>
<aside><h2>Popular</h2><ul><li><a href="/a">Something else entirely</a></li><li><a href="/b">Another story</a></li></ul></aside>
<footer><p>Copyright ${site}. All rights reserved.</p></footer></body></html>`;
}

const LOGIN = `<!doctype html><html><head><title>Sign in</title></head><body>
<form action="/login" method="post"><label>Email <input name="email"></label><label>Password <input type="password" name="pw"></label><button>Sign in</button></form>
</body></html>`;

describe('scanDocumentsBy simhash', () => {
  const inputs: ScanInput[] = [
    { path: 'news/kites.html', kind: 'html', content: page('Kites fill the sky over the airfield', KITE, 'Valley News') },
    { path: 'soup.txt', kind: 'text', content: `\n  Vegetable soup, slowly  \n\n${SOUP.join('\n\n')}\n` },
    { path: 'login.html', kind: 'html', content: LOGIN },
    { path: 'empty.txt', kind: 'text', content: ' \n\t\n' },
    { path: 'mirror/kites.html', kind: 'html', content: page('Kites fill the sky over the airfield', KITE, 'Daily Mirror Site') },
    { path: 'kites.txt', kind: 'text', content: KITE.join('\n\n') },
  ];

  it('reports documents in input order, with notes for those without text', () => {
    const report = scanDocumentsBy(inputs, simhash, { parseHtml });
    expect(report.k).toBe(3);
    expect(report.documents.map((d) => d.path)).toEqual(inputs.map((i) => i.path));
    const [kites, soup, login, empty, mirror, kitesTxt] = report.documents;

    expect(kites).toEqual({
      path: 'news/kites.html',
      title: 'Kites fill the sky over the airfield',
      simhash: expect.stringMatching(/^[0-9a-f]{16}$/),
      words: fingerprintText(KITE.join('\n\n')).tokens,
    });
    expect(soup).toEqual({
      path: 'soup.txt',
      title: 'Vegetable soup, slowly',
      simhash: expect.stringMatching(/^[0-9a-f]{16}$/),
      words: fingerprintText(`Vegetable soup, slowly ${SOUP.join(' ')}`).tokens,
    });
    expect(login).toMatchObject({ path: 'login.html', title: 'Sign in', simhash: null, words: 0 });
    expect(login!.note).toMatch(/^(No article was found on this page\.|The article is too short to compare: \d+ words \(at least 30 needed\)\.)$/);
    expect(empty).toEqual({ path: 'empty.txt', title: '', simhash: null, words: 0, note: NO_TEXT_NOTE });
    // The same text in another template, and as a plain text file, fingerprints the same.
    expect(mirror!.simhash).toBe(kites!.simhash);
    expect(kitesTxt!.simhash).toBe(kites!.simhash);
    expect('note' in kites!).toBe(false);

    expect(report.pairs).toEqual([
      { a: 'news/kites.html', b: 'mirror/kites.html', distance: 0 },
      { a: 'news/kites.html', b: 'kites.txt', distance: 0 },
      { a: 'mirror/kites.html', b: 'kites.txt', distance: 0 },
    ]);
    expect(report.clusters).toEqual([['news/kites.html', 'mirror/kites.html', 'kites.txt']]);
    expect(Object.keys(report)).toEqual(['k', 'documents', 'pairs', 'clusters']);
  });

  it('finds a lightly edited copy within k, and not at a smaller k', () => {
    const edited = [...KITE];
    edited[1] = edited[1]!.replace('six friends', 'a few friends').replace('flying teapot', 'flying kettle');
    const docs: ScanInput[] = [
      { path: 'a.txt', kind: 'text', content: KITE.join('\n\n') },
      { path: 'b.txt', kind: 'text', content: edited.join('\n\n') },
      { path: 'c.txt', kind: 'text', content: SOUP.join('\n\n') },
    ];
    const { pairs } = scanDocumentsBy(docs, simhash, { parseHtml, threshold: 16 });
    const ab = pairs.find((p) => p.a === 'a.txt' && p.b === 'b.txt');
    expect(ab).toBeDefined();
    const distance = ab!.distance as number;
    expect(distance).toBeGreaterThan(0);
    expect(distance).toBeLessThanOrEqual(6);
    const atK = scanDocumentsBy(docs, simhash, { parseHtml, threshold: distance - 1 });
    expect(atK.pairs.filter((p) => p.a === 'a.txt' && p.b === 'b.txt')).toEqual([]);
    expect(atK.k).toBe(distance - 1);
  });

  it('notes a page the parser throws on, and rejects a bad k', () => {
    const report = scanDocumentsBy([{ path: 'bad.html', kind: 'html', content: '<p>x</p>' }], simhash, {
      parseHtml: () => {
        throw new Error('boom');
      },
    });
    expect(report.documents).toEqual([{ path: 'bad.html', title: '', simhash: null, words: 0, note: 'The page could not be read: boom' }]);
    expect(report.pairs).toEqual([]);
    expect(report.clusters).toEqual([]);
    for (const k of [-1, 17, 2.5, Number.NaN]) expect(() => scanDocumentsBy([], simhash, { parseHtml, threshold: k })).toThrow(RangeError);
    expect(scanDocumentsBy([], simhash, { parseHtml })).toEqual({ k: 3, documents: [], pairs: [], clusters: [] });
  });

  it('titles text files by their first non-empty line, at most 200 characters', () => {
    expect(titleOfText('\r\n   \r\n  Hello world  \r\nmore')).toBe('Hello world');
    expect(titleOfText('x'.repeat(300))).toBe('x'.repeat(200));
    expect(titleOfText('😀'.repeat(300))).toBe('😀'.repeat(200)); // characters, not UTF-16 units
    expect(titleOfText('')).toBe('');
  });
});

describe('findNearPairs', () => {
  // Deterministic xorshift, so failures reproduce.
  let state = 0x2545f491;
  const rand32 = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const randomFp = (): Fingerprint => asFingerprint((BigInt(rand32()) << 32n) | BigInt(rand32()));
  const flip = (fp: Fingerprint, bits: number): Fingerprint => {
    let x: bigint = fp;
    const used = new Set<number>();
    while (used.size < bits) used.add(rand32() % 64);
    for (const b of used) x ^= 1n << BigInt(b);
    return asFingerprint(x);
  };

  it('matches brute force, with the index and without, nulls included', () => {
    const fps: (Fingerprint | null)[] = [];
    for (let i = 0; i < 400; i++) {
      if (i % 17 === 5) fps.push(null);
      else if (i > 10 && i % 3 === 0) fps.push(flip(fps[i - 1 - (rand32() % 10)] ?? randomFp(), rand32() % 8));
      else fps.push(randomFp());
    }
    for (const k of [0, 1, 3, 5, 7]) {
      const expected = bruteForcePairs(fps, k);
      expect(expected.length).toBeGreaterThan(0);
      expect(findNearPairs(fps, k)).toEqual(expected);
      expect(findNearPairs(fps.slice(0, 8), k)).toEqual(bruteForcePairs(fps.slice(0, 8), k));
    }
    expect(findNearPairs([], 3)).toEqual([]);
    expect(findNearPairs([null, null], 3)).toEqual([]);
  });
});

// ---------- The CLI, end to end ----------

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `tsx bin/scan.ts ...args` (tsx's own entry point: `npx` would add npm's warnings to stderr). */
function runScan(args: string[], cwd = ROOT): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [TSX, join(ROOT, 'bin', 'scan.ts'), ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

describe('bin/scan.ts', () => {
  let dir: string;
  const isRoot = process.getuid?.() === 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'doppel-scan-'));
    mkdirSync(join(dir, 'sub', 'deeper'), { recursive: true });
    mkdirSync(join(dir, 'other'));
    mkdirSync(join(dir, 'folder.html')); // a folder with a scanned name: walked, not read
    writeFileSync(join(dir, 'sub', 'a.html'), page('Kites fill the sky over the airfield', KITE, 'Valley News'));
    writeFileSync(join(dir, 'other', 'b.HTM'), page('Kites fill the sky over the airfield', KITE, 'Kite Weekly'));
    writeFileSync(join(dir, 'sub', 'deeper', 'soup.txt'), `Vegetable soup\n\n${SOUP.join('\n\n')}`);
    writeFileSync(join(dir, 'folder.html', 'login.html'), LOGIN);
    writeFileSync(join(dir, 'readme.md'), KITE.join('\n\n')); // not scanned
    symlinkSync(join(dir, 'nowhere.html'), join(dir, 'broken.html')); // unreadable: a dangling link
    if (!isRoot) {
      writeFileSync(join(dir, 'locked.txt'), 'secret');
      chmodSync(join(dir, 'locked.txt'), 0o000); // unreadable, except to root
    }
  });
  afterAll(() => {
    if (!isRoot) chmodSync(join(dir, 'locked.txt'), 0o644);
    rmSync(dir, { recursive: true, force: true });
  });

  it('--json prints exactly one report object; unreadable files go to stderr and are skipped', async () => {
    const { code, stdout, stderr } = await runScan([dir, '--json', '--k', '2']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as ScanReport;
    expect(Object.keys(report)).toEqual(['k', 'documents', 'pairs', 'clusters', 'reuse', 'rewrites']);
    expect(report.k).toBe(2);
    expect(report.documents.map((d) => d.path)).toEqual(['folder.html/login.html', 'other/b.HTM', 'sub/a.html', 'sub/deeper/soup.txt']);
    for (const d of report.documents) {
      // a fingerprinted document says too when its rare words cannot show a rewrite (lib/scan/detectors/rewrites.ts)
      expect(Object.keys(d)).toEqual(d.simhash === null ? ['path', 'title', 'simhash', 'words', 'note'] : ['path', 'title', 'simhash', 'words', ...(d.rewriteNote === undefined ? [] : ['rewriteNote'])]);
    }
    expect(report.documents[0]).toMatchObject({ title: 'Sign in', simhash: null, words: 0 });
    expect(report.documents[3]).toMatchObject({ title: 'Vegetable soup', simhash: expect.stringMatching(/^[0-9a-f]{16}$/) });
    // neither page says which came first, and a folder has no reading order: no original
    expect(report.pairs).toEqual([{ a: 'other/b.HTM', b: 'sub/a.html', distance: 0, original: null, evidence: null }]);
    expect(report.clusters).toEqual([{ members: ['other/b.HTM', 'sub/a.html'], original: null, evidence: null }]);

    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(isRoot ? 1 : 2);
    expect(lines[0]).toMatch(/^broken\.html: /);
    if (!isRoot) expect(lines[1]).toMatch(/^locked\.txt: permission denied$/);
  });

  it('prints tables and a summary line without --json', async () => {
    const { code, stdout, stderr } = await runScan([dir]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Documents \(4\)\n/);
    expect(stdout).toContain('Pairs within 3 bits (1)');
    expect(stdout).toContain('Clusters (1)');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('4 documents, 3 fingerprinted, 1 pair within 3 bits, 1 cluster');
    expect(stderr).toMatch(/^broken\.html: /);
  });

  it('exits 2 with one line for a missing folder and for bad flags', async () => {
    const runs = await Promise.all([
      runScan([join(dir, 'no-such-folder')]),
      runScan([join(dir, 'readme.md')]),
      runScan([dir, '--k', '17']),
      runScan([dir, '--frobnicate']),
    ]);
    for (const { code, stdout, stderr } of runs) {
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.endsWith('\n')).toBe(true);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(runs[0]!.stderr).toMatch(/no-such-folder/);
    expect(runs[1]!.stderr).toMatch(/not a directory/);
    expect(runs[2]!.stderr).toMatch(/--k must be an integer from 0 to 16.*usage:/);
    expect(runs[3]!.stderr).toMatch(/unknown option "--frobnicate".*usage:/);
  });

  it('scans samples/ by default, wherever it is run from, and pairs the copies with the original', async () => {
    const { code, stdout, stderr } = await runScan(['--json'], tmpdir());
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const report = JSON.parse(stdout) as ScanReport;
    const original = 'original-site/2024/05/wrenmouth-tide-mill-turns-again.html';
    const copies = [
      'content-farm/2024/05/mill-silent-for-90-years-volunteers-did-something-amazing.htm',
      'regional-digest/heritage/tide-mill-wheel-turns.html',
      'republisher-a/news/2024/volunteers-bring-wrenmouths-tide-mill-back-to-life.html',
    ];
    const family = [...copies, original].sort();
    // the original states its date; two copies name it in a credit line; the digest states no date
    expect(report.clusters).toEqual([{ members: family, original, evidence: 'published' }]);
    const originalOf = (a: string, b: string) => report.pairs.find((p) => [p.a, p.b].sort().join(' ') === [a, b].sort().join(' '));
    expect(originalOf(copies[0]!, original)).toMatchObject({ original, evidence: 'credit' });
    expect(originalOf(copies[1]!, original)).toMatchObject({ original, evidence: 'published' });
    expect(originalOf(copies[2]!, original)).toMatchObject({ original, evidence: 'credit' });
    expect(originalOf(copies[0]!, copies[1]!)).toMatchObject({ original: null, evidence: null });
    // Every pair within the family, and nothing else.
    const expectedPairs = family.flatMap((a, i) => family.slice(i + 1).map((b) => `${a} ${b}`));
    expect(report.pairs.map((p) => `${[p.a, p.b].sort().join(' ')}`).sort()).toEqual(expectedPairs);
    const notes = report.documents.filter((d) => d.simhash === null);
    expect(notes.map((d) => d.path)).toEqual(['photo-gallery/harbour-at-dawn.html']);
    expect(report.documents.map((d) => d.path)).toContain('notes/why-i-keep-a-field-notebook.txt');
    // The history society's page quotes two paragraphs of the tide-mill story: it shares passages
    // with the original and each copy (the copies carry those paragraphs), and is paired with none.
    const quoting = 'history-society/2024/06/summer-walks-tide-mills.html';
    const { reuse } = JSON.parse(stdout) as { reuse: { a: string; b: string; aShare: number; bShare: number; passages: number }[] };
    expect(reuse.map((r) => [r.a, r.b].sort().join(' ')).sort()).toEqual(family.map((f) => [f, quoting].sort().join(' ')).sort());
    const withOriginal = reuse.find((r) => r.a === quoting && r.b === original)!;
    expect(withOriginal).toMatchObject({ passages: 2 });
    expect(withOriginal.bShare).toBeGreaterThan(0.2);
    expect(withOriginal.bShare).toBeLessThan(0.3);
    // A content farm's rewrite of the story and its Spanish, Chinese and German translations: each
    // is a rewrite of the whole family (and of one another, but for the German and the Chinese
    // translations, which share too few rare words: the Chinese one writes the names in Han),
    // listed once, in neither list above; the independent magazine feature on tide mills is linked
    // to nothing.
    const { rewrites } = JSON.parse(stdout) as { rewrites: { a: string; b: string; share: number; translated: boolean }[] };
    const german = 'de/2024/05/die-gezeitenmuehle-von-wrenmouth-dreht-sich-wieder.html';
    const chinese = 'zh/2024/05/wrenmouth-tide-mill.html';
    const rewritten = { 'rewrite-mill/2024/05/historic-tide-mill-spins-again.html': false, 'traducciones/2024/05/el-molino-de-marea-de-wrenmouth-vuelve-a-girar.html': true, [chinese]: true, [german]: true };
    const texts = Object.keys(rewritten);
    const expectedRewrites = [...family.flatMap((f) => texts.map((t) => [f, t])), ...texts.flatMap((a, i) => texts.slice(i + 1).map((b) => [a, b]))]
      .map((p) => p.sort().join(' '))
      .filter((p) => p !== [chinese, german].sort().join(' '))
      .sort();
    expect(rewrites.map((r) => [r.a, r.b].sort().join(' ')).sort()).toEqual(expectedRewrites);
    for (const r of rewrites) {
      expect(r.translated, `${r.a} / ${r.b}`).toBe(Object.entries(rewritten).some(([path, translated]) => translated && (r.a === path || r.b === path)));
      expect(r.share).toBeGreaterThanOrEqual(0.3);
    }
    const listed = new Set([...report.pairs, ...reuse].map((p) => [p.a, p.b].sort().join(' ')));
    expect(rewrites.filter((r) => listed.has([r.a, r.b].sort().join(' ')))).toEqual([]);
    expect(JSON.stringify(report.pairs) + JSON.stringify(reuse) + JSON.stringify(rewrites)).not.toContain('coast-magazine');
    // Pages whose rare words cannot show a rewrite say why.
    expect(report.documents.filter((d) => d.rewriteNote !== undefined).map((d) => d.path)).toEqual(['blog/2023/11/what-a-broken-watch-taught-me.html', 'notes/why-i-keep-a-field-notebook.txt']);
  });

  it('--compare shows the rare words two texts share in order, marked, and the rewrite verdict', async () => {
    const original = join(ROOT, 'samples/original-site/2024/05/wrenmouth-tide-mill-turns-again.html');
    const spanish = join(ROOT, 'samples/traducciones/2024/05/el-molino-de-marea-de-wrenmouth-vuelve-a-girar.html');
    const feature = join(ROOT, 'samples/coast-magazine/2024/07/the-last-working-tide-mills.html');
    const [translation, independent] = await Promise.all([runScan(['--compare', original, spanish]), runScan(['--compare', original, feature])]);
    expect(translation.stdout).toMatch(/: a translation \(en \/ es\)\.\n/);
    expect(translation.stdout).toContain('[[Wrenmouth]]');
    expect(translation.stdout).toContain('[[1789]]');
    expect(independent.stdout).toMatch(/: not a rewrite\.\n/);
  });

  it('--compare prints the shared passages side by side with plain markers off a terminal', async () => {
    const original = join(ROOT, 'samples/original-site/2024/05/wrenmouth-tide-mill-turns-again.html');
    const quoting = join(ROOT, 'samples/history-society/2024/06/summer-walks-tide-mills.html');
    const { code, stdout, stderr } = await runScan(['--compare', original, quoting]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('2 shared passages of 30 words or more');
    expect(stdout).toContain('[[Tide mills were once common along this stretch');
    expect(stdout).toMatch(/left to the weather\.\]\]/);
    expect(stdout).not.toContain('\x1b[');
    const bad = await Promise.all([runScan(['--compare', original]), runScan(['--compare', original, join(ROOT, 'no-such.html')])]);
    expect(bad.map((r) => r.code)).toEqual([2, 2]);
    expect(bad[0]!.stderr).toMatch(/--compare needs exactly two files/);
    expect(bad[1]!.stderr).toMatch(/no-such\.html: not found/);
  });
});
