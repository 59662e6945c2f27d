// Which page is the original, as the store keeps it (lib/report/original.ts's rule in
// lib/store/page-groups.ts, page-passages.ts, page-rewrites.ts, passage-organise.ts and tally.ts):
// the samples' tide-mill article read after a content farm's near-duplicate, a farm's rewrite, an
// excerpt and a partner's credited copy. Once the original is recorded, with the date it states,
// every copy is marked as such at once, the counts follow, the honest publisher is not flagged and
// the partner republishes with credit; the same history in any order, or imported, ends the same.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { readHtml } from '../lib/background/html-reader';
import { fingerprintText } from '../lib/fingerprint/features';
import { passageFingerprints } from '../lib/fingerprint/passages';
import { rewriteFingerprints } from '../lib/fingerprint/rewrites';
import type { Provenance } from '../lib/text/provenance';
import type { PageStore, Visit } from '../lib/store/pages';
import { organise } from '../lib/organise/regroup';
import { exportPages, importLines } from '../lib/store/transfer';
import { readSiteEvidence, readSiteStanding } from '../lib/ui/history-data';
import { mulberry32 } from '../lib/random';
import { freshStore } from './support/fresh-store';
import { expectCountsKept } from './support/kept-counts';

const SAMPLES = new URL('../samples', import.meta.url).pathname;
const DAY = 86_400_000;
const T = Date.UTC(2026, 4, 1);

function sampleText(path: string): string {
  const read = readHtml(readFileSync(join(SAMPLES, path), 'utf8'), 'https://example.invalid/', (html) => parseHTML(html).document as unknown as Document);
  if (read.outcome.kind !== 'article') throw new Error(`${path} is not an article`);
  return read.outcome.text;
}

const original = sampleText('original-site/2024/05/wrenmouth-tide-mill-turns-again.html');
const paragraphs = original.split('\n\n');
const TEXTS = {
  original,
  // a near-duplicate: one word changed
  copy: original.replace('volunteers', 'helpers'),
  rewrite: sampleText('rewrite-mill/2024/05/historic-tide-mill-spins-again.html'),
  // an excerpt: the first third (no near-duplicate of the whole)
  excerpt: paragraphs.slice(0, Math.ceil(paragraphs.length / 3)).join('\n\n'),
  unrelated: sampleText('original-site/2024/06/night-bus-trial-extended.html'),
};

const URLS = {
  original: 'https://courier.example/mill',
  farmLate: 'https://farm-late.example/mill',
  farmRewrite: 'https://farm-nodate.example/mill',
  farmExcerpt: 'https://farm-excerpt.example/mill',
  partner: 'https://partner.example/mill',
  ownStory: 'https://courier.example/bus',
};

/** A visit to `url` with `text` at `now`, fingerprinted as the recorder does, with what the page says of where it comes from. */
function visitOf(url: string, text: string, now: number, provenance: Provenance = {}): Visit {
  const { simhash, check } = fingerprintText(text);
  const { words, hashes, positions, wordBits } = passageFingerprints(text);
  return { url, title: url, site: new URL(url).host, simhash, check, passages: { words, hashes, positions, wordBits }, rewrites: rewriteFingerprints(text), provenance, now };
}

/** The history: four copies, each read before the original (which states its date, before any of them was seen), and the publisher's own other story. */
const VISITS: readonly { url: string; text: string; provenance: Provenance }[] = [
  { url: URLS.farmLate, text: TEXTS.copy, provenance: { published: T + 3 * DAY } },
  { url: URLS.farmRewrite, text: TEXTS.rewrite, provenance: {} },
  { url: URLS.farmExcerpt, text: TEXTS.excerpt, provenance: {} },
  { url: URLS.partner, text: TEXTS.copy, provenance: { published: T + DAY / 4, source: URLS.original, sourceBy: 'canonical' } },
  { url: URLS.original, text: TEXTS.original, provenance: { published: T } },
  { url: URLS.ownStory, text: TEXTS.unrelated, provenance: { published: T + 9 * DAY } },
];

async function visitInOrder(store: PageStore, order: readonly number[]): Promise<void> {
  for (const [n, i] of order.entries()) {
    const { url, text, provenance } = VISITS[i]!;
    await store.record(visitOf(url, text, T + (5 + n) * DAY, provenance));
  }
}

/** Each page's copy marks: [url, copySite, contentCopy]. */
async function marks(store: PageStore): Promise<[string, string | undefined, boolean][]> {
  return Promise.all(
    Object.values(URLS).map(async (url) => {
      const record = await store.get(url);
      return [url, record?.copySite, record?.contentCopy === true] as [string, string | undefined, boolean];
    }),
  );
}

/** Each site's standing as the history page reads it. */
async function standings(store: PageStore): Promise<string[]> {
  const sites = [...new Set(Object.values(URLS).map((url) => new URL(url).host))];
  return Promise.all(
    sites.map(async (site) => {
      const { pages, copies, credited, flagged, creditsSources } = await readSiteStanding(store, site, null);
      return `${site} ${copies}/${pages}${credited > 0 ? ` (${credited} credited)` : ''}${flagged ? ' flagged' : ''}${creditsSources ? ' with credit' : ''}`;
    }),
  );
}

const WANT_MARKS = [
  [URLS.original, undefined, false],
  [URLS.farmLate, 'farm-late.example', true],
  [URLS.farmRewrite, 'farm-nodate.example', true],
  [URLS.farmExcerpt, 'farm-excerpt.example', true], // its rare words in order link it to the story's group too
  [URLS.partner, 'partner.example', true],
  [URLS.ownStory, undefined, false],
];
const WANT_STANDINGS = [
  'courier.example 0/2',
  'farm-late.example 1/1 flagged',
  'farm-nodate.example 1/1 flagged',
  'farm-excerpt.example 1/1 flagged',
  'partner.example 1/1 (1 credited) with credit',
];

describe('the original by its own evidence, kept by the store', () => {
  it('copies read before the original: before it is recorded the farms look original; once it is, every copy is marked, the counts follow, and the publisher is clean', async () => {
    const store = await freshStore();
    await visitInOrder(store, [0, 1, 2, 3]);
    // the original not yet read: the farm seen first would be the original by the order of reading,
    // but the partner names a page that is not here and claims an earlier date: it is the farm's original
    expect((await store.get(URLS.farmLate))!.copySite).toBe('farm-late.example');
    expect((await store.get(URLS.partner))!.copySite).toBeUndefined();
    await visitInOrder(store, [4, 5]);
    expect(await marks(store)).toEqual(WANT_MARKS);
    expect(await standings(store)).toEqual(WANT_STANDINGS);
    await expectCountsKept(store.db, 'after the original');
    // the evidence lists each copy beside the original
    for (const site of ['farm-late.example', 'farm-nodate.example', 'farm-excerpt.example', 'partner.example']) {
      expect((await readSiteEvidence(store, site)).map((e) => e.original.url)).toEqual([URLS.original]);
    }
  });

  it('any reading order ends the same', async () => {
    const random = mulberry32(46);
    for (let round = 0; round < 4; round++) {
      const order = [0, 1, 2, 3, 4, 5].sort(() => random() - 0.5);
      const store = await freshStore();
      await visitInOrder(store, order);
      expect([order, await marks(store)]).toEqual([order, WANT_MARKS]);
      expect([order, await standings(store)]).toEqual([order, WANT_STANDINGS]);
      await expectCountsKept(store.db, `order ${order.join('')}`);
    }
  }, 60_000);

  it('a revisit that tells the date the first visit lacked makes the page the original again', async () => {
    const store = await freshStore();
    await visitInOrder(store, [0, 1, 2]);
    // the original read once without its date (a page that changed, or a reader that missed it): the farms were seen first
    await store.record(visitOf(URLS.original, TEXTS.original, T + 20 * DAY));
    expect((await store.get(URLS.original))!.copySite).toBe('courier.example');
    expect(await readSiteStanding(store, 'courier.example', null)).toMatchObject({ copies: 1, flagged: true });
    await store.record(visitOf(URLS.original, TEXTS.original, T + 21 * DAY, { published: T }));
    expect((await store.get(URLS.original))!).toMatchObject({ published: T });
    expect((await store.get(URLS.original))!.copySite).toBeUndefined();
    expect((await store.get(URLS.farmExcerpt))!.contentCopy).toBe(true);
    expect(await readSiteStanding(store, 'courier.example', null)).toMatchObject({ copies: 0, flagged: false });
    await expectCountsKept(store.db, 'after the revisit');
  });

  it('an export carries what the pages claim; imported into a new store and organised, the copies are the same', async () => {
    const visited = await freshStore();
    await visitInOrder(visited, [0, 1, 2, 3, 4, 5]);
    const lines: string[] = [];
    for await (const line of exportPages(visited)) lines.push(line);
    const partner = JSON.parse(lines.find((line) => line.includes('partner.example'))!);
    expect(partner).toMatchObject({ published: new Date(T + DAY / 4).toISOString(), source: URLS.original, sourceBy: 'canonical' });

    const imported = await freshStore();
    const summary = await importLines(imported, lines, { now: T + 30 * DAY });
    expect(summary.added).toBe(6);
    await organise(imported, 3);
    expect(await marks(imported)).toEqual(WANT_MARKS);
    expect(await standings(imported)).toEqual(WANT_STANDINGS);
    await expectCountsKept(imported.db, 'imported');
  });
});
