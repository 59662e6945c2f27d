import { describe, expect, it } from 'vitest';
import { canonicalPage, canonicalUrl, isRecordableUrl, siteOf } from '../lib/url';

describe('canonicalUrl', () => {
  it.each([
    ['https://example.com/a#section-2', 'https://example.com/a'],
    ['https://example.com/a?utm_source=news&utm_medium=email', 'https://example.com/a'],
    ['https://example.com/a?id=7&utm_campaign=x&page=2', 'https://example.com/a?id=7&page=2'],
    ['https://example.com/a?fbclid=abc', 'https://example.com/a'],
    ['https://example.com/a?gclid=1&msclkid=2&UTM_Source=3', 'https://example.com/a'],
    ['https://example.com/a?b=2&a=1', 'https://example.com/a?b=2&a=1'],
    ['HTTPS://Example.COM:443/a', 'https://example.com/a'],
    ['http://127.0.0.1:8080/x.html?ref=home', 'http://127.0.0.1:8080/x.html?ref=home'],
    ['https://example.com/search?q=a+b#top', 'https://example.com/search?q=a+b'],
    ['https://example.com/a#', 'https://example.com/a'],
    ['https://example.com/a?#x', 'https://example.com/a?'],
  ])('%s → %s', (url, expected) => {
    expect(canonicalUrl(url)).toBe(expected);
  });

  it.each([
    ['not a url', 'not a URL: "not a url"'],
    ['javascript:alert(1)', 'only http and https pages are recorded: got javascript:'],
    ['file:///etc/passwd', 'only http and https pages are recorded: got file:'],
    ['data:text/html,hi', 'only http and https pages are recorded: got data:'],
  ])('rejects %s', (url, message) => {
    expect(() => canonicalUrl(url)).toThrow(new TypeError(message));
  });
});

describe('isRecordableUrl and siteOf', () => {
  it.each([
    ['https://a.example/x', true],
    ['http://localhost:3000/', true],
    ['about:blank', false],
    ['chrome://extensions', false],
    ['', false],
  ])('isRecordableUrl(%j) = %s', (url, expected) => expect(isRecordableUrl(url)).toBe(expected));

  it('a site is URL.host, port included', () => {
    expect(siteOf('http://127.0.0.1:8080/a')).toBe('127.0.0.1:8080');
    expect(siteOf('https://News.Example.com/a')).toBe('news.example.com');
  });

  // siteOf reads a plain host off the text and parses any other URL: each of these is what URL.host says (or throws)
  it.each([
    'http://a.example/x', 'https://a.b.co.uk:8443/x?y#z', 'http://a.example', 'http://a.example?x', 'http://a.example#x',
    'http://localhost:3000', 'http://-a.example/', 'http://a_b.example/', 'http://ab--cd.example/', `http://${'a'.repeat(70)}.example/`,
    // left to the parser: a default or odd port, an address, punycode, case, user info, a backslash, a trailing dot
    'http://a.example:80/', 'https://a.example:443/', 'https://a.example:80/', 'http://a.example:443/', 'http://a.example:08/', 'http://a.example:0/',
    'http://a.example:/', 'http://a.example:65535/', 'http://a.example:65536/', 'http://a.example:99999/', 'http://1.2.3.4/', 'http://0x7f.1/',
    'http://a.0x1/', 'http://[::1]:8080/', 'http://xn--nxasmq6b.example/', 'http://a.xn--p1ai/', 'http://xn--zz.example/', 'http://News.Example/',
    'http://user:pw@a.example/', 'http://a.example\\x', 'http://a.example./', 'http://a..example/', 'http://a.ex\tample/', 'HTTP://a.example/',
    'https:a.example/', ' http://a.example/', 'http://ünï.example/', 'http://a%41.example/', 'not a url',
  ])('siteOf(%j) is URL.host', (url) => {
    let host: string | Error;
    try {
      host = new URL(url).host;
    } catch (error) {
      host = error as Error;
    }
    if (host instanceof Error) expect(() => siteOf(url)).toThrow(TypeError);
    else expect(siteOf(url)).toBe(host);
  });

  // canonicalPage gives a plain URL back unparsed: each of these is what the parser gives (the fragment dropped), or a throw
  it.each([
    'https://a.example/news/2024/02/x-0', 'http://a.example/', 'https://a.example:8443/x', 'https://a.example//x', "https://a.example/a!$&'()*+,;=:@~_.-/b",
    'https://a.example/a.b/c.', 'https://a.example/.a/..b/c../...', 'http://localhost:3000/x',
    // left to the parser: dot segments (also percent-encoded), characters it encodes or reads otherwise, a default port, case, no path, a query or fragment
    'https://a.example/./x', 'https://a.example/../x', 'https://a.example/a/..', 'https://a.example/a/.', 'https://a.example/%2e/x', 'https://a.example/.%2E/x',
    'https://a.example/x/%2e%2e', 'https://a.example/a%41', 'https://a.example/a b', 'https://a.example/a"b', 'https://a.example/a<b>', 'https://a.example/a`b',
    'https://a.example/a{b}', 'https://a.example/a|b', 'https://a.example/a^b', 'https://a.example/[x]', 'https://a.example/ä', 'https://a.example/a\\b',
    'https://a.example/a\tb', 'https://a.example/a\nb', 'https://a.example:443/x', 'http://a.example:80/x', 'https://A.example/x', 'HTTPS://a.example/x',
    'https://a.example', 'https://a.example?x/y', 'https://a.example#x/y', 'https://a.example/x?', 'https://a.example/x#', 'https://a.example/x?y=1#z/w',
    'https://a.example/x?y=1&utm_source=2', 'http://1.2.3.4/x', 'http://a.example:65536/x', 'ftp://a.example/x',
  ])('canonicalPage(%j) is what the parser gives', (url) => {
    let expected: { url: string; site: string } | Error;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError('not http');
      parsed.hash = '';
      if ([...parsed.searchParams].some(([name]) => name.startsWith('utm_'))) parsed.search = '?y=1';
      expected = { url: parsed.href, site: parsed.host };
    } catch (error) {
      expected = error as Error;
    }
    if (expected instanceof Error) expect(() => canonicalPage(url)).toThrow(TypeError);
    else expect(canonicalPage(url)).toEqual(expected);
  });

  it('canonicalPage gives canonicalUrl and siteOf from one parse', () => {
    for (const url of ['https://News.Example.com:8443/a?utm_source=x&id=3#top', 'http://127.0.0.1:8080/b', 'https://ex.example/ünïcode?fbclid=1']) {
      expect(canonicalPage(url)).toEqual({ url: canonicalUrl(url), site: siteOf(canonicalUrl(url)) });
    }
    expect(() => canonicalPage('ftp://x.example/')).toThrow('only http and https pages are recorded');
  });
});
