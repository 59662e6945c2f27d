// Running a body of requests in one IndexedDB transaction: all of its writes land, or none do.

/** What `within` needs of an idb transaction, whatever its stores and mode. */
export interface Tx {
  readonly done: Promise<void>;
  /** Why the transaction was aborted (QuotaExceededError, say), once it was. */
  readonly error?: DOMException | null;
  abort(): void;
}

/**
 * Runs body in tx and waits for the commit. If body throws, the transaction is aborted: either
 * every write in it lands, or none does. Every method returns only once its transaction has
 * finished (fake-indexeddb otherwise lets thousands of idle transactions pile up in a tight loop
 * of lookups, and each new one scans them all).
 */
export async function within<T>(tx: Tx, body: () => Promise<T>): Promise<T> {
  const done = tx.done;
  done.catch(() => undefined); // awaited below; a rejection is reported by body or by that await
  let result: T;
  try {
    result = await body();
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // already finished
    }
    // A request that failed because its transaction was aborted (AbortError) says nothing of why:
    // the transaction's own error does (QuotaExceededError when storage is full).
    const cause = (error as { name?: unknown } | null)?.name === 'AbortError' ? tx.error : null;
    throw cause ?? error;
  }
  await done;
  return result;
}
