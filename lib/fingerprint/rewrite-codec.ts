// A page's rewrite fingerprints as bytes: what the store keeps of a page and what an export line
// carries (lib/protocol/ndjson.ts).
//
//   varint anchors · varint (count · 2 + capped) · [varint limit / 2^16 when capped] · byte language
//   · Golomb–Rice codes of the gaps between the sorted hashes, k bits of remainder each
//
// Sorted hashes below a limit are close to evenly spread, so their gaps are close to geometric:
// a Rice code spends about log2(mean gap) + 1.5 bits a hash, where a varint spends whole bytes
// (Golomb-coded sets, as in Bitcoin's BIP 158). k follows from the count and the limit.
import { REWRITE_LANGUAGES } from './rewrite-anchors';
import { LIMIT_STEP, REWRITE_PARAMS, type RewriteFingerprints, type SampleParams } from './rewrites';
import { RiceReader, RiceWriter, riceSize } from './rice';
import { readVarint, varintSize, writeVarint } from './varint';

/** The default limit, which a page that is not capped does not store. */
function defaultLimit(params: SampleParams): number {
  return Math.round(params.share * 2 ** 32);
}

function riceBits(count: number, limit: number): number {
  const meanGap = limit / (count + 1);
  return Math.max(0, Math.min(31, Math.floor(Math.log2(meanGap * Math.LN2))));
}

/** Rewrite fingerprints' varints are at most 6 bytes (the anchors, the count, the limit). */
const MAX_VARINT_BYTES = 6;

/** The bytes of a page's fingerprints (the format above). */
export function encodeRewriteBytes(f: RewriteFingerprints, params: SampleParams = REWRITE_PARAMS.sample): Uint8Array {
  const { limit } = f;
  const unit = 2 ** (32 - params.bits);
  if (limit % LIMIT_STEP !== 0 || limit <= 0 || limit > 2 ** 32) throw new RangeError(`the limit must be a multiple of 2^16 in (0, 2^32]: got ${limit}`);
  for (let i = 0; i < f.hashes.length; i++) {
    const h = f.hashes[i]!;
    if (h >= limit || (i > 0 && h <= f.hashes[i - 1]!) || h % unit !== 0) throw new RangeError(`hash ${i} is not sorted, distinct, below the limit and cut to ${params.bits} bits`);
  }
  const hashes = Array.from(f.hashes, (h) => h / unit);
  const capped = limit !== defaultLimit(params);
  const countField = hashes.length * 2 + (capped ? 1 : 0);
  const head = new Uint8Array(varintSize(f.anchors) + varintSize(countField) + (capped ? varintSize(limit / LIMIT_STEP) : 0) + 1);
  let at = writeVarint(head, 0, f.anchors);
  at = writeVarint(head, at, countField);
  if (capped) at = writeVarint(head, at, limit / LIMIT_STEP);
  head[at] = REWRITE_LANGUAGES.indexOf(f.lang);
  const k = riceBits(hashes.length, limit / unit);
  let bitCount = 0;
  for (let i = 0; i < hashes.length; i++) bitCount += riceSize(hashes[i]! - (i === 0 ? -1 : hashes[i - 1]!) - 1, k);
  const out = new Uint8Array(head.length + Math.ceil(bitCount / 8));
  out.set(head);
  const writer = new RiceWriter(out, head.length * 8);
  for (let i = 0; i < hashes.length; i++) writer.write(hashes[i]! - (i === 0 ? -1 : hashes[i - 1]!) - 1, k);
  return out;
}

/** Bytes a page's fingerprints take, without making them. */
export function rewriteByteSize(f: RewriteFingerprints, params: SampleParams = REWRITE_PARAMS.sample): number {
  const capped = f.limit !== defaultLimit(params);
  const unit = 2 ** (32 - params.bits);
  const k = riceBits(f.hashes.length, f.limit / unit);
  let bits = 0;
  let previous = -1;
  for (const h of f.hashes) {
    bits += riceSize(h / unit - previous - 1, k);
    previous = h / unit;
  }
  return varintSize(f.anchors) + varintSize(f.hashes.length * 2 + 1) + (capped ? varintSize(f.limit / LIMIT_STEP) : 0) + 1 + Math.ceil(bits / 8);
}

/** The fingerprints in bytes of encodeRewriteBytes; a RangeError that says what is wrong. */
export function decodeRewriteBytes(bytes: Uint8Array, params: SampleParams = REWRITE_PARAMS.sample): RewriteFingerprints {
  const anchors = readVarint(bytes, 0, MAX_VARINT_BYTES);
  const head = readVarint(bytes, anchors.end, MAX_VARINT_BYTES);
  const count = Math.floor(head.value / 2);
  if (count > params.cap) throw new RangeError(`${count} hashes: at most ${params.cap} a page`);
  let at = head.end;
  let limit = defaultLimit(params);
  if (head.value % 2 === 1) {
    const l = readVarint(bytes, at, MAX_VARINT_BYTES);
    if (l.value < 1 || l.value > 2 ** 16) throw new RangeError(`a limit of ${l.value} · 2^16 is out of range`);
    limit = l.value * LIMIT_STEP;
    at = l.end;
  }
  if (at >= bytes.length) throw new RangeError('the bytes end before the language');
  const lang = REWRITE_LANGUAGES[bytes[at++]!];
  if (lang === undefined) throw new RangeError(`language ${bytes[at - 1]} is unknown`);
  const unit = 2 ** (32 - params.bits);
  const k = riceBits(count, limit / unit);
  const hashes = new Uint32Array(count);
  const reader = new RiceReader(bytes, at * 8, () => new RangeError('the bytes end inside a hash'));
  let previous = -1;
  for (let i = 0; i < count; i++) {
    const v = previous + 1 + reader.next(k);
    if (v * unit >= limit) throw new RangeError(`hash ${i} is past the limit`);
    hashes[i] = v * unit;
    previous = v;
  }
  if (Math.ceil(reader.bit / 8) !== bytes.length) throw new RangeError('bytes are left after the last hash');
  return { hashes, limit, anchors: anchors.value, lang };
}
