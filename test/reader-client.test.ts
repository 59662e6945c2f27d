import { describe, expect, test } from 'vitest';
import { READER_TARGET, type ReaderRequest } from '../lib/messages';
import { RETRY_DELAYS_MS, type ReaderDocument, readerClient } from '../lib/reader-client';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Chromium's offscreen document as the worker sees it (measured in Chromium, not assumed):
 * getContexts lists the document from the moment it is created, but messages to it fail with
 * "Receiving end does not exist" until it has loaded and its listener is attached; a second
 * createDocument is refused.
 */
class FakeOffscreen implements ReaderDocument {
  state: 'closed' | 'loading' | 'listening' = 'closed';
  created = 0;
  sent = 0;
  slept: number[] = [];
  reply: (request: ReaderRequest) => unknown = (request) => ({ ok: true, value: { read: request.url } });
  sendError: Error | null = null;

  constructor(readonly loadMs = 20) {}

  async exists(): Promise<boolean> {
    await sleep(1);
    return this.state !== 'closed';
  }
  async create(): Promise<void> {
    if (this.state !== 'closed') throw new Error('Only a single offscreen document may be created.');
    this.created++;
    this.state = 'loading';
    await sleep(this.loadMs);
    this.state = 'listening';
  }
  /** As if created by an earlier worker: it exists and is still loading. */
  startLoading(ms: number): void {
    this.state = 'loading';
    void sleep(ms).then(() => (this.state = 'listening'));
  }
  async send(request: ReaderRequest): Promise<unknown> {
    this.sent++;
    await sleep(1);
    if (this.sendError) throw this.sendError;
    if (this.state !== 'listening') throw new Error('Could not establish connection. Receiving end does not exist.');
    return this.reply(request);
  }
  async sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    await sleep(ms);
  }
}

describe('readerClient', () => {
  test('35 pages arriving a millisecond apart while the document opens: every one is read, and it is created once', async () => {
    const doc = new FakeOffscreen(20);
    const read = readerClient(doc);
    const urls = Array.from({ length: 35 }, (_, i) => `https://example.com/${i}`);
    const readings = await Promise.all(urls.map(async (url, i) => (await sleep(i), read('<p>x</p>', url))));
    expect(readings).toEqual(urls.map((url) => ({ read: url })));
    expect(doc.created).toBe(1);
  });

  test('a document an earlier worker left loading: the read waits for it instead of failing', async () => {
    const doc = new FakeOffscreen();
    doc.startLoading(120);
    const read = readerClient(doc);
    expect(await read('<p>x</p>', 'https://example.com/a')).toEqual({ read: 'https://example.com/a' });
    expect(doc.created).toBe(0);
    expect(doc.slept.length).toBeGreaterThan(0);
  });

  test('the document closed itself (idle) after the check: it is opened again and the page read', async () => {
    const doc = new FakeOffscreen(5);
    const read = readerClient(doc);
    await read('<p>x</p>', 'https://example.com/a');
    const send = doc.send.bind(doc);
    let closedOnce = false;
    doc.send = async (request) => {
      if (!closedOnce) {
        closedOnce = true;
        doc.state = 'closed';
      }
      return send(request);
    };
    expect(await read('<p>x</p>', 'https://example.com/b')).toEqual({ read: 'https://example.com/b' });
    expect(doc.created).toBe(2);
  });

  test('a document that never listens: the read fails with the browser\'s words after every retry', async () => {
    const doc = new FakeOffscreen();
    doc.state = 'loading';
    const read = readerClient(doc);
    await expect(read('<p>x</p>', 'https://example.com/a')).rejects.toThrow('Receiving end does not exist');
    expect(doc.sent).toBe(RETRY_DELAYS_MS.length + 1);
    expect(doc.slept).toEqual([...RETRY_DELAYS_MS]);
  });

  test.each([
    ['the reader could not read the page', () => ({ ok: false, error: 'Readability threw: boom' }), 'Readability threw: boom'],
    ['a malformed reply', () => ({ fine: true }), "the reader document's reply must say ok true or false"],
    ['no reply at all', () => undefined, "the reader document's reply"],
  ])('%s: the read fails at once, without retrying', async (_, reply, message) => {
    const doc = new FakeOffscreen(1);
    doc.reply = reply;
    await expect(readerClient(doc)('<p>x</p>', 'https://example.com/a')).rejects.toThrow(message);
    expect(doc.sent).toBe(1);
  });

  test('another send error is not retried', async () => {
    const doc = new FakeOffscreen(1);
    doc.sendError = new Error('Message length exceeded maximum allowed length.');
    await expect(readerClient(doc)('<p>x</p>', 'https://example.com/a')).rejects.toThrow('Message length exceeded');
    expect(doc.sent).toBe(1);
  });

  test('a refused creation fails the read with the browser\'s words, and the next read tries again', async () => {
    const doc = new FakeOffscreen(1);
    const create = doc.create.bind(doc);
    doc.create = async () => {
      throw new Error('Offscreen documents are not allowed here.');
    };
    const read = readerClient(doc);
    await expect(read('<p>x</p>', 'https://example.com/a')).rejects.toThrow('not allowed here');
    doc.create = create;
    expect(await read('<p>x</p>', 'https://example.com/b')).toEqual({ read: 'https://example.com/b' });
  });

  test('the request names the reader document as its receiver and carries the page', async () => {
    const doc = new FakeOffscreen(1);
    let seen: ReaderRequest | undefined;
    doc.reply = (request) => ((seen = request), { ok: true, value: null });
    await readerClient(doc)('<p>hello</p>', 'https://example.com/a');
    expect(seen).toEqual({ target: READER_TARGET, url: 'https://example.com/a', html: '<p>hello</p>' });
  });
});
