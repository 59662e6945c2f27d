// A page's passage fingerprints as bytes: what the store keeps of a page (lib/store/passages.ts)
// and what an export line carries (lib/protocol/ndjson.ts, in base64). Hashes and positions, no text:
//
//   varint words · varint n · [byte k · n × (Rice(step, 4) · Rice(hash, k)), 0 bits to a byte's end] · [word bits]
//
// A step is the fingerprint's position minus the one before it, minus 1 (the first's is its
// position). Winnowing keeps one k-gram in every window of w, so a step is below w (26): a Rice
// code with 4 bits of remainder (lib/fingerprint/rice.ts) takes 5 or 6 bits. Winnowing keeps the
// smallest hash of each window, so the hashes crowd toward 0 (their mean is about 1/19 of the
// range): a Rice code with the page's best k (about 27) takes about 30 bits where 4 bytes took 32.
// Varints are unsigned LEB128: 7 bits a byte, the low bits first. The word bits, one bit of each
// word's hash (lib/fingerprint/passages.ts), 8 a byte, the first word in the lowest bit, the last
// byte's unused bits 0, take the rest of the bytes when present: ⌈words / 8⌉ of them. Bytes written
// before they existed end with the fingerprints and still decode, without them.
//
// Version 1 of these bytes (exports written before 27 Nov 2026, whose header's `passages` has no
// `bytes`) wrote each fingerprint as a varint gap and 4 bytes of hash: passageBytesFromVersion1
// turns them into these.
import type { PassageFingerprints } from './passages';
import { RiceReader, RiceWriter, bestRiceK, riceSize } from './rice';
import { readVarint, varintSize, writeVarint } from './varint';

/** The version of the format above: an export's header names it (lib/protocol/ndjson.ts). */
export const PASSAGE_BYTES_VERSION = 2;

/** At most this many fingerprints a page (a text of about 680,000 words): what a message or a line may carry. */
export const MAX_PAGE_FINGERPRINTS = 50_000;

/** The Rice parameter of the position steps: winnowing's steps are below 26. */
const STEP_BITS = 4;

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
  const head = varintSize(words) + varintSize(hashes.length);
  const { k } = bestRiceK(hashes, 31); // winnowing keeps minima: the hashes crowd toward 0
  let bits = 0;
  for (let i = 0; i < hashes.length; i++) bits += riceSize(positions[i]! - (i === 0 ? 0 : positions[i - 1]! + 1), STEP_BITS) + riceSize(hashes[i]!, k);
  const codes = hashes.length === 0 ? 0 : 1 + Math.ceil(bits / 8);
  const out = new Uint8Array(head + codes + (fingerprints.wordBits?.length ?? 0));
  let at = writeVarint(out, 0, words);
  at = writeVarint(out, at, hashes.length);
  if (hashes.length > 0) {
    out[at++] = k;
    const writer = new RiceWriter(out, at * 8);
    for (let i = 0; i < hashes.length; i++) {
      writer.write(positions[i]! - (i === 0 ? 0 : positions[i - 1]! + 1), STEP_BITS);
      writer.write(hashes[i]!, k);
    }
    at += codes - 1;
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
 * Reads the fingerprints of `bytes` (the format at the top), checking each, and calls `each` with
 * its position and hash; returns the word count, how many there are and where they end. Throws a
 * RangeError that says what is wrong.
 */
function readFingerprints(bytes: Uint8Array, each: ((position: number, hash: number) => void) | null): { words: number; count: number; fingerprintsEnd: number } {
  const words = readVarint(bytes, 0);
  const count = readVarint(bytes, words.end);
  if (count.value > MAX_PAGE_FINGERPRINTS) throw new RangeError(`${count.value} passage fingerprints: at most ${MAX_PAGE_FINGERPRINTS} a page`);
  if (count.value === 0) return { words: words.value, count: 0, fingerprintsEnd: count.end };
  if (count.end >= bytes.length) throw new RangeError('the bytes end inside a hash');
  const k = bytes[count.end]!;
  if (k > 31) throw new RangeError(`a hash's Rice parameter ${k} is past 31`);
  const reader = new RiceReader(bytes, (count.end + 1) * 8, () => new RangeError('the bytes end inside a hash'));
  let position = -1;
  for (let i = 0; i < count.value; i++) {
    position += reader.next(STEP_BITS) + 1;
    if (position >= words.value) throw new RangeError(`passage fingerprint ${i} is at word ${position}, past the ${words.value} words`);
    const hash = reader.next(k);
    if (hash > 0xffff_ffff) throw new RangeError(`passage fingerprint ${i}'s hash is past 32 bits`);
    each?.(position, hash);
  }
  if (!reader.paddedWithZeros()) throw new RangeError('the bits after the last hash are not 0');
  return { words: words.value, count: count.value, fingerprintsEnd: reader.end };
}

/**
 * The fingerprints encoded in `bytes` (encodePassageBytes), with their word bits when the bytes
 * hold them. Throws a RangeError that says what is wrong: bytes that end early, too many
 * fingerprints, a position past the words, word bits of the wrong length.
 */
export function decodePassageBytes(bytes: Uint8Array): PassageFingerprints {
  const count = passageCount(bytes);
  const hashes = new Uint32Array(Math.min(count, MAX_PAGE_FINGERPRINTS));
  const positions = new Int32Array(hashes.length);
  let i = 0;
  const { words, fingerprintsEnd } = readFingerprints(bytes, (position, hash) => {
    positions[i] = position;
    hashes[i++] = hash;
  });
  if (fingerprintsEnd < bytes.length) checkWordBits(bytes, fingerprintsEnd, bytes.length, words);
  return fingerprintsEnd === bytes.length ? { words, hashes, positions } : { words, hashes, positions, wordBits: bytes.slice(fingerprintsEnd) };
}

/**
 * Checks bytes as decodePassageBytes does, without decoding them into arrays: the word count, how
 * many fingerprints they hold and where those end (the word bits, if any, follow). The same RangeErrors.
 */
export function checkPassageBytes(bytes: Uint8Array): { words: number; count: number; fingerprintsEnd: number } {
  const read = readFingerprints(bytes, null);
  if (read.fingerprintsEnd < bytes.length) checkWordBits(bytes, read.fingerprintsEnd, bytes.length, read.words);
  return read;
}

/**
 * Calls `each` with every hash of bytes of encodePassageBytes, in position order, without making
 * arrays: organising an import reads fifty million of them, several times. The bytes must have been
 * checked (checkPassageBytes, or written by encodePassageBytes).
 */
export function forEachPassageHash(bytes: Uint8Array, each: (hash: number) => void): void {
  readFingerprints(bytes, (_, hash) => each(hash));
}

/** How many fingerprints bytes of encodePassageBytes hold (their second varint), without checking the rest. */
export function passageCount(bytes: Uint8Array): number {
  return readVarint(bytes, readVarint(bytes, 0).end).value;
}

/**
 * Version 1 bytes (varint words · varint n · n × (varint gap · hash as 4 bytes, big-endian) ·
 * [word bits]) as this version's; a RangeError that says what is wrong if they are not version 1's.
 */
export function passageBytesFromVersion1(bytes: Uint8Array): Uint8Array {
  const words = readVarint(bytes, 0);
  const count = readVarint(bytes, words.end);
  if (count.value > MAX_PAGE_FINGERPRINTS) throw new RangeError(`${count.value} passage fingerprints: at most ${MAX_PAGE_FINGERPRINTS} a page`);
  const hashes = new Uint32Array(count.value);
  const positions = new Int32Array(count.value);
  let at = count.end;
  let position = 0;
  for (let i = 0; i < count.value; i++) {
    const gap = readVarint(bytes, at);
    if (i > 0 && gap.value === 0) throw new RangeError(`passage fingerprint ${i} is at the position of the one before`);
    position += gap.value;
    if (position >= words.value) throw new RangeError(`passage fingerprint ${i} is at word ${position}, past the ${words.value} words`);
    at = gap.end + 4;
    if (at > bytes.length) throw new RangeError('the bytes end inside a hash');
    positions[i] = position;
    hashes[i] = ((bytes[at - 4]! << 24) | (bytes[at - 3]! << 16) | (bytes[at - 2]! << 8) | bytes[at - 1]!) >>> 0;
  }
  const wordBits = at < bytes.length ? bytes.slice(at) : undefined;
  if (wordBits !== undefined) checkWordBits(wordBits, 0, wordBits.length, words.value);
  return encodePassageBytes({ words: words.value, hashes, positions, ...(wordBits && { wordBits }) });
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

/** A stored page's fingerprints from its bytes (undefined: none); a RangeError naming page `id` if they are damaged. */
export function decodeStoredPassages(id: number, bytes: Uint8Array | undefined): PassageFingerprints | undefined {
  if (bytes === undefined) return undefined;
  try {
    return decodePassageBytes(bytes);
  } catch (error) {
    throw new RangeError(`Doppel's stored passage fingerprints of page ${id} are damaged: ${(error as Error).message}.`);
  }
}
