// Values of a few bits each packed end to end in 32-bit words (writeBits, readBits), and PackedLog:
// such values in chunks that are never copied once full, appended or set in place. The regroup's
// log of every page's index hash keys is one, and becomes the rewrite postings
// (lib/index/packed-rewrites.ts PackedRewritePostings.sealFromLog).
import { release } from './posting-passes';

/**
 * Values a PackedLog chunk holds (a multiple of 32, so that a chunk ends at a word's end): 2^21,
 * 5 MB of 20-bit keys, an allocation mapped on its own and given back to the system when let go.
 */
export const PACKED_LOG_CHUNK = 1 << 21;
const LOG_CHUNK_SHIFT = 21;

/** Values the last chunk of a PackedLog first holds (1,024); it doubles up to PACKED_LOG_CHUNK. */
export const FIRST_LOG_VALUES = 1 << 10;

/**
 * Values of `width` bits (1–32), appended or set in place, packed in chunks of PACKED_LOG_CHUNK
 * values that are never copied once full (an array that doubles holds its spare room, and both
 * arrays while it grows; only the last chunk grows, from FIRST_LOG_VALUES): the regroup's log of
 * every page's index hash keys (20 bits each), which becomes the rewrite postings, each key's
 * holders (PackedRewritePostings.sealFromLog).
 */
export class PackedLog {
  private readonly chunks: (Uint32Array | undefined)[] = [];
  private readonly perChunk = PACKED_LOG_CHUNK;
  length = 0;

  /** The low `width` bits set. */
  private readonly mask: number;

  constructor(readonly width: number) {
    if (!(Number.isInteger(width) && width >= 1 && width <= 32)) throw new RangeError(`a width is 1 to 32 bits: got ${width}`);
    this.mask = width === 32 ? 0xffffffff : (1 << width) - 1;
  }

  push(value: number): void {
    const chunk = Math.floor(this.length / this.perChunk);
    const at = this.length - chunk * this.perChunk;
    this.room(chunk, at + 1);
    writeBits(this.chunks[chunk]!, at, this.width, value);
    this.length++;
  }

  /** Makes chunk `c` (the last, or the one after it) hold `values` values at least: a new chunk holds FIRST_LOG_VALUES, a chunk outgrown twice as many, up to PACKED_LOG_CHUNK. */
  private room(c: number, values: number): void {
    const words = Math.ceil((values * this.width) / 32);
    const chunk = this.chunks[c];
    if (chunk !== undefined && chunk.length >= words) return;
    const full = (this.perChunk / 32) * this.width;
    const grown = new Uint32Array(Math.min(full, Math.max(words, chunk === undefined ? Math.ceil((FIRST_LOG_VALUES * this.width) / 32) : 2 * chunk.length)));
    if (chunk !== undefined) {
      grown.set(chunk);
      release(chunk);
    }
    this.chunks[c] = grown;
  }

  // get and set are readBits and writeBits inlined, with shifts for the chunk's arithmetic: the
  // postings of a million pages are placed through the log by some 60 million of each (sealFromLog)
  get(index: number): number {
    const chunk = this.chunkOf(index);
    const { width } = this;
    const bit = (index & (PACKED_LOG_CHUNK - 1)) * width; // below 2^26
    const word = bit >>> 5;
    const offset = bit & 31;
    let value = chunk[word]! >>> offset;
    if (offset + width > 32) value |= chunk[word + 1]! << (32 - offset);
    return width === 32 ? value >>> 0 : value & this.mask;
  }

  /** Puts `value` (below 2^width) in place of the `index`-th value. */
  set(index: number, value: number): void {
    const chunk = this.chunkOf(index);
    const { width, mask } = this;
    const bit = (index & (PACKED_LOG_CHUNK - 1)) * width;
    const word = bit >>> 5;
    const offset = bit & 31;
    chunk[word] = (chunk[word]! & ~(mask << offset)) | (value << offset);
    if (offset + width > 32) chunk[word + 1] = (chunk[word + 1]! & ~(mask >>> (32 - offset))) | (value >>> (32 - offset));
  }

  /** Makes the log `length` values long, the values added zero (set then writes them in any order). */
  extend(length: number): void {
    for (let c = Math.floor(this.length / this.perChunk); c * this.perChunk < length; c++) this.room(c, Math.min(this.perChunk, length - c * this.perChunk));
    this.length = Math.max(this.length, length);
  }

  /** The same values in `width` bits (at least this log's): a log of its own, this one let go chunk by chunk as it is copied. */
  widened(width: number): PackedLog {
    if (width < this.width) throw new RangeError(`a log of ${this.width}-bit values cannot be narrowed to ${width} bits`);
    const wider = new PackedLog(width);
    wider.extend(this.length);
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c];
      if (chunk === undefined) throw new RangeError('PackedLog: a log with values let go cannot be widened');
      const into = wider.chunks[c]!;
      const count = Math.min(this.perChunk, this.length - c * this.perChunk);
      for (let i = 0; i < count; i++) writeBits(into, i, width, readBits(chunk, i, this.width));
      release(chunk);
      this.chunks[c] = undefined;
    }
    return wider;
  }

  private chunkOf(index: number): Uint32Array {
    const chunk = this.chunks[index >>> LOG_CHUNK_SHIFT];
    if (chunk === undefined || !(index >= 0 && index < this.length)) throw new RangeError(`PackedLog: value ${index} is not held (${this.length} pushed)`);
    return chunk;
  }

  /** Lets go (release) the chunks holding only values before `index`: they can no longer be read. */
  releaseBefore(index: number): void {
    const whole = Math.floor(index / this.perChunk);
    for (let c = 0; c < Math.min(whole, this.chunks.length); c++) {
      const chunk = this.chunks[c];
      if (chunk === undefined) continue;
      release(chunk);
      this.chunks[c] = undefined;
    }
  }

  heldBytes(): number {
    let bytes = 0;
    for (const chunk of this.chunks) bytes += chunk?.byteLength ?? 0;
    return bytes;
  }
}

/** Puts `value` (below 2^width) as the `index`-th of `words`' packed values of `width` bits (1–32); the words start at zero. */
export function writeBits(words: Uint32Array, index: number, width: number, value: number): void {
  const bit = index * width;
  const word = Math.floor(bit / 32);
  const offset = bit % 32;
  words[word]! |= value << offset;
  if (offset + width > 32) words[word + 1]! |= value >>> (32 - offset);
}

/** The `index`-th of `words`' packed values of `width` bits (1–32). */
export function readBits(words: Uint32Array, index: number, width: number): number {
  const bit = index * width;
  const word = Math.floor(bit / 32);
  const offset = bit % 32;
  let value = words[word]! >>> offset;
  if (offset + width > 32) value |= words[word + 1]! << (32 - offset);
  return width === 32 ? value >>> 0 : value & ((1 << width) - 1);
}
