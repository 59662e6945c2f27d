// The provenance development set: histories of publishers, content farms, partners and a blog,
// written as HTML pages, with the truth of which page is the original of which. It measures the
// rule of lib/report/original.ts and what lib/text/provenance.ts reads of each page (its date in
// the publishers' four ways, canonical links, credit lines in English and Spanish).
//
// Texts come from the rewrite development set (bench/data/rewrite-set.ts): the publishers' originals
// are the corpus articles as Doppel extracts them, the farms copy them (verbatim, edited, excerpted,
// rewritten, translated), the partners republish them with a canonical link or a credit line, and
// the partners' and the blog's own articles are the set's independent texts of articles used
// nowhere else. Everything is seeded (mulberry32): one seed, one set.
//
// `npx tsx bench/data/provenance-set-check.ts` checks that each page says what its `claims` say.
import { existsSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { mulberry32 } from '../../lib/random';
import { extractArticle } from '../../lib/text/extract';
import { CORPUS_DIR } from './republish';
import { loadRewriteSet, type RewriteArticle, type RewriteText } from './rewrite-set';

export type SiteRole = 'publisher' | 'farm' | 'partner' | 'blog';
export type PageKind = 'original' | 'verbatim' | 'edited' | 'excerpt' | 'rewrite' | 'translation_es' | 'republished' | 'linking';

export interface ProvenancePage {
  /** File name relative to the set's folder, e.g. 'pub-a.example/2025-03-04-tide-mill.html' (unique). */
  path: string;
  /** The page's address, e.g. 'https://pub-a.example/2025/03/04/tide-mill'. */
  url: string;
  /** URL host. */
  site: string;
  role: SiteRole;
  /** The article's id (the rewrite set's slug), or '' for a page of its own. */
  article: string;
  kind: PageKind;
  html: string;
  /** What the page claims, as written into its HTML (for reading the results, not used by Doppel): */
  claims: { published?: string /* ISO 8601 as written */; canonical?: string; creditLink?: string; backdated?: boolean };
}

export interface ProvenanceCopy {
  copy: string /* path */;
  original: string /* path: the true original */;
  kind: PageKind;
  credited: boolean;
  backdated: boolean;
}

export interface ProvenanceSet {
  pages: ProvenancePage[];
  copies: ProvenanceCopy[];
  sites: { site: string; role: SiteRole; honest: boolean /* publishers, partners, the blog */ }[];
}

export const PROVENANCE_SEED = 20250304;

// ---------- Text helpers ----------

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** JSON for a <script> element: no "</" or "<!--" can end or confuse it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value, null, 1).replace(/</g, '\\u003c');
}

const wordCount = (paragraphs: readonly string[]): number => paragraphs.reduce((n, p) => n + p.split(/\s+/).filter(Boolean).length, 0);

/** A URL slug of a title: ASCII words, at most six. */
function slugOf(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.slice(0, 6).join('-') || 'story';
}

/** The first line of a page title without a trailing site or author name ("… | eHow", "… - Breitbart"). */
function cleanTitle(title: string): string {
  const line = (title.split('\n')[0] ?? '').trim();
  const m = /^(.*\S)\s+[|–—-]\s+([^|–—-]+)$/.exec(line);
  if (m !== null && m[2]!.trim().split(/\s+/).length <= 3 && m[1]!.split(/\s+/).length >= 3) return m[1]!;
  return line;
}

// ---------- Time helpers ----------

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MONTHS_EN = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTHS_ES = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];

type Zone = 'utc' | 'eu' | 'us';

/** The UTC day of month of the last (or `nth`, from 1) Sunday of a month. */
function sunday(year: number, month: number, nth: number | 'last'): number {
  if (nth === 'last') {
    const last = new Date(Date.UTC(year, month + 1, 0));
    return last.getUTCDate() - last.getUTCDay();
  }
  const first = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((7 - first) % 7) + (nth - 1) * 7;
}

/** Minutes east of UTC at `ms` in a zone: Central European or US Eastern time with summer time, or UTC. */
function offsetAt(ms: number, zone: Zone): number {
  const year = new Date(ms).getUTCFullYear();
  if (zone === 'eu') {
    const start = Date.UTC(year, 2, sunday(year, 2, 'last'), 1);
    const end = Date.UTC(year, 9, sunday(year, 9, 'last'), 1);
    return ms >= start && ms < end ? 120 : 60;
  }
  if (zone === 'us') {
    const start = Date.UTC(year, 2, sunday(year, 2, 2), 7);
    const end = Date.UTC(year, 10, sunday(year, 10, 1), 6);
    return ms >= start && ms < end ? -240 : -300;
  }
  return 0;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** The local calendar parts of `ms` in `zone`. */
function local(ms: number, zone: Zone): { y: number; m: number; d: number; h: number; min: number; s: number; offset: number } {
  const offset = offsetAt(ms, zone);
  const t = new Date(ms + offset * 60_000);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours(), min: t.getUTCMinutes(), s: t.getUTCSeconds(), offset };
}

/** ISO 8601 with the zone's offset: 2025-03-04T09:30:00+01:00 (or …Z with `z` in UTC). */
function isoAt(ms: number, zone: Zone, z = false): string {
  const { y, m, d, h, min, s, offset } = local(ms, zone);
  const sign = offset < 0 ? '-' : '+';
  const off = z && offset === 0 ? 'Z' : `${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `${y}-${two(m)}-${two(d)}T${two(h)}:${two(min)}:${two(s)}${off}`;
}

/** The local date, 2025-03-04. */
function dateAt(ms: number, zone: Zone): string {
  const { y, m, d } = local(ms, zone);
  return `${y}-${two(m)}-${two(d)}`;
}

/** "March 4, 2025" or "4 de marzo de 2025". */
function humanDate(ms: number, zone: Zone, lang: 'en' | 'es' = 'en'): string {
  const { y, m, d } = local(ms, zone);
  return lang === 'es' ? `${d} de ${MONTHS_ES[m - 1]} de ${y}` : `${MONTHS_EN[m - 1]} ${d}, ${y}`;
}

/** "9:30 a.m." */
function humanTime(ms: number, zone: Zone): string {
  const { h, min } = local(ms, zone);
  return `${h % 12 === 0 ? 12 : h % 12}:${two(min)} ${h < 12 ? 'a.m.' : 'p.m.'}`;
}

// ---------- Sites ----------

type PublisherId = 'pub-a' | 'pub-b' | 'pub-c' | 'pub-d';

interface Publisher {
  id: PublisherId;
  host: string;
  name: string;
  zone: Zone;
  sections: string[];
  authors: string[];
  color: string;
}

const PUBLISHERS: readonly Publisher[] = [
  { id: 'pub-a', host: 'pub-a.example', name: 'The Morning Ledger', zone: 'eu', sections: ['World', 'Politics', 'Business', 'Technology', 'Science', 'Culture'], authors: ['Clara Jennings', 'Tomás Ferreira', 'Hannah Okafor', 'Luc Marchetti'], color: '#12355b' },
  { id: 'pub-b', host: 'pub-b.example', name: 'Northfield Gazette', zone: 'utc', sections: ['News', 'Local', 'Money', 'Tech', 'Health', 'Opinion'], authors: ['Priya Raman', 'Owen Gallagher', 'Maya Lindqvist', 'Daniel Osei'], color: '#7a1f1f' },
  { id: 'pub-c', host: 'pub-c.example', name: 'Coastline Herald', zone: 'us', sections: ['U.S.', 'World', 'Economy', 'Science', 'Arts', 'Sports'], authors: ['Rebecca Thornton', 'Marcus Bell', 'Julia Navarro', 'Kenji Watanabe'], color: '#0b5d4b' },
  { id: 'pub-d', host: 'pub-d.example', name: 'The Civic Times', zone: 'utc', sections: ['Home', 'Nation', 'World', 'Business', 'Life', 'Tech'], authors: ['Alan Whitfield', 'Sofia Brandt', 'Grace Mbeki', 'Peter Novak'], color: '#333366' },
];

const FARM_LATE = { host: 'farm-late.example', name: 'Viral Daily Digest' };
const FARM_NODATE = { host: 'farm-nodate.example', name: 'TopNewsHub' };
const FARM_BACKDATE = { host: 'farm-backdate.example', name: 'Evergreen News Wire' };
const PARTNER_CANON = { host: 'partner-canon.example', name: 'Meridian Syndicate' };
const PARTNER_CREDIT = { host: 'partner-credit.example', name: 'The Commons Review' };
const BLOG = { host: 'blog.example', name: 'Field Notes', author: 'Sam Ortega' };

const SITES: ProvenanceSet['sites'] = [
  ...PUBLISHERS.map((p) => ({ site: p.host, role: 'publisher' as const, honest: true })),
  { site: FARM_LATE.host, role: 'farm', honest: false },
  { site: FARM_NODATE.host, role: 'farm', honest: false },
  { site: FARM_BACKDATE.host, role: 'farm', honest: false },
  { site: PARTNER_CANON.host, role: 'partner', honest: true },
  { site: PARTNER_CREDIT.host, role: 'partner', honest: true },
  { site: BLOG.host, role: 'blog', honest: true },
];

// ---------- Page skeleton ----------

interface PageParts {
  lang: 'en' | 'es';
  docTitle: string;
  head: string;
  bodyClass: string;
  header: string;
  /** The <article> start tag. */
  articleTag?: string;
  title: string;
  byline: string;
  /** The article's paragraphs (HTML), and what stands between the byline and them (a wrapper's start tag) and after them. */
  body: string;
  bodyOpen?: string;
  bodyClose?: string;
  /** Inside <main>, after the article. */
  afterArticle?: string;
  footer: string;
}

function pageHtml(p: PageParts): string {
  return `<!doctype html>
<html lang="${p.lang}">
<head>
<meta charset="utf-8">
<title>${escapeHtml(p.docTitle)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${p.head}
</head>
<body class="${p.bodyClass}">
${p.header}
<main id="content">
${p.articleTag ?? '<article>'}
<h1>${escapeHtml(p.title)}</h1>
<p class="byline">${p.byline}</p>
${p.bodyOpen ?? ''}${p.body}
${p.bodyClose ?? ''}</article>
${p.afterArticle ?? ''}
</main>
${p.footer}
</body>
</html>
`;
}

const paragraphsHtml = (paragraphs: readonly string[]): string => paragraphs.map((t) => `<p>${escapeHtml(t)}</p>`).join('\n');

function navHtml(items: readonly string[], prefix = '/'): string {
  return `<nav class="main-nav" aria-label="Sections"><ul>${items.map((s) => `<li><a href="${prefix}${slugOf(s)}/">${escapeHtml(s)}</a></li>`).join('')}</ul></nav>`;
}

function ogHead(o: { url: string; canonical: string; title: string; siteName: string; description: string; type?: string; locale?: string }): string {
  return [
    `<link rel="canonical" href="${escapeHtml(o.canonical)}">`,
    `<meta name="description" content="${escapeHtml(o.description)}">`,
    `<meta property="og:type" content="${o.type ?? 'article'}">`,
    `<meta property="og:title" content="${escapeHtml(o.title)}">`,
    `<meta property="og:url" content="${escapeHtml(o.url)}">`,
    `<meta property="og:site_name" content="${escapeHtml(o.siteName)}">`,
    `<meta property="og:locale" content="${o.locale ?? 'en_US'}">`,
  ].join('\n');
}

/** The first sentence of a text, shortened to about 160 characters: a page's description. */
function describe(paragraphs: readonly string[]): string {
  const first = paragraphs.find((p) => p.split(/\s+/).length >= 8) ?? paragraphs[0] ?? '';
  const sentence = /^.*?[.!?](?=\s|$)/.exec(first)?.[0] ?? first;
  return sentence.length <= 160 ? sentence : `${sentence.slice(0, 157).replace(/\s+\S*$/, '')}…`;
}

function footerHtml(name: string, links: readonly [string, string][], lang: 'en' | 'es' = 'en'): string {
  return `<footer class="site-footer">
<p>© 2025 ${escapeHtml(name)}. ${lang === 'es' ? 'Todos los derechos reservados.' : 'All rights reserved.'}</p>
<ul class="footer-links">${links.map(([href, label]) => `<li><a href="${href}">${escapeHtml(label)}</a></li>`).join('')}</ul>
</footer>`;
}

// ---------- Articles ----------

interface Story {
  /** The rewrite set's slug: the article's id. */
  id: string;
  /** The URL slug of its title. */
  slug: string;
  /** The original as its publisher writes it. */
  title: string;
  paragraphs: string[];
  source: RewriteArticle;
}

interface Placed {
  story: Story;
  publisher: Publisher;
  /** The true publication time (ms). */
  time: number;
  author: string;
  page: ProvenancePage;
}

/** Paragraphs of a text as Doppel extracts it: separated by blank lines. */
const paragraphsOf = (text: string): string[] => text.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => p !== '');

/** Whether an article's extracted text reads as prose a publisher would print (no list of code lines or captions). */
function isProse(paragraphs: readonly string[]): boolean {
  return wordCount(paragraphs) >= 300 && wordCount(paragraphs) / paragraphs.length >= 10;
}

function titleOf(article: RewriteArticle): string {
  const extraction = extractArticle(parseHTML(article.originalHtml).document);
  const title = extraction.title ? cleanTitle(extraction.title) : '';
  return title !== '' ? title : article.texts.rewrite.title;
}

/** The first 60–70% of the paragraphs (at least one). */
function excerptOf(paragraphs: readonly string[], random: () => number): string[] {
  const share = 0.6 + 0.1 * random();
  return paragraphs.slice(0, Math.max(1, Math.round(paragraphs.length * share)));
}

const SYNONYMS: Readonly<Record<string, string>> = {
  said: 'stated', says: 'states', about: 'around', many: 'numerous', big: 'large', show: 'reveal', shows: 'reveals',
  help: 'assist', use: 'utilise', very: 'extremely', start: 'begin', because: 'since', buy: 'purchase', get: 'obtain',
  people: 'individuals', however: 'nevertheless', important: 'crucial', small: 'little', also: 'additionally', often: 'frequently',
  new: 'brand-new', told: 'informed', major: 'significant', before: 'prior to', need: 'require', enough: 'sufficient',
};

/** A farm's light edit: a few words swapped for synonyms, a promotional paragraph added. */
function editedOf(paragraphs: readonly string[], random: () => number, promo: string): string[] {
  const hits: { p: number; index: number; word: string }[] = [];
  paragraphs.forEach((text, p) => {
    for (const m of text.matchAll(/\b[A-Za-z]+\b/g)) if (SYNONYMS[m[0].toLowerCase()] !== undefined) hits.push({ p, index: m.index!, word: m[0] });
  });
  const changes = 4 + Math.floor(random() * 5);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(changes, hits.length)) chosen.add(Math.floor(random() * hits.length));
  const out = [...paragraphs];
  // right to left within a paragraph, so that earlier indices stay valid
  for (const i of [...chosen].sort((a, b) => hits[b]!.index - hits[a]!.index)) {
    const { p, index, word } = hits[i]!;
    let swap = SYNONYMS[word.toLowerCase()]!;
    if (/^[A-Z]/.test(word)) swap = swap[0]!.toUpperCase() + swap.slice(1);
    out[p] = out[p]!.slice(0, index) + swap + out[p]!.slice(index + word.length);
  }
  out.splice(Math.min(out.length, 2 + Math.floor(random() * Math.max(1, out.length - 2))), 0, promo);
  return out;
}

// ---------- Seeded choice ----------

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const pickOne = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: () => number, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

// ---------- The publishers ----------

function publisherPage(pub: Publisher, story: Story, time: number, author: string, random: () => number): ProvenancePage {
  const localDay = dateAt(time, pub.zone);
  const [y, m] = localDay.split('-');
  const section = pickOne(random, pub.sections);
  const url =
    pub.id === 'pub-a' ? `https://${pub.host}/${localDay.replace(/-/g, '/')}/${story.slug}`
    : pub.id === 'pub-b' ? `https://${pub.host}/news/${story.slug}-${between(random, 100000, 999999)}`
    : pub.id === 'pub-c' ? `https://${pub.host}/articles/${y}/${m}/${story.slug}`
    : `https://${pub.host}/story/${story.slug}`;
  const description = describe(story.paragraphs);
  const og = ogHead({ url, canonical: url, title: story.title, siteName: pub.name, description });
  const modified = time + between(random, 2, 30) * HOUR;
  const header = (extra = ''): string => `<header class="site-header">
<div class="masthead"><a class="logo" href="/">${escapeHtml(pub.name)}</a>${extra}</div>
${navHtml(pub.sections)}
<form class="search" action="/search" role="search"><input name="q" placeholder="Search"><button type="submit">Search</button></form>
</header>`;
  const footer = footerHtml(pub.name, [['/about/', 'About us'], ['/contact/', 'Contact'], ['/privacy/', 'Privacy policy'], ['/terms/', 'Terms of use']]);
  const more = `<section class="newsletter"><h2>Newsletter</h2><p>The day's essential stories from ${escapeHtml(pub.name)}, every morning.</p><form action="/newsletter"><input type="email" name="email" placeholder="Your email"><button type="submit">Sign up</button></form></section>`;
  let published: string;
  let parts: PageParts;
  const common = { lang: 'en' as const, docTitle: `${story.title} | ${pub.name}`, bodyClass: `${pub.id} article-page`, title: story.title, body: paragraphsHtml(story.paragraphs), footer, afterArticle: more };
  switch (pub.id) {
    case 'pub-a': {
      published = isoAt(time, pub.zone);
      parts = {
        ...common,
        head: `${og}\n<meta property="article:published_time" content="${published}">\n<meta property="article:modified_time" content="${isoAt(modified, pub.zone)}">\n<meta property="article:section" content="${escapeHtml(section)}">\n<meta property="article:author" content="${escapeHtml(author)}">`,
        header: header(),
        articleTag: '<article class="story">',
        byline: `By <span class="author">${escapeHtml(author)}</span> · <span class="section">${escapeHtml(section)}</span> · ${humanDate(time, pub.zone)}`,
        bodyOpen: '<div class="story-body">\n',
        bodyClose: '\n</div>\n',
      };
      break;
    }
    case 'pub-b': {
      published = isoAt(time, 'utc');
      const ld = {
        '@context': 'https://schema.org',
        '@graph': [
          { '@type': 'WebPage', '@id': url, url, name: story.title, isPartOf: { '@id': `https://${pub.host}/#website` }, inLanguage: 'en-GB', breadcrumb: { '@id': `${url}#breadcrumb` } },
          {
            '@type': 'NewsArticle',
            '@id': `${url}#article`,
            headline: story.title,
            mainEntityOfPage: { '@id': url },
            datePublished: published,
            dateModified: isoAt(modified, 'utc'),
            author: { '@type': 'Person', name: author },
            publisher: { '@id': `https://${pub.host}/#organization` },
            articleSection: section,
          },
          { '@type': 'BreadcrumbList', '@id': `${url}#breadcrumb`, itemListElement: [{ '@type': 'ListItem', position: 1, name: 'Home', item: `https://${pub.host}/` }, { '@type': 'ListItem', position: 2, name: section }] },
          { '@type': 'WebSite', '@id': `https://${pub.host}/#website`, url: `https://${pub.host}/`, name: pub.name },
          { '@type': 'NewsMediaOrganization', '@id': `https://${pub.host}/#organization`, name: pub.name, url: `https://${pub.host}/` },
        ],
      };
      parts = {
        ...common,
        head: `${og}\n<script type="application/ld+json">\n${scriptJson(ld)}\n</script>`,
        header: header(),
        byline: `By ${escapeHtml(author)}, ${escapeHtml(section)} reporter`,
      };
      break;
    }
    case 'pub-c': {
      published = isoAt(time, pub.zone);
      parts = {
        ...common,
        head: og,
        header: header(),
        articleTag: '<article itemscope itemtype="https://schema.org/NewsArticle">',
        byline: `By <span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">${escapeHtml(author)}</span></span> · <time itemprop="datePublished" datetime="${published}">${humanDate(time, pub.zone)} at ${humanTime(time, pub.zone)}</time><meta itemprop="dateModified" content="${isoAt(modified, pub.zone)}">`,
        bodyOpen: '<div itemprop="articleBody">\n',
        bodyClose: '\n</div>\n',
      };
      break;
    }
    case 'pub-d': {
      published = dateAt(time, 'utc');
      parts = {
        ...common,
        head: `${og}\n<meta name="date" content="${published}">`,
        // today's date in the site's own header: not the article's
        header: header(`<p class="today"><time datetime="2026-11-29">Sunday, November 29, 2026</time></p>`),
        byline: `By ${escapeHtml(author)} | <time datetime="${published}">${humanDate(time, 'utc')}</time>`,
      };
      break;
    }
  }
  return {
    path: `${pub.host}/${localDay}-${story.slug}.html`,
    url,
    site: pub.host,
    role: 'publisher',
    article: story.id,
    kind: 'original',
    html: pageHtml(parts),
    claims: { published, canonical: url },
  };
}

// ---------- The farms ----------

const FARM_TRENDING = [
  'You will not believe what this celebrity said about breakfast',
  'Doctors stunned by this simple trick for better sleep',
  '17 photos that prove the nineties were the best decade',
  'This one kitchen gadget is selling out everywhere',
  'Experts reveal the surprising truth about coffee',
  'The cheapest cities to retire in, ranked',
  'What your favourite colour says about your personality',
  'Ten movies everyone pretends to have seen',
];
const FARM_TRENDING_ES = [
  'No creerás lo que dijo esta celebridad sobre el desayuno',
  'Médicos sorprendidos por este truco sencillo para dormir mejor',
  '17 fotos que demuestran que los noventa fueron la mejor década',
  'Este aparato de cocina se agota en todas partes',
  'Los expertos revelan la verdad sobre el café',
  'Las ciudades más baratas para jubilarse',
];
const PROMOS = [
  'Don’t miss out: join more than a million readers who get our hottest stories delivered to their inbox every single morning. It only takes a second to sign up, and it is completely free.',
  'Like this story? Share it with your friends and follow us on social media for the latest viral news, jaw-dropping photos and the stories everyone will be talking about tomorrow.',
  'Want more stories like this? Download our free app today for breaking news alerts, daily quizzes and exclusive content you will not find anywhere else on the web.',
];
const ADS = [
  'Advertisement: Homeowners are switching to this smart thermostat. See why.',
  'Sponsored: The credit card experts use for travel rewards.',
  'Advertisement: This new game is taking the internet by storm. Play free now.',
];
const ADS_ES = ['Publicidad: Miles de personas ya usan este termostato inteligente.', 'Patrocinado: La tarjeta que recomiendan los expertos para viajar.'];

function farmHeader(name: string, nav: readonly string[], prefix = '/'): string {
  return `<header class="site-header">
<a class="logo" href="${prefix}">${escapeHtml(name)}</a>
${navHtml(nav, prefix)}
</header>`;
}

function trendingAside(random: () => number, lang: 'en' | 'es', prefix = '/'): string {
  const items = shuffled(lang === 'es' ? FARM_TRENDING_ES : FARM_TRENDING, random).slice(0, 4);
  return `<aside class="sidebar"><h2>${lang === 'es' ? 'Lo más leído' : 'Trending now'}</h2><ul>${items.map((t) => `<li><a href="${prefix}p/${between(random, 10000, 99999)}/${slugOf(t)}">${escapeHtml(t)}</a></li>`).join('')}</ul></aside>`;
}

function farmLatePage(placed: Placed, kind: 'verbatim' | 'edited' | 'excerpt', random: () => number): ProvenancePage {
  const { story, time } = placed;
  const paragraphs =
    kind === 'verbatim' ? story.paragraphs
    : kind === 'edited' ? editedOf(story.paragraphs, random, pickOne(random, PROMOS))
    : excerptOf(story.paragraphs, random);
  const slug = `${story.slug}${kind === 'verbatim' ? '' : kind === 'edited' ? '-2' : '-must-read'}`;
  const url = `https://${FARM_LATE.host}/${slug}/`;
  // 1 to 10 days later
  const claimed = time + between(random, 1, 9) * DAY + between(random, 0, 23) * HOUR + between(random, 0, 59) * 60_000;
  const published = isoAt(claimed, 'utc');
  const body = paragraphsHtml(paragraphs) + (kind === 'excerpt' ? `\n<p class="more"><a href="/${slug}/2/">Continue reading on the next page »</a></p>` : '');
  const html = pageHtml({
    lang: 'en',
    docTitle: `${story.title} - ${FARM_LATE.name}`,
    head: `${ogHead({ url, canonical: url, title: story.title, siteName: FARM_LATE.name, description: describe(paragraphs) })}\n<meta property="article:published_time" content="${published}">`,
    bodyClass: 'post-template-default single single-post',
    header: farmHeader(FARM_LATE.name, ['Home', 'Viral', 'Entertainment', 'Lifestyle', 'Money']),
    articleTag: '<article class="post type-post status-publish">',
    title: story.title,
    byline: `Posted by <a href="/author/admin/">admin</a> in <a href="/viral/">Viral</a>`,
    bodyOpen: '<div class="entry-content">\n',
    body,
    bodyClose: '\n<div class="share-buttons"><a href="/share/facebook">Share on Facebook</a> <a href="/share/x">Share on X</a></div>\n</div>\n',
    afterArticle: trendingAside(random, 'en'),
    footer: footerHtml(FARM_LATE.name, [['/about/', 'About'], ['/dmca/', 'DMCA'], ['/privacy/', 'Privacy']]),
  });
  return { path: `${FARM_LATE.host}/${slug}.html`, url, site: FARM_LATE.host, role: 'farm', article: story.id, kind, html, claims: { published, canonical: url } };
}

function farmNodatePage(placed: Placed, kind: 'excerpt' | 'rewrite' | 'translation_es', random: () => number): ProvenancePage {
  const { story } = placed;
  const es = kind === 'translation_es';
  const text: RewriteText =
    kind === 'excerpt' ? { title: story.title, paragraphs: excerptOf(story.paragraphs, random) }
    : kind === 'rewrite' ? story.source.texts.rewrite
    : story.source.texts.translation_es;
  const prefix = es ? '/es/' : '/';
  const slug = slugOf(text.title);
  const url = `https://${FARM_NODATE.host}${prefix}p/${between(random, 100000, 999999)}/${slug}`;
  // ads between the paragraphs, as a farm's template puts them
  const ads = es ? ADS_ES : ADS;
  const blocks: string[] = [];
  text.paragraphs.forEach((p, i) => {
    blocks.push(`<p>${escapeHtml(p)}</p>`);
    if (i % 4 === 2 && i < text.paragraphs.length - 1) blocks.push(`<div class="ad-slot"><a href="https://ads.adnet.example/click?slot=${between(random, 1000, 9999)}" rel="sponsored nofollow">${escapeHtml(pickOne(random, ads))}</a></div>`);
  });
  const related = shuffled(es ? FARM_TRENDING_ES : FARM_TRENDING, random).slice(0, 3);
  const html = pageHtml({
    lang: es ? 'es' : 'en',
    docTitle: `${text.title} | ${FARM_NODATE.name}`,
    head: ogHead({ url, canonical: url, title: text.title, siteName: FARM_NODATE.name, description: describe(text.paragraphs), locale: es ? 'es_ES' : 'en_US' }),
    bodyClass: 'single',
    header: farmHeader(FARM_NODATE.name, es ? ['Inicio', 'Noticias', 'Tendencias', 'Vídeos'] : ['Top stories', 'Trending', 'Local', 'Videos', 'Deals'], prefix),
    title: text.title,
    byline: es ? `Por Redacción ${FARM_NODATE.name}` : `By ${FARM_NODATE.name} Staff`,
    body: blocks.join('\n'),
    afterArticle: `<section class="related"><h2>${es ? 'Noticias relacionadas' : 'Related stories'}</h2><ul>${related.map((t) => `<li><a href="${prefix}p/${between(random, 100000, 999999)}/${slugOf(t)}">${escapeHtml(t)}</a></li>`).join('')}</ul></section>\n${trendingAside(random, es ? 'es' : 'en', prefix)}`,
    footer: footerHtml(FARM_NODATE.name, [['/about/', es ? 'Quiénes somos' : 'About'], ['/advertise/', es ? 'Publicidad' : 'Advertise'], ['/privacy/', es ? 'Privacidad' : 'Privacy']], es ? 'es' : 'en'),
  });
  return { path: `${FARM_NODATE.host}/${es ? 'es-' : ''}${slug}.html`, url, site: FARM_NODATE.host, role: 'farm', article: story.id, kind, html, claims: { canonical: url } };
}

function farmBackdatePage(placed: Placed, random: () => number): ProvenancePage {
  const { story, time } = placed;
  const url = `https://${FARM_BACKDATE.host}/archive/${story.slug}.html`;
  // 3 to 30 days earlier
  const claimed = time - between(random, 3, 29) * DAY - between(random, 0, 23) * HOUR;
  const published = isoAt(claimed, 'utc', true);
  const ld = { '@context': 'https://schema.org', '@type': 'Article', headline: story.title, datePublished: published, author: { '@type': 'Organization', name: FARM_BACKDATE.name }, mainEntityOfPage: url };
  const html = pageHtml({
    lang: 'en',
    docTitle: `${story.title} — ${FARM_BACKDATE.name}`,
    head: `${ogHead({ url, canonical: url, title: story.title, siteName: FARM_BACKDATE.name, description: describe(story.paragraphs) })}\n<script type="application/ld+json">${scriptJson(ld)}</script>`,
    bodyClass: 'archive-story',
    header: farmHeader(FARM_BACKDATE.name, ['Latest', 'Archive', 'Science', 'Money', 'World']),
    title: story.title,
    byline: `By the ${FARM_BACKDATE.name} editorial team · Archived ${humanDate(claimed, 'utc')}`,
    body: paragraphsHtml(story.paragraphs),
    afterArticle: trendingAside(random, 'en'),
    footer: footerHtml(FARM_BACKDATE.name, [['/about/', 'About'], ['/privacy/', 'Privacy']]),
  });
  return { path: `${FARM_BACKDATE.host}/${story.slug}.html`, url, site: FARM_BACKDATE.host, role: 'farm', article: story.id, kind: 'verbatim', html, claims: { published, canonical: url, backdated: true } };
}

// ---------- The partners ----------

const PARTNER_AUTHORS = ['Eliza Grant', 'Rafael Ortiz', 'Nadia Karim', 'Joel Fischer', 'Ines Duarte', 'Victor Lam'];

function partnerCanonHeader(): string {
  return `<header class="site-header"><a class="logo" href="/">${PARTNER_CANON.name}</a>\n${navHtml(['Features', 'Syndication', 'Ideas', 'Science', 'Culture'])}\n</header>`;
}
const partnerCanonFooter = (): string => footerHtml(PARTNER_CANON.name, [['/about/', 'About'], ['/syndication-policy/', 'Syndication policy'], ['/privacy/', 'Privacy']]);

/** A partner's date: the original's day or the day after, never before the original. */
function partnerTime(time: number, random: () => number, days: 0 | 1): number {
  const day = Math.floor(time / DAY) * DAY + days * DAY;
  return Math.max(time + HOUR, day + between(random, 6, 21) * HOUR + between(random, 0, 11) * 5 * 60_000);
}

function partnerCanonCopy(placed: Placed, random: () => number): ProvenancePage {
  const { story, publisher, author, page: original } = placed;
  const url = `https://${PARTNER_CANON.host}/syndication/${story.slug}`;
  const claimed = partnerTime(placed.time, random, random() < 0.5 ? 0 : 1);
  const published = isoAt(claimed, 'utc', true);
  const html = pageHtml({
    lang: 'en',
    docTitle: `${story.title} | ${PARTNER_CANON.name}`,
    // the canonical link names the original; og:url stays the partner's own address
    head: `${ogHead({ url, canonical: original.url, title: story.title, siteName: PARTNER_CANON.name, description: describe(story.paragraphs) })}\n<meta name="parsely-pub-date" content="${published}">\n<meta name="parsely-section" content="Syndication">`,
    bodyClass: 'syndicated',
    header: partnerCanonHeader(),
    title: story.title,
    byline: `By ${escapeHtml(author)}, ${escapeHtml(publisher.name)}`,
    body: paragraphsHtml(story.paragraphs),
    afterArticle: `<section class="about-partner"><h2>About our partners</h2><p>${PARTNER_CANON.name} republishes reporting from member newsrooms under our syndication agreement.</p></section>`,
    footer: partnerCanonFooter(),
  });
  return { path: `${PARTNER_CANON.host}/syndication-${story.slug}.html`, url, site: PARTNER_CANON.host, role: 'partner', article: story.id, kind: 'republished', html, claims: { published, canonical: original.url } };
}

/** A partner's or the blog's own article: an independent text. */
function ownTime(random: () => number): number {
  return Date.UTC(2025, 0, 20) + between(random, 0, 290) * DAY + between(random, 7, 19) * HOUR + between(random, 0, 11) * 5 * 60_000;
}

function partnerCanonOwn(article: RewriteArticle, random: () => number): ProvenancePage {
  const { title, paragraphs } = article.texts.independent;
  const slug = slugOf(title);
  const url = `https://${PARTNER_CANON.host}/features/${slug}`;
  const published = isoAt(ownTime(random), 'utc', true);
  const html = pageHtml({
    lang: 'en',
    docTitle: `${title} | ${PARTNER_CANON.name}`,
    head: `${ogHead({ url, canonical: url, title, siteName: PARTNER_CANON.name, description: describe(paragraphs) })}\n<meta name="parsely-pub-date" content="${published}">\n<meta name="parsely-section" content="Features">`,
    bodyClass: 'feature',
    header: partnerCanonHeader(),
    title,
    byline: `By ${escapeHtml(pickOne(random, PARTNER_AUTHORS))}`,
    body: paragraphsHtml(paragraphs),
    footer: partnerCanonFooter(),
  });
  return { path: `${PARTNER_CANON.host}/features-${slug}.html`, url, site: PARTNER_CANON.host, role: 'partner', article: '', kind: 'original', html, claims: { published, canonical: url } };
}

function partnerCreditHeader(lang: 'en' | 'es'): string {
  return `<header class="site-header"><a class="logo" href="/">${PARTNER_CREDIT.name}</a>\n${navHtml(lang === 'es' ? ['Portada', 'Ideas', 'Ciencia', 'Cultura'] : ['Home', 'Ideas', 'Science', 'Culture', 'Podcasts'], lang === 'es' ? '/es/' : '/')}\n</header>`;
}
const partnerCreditFooter = (lang: 'en' | 'es'): string =>
  footerHtml(PARTNER_CREDIT.name, lang === 'es' ? [['/es/acerca/', 'Acerca de'], ['/es/privacidad/', 'Privacidad']] : [['/about/', 'About'], ['/republish/', 'Republishing guidelines'], ['/privacy/', 'Privacy']], lang);

type CreditStyle = 'permission' | 'spanish' | 'source';

function partnerCreditCopy(placed: Placed, style: CreditStyle, random: () => number): ProvenancePage {
  const { story, publisher, author, page: original } = placed;
  const es = style === 'spanish';
  const text: RewriteText = es ? story.source.texts.translation_es : { title: story.title, paragraphs: story.paragraphs };
  const slug = slugOf(text.title);
  const url = es ? `https://${PARTNER_CREDIT.host}/es/historias/${slug}` : `https://${PARTNER_CREDIT.host}/stories/${slug}`;
  const published = dateAt(placed.time + DAY, 'utc');
  const link = `<a href="${escapeHtml(original.url)}">${escapeHtml(publisher.name)}</a>`;
  const credit =
    style === 'permission' ? `<p><em>This article was originally published on ${link}. Republished with permission.</em></p>`
    : style === 'spanish' ? `<p>Publicado originalmente en ${link}.</p>`
    : `<p>Source: ${link}</p>`;
  const body = paragraphsHtml(text.paragraphs);
  const html = pageHtml({
    lang: es ? 'es' : 'en',
    docTitle: `${text.title} – ${PARTNER_CREDIT.name}`,
    head: `${ogHead({ url, canonical: url, title: text.title, siteName: PARTNER_CREDIT.name, description: describe(text.paragraphs), locale: es ? 'es_ES' : 'en_US' })}\n<meta name="DC.date.issued" content="${published}">`,
    bodyClass: 'story',
    header: partnerCreditHeader(es ? 'es' : 'en'),
    title: text.title,
    byline: es ? `Por ${escapeHtml(author)} · ${humanDate(placed.time + DAY, 'utc', 'es')}` : `By ${escapeHtml(author)} · ${humanDate(placed.time + DAY, 'utc')}`,
    // the permission line opens the article; the others close it
    body: style === 'permission' ? `${credit}\n${body}` : `${body}\n${credit}`,
    footer: partnerCreditFooter(es ? 'es' : 'en'),
  });
  return {
    path: `${PARTNER_CREDIT.host}/${es ? 'es-' : ''}${slug}.html`,
    url,
    site: PARTNER_CREDIT.host,
    role: 'partner',
    article: story.id,
    kind: es ? 'translation_es' : 'republished',
    html,
    claims: { published, canonical: url, creditLink: original.url },
  };
}

function partnerCreditOwn(article: RewriteArticle, random: () => number): ProvenancePage {
  const { title, paragraphs } = article.texts.independent;
  const slug = slugOf(title);
  const url = `https://${PARTNER_CREDIT.host}/stories/${slug}`;
  const time = ownTime(random);
  const published = dateAt(time, 'utc');
  const html = pageHtml({
    lang: 'en',
    docTitle: `${title} – ${PARTNER_CREDIT.name}`,
    head: `${ogHead({ url, canonical: url, title, siteName: PARTNER_CREDIT.name, description: describe(paragraphs) })}\n<meta name="DC.date.issued" content="${published}">`,
    bodyClass: 'story',
    header: partnerCreditHeader('en'),
    title,
    byline: `By ${escapeHtml(pickOne(random, PARTNER_AUTHORS))} · ${humanDate(time, 'utc')}`,
    body: paragraphsHtml(paragraphs),
    footer: partnerCreditFooter('en'),
  });
  return { path: `${PARTNER_CREDIT.host}/${slug}.html`, url, site: PARTNER_CREDIT.host, role: 'partner', article: '', kind: 'original', html, claims: { published, canonical: url } };
}

// ---------- The blog ----------

/**
 * Sentences that link a publisher's article without copying it (the blog writes of something
 * else): none is a credit line. The first-reported one says "first reported by" next to its link,
 * which is no credit phrase of lib/text/provenance.ts either.
 */
const LINK_SENTENCES: readonly ((link: (label: string) => string, pub: string) => string)[] = [
  (link, pub) => `As ${link(`${pub} reported last week`)} in another context, questions like this rarely stay settled for long.`,
  (link, pub) => `(On a different subject, ${link(`this piece in ${pub}`)} is also worth your time.)`,
  (link, pub) => `It reminded me of ${link(`a story in ${pub}`)} that made the rounds recently.`,
  (link, pub) => `(Elsewhere this month: ${link(`the reporting of ${pub}`)}.)`,
];
const firstReported = (link: (label: string) => string, pub: string): string => `(Unrelated, but worth reading: a story first reported by ${link(pub)} last week.)`;

function blogPage(article: RewriteArticle, links: readonly Placed[], first: boolean, random: () => number): ProvenancePage {
  const { title, paragraphs } = article.texts.independent;
  const slug = slugOf(title);
  const time = Math.max(...links.map((l) => l.time)) + between(random, 4, 9) * DAY + between(random, 1, 10) * HOUR;
  const { y, m } = local(time, 'utc');
  const url = `https://${BLOG.host}/${y}/${two(m)}/${slug}/`;
  const published = isoAt(time, 'utc');
  const updatedTime = time + between(random, 1, 20) * DAY;
  const updated = isoAt(updatedTime, 'utc');
  // each link sentence closes a paragraph of its own (never the first)
  const at = shuffled(paragraphs.map((_, i) => i).slice(1), random).slice(0, links.length).sort((a, b) => a - b);
  const sentences = shuffled(LINK_SENTENCES, random);
  const body = paragraphs.map((p, i) => {
    const j = at.indexOf(i);
    if (j < 0) return `<p>${escapeHtml(p)}</p>`;
    const { page, publisher } = links[j]!;
    const link = (label: string): string => `<a href="${escapeHtml(page.url)}">${escapeHtml(label)}</a>`;
    const sentence = (first && j === 0 ? firstReported : sentences[j]!)(link, publisher.name);
    return `<p>${escapeHtml(p)} ${sentence}</p>`;
  });
  const html = pageHtml({
    lang: 'en',
    docTitle: `${title} – ${BLOG.name}`,
    head: `<link rel="canonical" href="${url}">\n<meta property="og:type" content="article">\n<meta property="og:title" content="${escapeHtml(title)}">\n<meta property="og:url" content="${url}">\n<meta property="og:site_name" content="${BLOG.name}">\n<meta name="generator" content="WordPress 6.7.1">`,
    bodyClass: 'post-template-default single single-post',
    header: `<header id="masthead" class="site-header"><p class="site-title"><a href="/" rel="home">${BLOG.name}</a></p><p class="site-description">Notes on cities, technology and what I read</p>\n${navHtml(['About', 'Archive', 'Reading list'])}\n</header>`,
    articleTag: '<article class="post type-post status-publish format-standard hentry">',
    title,
    byline: `<span class="posted-on">Posted on <time class="entry-date published" datetime="${published}">${humanDate(time, 'utc')}</time><time class="updated" datetime="${updated}">${humanDate(updatedTime, 'utc')}</time></span> by <span class="author vcard"><a href="/author/sam/">${BLOG.author}</a></span>`,
    bodyOpen: '<div class="entry-content">\n',
    body: body.join('\n'),
    bodyClose: '\n</div>\n',
    afterArticle: `<section id="comments" class="comments-area"><h2 class="comments-title">2 thoughts on “${escapeHtml(title)}”</h2><ol class="comment-list"><li class="comment"><p>Great write-up, thanks for the links.</p></li><li class="comment"><p>I had not seen the original reporting, very useful.</p></li></ol></section>`,
    footer: `<footer id="colophon" class="site-footer"><p>${BLOG.name} · Proudly powered by WordPress</p></footer>`,
  });
  return { path: `${BLOG.host}/${slug}.html`, url, site: BLOG.host, role: 'blog', article: '', kind: 'linking', html, claims: { published, canonical: url } };
}

// ---------- The set ----------

/** Publisher articles: the first 24 articles of prose in slug order; own articles: the next 11 of the rest. */
export const PUBLISHER_ARTICLES = 24;
export const OWN_ARTICLES = { 'partner-canon': 4, 'partner-credit': 3, blog: 4 } as const;

export function buildProvenanceSet(seed = PROVENANCE_SEED): ProvenanceSet {
  if (!existsSync(CORPUS_DIR)) throw new Error(`The provenance set needs the corpus of Readability's test pages at ${CORPUS_DIR} (it comes from ../shared/corpus), and it is absent.`);
  const articles = loadRewriteSet().sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const random = mulberry32(seed);

  const prose = articles.filter((a) => isProse(paragraphsOf(a.originalText)));
  if (prose.length < PUBLISHER_ARTICLES) throw new Error(`The rewrite set has ${prose.length} articles of prose, fewer than ${PUBLISHER_ARTICLES}`);
  const published = prose.slice(0, PUBLISHER_ARTICLES);
  const rest = articles.filter((a) => !published.includes(a));
  const ownCount = OWN_ARTICLES['partner-canon'] + OWN_ARTICLES['partner-credit'] + OWN_ARTICLES.blog;
  if (rest.length < ownCount) throw new Error(`The rewrite set has ${rest.length} articles left for the sites' own, fewer than ${ownCount}`);
  const own = shuffled(rest.slice(0, ownCount), random);

  // the publishers: six articles each, a seeded date in 2025 and an author
  const pages: ProvenancePage[] = [];
  const placed: Placed[] = [];
  const slugs = new Set<string>();
  shuffled(published, random).forEach((source, i) => {
    const publisher = PUBLISHERS[Math.floor(i / (PUBLISHER_ARTICLES / PUBLISHERS.length))]!;
    const title = titleOf(source);
    let slug = slugOf(title);
    while (slugs.has(slug)) slug += '-2';
    slugs.add(slug);
    const story: Story = { id: source.slug, slug, title, paragraphs: paragraphsOf(source.originalText), source };
    // 2 February to 15 November 2025, between 6:00 and 20:55 local time
    const day = Date.UTC(2025, 1, 2) + between(random, 0, 285) * DAY;
    const time = day + between(random, 6, 20) * HOUR + between(random, 0, 11) * 5 * 60_000 - offsetAt(day + 12 * HOUR, publisher.zone) * 60_000;
    const author = pickOne(random, publisher.authors);
    const page = publisherPage(publisher, story, time, author, random);
    pages.push(page);
    placed.push({ story, publisher, time, author, page });
  });
  // sort the placed articles by publisher then date, so that copies spread by a seeded choice read in order
  placed.sort((a, b) => (a.publisher.id < b.publisher.id ? -1 : a.publisher.id > b.publisher.id ? 1 : a.time - b.time));
  pages.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const copies: ProvenanceCopy[] = [];
  const addCopy = (page: ProvenancePage, original: Placed, credited = false, backdated = false): void => {
    pages.push(page);
    copies.push({ copy: page.path, original: original.page.path, kind: page.kind, credited, backdated });
  };
  const excerptable = (p: Placed): boolean => wordCount(excerptOf(p.story.paragraphs, () => 0)) >= 180;
  /** `n` distinct articles, each passing `ok`, seeded. */
  const choose = (n: number, ok: (p: Placed) => boolean = () => true, avoid: ReadonlySet<Placed> = new Set()): Placed[] => {
    const out = shuffled(placed.filter((p) => ok(p) && !avoid.has(p)), random).slice(0, n);
    if (out.length < n) throw new Error(`only ${out.length} articles fit, ${n} needed`);
    return out;
  };

  // farm-late: three verbatim, three edited, three excerpts, each dated 1 to 10 days after its original
  {
    const excerpts = choose(3, excerptable);
    const others = choose(6, () => true, new Set(excerpts));
    others.slice(0, 3).forEach((p) => addCopy(farmLatePage(p, 'verbatim', random), p));
    others.slice(3).forEach((p) => addCopy(farmLatePage(p, 'edited', random), p));
    excerpts.forEach((p) => addCopy(farmLatePage(p, 'excerpt', random), p));
  }
  // farm-nodate: three excerpts, three rewrites, three Spanish translations, no date anywhere
  {
    const excerpts = choose(3, excerptable);
    const others = choose(6, () => true, new Set(excerpts));
    excerpts.forEach((p) => addCopy(farmNodatePage(p, 'excerpt', random), p));
    others.slice(0, 3).forEach((p) => addCopy(farmNodatePage(p, 'rewrite', random), p));
    others.slice(3).forEach((p) => addCopy(farmNodatePage(p, 'translation_es', random), p));
  }
  // farm-backdate: four verbatim copies dated 3 to 30 days before their originals
  choose(4).forEach((p) => addCopy(farmBackdatePage(p, random), p, false, true));
  // the partners: distinct articles (a story has at most one partner)
  const canon = choose(4);
  canon.forEach((p) => addCopy(partnerCanonCopy(p, random), p, true));
  const credit = choose(3, () => true, new Set(canon));
  (['permission', 'spanish', 'source'] as const).forEach((style, i) => addCopy(partnerCreditCopy(credit[i]!, style, random), credit[i]!, true));
  // the partners' and the blog's own articles
  let k = 0;
  for (let i = 0; i < OWN_ARTICLES['partner-canon']; i++) pages.push(partnerCanonOwn(own[k++]!, random));
  for (let i = 0; i < OWN_ARTICLES['partner-credit']; i++) pages.push(partnerCreditOwn(own[k++]!, random));
  for (let i = 0; i < OWN_ARTICLES.blog; i++) {
    const links = choose(i % 2 === 0 ? 1 : 2);
    pages.push(blogPage(own[k++]!, links, i === 1, random));
  }

  return { pages, copies, sites: SITES.map((s) => ({ ...s })) };
}

/** A reading order of the set's pages (paths), seeded: a uniform random permutation. */
export function readingOrder(set: ProvenanceSet, seed: number): string[] {
  return shuffled(
    set.pages.map((p) => p.path),
    mulberry32(seed),
  );
}

/** The order in which every copy is read before its original (the worst case): every copy, then every other page, each in the set's order. */
export function copiesFirstOrder(set: ProvenanceSet): string[] {
  const copies = new Set(set.copies.map((c) => c.copy));
  const paths = set.pages.map((p) => p.path);
  return [...paths.filter((p) => copies.has(p)), ...paths.filter((p) => !copies.has(p))];
}
