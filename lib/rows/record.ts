// A page as Doppel keeps it: its record (no page text: its URL, title, site, two 64-bit
// fingerprints, visit times, what the page says of where it comes from, and its group fields), and
// a value of the `blocks` store, which packs BLOCK_PAGES of them (lib/rows/blocks.ts). The store's
// schema (lib/store/schema.ts) holds these.
import type { SourceKind } from '../text/provenance';

export interface PageRecord {
  /** The page's id: block × BLOCK_PAGES + slot (lib/rows/page-rows.ts). */
  id: number;
  /** Canonical URL. */
  url: string;
  title: string;
  /** URL.host of the page. */
  site: string;
  /** The term-frequency simhash (lib/fingerprint/features.ts), 16 lowercase hex digits. */
  simhash: string;
  /** The set-of-words check fingerprint, 16 lowercase hex digits; '' when unknown (NO_CHECK). */
  check: string;
  /** Milliseconds since the epoch. */
  firstSeen: number;
  lastSeen: number;
  visits: number;
  /** The id of the page's group of near-duplicates and rewrites; absent when it has none (lib/report/groups.ts). */
  group?: string;
  /** The page's site, present only when the page's group's root (the page seen first) is on another site. */
  copySite?: string;
  /**
   * Present (true) only when the page copies the content of a page first seen before it on another
   * site: at least half of its words are in passages they share (lib/store/passages.ts), or it is
   * a rewrite or translation of it (lib/index/rewrite-store.ts). A page is a copy when it has
   * copySite or contentCopy (lib/report/copies.ts isCopy).
   */
  contentCopy?: true;
  /** When the page says it was published: ms since the epoch, a whole minute (lib/text/provenance.ts believableProvenance); absent when it says nothing. */
  published?: number;
  /** The address the page names as its source, on another site; absent when it names none. */
  source?: string;
  /** How it names it (present exactly when `source` is): its canonical link or og:url, or a credit line. */
  sourceBy?: SourceKind;
}


/** The fields of a PageRecord, in order: tests assert a stored record has exactly these. */
export const PAGE_RECORD_FIELDS = ['id', 'url', 'title', 'site', 'simhash', 'check', 'firstSeen', 'lastSeen', 'visits'] as const;
/** Fields present only on some records (see PageRecord). */
export const OPTIONAL_RECORD_FIELDS = ['group', 'copySite', 'contentCopy', 'published', 'source', 'sourceBy'] as const;

/** A record without its key and group fields: what writers give updateMany, which derives them. */
export type PageFields = Omit<PageRecord, 'id' | 'group' | 'copySite' | 'contentCopy'>;

/** A value of the `blocks` store, as written: [BLOCK_FORMAT, deflated text, slot bytes (kinds and fingerprints), marks] (lib/rows/blocks.ts). */
export type StoredBlock = [format: 2, text: Uint8Array, slotBytes: Uint8Array, marks: SlotMarks[]];

/**
 * A page's group fields as its block keeps them, outside the block's text: [group, copySite,
 * contentCopy], null for a field it lacks (0 for contentCopy); null for a page with none of them.
 */
export type SlotMarks = [group: string | null, copySite: string | null, contentCopy: 0 | 1] | null;
