// `npm run bench:passages-alone`: the extension's passage decision, offline. The extension keeps
// no text, so a page it looks up and the pages it compares with have their passage fingerprints
// only (hashes and positions); scan has both texts' words and extends each match to the whole
// shared run. On bench:quality's pages (the whole copies and the partial copies: excerpt-30,
// stitched, a 60-word quote), this scores what each page's own lookup links, from what the
// extension keeps, as the popups do, and how far the passages' ends are from the copied run's
// ends (the run as scan finds it from both texts' words), on the copy's side: with word bits, and
// without them (fingerprints imported from an older file).
import { parseHTML } from 'linkedom';
import { type PassageFingerprints, type WordPassageFingerprints, passageFingerprints } from '../../lib/fingerprint/passages';
import { PassageIndex, comparePassages, findSharedPassages } from '../../lib/index/passage-index';
import { extractArticle } from '../../lib/text/extract';
import { siteOfHtml } from '../../lib/scan/reuse';
import { buildPartialCopies, buildQualitySet } from '../data/republish';
import { partialPageSources, scorePartialLinks } from './quality-partial';

interface Page {
  path: string;
  words: WordPassageFingerprints;
  /** What the extension keeps: fingerprints and word bits. */
  kept: PassageFingerprints;
  site: string | null;
}

function pagesOf(): { pages: Page[]; set: ReturnType<typeof buildQualitySet>; partial: ReturnType<typeof buildPartialCopies> } {
  const set = buildQualitySet();
  const partial = buildPartialCopies(set);
  const pages: Page[] = [];
  for (const { path, html } of [...set.pages, ...partial]) {
    const e = extractArticle(parseHTML(html).document as unknown as Document, { cloneFirst: false });
    if (!e.ok) continue;
    const f = passageFingerprints(e.text);
    pages.push({ path, words: { words: f.words, hashes: f.hashes, positions: f.positions, wordHashes: f.wordHashes }, kept: { words: f.words, hashes: f.hashes, positions: f.positions, wordBits: f.wordBits! }, site: siteOfHtml(html) });
  }
  return { pages, set, partial };
}

const started = performance.now();
const { pages, set, partial } = pagesOf();
console.log(`${pages.length} pages read in ${((performance.now() - started) / 1000).toFixed(0)} s`);
const partialOf = new Map(partial.map((p) => [p.path, p]));

/** Each page's own lookup over `kept` (its fingerprints, with or without word bits), scored as bench:browser-quality scores popups. */
async function run(label: string, kept: (p: Page) => PassageFingerprints): Promise<void> {
  const index = new PassageIndex();
  pages.forEach((p, i) => index.add(i, kept(p), p.site));
  const links: { a: string; b: string }[] = [];
  const endErrors = new Map<string, number[]>();
  for (let i = 0; i < pages.length; i++) {
    const own = pages[i]!;
    for (const m of await findSharedPassages(index, kept(own), i)) {
      const other = pages[m.id]!;
      links.push({ a: own.path, b: other.path });
      const copy = partialOf.get(own.path);
      if (copy === undefined || !copy.sources.some((source) => other.path === `${source}/original.html`)) continue;
      // the copied runs, from both texts' words (scan's passages)
      const exact = comparePassages(own.words, other.words, { ignore: (h) => index.isBoilerplate(h) }).passages;
      for (const p of m.passages) {
        const shared = exact.find((q) => q.a.start < p.a.end && p.a.start < q.a.end);
        if (shared === undefined) continue;
        const list = endErrors.get(copy.kind) ?? endErrors.set(copy.kind, []).get(copy.kind)!;
        list.push(Math.abs(shared.a.start - p.a.start), Math.abs(shared.a.end - p.a.end));
      }
    }
  }
  const result = scorePartialLinks(partialPageSources(set, partial), { pairs: [], reuse: links });
  console.log(`\n${label}`);
  for (const r of result.rows) console.log(`  ${r.row.padEnd(16)} ${((100 * r.either) / Math.max(1, r.total)).toFixed(1)}% (${r.either}/${r.total})${r.target === null ? '' : `  target ≥ ${100 * r.target}%`}`);
  console.log(`  false links      ${result.falseReuse.length}${result.falseReuse.slice(0, 5).map((f) => `\n    ${f.a} ~ ${f.b}`).join('')}`);
  for (const [kind, errors] of endErrors) {
    errors.sort((x, y) => x - y);
    const within5 = errors.filter((e) => e <= 5).length;
    console.log(`  ends of ${kind} passages on the copy's side: median ${errors[errors.length >> 1]} words from the copied run's, ${((100 * within5) / errors.length).toFixed(1)}% within 5 words (${errors.length} ends)`);
  }
}

await run('Fingerprints without word bits (pages imported from a file written before word bits):', ({ kept: { words, hashes, positions } }) => ({ words, hashes, positions }));
await run('Fingerprints and word bits (what the extension keeps):', (p) => p.kept);
