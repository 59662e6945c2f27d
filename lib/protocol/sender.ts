// Who sent a message: Doppel's content script in a tab's top frame, one of Doppel's own pages, or
// anyone else. The background checks it for every message (lib/background/recorder.ts), and the content
// script for the popup's messages to it (lib/content/marks.ts); kept apart from the recorder so
// that the content script does not carry the store in its bundle.

/** What the browser says about a message's sender (runtime.MessageSender's relevant fields). */
export interface SenderInfo {
  id?: string;
  url?: string;
  frameId?: number;
  tab?: { id?: number; incognito?: boolean };
}

export interface ExtensionInfo {
  /** runtime.id */
  id: string;
  /** runtime.getURL(''): the extension's own origin with a trailing slash. */
  origin: string;
}

export type SenderKind =
  | { kind: 'content'; tabId: number; incognito: boolean; url: string }
  | { kind: 'extension-page' }
  | { kind: 'foreign'; why: string };

function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * - content: Doppel's content script in the top frame (frameId 0) of a tab showing an http(s) page;
 * - extension-page: one of Doppel's own pages (popup, options), in a tab or not;
 * - foreign: anything else (another extension, a web page, a sub-frame), with the reason.
 */
export function classifySender(sender: SenderInfo, ext: ExtensionInfo): SenderKind {
  if (sender.id !== ext.id) return { kind: 'foreign', why: 'it came from another extension or a web page' };
  const base = ext.origin.endsWith('/') ? ext.origin : `${ext.origin}/`;
  if (typeof sender.url === 'string' && ext.origin !== '' && sender.url.startsWith(base)) return { kind: 'extension-page' };
  const tabId = sender.tab?.id;
  if (typeof tabId !== 'number') return { kind: 'foreign', why: 'it came from neither a tab nor a Doppel page' };
  if (sender.frameId !== 0) return { kind: 'foreign', why: 'it came from a frame inside the page, and only the top page is recorded' };
  if (typeof sender.url !== 'string' || !isHttpUrl(sender.url)) return { kind: 'foreign', why: 'it came from a page that is not an http or https page' };
  return { kind: 'content', tabId, incognito: sender.tab?.incognito === true, url: sender.url };
}
