// What every message validator shares: the size limits of what crosses a message, the error a
// malformed message gets, and the checks of an object and of a string field.

export const LIMITS = {
  urlChars: 8192,
  titleChars: 1000,
  siteNameChars: 500,
  langChars: 64,
  messageChars: 2000,
  /** The content script cuts text to this before sending (lib/text/extract.ts DEFAULT_MAX_TEXT_CHARS). */
  textChars: 2_000_000,
  /** A page's HTML, sent for reading (lib/content/page-reader.ts MAX_HTML_CHARS). */
  htmlChars: 8_000_000,
  sites: 10_000,
  siteChars: 300,
  /** Earlier pages whose passages are marked at once on a page (lib/protocol/tab-protocol.ts): more than a popup lists. */
  passageSets: 32,
  /**
   * Passage-fingerprint hashes of one of them: no more than the page has. The worker reads at most
   * 500,000 characters of a page (lib/content/page-reader.ts MAX_TEXT_CHARS); in Chinese, a word a
   * character, winnowing keeps about 2 / (w + 1) of them: some 37,000.
   */
  passageHashesPerSet: 50_000,
  /** …and of all of them together, which bounds the message (about 11 characters a hash). */
  passageHashes: 200_000,
  /** Passages of one of them whose ends are given (PassageEnd): a page of 500,000 characters holds at most some 17,000 of 30 words. */
  passageEndsPerSet: 20_000,
  /** Words a passage's end lies from this page's outermost fingerprint inside it: under w (26), whatever the text. */
  passageEndWords: 1_000,
  /** Rewrite-fingerprint hashes of one page (REWRITE_PARAMS.sample.cap: a test checks they agree). */
  rewriteHashesPerSet: 64,
  /** Rare words marked for one of them: a pair of names can come back many times in a long page. */
  rewriteRangesPerSet: 20_000,
} as const;

export class InvalidMessage extends Error {
  override name = 'InvalidMessage';
}

export type Json = Record<string, unknown>;

/** The value as an object (not null, not an array), or InvalidMessage naming `what`. */
export function object(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidMessage(`${what} must be an object`);
  return value as Json;
}

/** o[key] as a string of at most `max` characters, or InvalidMessage naming the key. */
/** o[key], a whole number from 0 up. */
export function count(o: Json, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new InvalidMessage(`${key} must be a whole number, 0 or more`);
  return v;
}

export function string(o: Json, key: string, max: number): string {
  const v = o[key];
  if (typeof v !== 'string') throw new InvalidMessage(`${key} must be a string`);
  if (v.length > max) throw new InvalidMessage(`${key} is too long: ${v.length} characters (at most ${max})`);
  return v;
}

/** o[key] as a host (URL.host: lower case, an optional port), or InvalidMessage naming the key. */
export function site(o: Json, key: string): string {
  const s = string(o, key, LIMITS.siteChars);
  if (!/^[a-z0-9.\-[\]:]+$/i.test(s) || s !== s.toLowerCase()) throw new InvalidMessage(`${key} must be a host such as example.com:8080`);
  return s;
}

/** o[key] as an array of at most `max` items, or InvalidMessage naming the key. */
export function list(o: Json, key: string, max: number): unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) throw new InvalidMessage(`${key} must be a list`);
  if (v.length > max) throw new InvalidMessage(`${key} has too many items: ${v.length} (at most ${max})`);
  return v;
}

/** o[key] as a list of at most `max` hashes (whole numbers from 0 to 2^32 − 1), or InvalidMessage naming the key and the item. */
export function hashList(o: Json, key: string, max: number): number[] {
  const hashes = list(o, key, max);
  hashes.forEach((h, i) => {
    if (typeof h !== 'number' || !Number.isInteger(h) || h < 0 || h > 0xffff_ffff) {
      throw new InvalidMessage(`${key}[${i}] must be a whole number from 0 to ${0xffff_ffff}: got ${JSON.stringify(h)?.slice(0, 40)}`);
    }
  });
  return hashes as number[];
}

/**
 * A `{type, payload}` message whose type has a validator in `validators`, the payload validated by
 * it; InvalidMessage for anything else (an unknown type named in the reason, cut to 60 characters).
 */
export function typedMessage<T extends string>(message: unknown, validators: { readonly [K in T]: (payload: unknown) => unknown }): { type: T; payload: unknown } {
  const o = object(message, 'message');
  const type = o['type'];
  if (typeof type !== 'string' || !Object.hasOwn(validators, type)) {
    throw new InvalidMessage(`unknown message type ${JSON.stringify(typeof type === 'string' ? type.slice(0, 60) : type)}`);
  }
  return { type: type as T, payload: validators[type as T](o['payload']) };
}
