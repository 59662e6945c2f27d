// What bench:browser-quality reads from a page's popup (popup.html?url=…): its state and the pages
// it links, near-duplicates in `#matches` and pages sharing passages in `#passages`.
import type { Page } from 'playwright-core';

export interface PopupRead {
  state: string;
  detail: string;
  /** `#matches`: the near-duplicates. */
  links: { href: string; distance: number }[];
  /**
   * `#passages`: the earlier pages sharing passages with this one (share: of this page's words, null if unreadable),
   * each with the pages of its "Also in" line (the other pages sharing the same passages, folded into its entry).
   */
  passages: { href: string; share: number | null; alsoIn: string[] }[];
}

export const UNREAD: PopupRead = { state: '', detail: '', links: [], passages: [] };

/**
 * The popup's data-state values, status detail, match links (with their distances) and passage
 * links: each `#passages li[data-share]` with its first web link and the web links of its "Also in"
 * line (none where the list is absent).
 */
export async function readPopup(popup: Page): Promise<PopupRead> {
  return popup.evaluate(() => {
    const states = [...document.querySelectorAll('[data-state]')].map((el) => el.getAttribute('data-state') ?? '');
    const state = states.find((s) => s !== 'loading') ?? states[0] ?? '';
    const detail = (document.getElementById('status-detail')?.textContent ?? '').trim();
    const links = [...document.querySelectorAll('#matches li')].flatMap((item) => {
      const a = item.querySelector('a[href]') as HTMLAnchorElement | null;
      if (!a) return [];
      const m = /(\d+) bits? apart/.exec(item.querySelector('.likeness')?.textContent ?? '');
      return [{ href: a.href, distance: m ? Number(m[1]) : -1 }];
    });
    const passages = [...document.querySelectorAll('#passages li[data-share]')].flatMap((item) => {
      // The link to the page, not a control of the item (a "#" or extension link).
      const a = [...item.querySelectorAll('a[href]')].find((x) => /^https?:$/.test((x as HTMLAnchorElement).protocol)) as HTMLAnchorElement | undefined;
      if (!a) return [];
      const raw = (item.getAttribute('data-share') ?? '').trim();
      const alsoIn = [...item.querySelectorAll('.also-in a[href]')].filter((x) => /^https?:$/.test((x as HTMLAnchorElement).protocol)).map((x) => (x as HTMLAnchorElement).href);
      return [{ href: a.href, share: /^\d*\.?\d+$/.test(raw) ? Number(raw) : null, alsoIn }];
    });
    return { state, detail, links, passages };
  });
}
