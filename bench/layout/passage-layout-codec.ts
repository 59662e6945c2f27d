// The packed layouts' postings codec for bench:passage-layout (bench/layout/passage-layout-page.ts):
// a chunk of sorted postings as delta + varint bytes, and back.

class ByteWriter {
  bytes = new Uint8Array(1024);
  length = 0;
  varint(n: number): void {
    if (this.length + 5 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    while (n >= 0x80) {
      this.bytes[this.length++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.bytes[this.length++] = n;
  }
  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/**
 * A chunk of sorted entries [hash, id(, position)] as bytes: the count, then per entry the hash's
 * difference from the one before (the first from the chunk's first key, so 0), the id, and the
 * position, each an unsigned LEB128 varint.
 */
export function encodePostings(entries: Uint32Array, stride: number): Uint8Array {
  const out = new ByteWriter();
  const n = entries.length / stride;
  out.varint(n);
  let prev = entries[0] ?? 0;
  for (let e = 0; e < entries.length; e += stride) {
    out.varint(entries[e]! - prev);
    prev = entries[e]!;
    for (let w = 1; w < stride; w++) out.varint(entries[e + w]!);
  }
  return out.done();
}

export function decodePostings(bytes: Uint8Array, stride: number, firstKey: number): Uint32Array {
  let at = 0;
  // the varints inline, without a closure: this loop is most of a packed lookup's time
  let n = 0;
  for (let shift = 0; ; shift += 7) {
    const b = bytes[at++]!;
    n += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  const out = new Uint32Array(n * stride);
  let hash = firstKey;
  for (let w = 0; w < out.length; w++) {
    let value = 0;
    let b = bytes[at++]!;
    value = b & 0x7f;
    if (b >= 0x80) {
      b = bytes[at++]!;
      value |= (b & 0x7f) << 7;
      if (b >= 0x80) {
        b = bytes[at++]!;
        value |= (b & 0x7f) << 14;
        if (b >= 0x80) {
          b = bytes[at++]!;
          value |= (b & 0x7f) << 21;
          if (b >= 0x80) value = (value >>> 0) + bytes[at++]! * 2 ** 28;
        }
      }
    }
    if (w % stride === 0) {
      hash += value >>> 0;
      out[w] = hash;
    } else out[w] = value;
  }
  return out;
}
