// Where a WARC file's records begin and end, over warcio's reader (which inflates a .warc.gz member
// by member, and reads a plain .warc as it is) and its header parser. warcio's own WARCParser is
// not used: asked to skip a record that a truncated file cuts, it loops without end (LimitReader's
// skipFully, warcio 2.4.11), it reads a header line or block of any length into memory, and a
// Content-Length that lies only makes it warn on the console. Here a block is read once, in chunks,
// bounded; its last MiB is kept so that a Content-Length that is too long can be undone; and a
// record that does not end where its Content-Length says is reported, then reading goes on at the
// next line that starts a record.
import { AsyncIterReader, LimitReader, StatusAndHeadersParser } from 'warcio';
import { MAX_HEADER_BYTES, MAX_HEADER_LINE_BYTES } from './types';

/** How much of a block's end is kept to find a record that a too-long Content-Length swallowed. */
const TAIL_BYTES = 1024 * 1024;
const RECORD_START = Buffer.from('\r\n\r\nWARC/');

export interface RecordHead {
  /** The record's number in the file, from the first index. */
  index: number;
  /** See Position.offset. */
  offset: number | null;
  headers: Headers;
  contentLength: number;
}

/** Why a record's block did not end as its Content-Length says; reading goes on after it. */
export type BlockEnd =
  | { ok: true }
  | { ok: false; fatal: false; message: string }
  /** The file ends inside the block: nothing after it. */
  | { ok: false; fatal: true; message: string };

/** What the file holds next. */
export type Next =
  | { type: 'record'; head: RecordHead }
  /** Bytes that are no WARC record (before the next record, or up to the file's end). */
  | { type: 'garbage'; bytes: number; before: number | null }
  /** A record whose headers cannot be read; fatal when the file ends in them, else reading goes on at the next record. */
  | { type: 'problem'; index: number; message: string; fatal: boolean }
  /** The file ends inside a gzip member, after the block of record `index` (which is whole). */
  | { type: 'cut'; index: number; message: string }
  | { type: 'end' };

export class WarcFraming {
  private readonly reader: AsyncIterReader;
  private readonly startOffset: number;
  private index: number;
  /** The raw offset where the next record starts in a gzipped file, when known (see Position.offset). */
  private nextOffset: number;
  private lastOffset = -1;
  /** A record's first line, read while checking the end of the block before it. */
  private firstLine: Uint8Array | null = null;
  /** After a record without a usable Content-Length: go on at the next line that starts a record, quietly. */
  private seeking = false;
  private block: LimitReader | null = null;
  private tail: Uint8Array[] = [];
  private tailBytes = 0;
  /** After a record that lied, a gzipped file's offsets cannot be trusted. */
  private offsetsLost = false;

  constructor(source: AsyncIterable<Uint8Array>, { firstIndex = 0, firstOffset = 0 }: { firstIndex?: number; firstOffset?: number } = {}) {
    // 'gzip': warcio inflates gzip members one after another, and reads bytes that are not gzip as they are
    this.reader = new AsyncIterReader(source, 'gzip');
    this.index = firstIndex;
    this.startOffset = firstOffset;
    this.nextOffset = firstOffset;
  }

  /** Whether the file is gzipped (known once its first bytes are read). */
  get gzipped(): boolean {
    return this.reader.compressed !== null;
  }

  /** The next record's WARC headers, with its block ready to read; or what stands in its place. */
  async next(): Promise<Next> {
    let line = this.firstLine ?? (await this.nonBlankLine());
    this.firstLine = null;
    if (line === null) {
      // the last member's end was never read: what came before it is whole, but the file is cut
      const { inflator, lastValue } = this.reader;
      if (this.gzipped && lastValue !== null && inflator !== null && !inflator.ended) return { type: 'cut', index: this.index - 1, message: 'the file ends inside its gzip member (cut short)' };
      return { type: 'end' };
    }
    if (!isRecordStart(line)) {
      const { found, skipped } = await this.seekRecord(line);
      this.offsetsLost = true;
      this.firstLine = found;
      if (this.seeking) {
        this.seeking = false;
        return this.next();
      }
      return { type: 'garbage', bytes: skipped, before: found === null ? null : this.index };
    }
    this.seeking = false;
    let offset: number | null = this.startOffset + this.reader.getReadOffset() - line.length;
    if (this.gzipped) {
      offset = this.offsetsLost || this.nextOffset === this.lastOffset ? null : this.nextOffset;
      this.lastOffset = this.nextOffset;
    }
    const index = this.index++;
    const block = await readHeaderBlock((max) => this.reader.readlineRaw(max), line);
    if (!block.ok) {
      this.seeking = true;
      return { type: 'problem', index, message: `its WARC headers ${block.reason}`, fatal: block.cut };
    }
    const { headers } = await parseHeaders(block.bytes);
    const contentLength = Number(headers.get('content-length') ?? NaN);
    if (!Number.isSafeInteger(contentLength) || contentLength < 0) {
      this.seeking = true;
      return { type: 'problem', index, message: `no valid Content-Length (${JSON.stringify(headers.get('content-length'))}): read on from the next record`, fatal: false };
    }
    this.block = new LimitReader(this.reader, contentLength);
    this.tail = [];
    this.tailBytes = 0;
    return { type: 'record', head: { index, offset, headers, contentLength } };
  }

  /** The block's next header block (a response's HTTP headers): its bytes, or why there is none. */
  async blockHeaders(): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; reason: string }> {
    const block = this.block!;
    return readHeaderBlock(async (max) => {
      const line = await block.readlineRaw(max);
      if (line !== null) this.keep(line);
      return line;
    });
  }

  /**
   * The rest of the block, when it holds at most maxBytes; null when it holds more (then it is read
   * past, in chunks, and not held).
   */
  async blockRest(maxBytes: number, block = this.block!): Promise<Uint8Array | null> {
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of block) {
      this.keep(chunk);
      size += chunk.length;
      if (size <= maxBytes) parts.push(chunk);
      else parts.length = 0;
    }
    return size <= maxBytes ? Buffer.concat(parts, size) : null;
  }

  /**
   * Reads what is left of the block and checks that a record (or the file's end) follows it.
   * When the block is followed by something else, its Content-Length lied: too long when the end
   * of the block holds the start of the next record (reading goes on there), too short when the
   * next record starts further on (reading goes on there too).
   */
  async endBlock(): Promise<BlockEnd> {
    const block = this.block!;
    this.block = null;
    await this.blockRest(0, block);
    const declared = block.length;
    if (block.limit > 0) {
      const recovered = this.recoverFromTail(new Uint8Array(0));
      if (recovered !== null) return { ok: false, fatal: false, message: `its Content-Length (${declared} bytes) is too long: the next record starts ${recovered} bytes before the end it gives` };
      return { ok: false, fatal: true, message: `the file ends ${declared - block.limit} bytes into its block of ${declared} bytes (cut short)` };
    }
    this.nextOffset = this.reader.getRawOffset() + this.startOffset;
    // a block ends with two blank lines: then a record, the file's end, or bytes that are no record
    // (next() reports them); without the two, something of the record is left or was taken
    const after: Uint8Array[] = [];
    let line = await this.reader.readlineRaw(MAX_HEADER_LINE_BYTES);
    while (line !== null && isBlank(line)) {
      after.push(line);
      line = await this.reader.readlineRaw(MAX_HEADER_LINE_BYTES);
    }
    if (line === null || isRecordStart(line) || after.length >= 2) {
      this.firstLine = line;
      return { ok: true };
    }
    after.push(line);
    this.offsetsLost = true;
    const recovered = this.recoverFromTail(Buffer.concat(after));
    if (recovered !== null) return { ok: false, fatal: false, message: `its Content-Length (${declared} bytes) is too long: the next record starts ${recovered} bytes before the end it gives` };
    const { found, skipped } = await this.seekRecord(line);
    this.firstLine = found;
    const blanks = after.slice(0, -1).reduce((sum, l) => sum + l.length, 0);
    const where = found === null ? 'the file ends' : 'the next record starts';
    return { ok: false, fatal: false, message: `its Content-Length (${declared} bytes) is too short: ${where} ${blanks + skipped} bytes after the end it gives` };
  }

  private keep(chunk: Uint8Array): void {
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= TAIL_BYTES) this.tailBytes -= this.tail.shift()!.length;
  }

  /**
   * Finds the start of a record in the block's kept end followed by `line` (what was read after
   * it); when there is one, puts the bytes from there back to be read again, and says how many
   * bytes before the block's end it starts. Null when there is none.
   */
  private recoverFromTail(line: Uint8Array): number | null {
    const tail = Buffer.concat([...this.tail, line]);
    const start = tail.indexOf(RECORD_START);
    if (start < 0) return null;
    this.offsetsLost = true;
    const again = tail.subarray(start + 4);
    const saved = this.reader._savedChunk;
    this.reader._savedChunk = saved === null ? again : Buffer.concat([again, saved]);
    this.reader._readOffset -= again.length;
    return again.length - line.length;
  }

  /** The next line that is not empty, or null at the file's end. */
  private async nonBlankLine(): Promise<Uint8Array | null> {
    for (;;) {
      const line = await this.reader.readlineRaw(MAX_HEADER_LINE_BYTES);
      if (line === null || !isBlank(line)) return line;
    }
  }

  /** Reads lines from `line` on until one starts a record: it, or null at the file's end; and the bytes read past. */
  private async seekRecord(line: Uint8Array): Promise<{ found: Uint8Array | null; skipped: number }> {
    let skipped = 0;
    let next: Uint8Array | null = line;
    while (next !== null && !isRecordStart(next)) {
      skipped += next.length;
      next = await this.reader.readlineRaw(MAX_HEADER_LINE_BYTES);
    }
    return { found: next, skipped };
  }
}

function isBlank(line: Uint8Array): boolean {
  return (line.length === 1 && line[0] === 10) || (line.length === 2 && line[0] === 13 && line[1] === 10);
}

/** `WARC/` and a digit: a record's first line (WARC/1.0, WARC/1.1, WARC/0.18). */
function isRecordStart(line: Uint8Array): boolean {
  return line.length >= 6 && line[0] === 0x57 && line[1] === 0x41 && line[2] === 0x52 && line[3] === 0x43 && line[4] === 0x2f && line[5]! >= 0x30 && line[5]! <= 0x39;
}

/**
 * Reads header lines (from `first` on) up to and with the blank line that ends them, each at most
 * MAX_HEADER_LINE_BYTES and all at most MAX_HEADER_BYTES. `cut`: the stream ended in them.
 */
async function readHeaderBlock(
  readline: (max: number) => Promise<Uint8Array | null>,
  first?: Uint8Array,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; reason: string; cut: boolean }> {
  const lines: Uint8Array[] = first === undefined ? [] : [first];
  let size = first?.length ?? 0;
  for (;;) {
    const line = await readline(MAX_HEADER_LINE_BYTES);
    const cut = { ok: false as const, reason: 'end before the blank line that ends them (cut short)', cut: true };
    if (line === null) return cut;
    lines.push(line);
    size += line.length;
    if (size > MAX_HEADER_BYTES) return { ok: false, reason: `run over ${MAX_HEADER_BYTES} bytes`, cut: false };
    if (line[line.length - 1] !== 10) return line.length < MAX_HEADER_LINE_BYTES ? cut : { ok: false, reason: `have a line over ${MAX_HEADER_LINE_BYTES} bytes`, cut: false };
    if (isBlank(line) && lines.length > 1) return { ok: true, bytes: Buffer.concat(lines, size) };
  }
}

/** A header block's status line and headers, by warcio's parser. */
export async function parseHeaders(bytes: Uint8Array): Promise<{ statusLine: string; headers: Headers }> {
  const parsed = await new StatusAndHeadersParser().parse(new AsyncIterReader([bytes], null), { headersClass: Headers });
  if (parsed === null) return { statusLine: '', headers: new Headers() };
  return { statusLine: parsed.statusline, headers: parsed.headers as Headers };
}
