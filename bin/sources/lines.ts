// Lines of a byte stream, each held only up to a cap: a line over it is read past and reported by
// its length alone, so that a 200 MB line costs no more memory than a short one.

export interface Line {
  /** The line's number in the stream, from 0 (from `firstIndex`). */
  index: number;
  /** The byte where it starts in the stream (from `firstOffset`). */
  start: number;
  /** Its bytes without the `\n` (nor a `\r` before it); null when it is longer than the cap. */
  bytes: Uint8Array | null;
  /** Its length in bytes, without the line end. */
  length: number;
}

/** How a stream of lines ended: with its last line, or with an error (a gzip stream cut short) part-way through line `index`. */
export type LinesEnd = { ok: true } | { ok: false; error: unknown; index: number; start: number; pending: number };

/**
 * Splits `chunks` into lines at `\n`. A last line without `\n` is a line. An error from the
 * stream ends the lines: `onEnd` says where (the line it cut, and how many of its bytes had come).
 */
export async function* linesOf(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes: number,
  onEnd: (end: LinesEnd) => void,
  { firstIndex = 0, firstOffset = 0 }: { firstIndex?: number; firstOffset?: number } = {},
): AsyncGenerator<Line> {
  let index = firstIndex;
  let start = firstOffset;
  let parts: Uint8Array[] = [];
  let length = 0;
  const take = (tail: Uint8Array): Line => {
    const kept = length + tail.length <= maxBytes;
    let bytes: Uint8Array | null = null;
    if (kept) {
      bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
      if (bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
    }
    const total = length + tail.length;
    const line: Line = { index, start, bytes, length: bytes === null ? total : bytes.length };
    index++;
    start += total + 1;
    parts = [];
    length = 0;
    return line;
  };
  try {
    for await (const chunk of chunks) {
      const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let from = 0;
      for (let at = buffer.indexOf(10, from); at >= 0; at = buffer.indexOf(10, from)) {
        yield take(buffer.subarray(from, at));
        from = at + 1;
      }
      const rest = buffer.subarray(from);
      // past the cap only the count is kept
      if (length + rest.length <= maxBytes) parts.push(rest);
      else parts = [];
      length += rest.length;
    }
  } catch (error) {
    onEnd({ ok: false, error, index, start, pending: length });
    return;
  }
  if (length > 0) yield take(new Uint8Array(0));
  onEnd({ ok: true });
}
