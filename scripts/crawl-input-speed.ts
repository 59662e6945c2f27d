// How fast `scan` reads crawl containers (issue 48, part 1): writes the same N pages (default 5,000,
// seeded text in the samples' words, every 50th a copy of the one before) as a folder of .html
// files, as a WARC written by warcio (a request and a response record a page; plain and gzipped),
// and as JSONL (plain and gzipped); then times (1) reading alone (bin/scan-sources.ts, in this
// process) and (2) the whole `scan` on 1 and 2 jobs, and prints MB/s of each, by the wall clock
// and by CPU time (user + system: on a shared machine the wall clock says more about the others).
//   npx tsx scripts/crawl-input-speed.ts [--docs N] [--dir DIR] [--runs R] [--scan-runs R]
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { listInputs, readDocuments } from '../bin/scan-sources';
import { mulberry32 } from '../lib/random';
import { page, warcRecord } from '../test/support/warc';

const ROOT = new URL('..', import.meta.url).pathname;

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}
const DOCS = Number(option('--docs', '5000'));
const RUNS = Number(option('--runs', '3'));
const SCAN_RUNS = Number(option('--scan-runs', '1'));
const DIR = option('--dir', mkdtempSync(join(tmpdir(), 'doppel-crawl-speed-')));

/** The samples' words, most frequent first. */
function vocabulary(): string[] {
  const counts = new Map<string, number>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else for (const word of readFileSync(path, 'utf8').replace(/<[^>]*>/g, ' ').match(/\p{L}{2,}/gu) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  };
  walk(join(ROOT, 'samples'));
  return [...counts].sort((a, b) => b[1] - a[1]).map(([word]) => word);
}

function pages(n: number): { url: string; html: string }[] {
  const words = vocabulary();
  const random = mulberry32(48);
  const word = (): string => words[Math.floor(words.length * random() ** 2.5)]!;
  const sentence = (): string => {
    const s = Array.from({ length: 8 + Math.floor(random() * 13) }, word).join(' ');
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
  };
  const out: { url: string; html: string }[] = [];
  for (let i = 0; i < n; i++) {
    const title = Array.from({ length: 6 }, word).join(' ');
    const paragraphs = i % 50 === 49 ? out[i - 1]!.html.match(/<p>.*?<\/p>/g)!.join('\n') : Array.from({ length: 5 + Math.floor(random() * 5) }, () => `<p>${Array.from({ length: 3 + Math.floor(random() * 4) }, sentence).join(' ')}</p>`).join('\n');
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><header><a href="/">Site ${i % 40}</a><nav><a href="/news">News</a> <a href="/about">About</a></nav></header>
<main><article><h1>${title}</h1>
${paragraphs}
</article></main><footer><p>Copyright Site ${i % 40}.</p></footer></body></html>`;
    out.push({ url: `https://site-${i % 40}.example/story/${i}`, html });
  }
  return out;
}

async function writeInputs(): Promise<Record<string, string>> {
  const docs = pages(DOCS);
  const folder = join(DIR, 'pages');
  mkdirSync(folder, { recursive: true });
  docs.forEach((d, i) => writeFileSync(join(folder, `doc-${String(i).padStart(5, '0')}.html`), d.html));
  const paths = { folder, warc: join(DIR, 'crawl.warc'), warcGz: join(DIR, 'crawl.warc.gz'), jsonl: join(DIR, 'set.jsonl'), jsonlGz: join(DIR, 'set.jsonl.gz') };
  for (const [path, gzip] of [[paths.warc, false], [paths.warcGz, true]] as const) {
    const out = createWriteStream(path);
    out.write(await warcRecord({ type: 'warcinfo', body: 'software: doppel crawl-input-speed\r\n' }, gzip));
    for (const d of docs) {
      out.write(await warcRecord({ type: 'request', url: d.url, statusline: `GET ${new URL(d.url).pathname} HTTP/1.1`, httpHeaders: { Host: new URL(d.url).host } }, gzip));
      out.write(await warcRecord(page(d.url, d.html), gzip));
    }
    out.end();
    await finished(out);
  }
  const lines = docs.map((d) => JSON.stringify({ id: d.url, html: d.html })).join('\n') + '\n';
  writeFileSync(paths.jsonl, lines);
  writeFileSync(paths.jsonlGz, gzipSync(lines));
  return paths;
}

const MB = 1e6;
const sizeOf = (path: string): number => (statSync(path).isDirectory() ? readdirSync(path).reduce((sum, f) => sum + statSync(join(path, f)).size, 0) : statSync(path).size);
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function readOnly(path: string): Promise<{ seconds: number; cpu: number; documents: number; contentBytes: number }> {
  const { files } = await listInputs([path]);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let documents = 0;
  let contentBytes = 0;
  for await (const item of readDocuments(files)) {
    if (item.type !== 'document') continue;
    documents++;
    contentBytes += Buffer.byteLength(item.document.content);
  }
  const cpu = process.cpuUsage(cpu0);
  return { seconds: (performance.now() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6, documents, contentBytes };
}

/** `scan PATH --jobs N` under /usr/bin/time: its wall-clock and CPU seconds, and its summary line. */
function scan(path: string, jobs: number): { seconds: number; cpu: number; summary: string } {
  const report = join(DIR, 'time.txt');
  const out = execFileSync('/usr/bin/time', ['-f', '%e %U %S', '-o', report, process.execPath, join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'bin/scan.ts'), path, '--jobs', String(jobs)], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  const [seconds, user, system] = readFileSync(report, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds: seconds!, cpu: user! + system!, summary: out.trimEnd().split('\n').at(-1)! };
}

const paths = await writeInputs();
process.on('exit', () => console.log(`\nload average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`));
const inputs: [string, string][] = [
  ['folder of .html', paths.folder],
  ['WARC', paths.warc],
  ['WARC, gzipped', paths.warcGz],
  ['JSONL', paths.jsonl],
  ['JSONL, gzipped', paths.jsonlGz],
];
console.log(`${DOCS} pages in ${DIR}; MB = 10^6 bytes; load average before: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores`);
console.log(`\nreading alone (bin/scan-sources.ts readDocuments, one thread; median of ${RUNS}):`);
console.log(`  ${'input'.padEnd(16)} ${'file MB'.padStart(8)} ${'page MB'.padStart(8)} ${'wall s'.padStart(7)} ${'cpu s'.padStart(7)} ${'file MB/s'.padStart(10)} ${'page MB/s'.padStart(10)} ${'docs/s'.padStart(8)}  (per CPU second)`);
for (const [label, path] of inputs) {
  const runs = [];
  for (let r = 0; r < RUNS; r++) runs.push(await readOnly(path));
  const seconds = median(runs.map((x) => x.seconds));
  const cpu = median(runs.map((x) => x.cpu));
  const { documents, contentBytes } = runs[0]!;
  if (documents !== DOCS) throw new Error(`${label}: ${documents} documents, not ${DOCS}`);
  const size = sizeOf(path);
  console.log(`  ${label.padEnd(16)} ${(size / MB).toFixed(1).padStart(8)} ${(contentBytes / MB).toFixed(1).padStart(8)} ${seconds.toFixed(2).padStart(7)} ${cpu.toFixed(2).padStart(7)} ${(size / MB / cpu).toFixed(1).padStart(10)} ${(contentBytes / MB / cpu).toFixed(1).padStart(10)} ${(documents / cpu).toFixed(0).padStart(8)}`);
}
console.log(`\nthe whole scan (npm run scan -- PATH --jobs N, stdout discarded; median of ${SCAN_RUNS}):`);
console.log(`  ${'input'.padEnd(16)} ${'jobs'.padStart(4)} ${'wall s'.padStart(7)} ${'cpu s'.padStart(7)} ${'page MB/s'.padStart(10)} ${'docs/s'.padStart(8)}  (by the wall clock)  summary`);
const contentBytes = (await readOnly(paths.jsonl)).contentBytes;
// the runs go round the inputs, so that a change in the machine's load falls on all of them
const runs = new Map<string, { seconds: number; cpu: number; summary: string }[]>();
const configs = inputs.flatMap(([label, path]) => [1, 2].map((jobs) => ({ label, path, jobs, key: `${label} ${jobs}` })));
for (let r = 0; r < SCAN_RUNS; r++) for (const { path, jobs, key } of configs) runs.set(key, [...(runs.get(key) ?? []), scan(path, jobs)]);
for (const { label, jobs, key } of configs) {
  const done = runs.get(key)!;
  const seconds = median(done.map((x) => x.seconds));
  const cpu = median(done.map((x) => x.cpu));
  console.log(`  ${label.padEnd(16)} ${String(jobs).padStart(4)} ${seconds.toFixed(2).padStart(7)} ${cpu.toFixed(2).padStart(7)} ${(contentBytes / MB / seconds).toFixed(2).padStart(10)} ${(DOCS / seconds).toFixed(0).padStart(8)}  ${done[0]!.summary}`);
}
