// Speed of Doppel's text pipeline and of its in-memory index, measured in one run.
//   npm run bench            a readable report
//   npm run bench -- --json  one JSON object
//
// Throughput is UTF-8 bytes of extracted article text per second (MB = 10^6 bytes). Each figure
// is the median of several timed passes over the same texts, after an untimed warm-up pass.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';
import { extractArticle } from '../../lib/text/extract';
import { countFeatures, fingerprintText } from '../../lib/fingerprint/features';
import { forEachToken, normalizeText } from '../../lib/text/words';
import { type IndexBenchResult, benchIndex } from './index-bench';
import { mulberry32, pick } from '../../lib/random';
import { passageFingerprints } from '../../lib/fingerprint/passages';
import { rewriteFingerprints } from '../../lib/fingerprint/rewrites';
import { encodeRewriteBytes } from '../../lib/fingerprint/rewrite-codec';

const JSON_OUTPUT = process.argv.includes('--json');
const CORPUS = new URL('../../../shared/corpus/readability-test-pages', import.meta.url);
const DOPPEL_PASSES = 5;
const SIMHASH_JS_PASSES = 3; // ~1 MB/s: a pass over the corpus takes about a second
const SCRIPT_PASSES = 3;
const SEGMENT_CHUNK = 2000; // V8's Intl.Segmenter runs out of memory on multi-megabyte strings
const TARGET_RATIO = 30;
const TARGET_MEDIAN_QUERY_US = 20;
// Passage fingerprints (issue 23): at least this fast, and at least this share of fingerprintText's speed.
const TARGET_PASSAGE_MB_S = 20;
const TARGET_PASSAGE_SHARE = 0.5;
// Rewrite fingerprints (issue 34): at least this fast, at least this share of the passage
// fingerprints' speed in the same run, and at most this many bytes a page on average.
const TARGET_REWRITE_MB_S = 10;
const TARGET_REWRITE_SHARE = 0.5;
const TARGET_REWRITE_BYTES = 120;

interface SimHashJs {
  hash(text: string): number;
}
const require = createRequire(import.meta.url);
const { SimHash } = require('simhash-js') as { SimHash: new () => SimHashJs };

const started = performance.now();
const log = (line = ''): void => {
  if (!JSON_OUTPUT) console.log(line);
};
const note = (line: string): void => {
  // Progress and notices go to stderr with --json, so that stdout is exactly one JSON object.
  if (JSON_OUTPUT) console.error(line);
  else console.log(line);
};

// ---------------------------------------------------------------------------------------------
// Texts

interface TextSet {
  source: string;
  texts: string[];
  bytes: number;
  /** Pages whose extraction gave no article (corpus only). */
  skipped: number;
  extractMs: number;
}

const utf8Bytes = (texts: readonly string[]): number => texts.reduce((sum, t) => sum + Buffer.byteLength(t, 'utf8'), 0);

function corpusTexts(): TextSet | null {
  const dir = fileURLToPath(CORPUS);
  if (!existsSync(dir)) return null;
  const t0 = performance.now();
  const texts: string[] = [];
  let skipped = 0;
  for (const name of readdirSync(dir).sort()) {
    const file = `${dir}/${name}/source.html`;
    if (!existsSync(file)) continue;
    const { document } = parseHTML(readFileSync(file, 'utf8'));
    const extraction = extractArticle(document as unknown as Document);
    if (extraction.ok) texts.push(extraction.text);
    else skipped++;
  }
  if (texts.length === 0) return null;
  return { source: `corpus ${dir}`, texts, bytes: utf8Bytes(texts), skipped, extractMs: performance.now() - t0 };
}

/** Seeded English-like text (Zipf-ish word choice), about the corpus's size. */
function generatedTexts(): TextSet {
  const random = mulberry32(20240611);
  const syllables = ['ka', 'lo', 'mi', 'ter', 'an', 'sel', 'dor', 'pu', 'ne', 'ris', 'va', 'ton', 'gle', 'bra', 'che', 'us'];
  const vocabulary = Array.from({ length: 5000 }, () => {
    const n = 1 + Math.floor(random() * 4);
    return Array.from({ length: n }, () => pick(random, syllables)).join('');
  });
  const word = (): string => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!;
  const texts: string[] = [];
  for (let t = 0; t < 120; t++) {
    const paragraphs: string[] = [];
    for (let p = 0; p < 12; p++) {
      const words = Array.from({ length: 40 + Math.floor(random() * 80) }, word);
      paragraphs.push(words.join(' ') + '..');
    }
    texts.push(paragraphs.join('\n\n'));
  }
  return { source: 'generated text (seeded, 120 texts)', texts, bytes: utf8Bytes(texts), skipped: 0, extractMs: 0 };
}

// The Chinese paragraph of test/seed-examples.test.ts (seed 001's original), repeated.
const CHINESE_PARAGRAPH =
  '知乎上有个提问,小时候缺爱的女孩子,长大后该怎么办?或许在我这里,只是希望一直有人陪。喜宝说,我想要很多很多的爱,要不就是很多很多的钱,实在不行,有健康也是好的。我有个坏毛病,经常会半夜饿到不行,爬起来找吃的。是真的饿到胃疼,有时候直接饿醒了,每次看到电影里的台词,睡着了就不饿了,我是压根不相信。为什么会半夜饿?究其原因,是大学的时候没人陪我吃饭,每次都是一直等到有人陪我的时候,我才会去吃饭,最后把自己饿到胃疼,久而久之,就渐渐习惯了熬到很晚才吃饭。我不喜欢一个人吃饭,也不喜欢一个人逛街,更不喜欢一个人呆着,可是成长啊,往往是越不喜欢的便越要学会接受它。(二)讲讲上一段恋爱吧。我和他认识的时候,是因为贴吧聚餐,他主动找我要的微信,附带一个如沐春风般的笑容。我一直以为他是被我的美色打动,后来问他原因。他说,他第一次看见那么能吃的女孩子,他惊呆了,可是有觉得看我吃饭很意思,仿佛食物都有了灵魂,让人的心情莫名的好了起来。我们初相识,是因为他看见了我饿死鬼投胎的吃相。我们在一起,是因为他厨艺很好,好到什么程度呢?就是那种你吃过一顿,就能惦记一辈子的感觉。即便是现在回忆起他来,我的味蕾都会有反应。他总是给我做很多很多好吃的,午后阳光从窗子洒进来,窗帘是淡绿色的小碎花,空气里弥漫着饭香味,我们两个人坐在桌前,一边吃饭,一边聊天。我喜欢和他一起手挽着手去菜市场买菜,西红柿土豆黄瓜小白菜,手里拎着的这些果蔬食物,就好像我拥有的全世界。有一次,我们从菜市场回去的路上,明明是艳阳高照的天气,却突然间下起了冰雹,那是他第一次看见冰雹,被砸了一下之后,便立马丢了手里的菜,双手护住我,我傻了吧唧的去捡菜,被砸了一身。他立马臭骂了我一顿,说我是他见过,最好吃的女孩子了。';
const THAI_PARAGRAPH =
  'ประเทศไทยมีประวัติศาสตร์ยาวนานและวัฒนธรรมที่หลากหลาย กรุงเทพมหานครเป็นเมืองหลวงและเป็นศูนย์กลางทางเศรษฐกิจของประเทศ ' +
  'นักท่องเที่ยวจำนวนมากเดินทางมาเพื่อชมวัดวาอารามที่สวยงามและลิ้มลองอาหารไทยที่มีรสชาติเผ็ดร้อน ' +
  'ตลาดน้ำและชายหาดทางภาคใต้ก็เป็นสถานที่ยอดนิยมเช่นกัน ในช่วงเทศกาลสงกรานต์ผู้คนจะออกมาสาดน้ำกันอย่างสนุกสนานเพื่อต้อนรับปีใหม่ไทย ' +
  'เกษตรกรในภาคเหนือปลูกข้าวและผลไม้หลายชนิด ส่วนภาคอีสานมีชื่อเสียงเรื่องอาหารรสจัดและดนตรีพื้นบ้าน\n\n';

// ---------------------------------------------------------------------------------------------
// Timing

interface Timing {
  /** Throughput of the median pass. */
  mbPerS: number;
  medianMs: number;
  passesMs: number[];
}

let sink = 0;

function timePasses(passes: number, bytes: number, run: () => void, warmUp: () => void = run): Timing {
  warmUp();
  const passesMs: number[] = [];
  for (let i = 0; i < passes; i++) {
    const t0 = performance.now();
    run();
    passesMs.push(performance.now() - t0);
  }
  const sorted = [...passesMs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const medianMs = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { mbPerS: bytes / 1e6 / (medianMs / 1000), medianMs, passesMs };
}

const doppelFingerprint = (texts: readonly string[]) => (): void => {
  for (const t of texts) sink += fingerprintText(t).tokens;
};
const doppelTokens = (texts: readonly string[]) => (): void => {
  for (const t of texts) forEachToken(normalizeText(t), (s, e) => (sink += e - s));
};
const plainRegexTokens = (texts: readonly string[]) => (): void => {
  for (const t of texts) sink += (t.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).length;
};
let wordSegmenter: Intl.Segmenter | undefined;
const segmenterWords = (texts: readonly string[]) => (): void => {
  wordSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  for (const t of texts) {
    for (let from = 0; from < t.length; from += SEGMENT_CHUNK) {
      for (const seg of wordSegmenter.segment(t.slice(from, from + SEGMENT_CHUNK))) if (seg.isWordLike) sink++;
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Run

const machine = {
  command: `npm run bench${JSON_OUTPUT ? ' -- --json' : ''}  (tsx bench/speed/speed.ts)`,
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpu: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown'}`,
};
log(`Doppel speed — ${machine.command}`);
log(`node ${machine.node}, ${machine.platform}, ${machine.cpu}`);
log();

let set = corpusTexts();
if (!set) {
  note(`Corpus not found at ${fileURLToPath(CORPUS)}: using seeded generated text instead (figures not comparable with a corpus run).`);
  set = generatedTexts();
}
const { texts, bytes } = set;
log(
  `Texts: ${texts.length} ${set.extractMs ? 'extracted article texts' : 'texts'}, ${(bytes / 1e6).toFixed(2)} MB UTF-8, from ${set.source}` +
    (set.skipped ? ` (${set.skipped} pages gave no article and are left out)` : '') +
    (set.extractMs ? `; extraction ${(set.extractMs / 1000).toFixed(1)} s, not timed` : ''),
);
log();

// simhash-js warms up on the first eighth of the texts: a full pass is slow.
const warmSubset = texts.slice(0, Math.max(1, texts.length >> 3));
const doppel = timePasses(DOPPEL_PASSES, bytes, doppelFingerprint(texts));
const simhashJs = timePasses(
  SIMHASH_JS_PASSES,
  bytes,
  () => {
    for (const t of texts) sink += new SimHash().hash(t) & 1;
  },
  () => {
    for (const t of warmSubset) sink += new SimHash().hash(t) & 1;
  },
);
const ratio = doppel.mbPerS / simhashJs.mbPerS;
// Passage fingerprints, timed right after fingerprintText on the same texts.
const passageTiming = timePasses(DOPPEL_PASSES, bytes, () => {
  for (const t of texts) sink += passageFingerprints(t).hashes.length;
});
const passageShare = passageTiming.mbPerS / doppel.mbPerS;
const passageMet = passageTiming.mbPerS >= TARGET_PASSAGE_MB_S && passageShare >= TARGET_PASSAGE_SHARE;
// Rewrite fingerprints, timed right after the passage fingerprints on the same texts; their bytes as stored.
const rewriteTiming = timePasses(DOPPEL_PASSES, bytes, () => {
  for (const t of texts) sink += rewriteFingerprints(t).hashes.length;
});
const rewriteShare = rewriteTiming.mbPerS / passageTiming.mbPerS;
const rewriteBytes = texts.map((t) => encodeRewriteBytes(rewriteFingerprints(t)).length);
const rewriteMeanBytes = rewriteBytes.reduce((a, b) => a + b, 0) / rewriteBytes.length;
const rewriteMet = rewriteTiming.mbPerS >= TARGET_REWRITE_MB_S && rewriteShare >= TARGET_REWRITE_SHARE && rewriteMeanBytes <= TARGET_REWRITE_BYTES;
const normalize = timePasses(DOPPEL_PASSES, bytes, () => {
  for (const t of texts) sink += normalizeText(t).length;
});
const tokens = timePasses(DOPPEL_PASSES, bytes, doppelTokens(texts));
const regex = timePasses(DOPPEL_PASSES, bytes, plainRegexTokens(texts));
const counting = timePasses(DOPPEL_PASSES, bytes, () => {
  for (const t of texts) sink += countFeatures(normalizeText(t)).tokens;
});

const fmt = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const passes = (t: Timing): string => `passes ${t.passesMs.map((ms) => ms.toFixed(0)).join(', ')} ms`;
const row = (label: string, t: Timing, extra = ''): void =>
  log(`  ${label.padEnd(44)} ${fmt(t.mbPerS).padStart(7)} MB/s   (${passes(t)})${extra}`);

log(`Fingerprinting the same texts (median of the timed passes, after a warm-up)`);
row('Doppel fingerprintText (simhash + check)', doppel);
row('simhash-js new SimHash().hash(text)', simhashJs);
log(`  ${'Doppel / simhash-js'.padEnd(44)} ${fmt(ratio).padStart(7)} ×      target ≥ ${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}`);
row('passageFingerprints (winnowing, k 5, w 26)', passageTiming);
log(`  ${'passages / fingerprintText'.padEnd(44)} ${fmt(passageShare).padStart(7)} ×      target ≥ ${TARGET_PASSAGE_MB_S} MB/s and ≥ ${TARGET_PASSAGE_SHARE}×: ${passageMet ? 'met' : 'NOT met'}`);
row('rewriteFingerprints (rare-word pairs)', rewriteTiming);
log(`  ${'rewrites / passages'.padEnd(44)} ${fmt(rewriteShare).padStart(7)} ×      target ≥ ${TARGET_REWRITE_MB_S} MB/s and ≥ ${TARGET_REWRITE_SHARE}×`);
log(`  ${'rewrite fingerprints, bytes a page'.padEnd(44)} ${fmt(rewriteMeanBytes).padStart(7)} B      (max ${Math.max(...rewriteBytes)}) target ≤ ${TARGET_REWRITE_BYTES} B on average: ${rewriteMet ? 'all three met' : 'NOT all met'}`);
log();
log(`Parts, on the same texts`);
row('normalizeText alone', normalize);
row('Doppel tokens (normalizeText + forEachToken)', tokens);
row('plain regex tokenizer (toLowerCase + match)', regex);
row('Doppel tokens + hash + count (countFeatures)', counting);
const afterCountingShare = Math.max(0, 1 - counting.medianMs / doppel.medianMs);
log(`  ${'share of fingerprintText after countFeatures'.padEnd(44)} ${(100 * afterCountingShare).toFixed(0).padStart(7)} %      (the two Simhash64 accumulations)`);
log();

// Unspaced scripts: Doppel (bigrams for Chinese, Intl.Segmenter for Thai) vs Intl.Segmenter.
interface ScriptFigures {
  name: string;
  chars: number;
  bytes: number;
  doppelFingerprint: Timing;
  doppelTokens: Timing;
  segmenter: Timing;
}
function scriptBench(name: string, paragraph: string, repeat: number): ScriptFigures {
  const text = [paragraph.repeat(repeat)];
  const b = utf8Bytes(text);
  return {
    name,
    chars: text[0]!.length,
    bytes: b,
    doppelFingerprint: timePasses(SCRIPT_PASSES, b, doppelFingerprint(text)),
    doppelTokens: timePasses(SCRIPT_PASSES, b, doppelTokens(text)),
    segmenter: timePasses(SCRIPT_PASSES, b, segmenterWords(text)),
  };
}
const scripts = [
  scriptBench('Chinese (seed 001 paragraph × 500)', CHINESE_PARAGRAPH, 500),
  scriptBench('Thai (a paragraph × 1000)', THAI_PARAGRAPH, 1000),
];
log(`Unspaced scripts: Doppel vs Intl.Segmenter words (${SEGMENT_CHUNK}-character chunks)`);
for (const s of scripts) {
  log(`  ${s.name}: ${s.chars.toLocaleString('en')} characters, ${(s.bytes / 1e6).toFixed(2)} MB`);
  row('  Doppel fingerprintText', s.doppelFingerprint);
  row('  Doppel tokens', s.doppelTokens);
  row('  Intl.Segmenter word split alone', s.segmenter, `  → Doppel tokens ${fmt(s.doppelTokens.mbPerS / s.segmenter.mbPerS)}×`);
}
log();

log(`In-memory index (bench/speed/index-bench.ts) …`);
const index: IndexBenchResult = await benchIndex();
log(`  ${index.size.toLocaleString('en')} fingerprints, k = ${index.k}, ${index.design}`);
log(`  build ${index.buildMs} ms; ${index.meanCandidates} candidates examined per query`);
log(
  `  query median ${index.medianQueryUs} µs, p99 ${index.p99QueryUs} µs   ` +
    `target median ≤ ${TARGET_MEDIAN_QUERY_US} µs: ${index.medianQueryUs <= TARGET_MEDIAN_QUERY_US ? 'met' : 'NOT met'}`,
);
log();

const totalS = (performance.now() - started) / 1000;
log(`Total ${totalS.toFixed(1)} s.`);
if (sink === 42) log(''); // keeps the measured work observable

if (JSON_OUTPUT) {
  const round = (x: number): number => Number(x.toFixed(3));
  const timing = (t: Timing) => ({ mbPerS: round(t.mbPerS), medianMs: round(t.medianMs), passesMs: t.passesMs.map(round) });
  console.log(
    JSON.stringify({
      machine,
      texts: { source: set.source, count: texts.length, bytes, skipped: set.skipped, extractMs: Math.round(set.extractMs) },
      fingerprint: {
        doppel: timing(doppel),
        simhashJs: timing(simhashJs),
        ratio: round(ratio),
        targetRatio: TARGET_RATIO,
        targetMet: ratio >= TARGET_RATIO,
      },
      passages: { fingerprint: timing(passageTiming), share: round(passageShare), targetMbPerS: TARGET_PASSAGE_MB_S, targetShare: TARGET_PASSAGE_SHARE, targetMet: passageMet },
      rewrites: { fingerprint: timing(rewriteTiming), shareOfPassages: round(rewriteShare), meanBytes: round(rewriteMeanBytes), maxBytes: Math.max(...rewriteBytes), targetMbPerS: TARGET_REWRITE_MB_S, targetShare: TARGET_REWRITE_SHARE, targetBytes: TARGET_REWRITE_BYTES, targetMet: rewriteMet },
      parts: {
        normalizeText: timing(normalize),
        doppelTokens: timing(tokens),
        plainRegexTokenizer: timing(regex),
        countFeatures: timing(counting),
        afterCountingShare: round(afterCountingShare),
      },
      scripts: scripts.map((s) => ({
        name: s.name,
        chars: s.chars,
        bytes: s.bytes,
        doppelFingerprint: timing(s.doppelFingerprint),
        doppelTokens: timing(s.doppelTokens),
        segmenter: timing(s.segmenter),
      })),
      index: { ...index, targetMedianQueryUs: TARGET_MEDIAN_QUERY_US, targetMet: index.medianQueryUs <= TARGET_MEDIAN_QUERY_US },
      totalS: round(totalS),
    }),
  );
}
