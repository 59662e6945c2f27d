// How long the worker takes to handle each message, kept as a User Timing measure named
// "doppel:<type>" (from the listener's call to its reply): DevTools' Performance panel shows them,
// and bench:browser reads them to time the near-duplicate report in the worker itself, without the
// messaging round trip. The browser keeps measures until they are cleared, so once there are
// MAX_MEASURES of them they are all cleared: memory stays bounded in a long-lived background page.
import { MESSAGE_TYPES, type MessageType } from '../protocol/messages';

export const MAX_MEASURES = 1000;
/** Measures on the timeline when it was last counted, and measures added since. */
let counted = 0;
let added = 0;
/** The measure's name for a message of this type; a type outside the protocol gets one name for all. */
export function measureName(type: unknown): string {
  return MESSAGE_TYPES.includes(type as MessageType) ? `doppel:${type as string}` : 'doppel:invalid';
}

/**
 * Records the handling of a message of `type` that started at `start` (performance.now()) and ends
 * now. Never throws: a browser without User Timing's start/end options loses the measure, not the reply.
 */
export function measureHandling(type: unknown, start: number): void {
  measure(measureName(type), start);
}

/** The stages of a page's handling that bench:browser times apart: the reader document's reading (waiting for its turn there included), the fingerprints, the store's transaction. */
export type PageStage = 'read' | 'fingerprint' | 'store';

/** Records a stage of a page's handling that started at `start`, as measureHandling does, named "doppel:stage/<stage>". */
export function measureStage(stage: PageStage, start: number): void {
  measure(`doppel:stage/${stage}`, start);
}

function measure(name: string, start: number): void {
  try {
    // The timeline is counted only when what it may hold reaches the cap, about once per
    // MAX_MEASURES messages, not on every one (counting copies every entry); `counted + added`
    // is never less than what it holds (it holds fewer if someone else cleared it).
    if (counted + added >= MAX_MEASURES) {
      counted = performance.getEntriesByType('measure').length;
      added = 0;
      if (counted >= MAX_MEASURES) {
        performance.clearMeasures();
        counted = 0;
      }
    }
    performance.measure(name, { start, end: performance.now() });
    added++;
  } catch {
    // a profiling aid only
  }
}
