// Chrome stops an extension's service worker when one event takes longer than 5 minutes to
// handle, and with it all the worker's work. A page's message waits for the store, which may be
// held by long work first (a schema upgrade, at a million pages). Replying before the deadline
// ends the event; the work goes on, kept alive by the start-up work's own
// keep-alive (entrypoints/background), and the page is recorded when the store is ready.

/** What a page's message waits at most before its reply says the page will be recorded later. */
export const PAGE_REPLY_DEADLINE_MS = 4 * 60 * 1000;

/**
 * `work`'s result if it settles within `ms`; otherwise `late()`, while `work` goes on. A rejection of
 * `work` after the deadline goes to `onLateError`, never unhandled.
 */
export function settleWithin<T>(work: Promise<T>, ms: number, late: () => T, onLateError: (error: unknown) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      resolve(late());
    }, ms);
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return onLateError(error);
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
