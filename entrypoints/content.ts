// Captures the page once it is idle, and again when a single-page site changes its URL, and hands
// it to the background: its HTML, which Readability reads in an extension document, or the simple
// reading of a page past the caps (lib/content/page-reader.ts), sent again until the worker
// acknowledges it (lib/content/delivery.ts). Marks, when the popup asks, the passages
// the page shares with pages read before, or a rewrite's shared rare words (which the worker finds in
// the page's text), as CSS highlights (lib/content/marks.ts). Never changes the page's DOM.
import { browser } from 'wxt/browser';
import { DEFAULT_SETTINGS, LIMITS, parseAnchorRanges, parseSettings } from '@/lib/protocol/messages';
import { capturePage, shouldRead } from '@/lib/content/page-reader';
import { deliver } from '@/lib/content/delivery';
import { newCaptureId } from '@/lib/protocol/captures';
import { liveRange, probablyHidden } from '@/lib/content/highlight';
import { createPassageMarker } from '@/lib/content/marks';
// The `::highlight(doppel-passage-N)` colours: WXT lists the sheet in the manifest's content_scripts
// `css` (cssInjectionMode 'manifest'), so the browser injects it without a <style> in the page.
import '@/assets/passages.css';

/** How often to look for a URL change made with history.pushState (not observable from here). */
const URL_POLL_MS = 1000;
/** After a URL change, how long to let the new content render before reading it. */
const SETTLE_MS = 1500;

export default defineContentScript({
  matches: ['http://*/*', 'https://*/*'],
  runAt: 'document_idle',
  allFrames: false, // only the top page is recorded
  main(ctx) {
    let lastUrl = location.href;

    const marker = createPassageMarker({
      registry: () => (typeof CSS !== 'undefined' && 'highlights' in CSS ? CSS.highlights : undefined),
      highlight: (ranges: Range[]) => new Highlight(...ranges),
      range: liveRange(document),
      root: () => document.body,
      isHidden: probablyHidden,
      unsupported: () => browser.i18n.getMessage('passagesUnsupported'),
      anchorRanges: async (text, sets) => {
        // the worker has the rare-word scan; the text is cut where the worker's messages stop
        const reply = (await browser.runtime.sendMessage({ type: 'rewrites/anchors', payload: { text: text.slice(0, LIMITS.textChars), sets } })) as { ok?: unknown; value?: unknown; error?: unknown } | undefined;
        if (reply?.ok !== true) throw new Error(typeof reply?.error === 'string' ? reply.error : 'Doppel’s background worker did not answer.');
        return parseAnchorRanges(reply.value).sets;
      },
    });
    const ext = { id: browser.runtime.id, origin: browser.runtime.getURL('/') };
    // Only the popup's tabs.sendMessage reaches here (runtime.sendMessage goes to extension pages);
    // the marker still checks the sender. A promise is the polyfill's way to answer.
    browser.runtime.onMessage.addListener((message: unknown, sender) => Promise.resolve(marker.handle(message, sender, ext)));

    const read = async (): Promise<void> => {
      try {
        const stored = await browser.storage.local.get('settings');
        const settings = stored['settings'] ? parseSettings(stored['settings']) : DEFAULT_SETTINGS;
        if (!shouldRead(location.href, settings, browser.extension.inIncognitoContext) || ctx.isInvalid) return;
        const capture = newCaptureId((bytes) => crypto.getRandomValues(bytes));
        // sent again until the worker says it stored the page (or chose not to): a worker stopped
        // while it reads or stores the page loses only that copy
        await deliver(capturePage(document, location.href, { capture }), {
          send: (message) => browser.runtime.sendMessage(message),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
          invalid: () => ctx.isInvalid,
        });
      } catch {
        // The extension was reloaded: nothing to do on the page, and nothing may be thrown into it.
      }
    };

    const whenIdle = (fn: () => void): void => {
      if ('requestIdleCallback' in window) window.requestIdleCallback(fn, { timeout: 3000 });
      else ctx.setTimeout(fn, 200);
    };

    whenIdle(() => void read());
    ctx.setInterval(() => {
      if (location.href === lastUrl) return;
      lastUrl = location.href;
      ctx.setTimeout(() => whenIdle(() => void read()), SETTLE_MS);
    }, URL_POLL_MS);
  },
});
