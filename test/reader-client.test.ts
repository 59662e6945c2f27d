import { describe, expect, test } from 'vitest';
import { READER_TARGET, type ReaderRequest } from '../lib/protocol/messages';
import { RETRY_DELAYS_MS, type ReaderDocument, type ReaderPort, portRequest, readerClient } from '../lib/background/reader-client';

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

/** A runtime.Port as Chromium gives it: events fired by the test; what the client posted and whether it disconnected. */
class FakePort implements ReaderPort {
  posted: unknown[] = [];
  disconnected = false;
  private messageListeners: ((message: unknown) => void)[] = [];
  private disconnectListeners: (() => void)[] = [];
  onMessage = { addListener: (listener: (message: unknown) => void) => void this.messageListeners.push(listener) };
  onDisconnect = { addListener: (listener: () => void) => void this.disconnectListeners.push(listener) };
  postMessage(message: unknown): void {
    this.posted.push(message);
  }
  disconnect(): void {
    this.disconnected = true;
  }
  reply(message: unknown): void {
    for (const listener of this.messageListeners) listener(message);
  }
  close(): void {
    for (const listener of this.disconnectListeners) listener();
  }
}

describe('portRequest', () => {
  const request: ReaderRequest = { target: READER_TARGET, url: 'https://example.com/a', html: '<p>a</p>' };

  test('posts the request on a new port, resolves with the first reply and closes the port', async () => {
    const port = new FakePort();
    const pending = portRequest(() => port, request, () => undefined);
    expect(port.posted).toEqual([request]);
    port.reply({ ok: true, value: 1 });
    port.reply({ ok: true, value: 2 });
    port.close(); // the disconnect that follows is no error
    await expect(pending).resolves.toEqual({ ok: true, value: 1 });
    expect(port.disconnected).toBe(true);
  });

  test.each([
    ['no document listens: Chromium says so in runtime.lastError', 'Could not establish connection. Receiving end does not exist.', /Receiving end does not exist/],
    ['the document closed before it replied, with no lastError', undefined, /message port closed/],
  ])('%s: rejects with an error that readerClient retries', async (_, lastError, message) => {
    const port = new FakePort();
    const pending = portRequest(() => port, request, () => lastError);
    port.close();
    await expect(pending).rejects.toThrow(message);
  });

  test('through readerClient: a port closed before the reply is retried on a new port', async () => {
    const ports: FakePort[] = [];
    const doc: ReaderDocument = {
      exists: async () => true,
      create: async () => {},
      send: (req) => {
        const port = new FakePort();
        ports.push(port);
        const pending = portRequest(() => port, req, () => undefined);
        if (ports.length === 1) port.close();
        else port.reply({ ok: true, value: { read: req.url } });
        return pending;
      },
      sleep: async () => {},
    };
    await expect(readerClient(doc)('<p>a</p>', 'https://example.com/a')).resolves.toEqual({ read: 'https://example.com/a' });
    expect(ports).toHaveLength(2);
  });
});
