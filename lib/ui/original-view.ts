// How the popup says which page is the original of a story (Report.original, found by
// lib/report/original.ts): the tag on the original's entry, why it is the original, and the line
// under the page's status ("A copy of …", "This page is the original: …"). No browser globals: the
// popup passes its Document and Localizer, so that it is tested on linkedom.
import type { Localizer } from './i18n';
import type { OriginalSummary } from '../protocol/messages';

/**
 * Why the original is the original, seen from the page the report is for: "named as the source by
 * this page" (or "by a copy" when this page is the original), "published 3 days earlier",
 * "published before you first saw this page" (or "its copy"), "seen first".
 */
export function originalWhy(l: Localizer, original: OriginalSummary): string {
  switch (original.evidence) {
    case 'canonical':
    case 'credit':
      return l.t(original.self ? 'originalNamedByCopy' : 'originalNamedByThisPage');
    case 'published':
      return original.days !== null && original.days >= 1 ? l.count('originalPublishedDaysEarlier', original.days) : l.t(original.self ? 'originalPublishedBeforeCopySeen' : 'originalPublishedBeforeThisSeen');
    case 'seen':
      return l.t('originalSeenFirst');
  }
}

/** The tag on the original's entry, `<span class="tag tag-original" data-evidence>Original</span>`, followed by why. */
export function originalTag(doc: Document, l: Localizer, original: OriginalSummary): HTMLElement[] {
  const tag = doc.createElement('span');
  tag.classList.add('tag', 'tag-original');
  tag.dataset['evidence'] = original.evidence;
  tag.textContent = l.t('tagOriginal');
  const why = doc.createElement('span');
  why.className = 'original-why';
  why.textContent = l.t('originalWhyAfterTag', originalWhy(l, original));
  return [tag, why];
}

/** The line under the page's status: what it is a copy of, or that it is the original, and why. */
export function originalStatus(l: Localizer, original: OriginalSummary): string {
  const why = originalWhy(l, original);
  return original.self ? l.t('statusIsOriginal', why) : l.t('statusCopyOf', original.title || original.url, original.site, why);
}
