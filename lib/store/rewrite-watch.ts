// Which rewrite fingerprints changed while an organising run worked (lib/organise/regroup.ts hands
// the regroup's rewrite links to the copy marking, lib/organise/passage-organise.ts): a link found
// before a visit or a forgetting may no longer be what a lookup finds, so the pages such a change
// can reach are looked up again. Every PageStore write of this JavaScript context reports to the
// watches open on its database connection; the worker is the only context that writes, through one
// connection (lib/background/writer.ts, keptPageStore).

/** The changes since a watch opened: the pages whose rewrite fingerprints changed, and their index hashes before and after. */
export class RewriteWatch {
  readonly pages = new Set<number>();
  readonly hashes = new Set<number>();
  /** True when what changed cannot be told (the store cleared, or bytes that do not decode): every link is suspect. */
  everything = false;

  constructor(private readonly onClose: (watch: RewriteWatch) => void) {}

  /** Stops reporting to this watch. */
  close(): void {
    this.onClose(this);
  }
}

/**
 * The rewrite lookups of a regroup, handed to the copy marking (lib/organise/passage-organise.ts) so
 * that organising looks each page up once: what each page's lookup found, and the rewrite changes
 * since the pass began reading (a visit or a forgetting meanwhile), whose reach is looked up again.
 */
export interface RewriteLinks {
  /** The pages each lookup found, by page id, as findRewriteMatches ordered them; pages that found none are absent. */
  found: Map<number, number[]>;
  /** The pages marked contentCopy when read: a lookup that finds nothing may unmark them. */
  copies: Set<number>;
  /** Pages read but not in the pass (an unreadable simhash): their lookups were not made. */
  unread: number[];
  /** The rewrite fingerprints changed since the pass began reading. */
  watch: RewriteWatch;
}

const open = new WeakMap<object, Set<RewriteWatch>>();

/** A watch of the rewrite changes written through the connection `db` from now on, until closed. */
export function watchRewrites(db: object): RewriteWatch {
  let watches = open.get(db);
  if (watches === undefined) open.set(db, (watches = new Set()));
  const watch = new RewriteWatch((w) => watches.delete(w));
  watches.add(watch);
  return watch;
}

/** Whether any watch is open on `db` (a write without one skips the work of reporting). */
export const isWatched = (db: object): boolean => (open.get(db)?.size ?? 0) > 0;

/** Reports a transaction's rewrite changes to the open watches (called inside the transaction: an abort after it only costs lookups made again). */
export function reportRewriteChanges(db: object, change: { pages: readonly number[]; hashes: readonly number[]; damaged?: boolean } | 'everything'): void {
  for (const watch of open.get(db) ?? []) {
    if (change === 'everything' || change.damaged === true) watch.everything = true;
    if (change === 'everything') continue;
    for (const id of change.pages) watch.pages.add(id);
    for (const h of change.hashes) watch.hashes.add(h);
  }
}
