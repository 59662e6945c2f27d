// How the popup says which page is the story's original (lib/ui/original-view.ts), in the three
// languages: why, seen from the page the report is for, the tag on the original's entry, and the
// line under the page's status.
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import type { OriginalSummary } from '../lib/protocol/messages';
import { originalStatus, originalTag, originalWhy } from '../lib/ui/original-view';
import { localizerFor } from './support/catalogues';

const summary = (over: Partial<OriginalSummary>): OriginalSummary => ({ url: 'https://courier.example/mill', title: 'The mill turns', site: 'courier.example', self: false, evidence: 'seen', days: null, ...over });

describe('originalWhy', () => {
  it.each([
    ['en', { evidence: 'canonical' }, 'named as the source by this page'],
    ['en', { evidence: 'credit', self: true }, 'named as the source by a copy'],
    ['en', { evidence: 'published', days: 1 }, 'published 1 day earlier'],
    ['en', { evidence: 'published', days: 3 }, 'published 3 days earlier'],
    ['en', { evidence: 'published', days: 0 }, 'published before you first saw this page'],
    ['en', { evidence: 'published', days: 0, self: true }, 'published before you first saw its copy'],
    ['en', { evidence: 'seen' }, 'seen first'],
    ['es', { evidence: 'published', days: 3 }, 'publicada 3 días antes'],
    ['es', { evidence: 'credit' }, 'esta página la cita como fuente'],
    ['zh_CN', { evidence: 'published', days: 3 }, '早 3 天发布'],
    ['zh_CN', { evidence: 'seen' }, '最先看到'],
  ] as const)('%s %j: %s', (folder, over, want) => {
    expect(originalWhy(localizerFor(folder), summary(over))).toBe(want);
  });
});

describe('originalStatus and originalTag', () => {
  it.each([
    ['en', summary({ evidence: 'credit' }), 'A copy of “The mill turns” (courier.example), the original: named as the source by this page'],
    ['en', summary({ self: true, evidence: 'published', days: 2 }), 'This page is the original: published 2 days earlier'],
    ['es', summary({ evidence: 'seen' }), 'Copia de «The mill turns» (courier.example), el original: vista primero'],
    ['zh_CN', summary({ self: true, evidence: 'seen' }), '本页是原文：最先看到'],
    ['en', summary({ title: '', evidence: 'seen' }), 'A copy of “https://courier.example/mill” (courier.example), the original: seen first'],
  ] as const)('%s: %s', (folder, original, want) => {
    expect(originalStatus(localizerFor(folder), original)).toBe(want);
  });

  it('the tag says Original and carries the evidence; the reason follows it', () => {
    const { document } = parseHTML('<!doctype html><html><body></body></html>');
    const [tag, why] = originalTag(document as unknown as Document, localizerFor('es'), summary({ evidence: 'published', days: 5 }));
    expect([tag!.className, tag!.getAttribute('data-evidence'), tag!.textContent, why!.textContent]).toEqual(['tag tag-original', 'published', 'Original', ' · publicada 5 días antes']);
  });
});
