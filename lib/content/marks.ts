// The content script's side of marking shared passages and a rewrite's shared rare words
// (lib/protocol/tab-protocol.ts): who may ask, what the message says, the highlights set in
// CSS.highlights as `doppel-passage-<slot>` and `doppel-rewrite`, and what is marked (for a popup
// opened while marks are shown). The page's
// DOM is never changed: highlights live in the registry and are painted from the
// `::highlight(doppel-passage-N)` rules of the extension's own stylesheet (assets/passages.css,
// which the manifest injects). The browser's objects come in as deps, so that this is tested with
// a fake registry on linkedom.
import { type ExtensionInfo, type SenderInfo, classifySender } from '../protocol/sender';
import type { TextRange } from '../protocol/messages';
import { MARK_KINDS, type MarkKind, PASSAGE_SLOTS, type PassageMarks, REWRITE_HIGHLIGHT, type SharedPassageSet, type TabMessageType, type TabReply, highlightName, parseTabMessage } from '../protocol/tab-protocol';
import { type PageText, type RangeBounds, collectPageText, locatePassages, toDomRanges } from './highlight';

/** CSS.highlights, as far as it is used (a Map in tests). */
export interface HighlightRegistryLike<H> {
  set(name: string, highlight: H): unknown;
  get(name: string): H | undefined;
  delete(name: string): boolean;
}

export interface MarkerDeps<R, H> {
  /** CSS.highlights, or undefined where the browser has no Custom Highlight API (asked at each message). */
  registry(): HighlightRegistryLike<H> | undefined;
  /** `new Highlight(...ranges)`. */
  highlight(ranges: R[]): H;
  /** A range over the bounds (lib/content/highlight.ts liveRange). */
  range(bounds: RangeBounds): R;
  /** The element whose text is searched: document.body (null while there is none). */
  root(): Node | null;
  /** Elements whose text is skipped (lib/content/highlight.ts probablyHidden). */
  isHidden(el: Element): boolean;
  /** The reply's error where there is no Custom Highlight API, in the reader's language. */
  unsupported(): string;
  /**
   * Where `text` holds the rare words of the pairs whose hashes each set holds: asked of the worker
   * (rewrites/anchors), which has the rare-word scan, so that every page's content script does not
   * carry it (lib/fingerprint/rewrites.ts sharedAnchorRanges).
   */
  anchorRanges(text: string, sets: number[][]): Promise<TextRange[][]>;
}

export interface PassageMarker {
  /**
   * Never throws nor rejects: a refused, malformed or failed message gets `{ok: false, error}` and
   * changes nothing. Synchronous but for showing a rewrite's marks, which waits for the worker.
   */
  handle(message: unknown, sender: SenderInfo, ext: ExtensionInfo): TabReply<TabMessageType> | Promise<TabReply<TabMessageType>>;
}

/** The highlights a kind of marks may set: the passages' slots, or the rewrites' one. */
const highlightsOf = (kind: MarkKind): string[] => (kind === 'rewrites' ? [REWRITE_HIGHLIGHT] : Array.from({ length: PASSAGE_SLOTS }, (_, slot) => highlightName(slot)));

export function createPassageMarker<R, H>(deps: MarkerDeps<R, H>): PassageMarker {
  /** What the last show of each kind marked: each set's ranges and its highlight, and the highlights it set by name. */
  const shown = new Map<MarkKind, { sets: { id: string; ranges: number; highlight: string }[]; highlights: Map<string, H> }>();

  const clear = (registry: HighlightRegistryLike<H>, kind: MarkKind): void => {
    for (const name of highlightsOf(kind)) registry.delete(name);
    shown.delete(kind);
  };

  /**
   * The marks made by the last show of each kind, as far as they are still in the registry: the
   * page's own scripts can delete or replace a highlight, and a set whose highlight is gone is no
   * longer marked. Sets that were found nowhere are kept while anything of their show is left.
   */
  const current = (registry: HighlightRegistryLike<H>): PassageMarks => {
    const sets: PassageMarks['sets'] = [];
    for (const kind of MARK_KINDS) {
      const show = shown.get(kind);
      if (show === undefined) continue;
      const kept = new Set([...show.highlights].filter(([name, highlight]) => registry.get(name) === highlight).map(([name]) => name));
      if (kept.size === 0) continue;
      for (const set of show.sets) if (set.ranges === 0 || kept.has(set.highlight)) sets.push(kind === 'passages' ? { id: set.id, ranges: set.ranges } : { id: set.id, ranges: set.ranges, kind });
    }
    return { marked: sets.reduce((n, s) => n + s.ranges, 0), sets };
  };

  const pageText = (): PageText | null => {
    const root = deps.root();
    return root ? collectPageText(root, (el) => deps.isHidden(el)) : null;
  };

  /** Finds every set's ranges first (`located`: in the page's text, taken before), then replaces the marks of that kind: a failure leaves the old ones. */
  const show = (registry: HighlightRegistryLike<H>, sets: SharedPassageSet[], kind: MarkKind, page: PageText | null, located: readonly (readonly TextRange[])[]): PassageMarks => {
    const byHighlight = new Map<string, R[]>();
    const counts = sets.map((set, i) => {
      const highlight = kind === 'rewrites' ? REWRITE_HIGHLIGHT : highlightName(set.slot);
      const ranges = page ? toDomRanges(page, located[i]!, deps.range) : [];
      if (ranges.length > 0) byHighlight.set(highlight, [...(byHighlight.get(highlight) ?? []), ...ranges]);
      return { id: set.id, ranges: ranges.length, highlight };
    });
    const highlights = new Map([...byHighlight].map(([name, ranges]) => [name, deps.highlight(ranges)] as const));
    clear(registry, kind);
    for (const [name, highlight] of highlights) registry.set(name, highlight);
    shown.set(kind, { sets: counts, highlights });
    return current(registry);
  };

  const failed = (error: unknown): TabReply<TabMessageType> => ({ ok: false, error: `The passages could not be marked: ${error instanceof Error ? error.message : String(error)}` });

  return {
    handle(message, sender, ext) {
      // Only Doppel's own pages (the popup, in a tab or not) may mark: not a content script, and
      // not a page or another extension, which cannot reach this listener anyway.
      const from = classifySender(sender, ext);
      if (from.kind !== 'extension-page') {
        return { ok: false, error: `Passages are marked only for Doppel's own pages: ${from.kind === 'foreign' ? from.why : 'it came from a content script'}.` };
      }
      let parsed;
      try {
        parsed = parseTabMessage(message);
      } catch (error) {
        return { ok: false, error: `Malformed message: ${error instanceof Error ? error.message : String(error)}` };
      }
      const registry = deps.registry();
      if (!registry) return { ok: false, error: deps.unsupported() };
      try {
        switch (parsed.type) {
          case 'passages/get':
            return { ok: true, value: current(registry) };
          case 'passages/clear':
            clear(registry, parsed.payload.kind ?? 'passages');
            return { ok: true, value: current(registry) };
          case 'passages/show': {
            const { sets, kind = 'passages' } = parsed.payload;
            const page = pageText();
            if (kind === 'passages' || page === null) {
              const located = page === null ? sets.map(() => []) : locatePassages(page.text, sets).map((set) => set.passages);
              return { ok: true, value: show(registry, sets, kind, page, located) };
            }
            // a rewrite's rare words: the worker finds them in the text as it is now
            return deps.anchorRanges(page.text, sets.map((set) => set.hashes)).then(
              (located) => ({ ok: true as const, value: show(registry, sets, kind, page, located) }),
              (error: unknown) => failed(error),
            );
          }
        }
      } catch (error) {
        return failed(error);
      }
    },
  };
}
