// Which document of a pair or a cluster `scan` names as the original (lib/scan/original.ts), from
// what each page says (lib/scan/scan.ts fingerprintDocument reads it): its credit line, its
// canonical link on another site (known only where the page's own address is), its date. A folder
// has no reading order, so where only that order would decide, no original is named.
import { describe, expect, it } from 'vitest';
import { parseHTML } from 'linkedom';
import { claimsOf, originalOfCluster, originalOfPair, originalWords, withOriginals } from '../lib/scan/original';
import { type ScannedDocument, addressOfPath, fingerprintDocument } from '../lib/scan/scan';

const parse = (html: string): Document => parseHTML(html).document as unknown as Document;
const NOW = Date.UTC(2026, 10, 29);
const BODY = Array.from({ length: 12 }, (_, i) => `<p>The mill on the Wren estuary turned again on Saturday for the first time since 1934, sentence ${i}, after eleven years of work by volunteers.</p>`).join('');
const page = (head: string, extra = ''): string => `<!doctype html><html><head><title>Mill</title>${head}</head><body><article><h1>Mill</h1>${BODY}${extra}</article></body></html>`;
const doc = (path: string, html: string): ScannedDocument => fingerprintDocument({ path, kind: 'html', content: html }, parse, {}, undefined, NOW).document;

const ORIGINAL = 'https://courier.example/mill';

describe('addressOfPath', () => {
  it.each([
    ['courier.example/2024/mill.html', 'https://courier.example/2024/mill.html'],
    ['www.news.co.uk/a b.html', 'https://www.news.co.uk/a%20b.html'],
    ['localhost:8080/x.html', undefined],
    ['folder.html/login.html', undefined], // a folder named like a file
    ['original-site/2024/mill.html', undefined],
    ['mill.html', undefined],
    ['courier.example', undefined],
  ])('%s → %s', (path, want) => expect(addressOfPath(path)).toBe(want));
});

describe('what scan reads of each page', () => {
  it('its declared address, its date, and a canonical link elsewhere only where its own address is known', () => {
    const original = doc('courier.example/mill.html', page(`<link rel="canonical" href="${ORIGINAL}"><meta property="article:published_time" content="2024-05-04T16:20:00+01:00">`));
    expect(original).toMatchObject({ url: 'https://courier.example/mill.html', address: ORIGINAL, published: '2024-05-04T15:20:00.000Z' });
    expect(original.source).toBeUndefined();
    const partner = doc('partner.example/mill.html', page(`<link rel="canonical" href="${ORIGINAL}">`));
    expect(partner).toMatchObject({ url: 'https://partner.example/mill.html', address: ORIGINAL, source: ORIGINAL, sourceBy: 'canonical' });
    // in a folder not named after its host, a page is where it says it is: its canonical link is its own
    const unknown = doc('partner/mill.html', page(`<link rel="canonical" href="${ORIGINAL}">`));
    expect(unknown).toMatchObject({ address: ORIGINAL });
    expect(unknown.url).toBeUndefined();
    expect(unknown.source).toBeUndefined();
  });

  it('a credit line names its source wherever the page is', () => {
    const farm = doc('farm/mill.html', page('', `<p><em>This story was originally published on <a href="${ORIGINAL}">The Courier</a>.</em></p>`));
    expect(farm).toMatchObject({ source: ORIGINAL, sourceBy: 'credit' });
  });

  it('a date in the future of the scan is no date; a text file says nothing', () => {
    expect(doc('a/x.html', page('<meta property="article:published_time" content="2027-01-01">')).published).toBeUndefined();
    const text = fingerprintDocument({ path: 'n.txt', kind: 'text', content: `Notes\n\n${'words of a note '.repeat(20)}` }, parse).document;
    expect(Object.keys(text).sort()).toEqual(['path', 'simhash', 'title', 'words']);
  });
});

describe('the original of a pair and of a cluster', () => {
  const original = doc('courier.example/mill.html', page(`<link rel="canonical" href="${ORIGINAL}"><meta property="article:published_time" content="2024-05-04">`));
  const partner = doc('partner.example/mill.html', page(`<link rel="canonical" href="${ORIGINAL}"><meta property="article:published_time" content="2024-05-04">`));
  const farm = doc('farm/mill.html', page('', `<p><em>This story was originally published on <a href="${ORIGINAL}">The Courier</a>.</em></p>`));
  const late = doc('late/mill.html', page('<meta property="article:published_time" content="2024-05-09">'));
  const undated = doc('undated/mill.html', page(''));
  const c = claimsOf;

  it.each([
    ['the partner names it by its canonical link', partner, original, 'courier.example/mill.html', 'canonical'],
    ['the farm names it in a credit line', farm, original, 'courier.example/mill.html', 'credit'],
    ['it was published five days earlier', late, original, 'courier.example/mill.html', 'published'],
    ['a dated page and one that states no date', undated, original, 'courier.example/mill.html', 'published'],
    ['neither says: no original (a folder has no reading order)', undated, farm, null, null],
  ] as const)('%s', (_, a, b, want, evidence) => {
    expect(originalOfPair(c(a), c(b))).toEqual({ original: want, evidence });
    expect(originalOfPair(c(b), c(a))).toEqual({ original: want, evidence });
  });

  it('a cluster: the original of every other member, on its weakest evidence; none when one pair has no verdict', () => {
    expect(originalOfCluster([partner, farm, original].map(c))).toEqual({ original: 'courier.example/mill.html', evidence: 'credit' });
    expect(originalOfCluster([partner, late, farm, original].map(c))).toEqual({ original: 'courier.example/mill.html', evidence: 'published' });
    expect(originalOfCluster([farm, undated].map(c))).toEqual({ original: null, evidence: null });
    expect(originalOfCluster([original].map(c))).toEqual({ original: null, evidence: null });
  });

  it('withOriginals adds the fields to any list\'s entries and makes clusters objects; the text says it in words', () => {
    const originals = withOriginals([original, farm, undated]);
    expect(originals.pair({ a: 'farm/mill.html', b: 'courier.example/mill.html', distance: 1 })).toEqual({ a: 'farm/mill.html', b: 'courier.example/mill.html', distance: 1, original: 'courier.example/mill.html', evidence: 'credit' });
    expect(originals.cluster(['farm/mill.html', 'undated/mill.html'])).toEqual({ members: ['farm/mill.html', 'undated/mill.html'], original: null, evidence: null });
    expect(originalWords({ original: 'courier.example/mill.html', evidence: 'credit' }, () => '#2')).toBe('original: #2 courier.example/mill.html (named by a credit line)');
    expect(originalWords({ original: null, evidence: null })).toBe('original: not known (the pages do not say)');
  });
});
