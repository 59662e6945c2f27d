// A page's passage fingerprints as bytes: what the store keeps of a page (lib/store/passages.ts)
// and what an export line carries (lib/protocol/ndjson.ts, in base64). Hashes and positions, no text:
//
//   varint words · varint n · n × (varint gap · hash as 4 bytes, big-endian) · [word bits]
//
// A gap is the fingerprint's position minus the one before it (the first's is its position).
// Winnowing keeps one k-gram in every window of w, so a gap is at most w (26) and takes one byte.
// Varints are unsigned LEB128: 7 bits a byte, the low bits first. The word bits, one bit of each
// word's hash (lib/fingerprint/passages.ts), 8 a byte, the first word in the lowest bit, the last
// byte's unused bits 0, take the rest of the bytes when present: ⌈words / 8⌉ of them. Bytes written
// before they existed end with the fingerprints and still decode, without them.
import type { PassageFingerprints } from './passages';
import { readVarint, varintSize, writeVarint } from './varint';

/** At most this many fingerprints a page (a text of about 680,000 words): what a message or a line may carry. */
export const MAX_PAGE_FINGERPRINTS = 50_000;

/** Checks what encodePassageBytes needs: whole word count, positions increasing from 0 inside it, hashes 32-bit. */
function checkFingerprints({ words, hashes, positions, wordBits }: PassageFingerprints): void {
  if (!Number.isSafeInteger(words) || words < 0) throw new RangeError(`a page's word count must be a whole number: got ${words}`);
  if (wordBits !== undefined) checkWordBits(wordBits, 0, wordBits.length, words);
  if (hashes.length !== positions.length) throw new RangeError(`${hashes.length} hashes for ${positions.length} positions`);
  if (hashes.length > MAX_PAGE_FINGERPRINTS) throw new RangeError(`${hashes.length} passage fingerprints: at most ${MAX_PAGE_FINGERPRINTS} a page`);
  let previous = -1;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    if (!Number.isInteger(p) || p <= previous || p >= words) throw new RangeError(`passage fingerprint ${i} is at word ${p}: positions must increase, from 0, below the ${words} words`);
    previous = p;
  }
}

/** The bytes of a page's fingerprints (the format at the top of the file). */
export function encodePassageBytes(fingerprints: PassageFingerprints): Uint8Array {
  checkFingerprints(fingerprints);
  const { words, hashes, positions } = fingerprints;
  let size = varintSize(words) + varintSize(hashes.length) + 4 * hashes.length + (fingerprints.wordBits?.length ?? 0);
  for (let i = 0; i < positions.length; i++) size += varintSize(positions[i]! - (i === 0 ? 0 : positions[i - 1]!));
  const out = new Uint8Array(size);
  let at = writeVarint(out, 0, words);
  at = writeVarint(out, at, hashes.length);
  for (let i = 0; i < hashes.length; i++) {
    at = writeVarint(out, at, positions[i]! - (i === 0 ? 0 : positions[i - 1]!));
    const h = hashes[i]!;
    out[at++] = h >>> 24;
    out[at++] = (h >>> 16) & 0xff;
    out[at++] = (h >>> 8) & 0xff;
    out[at++] = h & 0xff;
  }
  if (fingerprints.wordBits !== undefined) out.set(fingerprints.wordBits, at);
  return out;
}

/** Bytes the word bits of a text of `words` words take. */
export const wordBitsLength = (words: number): number => Math.ceil(words / 8);

/** Checks that bytes[at, end) are the word bits of `words` words: their length, and the last byte's unused bits 0. */
function checkWordBits(bytes: Uint8Array, at: number, end: number, words: number): void {
  if (end - at !== wordBitsLength(words)) throw new RangeError(`${end - at} bytes of word bits for ${words} words: they take ${wordBitsLength(words)}`);
  if (words % 8 !== 0 && bytes[end - 1]! >> words % 8 !== 0) throw new RangeError('the word bits past the last word are not 0');
}

/**
 * The fingerprints encoded in `bytes` (encodePassageBytes), with their word bits when the bytes
 * hold them. Throws a RangeError that says what is wrong: bytes that end early, too many
 * fingerprints, a position that does not increase or lies past the words, word bits of the wrong
 * length.
 */
export function decodePassageBytes(bytes: Uint8Array): PassageFingerprints {
  const { words, count, fingerprintsEnd } = checkPassageBytes(bytes);
  let at = 0;
  const hashes = new Uint32Array(count);
  const positions = new Int32Array(count);
  let position = 0;
  at = readVarint(bytes, readVarint(bytes, at).end).end;
  for (let i = 0; i < count; i++) {
    const gap = readVarint(bytes, at);
    position += gap.value;
    hashes[i] = hashAt(bytes, gap.end);
    positions[i] = position;
    at = gap.end + 4;
  }
  return fingerprintsEnd === bytes.length ? { words, hashes, positions } : { words, hashes, positions, wordBits: bytes.slice(fingerprintsEnd) };
}

/** The big-endian 32-bit hash at `at`. */
function hashAt(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/**
 * Checks bytes as decodePassageBytes does, without decoding them into arrays: the word count, how
 * many fingerprints they hold and where those end (the word bits, if any, follow). The same RangeErrors.
 */
export function checkPassageBytes(bytes: Uint8Array): { words: number; count: number; fingerprintsEnd: number } {
  let at = 0;
  const words = readVarint(bytes, at);
  const count = readVarint(bytes, words.end);
  if (count.value > MAX_PAGE_FINGERPRINTS) throw new RangeError(`${count.value} passage fingerprints: at most ${MAX_PAGE_FINGERPRINTS} a page`);
  let position = 0;
  at = count.end;
  for (let i = 0; i < count.value; i++) {
    const gap = readVarint(bytes, at);
    if (i > 0 && gap.value === 0) throw new RangeError(`passage fingerprint ${i} is at the position of the one before`);
    position += gap.value;
    if (position >= words.value) throw new RangeError(`passage fingerprint ${i} is at word ${position}, past the ${words.value} words`);
    at = gap.end + 4;
    if (at > bytes.length) throw new RangeError('the bytes end inside a hash');
  }
  if (at < bytes.length) checkWordBits(bytes, at, bytes.length, words.value);
  return { words: words.value, count: count.value, fingerprintsEnd: at };
}

/**
 * Calls `each` with every hash of bytes of encodePassageBytes, in position order, without making
 * arrays: organising an import reads fifty million of them, several times. The bytes must have been
 * checked (checkPassageBytes, or written by encodePassageBytes).
 */
export function forEachPassageHash(bytes: Uint8Array, each: (hash: number) => void): void {
  const count = readVarint(bytes, readVarint(bytes, 0).end);
  let at = count.end;
  for (let i = 0; i < count.value; i++) {
    while (bytes[at]! >= 0x80) at++; // the gap
    at++;
    each(hashAt(bytes, at));
    at += 4;
  }
}

/** How many fingerprints bytes of encodePassageBytes hold (their second varint), without checking the rest. */
export function passageCount(bytes: Uint8Array): number {
  return readVarint(bytes, readVarint(bytes, 0).end).value;
}

/** Bytes as base64 (RFC 4648, with padding). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Each base64 character's value (0–63), 64 for '=', 255 for any other character code below 128. */
const BASE64_VALUES = (() => {
  const values = new Uint8Array(128).fill(255);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < 64; i++) values[alphabet.charCodeAt(i)] = i;
  values['='.charCodeAt(0)] = 64;
  return values;
})();

/**
 * The bytes of a base64 string (RFC 4648, padded); a RangeError for anything that is not base64.
 * One pass with a table: an import decodes a million of these, and atob with a check by a regular
 * expression took about three times as long.
 */
export function base64ToBytes(text: string): Uint8Array {
  const fail = (): never => {
    throw new RangeError('not base64');
  };
  if (text.length % 4 !== 0) return fail();
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  const value = (i: number): number => {
    const code = text.charCodeAt(i);
    return code < 128 ? BASE64_VALUES[code]! : 255;
  };
  // every quad but the last: four values of 0–63 (a '=' or another character is 64 or more)
  const whole = padding === 0 ? text.length : text.length - 4;
  let at = 0;
  for (let i = 0; i < whole; i += 4) {
    const a = value(i);
    const b = value(i + 1);
    const c = value(i + 2);
    const d = value(i + 3);
    if ((a | b | c | d) >= 64) return fail();
    const quad = (a << 18) | (b << 12) | (c << 6) | d;
    out[at++] = quad >>> 16;
    out[at++] = (quad >>> 8) & 0xff;
    out[at++] = quad & 0xff;
  }
  if (padding > 0) {
    const a = value(whole);
    const b = value(whole + 1);
    const c = padding === 2 ? 0 : value(whole + 2);
    if ((a | b | c) >= 64) return fail();
    const quad = (a << 18) | (b << 12) | (c << 6);
    out[at++] = quad >>> 16;
    if (padding === 1) out[at++] = (quad >>> 8) & 0xff;
  }
  return out;
}
