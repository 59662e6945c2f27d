// Which URLs are the same page. A page is recorded under its canonical URL: no fragment, no
// tracking parameters, so a link shared from a newsletter and the same article opened from a
// bookmark are one record.

/** Query parameters that identify a campaign or a click, never the content. */
const TRACKING_PARAMS = new Set([
  'fbclid', 'gclid', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'msclkid', 'yclid', 'twclid', 'ttclid',
  'li_fat_id', 'igshid', 'mc_cid', 'mc_eid', '_ga', '_gl', '_hsenc', '_hsmi', 'mkt_tok', 'oly_anon_id',
  'oly_enc_id', 'vero_id', 'wickedid', 'rb_clickid', 's_cid', 'ncid', 'ref_src', 'ref_url', 'cmpid',
]);

function isTrackingParam(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMS.has(lower);
}

/** Only http and https pages are recorded. */
export function isRecordableUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The canonical form of a page URL: fragment and tracking parameters removed, other parameters
 * kept in their order. Throws a TypeError for a string that is not an absolute http(s) URL.
 */
export function canonicalUrl(url: string): string {
  return canonicalPage(url).url;
}

/**
 * canonicalUrl, and the page's site (siteOf), from one parse of the URL. An import canonicalises
 * every line: a URL the parser would give back as it is (a plain host, a plain path, nothing after)
 * is not parsed.
 */
export function canonicalPage(url: string): { url: string; site: string } {
  const host = plainHost(url);
  if (host !== undefined) {
    const path = url.slice(url.indexOf('//') + 2 + host.length);
    if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) return { url, site: host };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`not a URL: ${JSON.stringify(url.slice(0, 200))}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`only http and https pages are recorded: got ${parsed.protocol}`);
  }
  // each setter and searchParams re-serialise the URL: touched only when there is something to drop
  if (parsed.hash !== '' || parsed.href.endsWith('#')) parsed.hash = '';
  if (parsed.search !== '') {
    const all = [...parsed.searchParams];
    const kept = all.filter(([name]) => !isTrackingParam(name));
    if (kept.length !== all.length) parsed.search = kept.length ? new URLSearchParams(kept).toString() : '';
  }
  return { url: parsed.href, site: parsed.host };
}

/**
 * An http(s) URL as the URL parser writes it, whose host it would give back unchanged: lowercase
 * labels, the last starting with a letter (not an IPv4 address), none punycode (xn--, which the
 * parser checks), a port without a leading zero; then the path, query or fragment, or nothing.
 */
const PLAIN_HOST = /^https?:\/\/((?:(?!xn--)[a-z0-9_-]+\.)*(?!xn--)[a-z][a-z0-9_-]*(?::[1-9][0-9]{0,4})?)(?:[/?#]|$)/;

/**
 * The site of a page, as `URL.host` (host and non-default port). Records are read back by the
 * million (organising), and their URLs are canonical: a plain host is read off the text, any other
 * URL parsed (the parser drops a default port, reads IPv4 and IPv6 forms, punycode, case).
 */
export function siteOf(url: string): string {
  return plainHost(url) ?? new URL(url).host;
}

/** The host of a URL that PLAIN_HOST matches and whose port the parser keeps; else undefined. */
function plainHost(url: string): string | undefined {
  const plain = PLAIN_HOST.exec(url);
  if (plain === null) return undefined;
  const host = plain[1]!;
  const colon = host.indexOf(':');
  const port = colon < 0 ? '' : host.slice(colon + 1);
  return Number(port) <= 65535 && port !== (url.startsWith('https:') ? '443' : '80') ? host : undefined;
}

/**
 * A path the parser keeps as it is, with nothing after it: a slash, then no character it
 * percent-encodes or reads otherwise (space, quotes, <>, `{}|^, a backslash, non-ASCII), no %
 * (%2e is a dot), no ? or #.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
/** A "." or ".." segment, which the parser removes. */
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;
