// Rewrites and translations as copies (lib/report/copies.ts isRewriteCopy, kept as contentCopy by
// lib/store/page-rewrites.ts, page-passages.ts and passage-organise.ts): the samples' original
// tide-mill article, its content farm's rewrite and its Spanish and Chinese translations, read as
// the extension reads them. A rewrite of a page first seen before it on another site is a copy,
// tallied by the sites that copy (once, though it is also in its original's group) and listed
// beside its original; one on the same site, or seen first, is not; forgetting its original
// unflags it; an import flags it once organised. The history folds the rewrite and the
// translations into the original's entry (lib/store/page-groups.ts), and the popup's lists stay
// as they were: no rewrite is listed as a near-duplicate.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { readHtml } from '../lib/background/html-reader';
import { fingerprintText } from '../lib/fingerprint/features';
import { passageFingerprints } from '../lib/fingerprint/passages';
import { rewriteFingerprints } from '../lib/fingerprint/rewrites';
import type { PageStore, Visit } from '../lib/store/pages';
import { rewriteCopiesMadeBy } from '../lib/store/page-rewrites';
import { indexPending } from '../lib/organise/passage-organise';
import { organise } from '../lib/organise/regroup';
import { exportPages, importLines } from '../lib/store/transfer';
import { evidenceVerb, readHistory, readOverview, readSiteEvidence, readSiteStanding } from '../lib/ui/history-data';
import { freshStore } from './support/fresh-store';
import { expectCountsKept } from './support/kept-counts';
import { localizerFor } from './support/catalogues';

const SAMPLES = new URL('../samples', import.meta.url).pathname;

/** A sample page's text, as the reader document reads it. */
function sampleText(path: string): string {
  const read = readHtml(readFileSync(join(SAMPLES, path), 'utf8'), 'https://example.invalid/', (html) => parseHTML(html).document as unknown as Document);
  if (read.outcome.kind !== 'article') throw new Error(`${path} is not an article`);
  return read.outcome.text;
}

const TEXTS = {
  original: sampleText('original-site/2024/05/wrenmouth-tide-mill-turns-again.html'),
  rewrite: sampleText('rewrite-mill/2024/05/historic-tide-mill-spins-again.html'),
  spanish: sampleText('traducciones/2024/05/el-molino-de-marea-de-wrenmouth-vuelve-a-girar.html'),
  chinese: sampleText('zh/2024/05/wrenmouth-tide-mill.html'),
};

/** A visit to `url` with `text` at `now`, fingerprinted as the recorder does (rewrite fingerprints left out with `rewrites: false`). */
function visitOf(url: string, text: string, now: number, { rewrites = true }: { rewrites?: boolean } = {}): Visit {
  const { simhash, check } = fingerprintText(text);
  const { words, hashes, positions, wordBits } = passageFingerprints(text);
  return { url, title: url, site: new URL(url).host, simhash, check, passages: { words, hashes, positions, wordBits }, ...(rewrites ? { rewrites: rewriteFingerprints(text) } : {}), now };
}

const ORIGINAL = 'https://wrenmouth.example/mill';
const REWRITE = 'https://rewrite-mill.example/mill';
const SPANISH = 'https://traducciones.example/molino';
const CHINESE = 'https://zh.example/mill';

/** Records the original, the rewrite, the Spanish and the Chinese translation, a day apart, in that order. */
async function visitAll(store: PageStore): Promise<void> {
  await store.record(visitOf(ORIGINAL, TEXTS.original, 1 * 86_400_000));
  await store.record(visitOf(REWRITE, TEXTS.rewrite, 2 * 86_400_000));
  await store.record(visitOf(SPANISH, TEXTS.spanish, 3 * 86_400_000));
  await store.record(visitOf(CHINESE, TEXTS.chinese, 4 * 86_400_000));
}

/** Which of the URLs are marked contentCopy. */
async function contentCopies(store: PageStore, urls: readonly string[]): Promise<string[]> {
  const records = await Promise.all(urls.map((url) => store.get(url)));
  return urls.filter((_, i) => records[i]?.contentCopy === true);
}

/** Each site's pages and copies as the history page reads them (readSiteStanding), flagged or not. */
async function standings(store: PageStore, urls: readonly string[]): Promise<string[]> {
  return Promise.all(
    urls.map(async (url) => {
      const { site, pages, copies, flagged } = await readSiteStanding(store, new URL(url).host, null);
      return `${site} ${copies}/${pages}${flagged ? ' flagged' : ''}`;
    }),
  );
}

const ALL = [ORIGINAL, REWRITE, SPANISH, CHINESE];

/** The history's entries, each as its root's URL then its copies'. */
async function historyEntries(store: PageStore): Promise<string[][]> {
  const { entries } = await readHistory(store, {}, { limit: 10, shown: new Set() });
  return entries.map((e) => [e.root.url, ...e.copies.map((c) => c.url)]);
}

describe('rewrites and translations as copies', () => {
  it('a rewrite or translation of a page first seen before on another site is a copy, tallied, and listed beside its original', async () => {
    const store = await freshStore();
    await store.record(visitOf(ORIGINAL, TEXTS.original, 86_400_000));
    const recorded = await store.record(visitOf(REWRITE, TEXTS.rewrite, 2 * 86_400_000));
    // neither a near-duplicate nor a passage copy: a copy by its rewrite alone
    expect([recorded.matches.length, recorded.passages.length, recorded.rewrites.map((m) => m.record.url)]).toEqual([0, 0, [ORIGINAL]]);
    expect(recorded.record.contentCopy).toBe(true);
    // and in its original's group, a copy by that too: the sites that copy count it once
    expect(recorded.record.copySite).toBe('rewrite-mill.example');
    expect(recorded.record.group).toBe((await store.get(ORIGINAL))!.group);
    await store.record(visitOf(SPANISH, TEXTS.spanish, 3 * 86_400_000));
    await store.record(visitOf(CHINESE, TEXTS.chinese, 4 * 86_400_000));

    expect(await contentCopies(store, ALL)).toEqual([REWRITE, SPANISH, CHINESE]);
    expect(await standings(store, ALL)).toEqual(['wrenmouth.example 0/1', 'rewrite-mill.example 1/1 flagged', 'traducciones.example 1/1 flagged', 'zh.example 1/1 flagged']);
    await expectCountsKept(store.db, 'after the visits');

    // the evidence: each beside the earliest page of another site, seen before it, that it rewrites
    const evidence = async (url: string) =>
      (await readSiteEvidence(store, new URL(url).host)).map(({ copy, original, share, rewrite }) => ({ copy: copy.url, original: original.url, share, rewrite }));
    expect(await evidence(REWRITE)).toEqual([{ copy: REWRITE, original: ORIGINAL, share: undefined, rewrite: { translated: false, language: 'en' } }]);
    expect(await evidence(SPANISH)).toEqual([{ copy: SPANISH, original: ORIGINAL, share: undefined, rewrite: { translated: true, language: 'es' } }]);
    expect(await evidence(CHINESE)).toEqual([{ copy: CHINESE, original: ORIGINAL, share: undefined, rewrite: { translated: true, language: 'zh' } }]);
    expect(await readSiteEvidence(store, 'wrenmouth.example')).toEqual([]);
  });

  it('the history folds the rewrite and the translations into the original\'s entry; the popup lists them as rewrites, never as near-duplicates', async () => {
    const store = await freshStore();
    await visitAll(store);
    expect(await historyEntries(store)).toEqual([[ORIGINAL, REWRITE, SPANISH, CHINESE]]);
    expect(await readOverview(store)).toEqual({ pages: 4, articles: 1, groups: 1 });
    for (const url of ALL) {
      const { near, passages, rewrites } = (await store.getWithNear(url))!;
      expect([url, near.length, passages.length, rewrites.length]).toEqual([url, 0, 0, 3]);
    }
    expect(await standings(store, ALL)).toEqual(['wrenmouth.example 0/1', 'rewrite-mill.example 1/1 flagged', 'traducciones.example 1/1 flagged', 'zh.example 1/1 flagged']);
    await expectCountsKept(store.db, 'after the visits');

    // the original forgotten: the rewrite, read first of the rest, heads the entry of the pages it links
    expect(await store.forget(ORIGINAL)).toBe(true);
    expect(await historyEntries(store)).toEqual([[REWRITE, SPANISH, CHINESE]]);
    expect((await store.get(REWRITE))!.copySite).toBeUndefined();
    expect(await standings(store, [REWRITE, SPANISH, CHINESE])).toEqual(['rewrite-mill.example 0/1', 'traducciones.example 1/1 flagged', 'zh.example 1/1 flagged']);
    await expectCountsKept(store.db, 'after forgetting the original');

    // an import of all four, organised, folds them as the visits did
    const lines: string[] = [];
    const source = await freshStore();
    await visitAll(source);
    for await (const line of exportPages(source)) lines.push(line);
    const imported = await freshStore();
    await importLines(imported, lines, { now: 5 * 86_400_000 });
    expect(await historyEntries(imported)).toHaveLength(4);
    await organise(imported, 3);
    expect(await historyEntries(imported)).toEqual([[ORIGINAL, REWRITE, SPANISH, CHINESE]]);
    await expectCountsKept(imported.db, 'after organising the import');
  });

  it('the evidence says rewrite or translation, in each language', () => {
    const cases = [
      ['en', { rewrite: { translated: false, language: 'en' as const } }, 'looks like a rewrite of'],
      ['en', { rewrite: { translated: true, language: 'es' as const } }, 'looks like the Spanish translation of'],
      ['es', { rewrite: { translated: true, language: 'zh' as const } }, 'parece la traducción al chino de'],
      ['zh_CN', { rewrite: { translated: true, language: 'es' as const } }, '看起来是西班牙语译本，译自'],
      ['zh_CN', { rewrite: { translated: false, language: 'zh' as const } }, '看起来改写自'],
      // a translation into a language the detector cannot name reads as a rewrite
      ['en', { rewrite: { translated: true, language: 'und' as const } }, 'looks like a rewrite of'],
      ['en', {}, 'copies'],
      ['en', { share: 0.62 }, 'repeats 62% of its words from'],
    ] as const;
    for (const [folder, evidence, words] of cases) expect(evidenceVerb(localizerFor(folder), evidence)).toBe(words);
  });

  it('a rewrite on the same site is no copy; of two rewrites on two sites, the one seen later is the copy', async () => {
    const store = await freshStore();
    await store.record(visitOf('https://wrenmouth.example/mill', TEXTS.original, 86_400_000));
    await store.record(visitOf('https://wrenmouth.example/mill-again', TEXTS.rewrite, 2 * 86_400_000));
    expect(await contentCopies(store, ['https://wrenmouth.example/mill', 'https://wrenmouth.example/mill-again'])).toEqual([]);
    expect(await standings(store, [ORIGINAL])).toEqual(['wrenmouth.example 0/2']);

    // the rewrite read first: the article read later is the copy of it
    const other = await freshStore();
    await other.record(visitOf(REWRITE, TEXTS.rewrite, 86_400_000));
    await other.record(visitOf(ORIGINAL, TEXTS.original, 2 * 86_400_000));
    expect(await contentCopies(other, [ORIGINAL, REWRITE])).toEqual([ORIGINAL]);
    expect(await standings(other, [ORIGINAL, REWRITE])).toEqual(['wrenmouth.example 1/1 flagged', 'rewrite-mill.example 0/1']);
  });

  it('forgetting the original unflags a rewrite with no other source, and the tally drops; a translation of the rewrite stays a copy of it', async () => {
    const store = await freshStore();
    await visitAll(store);
    expect(await store.forget(ORIGINAL)).toBe(true);
    // the rewrite was read before the translations: it is the earliest page it rewrites now
    expect(await contentCopies(store, [REWRITE, SPANISH, CHINESE])).toEqual([SPANISH, CHINESE]);
    expect(await standings(store, [REWRITE, SPANISH, CHINESE])).toEqual(['rewrite-mill.example 0/1', 'traducciones.example 1/1 flagged', 'zh.example 1/1 flagged']);
    expect((await readSiteEvidence(store, 'traducciones.example')).map(({ original }) => original.url)).toEqual([REWRITE]);
    await expectCountsKept(store.db, 'after forgetting the original');
    expect(await store.forget(REWRITE)).toBe(true);
    // the Chinese translation, read after the Spanish, is a copy of it; the Spanish has no earlier source
    expect(await contentCopies(store, [SPANISH, CHINESE])).toEqual([CHINESE]);
    await expectCountsKept(store.db, 'after forgetting the rewrite');
  });

  it('a page that is a copy by its rewrite stays one when a page it shares a passage with goes', async () => {
    const store = await freshStore();
    await store.record(visitOf(ORIGINAL, TEXTS.original, 86_400_000));
    // a page of a third site, read before the rewrite, quoting one of its paragraphs (far less than half of it)
    const paragraph = TEXTS.rewrite.split('\n').filter((p) => p.split(' ').length >= 40)[0]!;
    const quote = `${paragraph}\n${readFileSync(join(SAMPLES, 'notes/why-i-keep-a-field-notebook.txt'), 'utf8')}`;
    await store.record(visitOf('https://quotes.example/q', quote, 1.5 * 86_400_000, { rewrites: false }));
    const recorded = await store.record(visitOf(REWRITE, TEXTS.rewrite, 2 * 86_400_000));
    expect(recorded.passages.map((m) => [m.record.url, m.match.share < 0.5])).toEqual([['https://quotes.example/q', true]]);
    expect(recorded.record.contentCopy).toBe(true);
    // the quoting page made no copy with its passages; the original makes the rewrite a copy
    const made = await store.read(async (rows, _tx, _passages, rewrites) => rewriteCopiesMadeBy(rows, rewrites, (await rows.byUrl(ORIGINAL))!));
    expect(made).toEqual([recorded.record.id]);
    // forgetting the quoting page rechecks the rewrite (it shared a passage with it): still a copy, by its rewrite
    expect(await store.forget('https://quotes.example/q')).toBe(true);
    expect(await contentCopies(store, [REWRITE])).toEqual([REWRITE]);
    await expectCountsKept(store.db, 'after forgetting the quoting page');
  });

  it('an import with rewrites flags the copies once organised, as visits would; pages stored before become copies of earlier imported pages', async () => {
    const source = await freshStore();
    await visitAll(source);
    const lines: string[] = [];
    for await (const line of exportPages(source)) lines.push(line);

    const store = await freshStore();
    await importLines(store, lines, { now: 5 * 86_400_000 });
    // the rewrite fingerprints wait for organising: no page is a copy by them yet
    expect(await contentCopies(store, ALL)).toEqual([]);
    // an import of more pages' blocks than maxRewriteLookups: its pages looked up in the index read into memory, with the same copies
    const large = await freshStore();
    await importLines(large, lines, { now: 5 * 86_400_000 });
    expect(await indexPending(large, { maxRewriteLookups: 63 })).toMatchObject({ pages: 4, copiesChanged: 3, rewriteLookups: 4, rewritesInMemory: true });
    expect(await contentCopies(large, ALL)).toEqual([REWRITE, SPANISH, CHINESE]);
    expect(await standings(large, ALL)).toEqual(['wrenmouth.example 0/1', 'rewrite-mill.example 1/1 flagged', 'traducciones.example 1/1 flagged', 'zh.example 1/1 flagged']);
    await expectCountsKept(large.db, 'after organising the import in memory');

    expect(await indexPending(store, { maxRewriteLookups: 64 })).toMatchObject({ pages: 4, copiesChanged: 3, rewriteLookups: 4, rewritesInMemory: false });
    expect(await contentCopies(store, ALL)).toEqual([REWRITE, SPANISH, CHINESE]);
    expect(await standings(store, ALL)).toEqual(['wrenmouth.example 0/1', 'rewrite-mill.example 1/1 flagged', 'traducciones.example 1/1 flagged', 'zh.example 1/1 flagged']);
    expect((await readSiteEvidence(store, 'zh.example')).map(({ original, rewrite }) => [original.url, rewrite?.translated])).toEqual([[ORIGINAL, true]]);
    await expectCountsKept(store.db, 'after organising the import');

    // the rewrite visited first (no copy), then the original imported, first seen a day before it;
    // pages between them put the original in another block of 64 ids, which organising looks up
    // (looked up through the store, and in the index read into memory)
    for (const maxRewriteLookups of [64, 0]) {
      const visited = await freshStore();
      await visited.record(visitOf(REWRITE, TEXTS.rewrite, 2 * 86_400_000));
      for (let i = 1; i < 64; i++) {
        const { simhash, check } = fingerprintText(`filler page ${i} with words of its own ${i * 7919}`);
        await visited.record({ url: `https://filler.example/${i}`, title: 'filler', site: 'filler.example', simhash, check, now: 2 * 86_400_000 + i });
      }
      expect(await contentCopies(visited, [REWRITE])).toEqual([]);
      await importLines(visited, lines.filter((line) => !line.includes('"url"') || line.includes(ORIGINAL)), { now: 5 * 86_400_000 });
      expect(await indexPending(visited, { maxRewriteLookups })).toMatchObject({ rewriteLookups: 2, rewritesInMemory: maxRewriteLookups === 0 }); // the original, then the rewrite it makes a copy
      expect((await visited.get(ORIGINAL))!.id).toBe(64);
      expect(await contentCopies(visited, [ORIGINAL, REWRITE])).toEqual([REWRITE]);
      expect(await standings(visited, [ORIGINAL, REWRITE])).toEqual(['wrenmouth.example 0/1', 'rewrite-mill.example 1/1 flagged']);
      await expectCountsKept(visited.db, `after organising an import of the original (maxRewriteLookups ${maxRewriteLookups})`);
    }
  });
});
