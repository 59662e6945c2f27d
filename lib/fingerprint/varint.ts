// Varints (7 bits a byte, low bits first, the high bit set on every byte but the last): the numbers
// of the passage and rewrite fingerprints' bytes and of the postings' buckets.

/** Bytes `value` (a whole number below 2^53) takes as a varint. */
export function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}

/** Writes `value` (a whole number below 2^53) as a varint at `at`; returns where it ends. */
export function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 0x80);
  }
  out[at++] = value;
  return at;
}

/**
 * A varint read at `at`, and where it ends; a RangeError if the bytes end inside it or it takes
 * more than `maxBytes` bytes (8 by default: every number below 2^53 fits).
 */
export function readVarint(bytes: Uint8Array, at: number, maxBytes = 8): { value: number; end: number } {
  let value = 0;
  let scale = 1;
  for (let read = 1; ; read++) {
    if (at >= bytes.length) throw new RangeError('the bytes end inside a number');
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return { value, end: at };
    if (read >= maxBytes) throw new RangeError('a number is too long');
    scale *= 0x80;
  }
}
