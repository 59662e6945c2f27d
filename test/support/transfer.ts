// Node 20 has no ArrayBuffer.prototype.transfer (Chromium 114+ and Firefox 122+ have): without it,
// release (lib/index/posting-passes.ts) does nothing under vitest, and a view read after its buffer
// was let go would pass here and throw in the browser. structuredClone's transfer detaches the same
// way, so every test runs with the buffers released as the extension releases them.
const proto = ArrayBuffer.prototype as ArrayBuffer & { transfer?: (length?: number) => ArrayBuffer };
if (typeof proto.transfer !== 'function') {
  Object.defineProperty(ArrayBuffer.prototype, 'transfer', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length?: number): ArrayBuffer {
      const moved = structuredClone(this, { transfer: [this] });
      return length === undefined || length === moved.byteLength ? moved : moved.slice(0, length);
    },
  });
}
