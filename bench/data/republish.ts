// Builds the quality benchmark's data set: the real articles of Readability's test pages and
// copies of each made the way republishers make them. Shared by `npm run bench:quality` and,
// later, the browser e2e, so that both score the same pages.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { extractArticle } from '../../lib/text/extract';
import { mulberry32, pick } from '../../lib/random';

export const CORPUS_DIR = new URL('../../../shared/corpus/readability-test-pages', import.meta.url).pathname;

export type CopyKind = 'verbatim' | 'credit' | 'promo' | 'edited' | 'cut-last' | 'excerpt';
export const COPY_KINDS: readonly CopyKind[] = ['verbatim', 'credit', 'promo', 'edited', 'cut-last', 'excerpt'];
/** What each kind is scored as. Excerpts are reported, not targeted. */
export const KIND_GROUP: Record<CopyKind, 'verbatim' | 'lightly edited' | 'excerpt'> = {
  verbatim: 'verbatim',
  credit: 'lightly edited',
  promo: 'lightly edited',
  edited: 'lightly edited',
  'cut-last': 'lightly edited',
  excerpt: 'excerpt',
};

export interface QualityPage {
  /** Relative path, e.g. "bbc-1/original.html" or "bbc-1/copy-edited.html". */
  path: string;
  article: string;
  kind: 'original' | CopyKind;
  html: string;
}

export interface QualitySet {
  pages: QualityPage[];
  articles: string[];
  dropped: { article: string; reason: string }[];
}

/** Readability's test fixtures that are lorem ipsum or markup tests rather than articles. */
export function isLoremIpsum(text: string): boolean {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const latin = new Set(['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipisicing', 'adipiscing', 'elit', 'sed', 'eiusmod', 'tempor', 'incididunt', 'labore', 'dolore', 'magna', 'aliqua', 'enim', 'minim', 'veniam', 'quis', 'nostrud', 'exercitation', 'ullamco', 'laboris', 'nisi', 'aliquip', 'commodo', 'consequat', 'duis', 'aute', 'irure', 'reprehenderit', 'voluptate', 'velit', 'esse', 'cillum', 'fugiat', 'nulla', 'pariatur', 'excepteur', 'sint', 'occaecat', 'cupidatat', 'non', 'proident', 'sunt', 'culpa', 'qui', 'officia', 'deserunt', 'mollit', 'anim', 'est', 'laborum', 'ut', 'ad', 'ex', 'ea', 'in', 'et', 'id']);
  const hits = words.filter((w) => latin.has(w)).length;
  return words.length > 0 && hits / words.length > 0.3;
}

const SITES = [
  { name: 'The Daily Reprint', nav: ['World', 'Business', 'Tech', 'Science', 'Opinion', 'Sport'], color: '#a00' },
  { name: 'NewsHub Aggregator', nav: ['Top stories', 'Trending', 'Local', 'Videos', 'Deals'], color: '#036' },
  { name: 'ContentDepot', nav: ['Home', 'Lifestyle', 'Money', 'Health', 'Gadgets', 'Travel', 'Quizzes'], color: '#363' },
  { name: 'Weekly Syndicate', nav: ['Latest', 'Features', 'Reviews', 'Podcasts', 'Newsletter'], color: '#535' },
] as const;

const TRENDING = [
  'Ten habits of people who never lose their keys',
  'Markets close higher after a quiet week of trading',
  'The best budget headphones we tested this year',
  'Council approves plan for a new riverside park',
  'How to repot a houseplant without killing it',
  'Scientists map the migration of monarch butterflies',
  'A beginner’s guide to sourdough starters',
  'Five cheap weekend trips you can take by train',
];

const PROMOS = [
  'Enjoy stories like this one? Sign up for our free morning newsletter and get the day’s most important news, hand-picked by our editors, delivered straight to your inbox before breakfast. You can unsubscribe at any time.',
  'Support independent journalism: become a member today for less than the price of a coffee a week, and read every article without ads, join members-only events and help us keep our reporting free for everyone.',
  'Download our award-winning app to save articles for later, listen to stories on your commute and get alerts when news breaks in your area. Available now for phones and tablets.',
];

const CREDITS = [
  (site: string) => `This article was originally published on ${site}. It is republished here with permission.`,
  (site: string) => `Originally appeared on ${site}. Reprinted under a content-sharing agreement.`,
  (site: string) => `Source: ${site}. All rights reserved by the original publisher.`,
];

// Words a republisher's light edit puts in place of others.
const SUBSTITUTES = ['also', 'very', 'new', 'said', 'now', 'many', 'some', 'still', 'really', 'just', 'major', 'local', 'recent', 'often'];

function template(site: (typeof SITES)[number], title: string, articleHtml: string, random: () => number): string {
  const trending = [...TRENDING].sort(() => random() - 0.5).slice(0, 4);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} | ${site.name}</title>
<meta property="og:site_name" content="${site.name}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:sans-serif;margin:0} header{background:${site.color};color:#fff;padding:1em} .sidebar{float:right;width:30%}</style>
</head><body>
<header class="site-header"><div class="logo">${site.name}</div>
<nav class="main-nav"><ul>${site.nav.map((n) => `<li><a href="/${n.toLowerCase().replace(/\W+/g, '-')}">${n}</a></li>`).join('')}</ul></nav>
<form class="search" action="/search"><input name="q" placeholder="Search ${site.name}"><button>Search</button></form></header>
<div class="ad-banner">Advertisement</div>
<main class="layout">
<aside class="sidebar"><h3>Trending now</h3><ul>${trending.map((t) => `<li><a href="/story/${t.length}">${t}</a></li>`).join('')}</ul>
<div class="newsletter"><h4>Get our newsletter</h4><form><input type="email" placeholder="Your email"><button>Subscribe</button></form></div></aside>
<article class="post">
<h1 class="entry-title">${escapeHtml(title)}</h1>
<p class="byline">By Staff Writer · ${site.name}</p>
<div class="entry-content">
${articleHtml}
</div>
<div class="share">Share: <a href="/share/fb">Facebook</a> <a href="/share/x">X</a> <a href="/share/mail">Email</a></div>
</article>
<section class="comments"><h3>Comments</h3><p>Log in to join the conversation.</p></section>
</main>
<footer class="site-footer"><p>© 2026 ${site.name}. All rights reserved.</p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>
</body></html>`;
}

/** Paragraphs of text as a republishing site's page (one of SITES, chosen by `random`). */
export function dressText(title: string, paragraphs: readonly string[], random: () => number): string {
  return template(pick(random, SITES), title, paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n'), random);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Paragraph-like blocks of the article, in document order. */
function paragraphs(root: Element): Element[] {
  return [...root.querySelectorAll('p, li, blockquote, pre, h2, h3, h4, table')].filter((el) => (el.textContent ?? '').trim().length > 0 && !el.parentElement?.closest('p, li, blockquote, pre, table'));
}

type Edit = (root: Element, random: () => number, original: { site: string }) => void;

const EDITS: Record<CopyKind, Edit> = {
  verbatim: () => {},
  credit: (root, random, { site }) => {
    const p = root.ownerDocument.createElement('p');
    p.textContent = pick(random, CREDITS)(site);
    if (random() < 0.5) root.insertBefore(p, root.firstChild);
    else root.appendChild(p);
  },
  promo: (root, random) => {
    const blocks = paragraphs(root);
    const p = root.ownerDocument.createElement('p');
    p.textContent = pick(random, PROMOS);
    const at = blocks[Math.floor(blocks.length / 2)];
    if (at?.parentNode) at.parentNode.insertBefore(p, at.nextSibling);
    else root.appendChild(p);
  },
  edited: (root, random) => {
    // About 2% of the words: half dropped, half replaced by another word.
    const walker: Text[] = [];
    const collect = (node: Node): void => {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) walker.push(c as Text);
        else if (c.nodeType === 1) collect(c);
      }
    };
    collect(root);
    for (const textNode of walker) {
      textNode.data = textNode.data.replace(/[\p{L}\p{N}]+/gu, (word) => {
        if (random() >= 0.02) return word;
        return random() < 0.5 ? '' : pick(random, SUBSTITUTES);
      });
    }
  },
  'cut-last': (root) => {
    const blocks = paragraphs(root);
    blocks.at(-1)?.remove();
  },
  excerpt: (root) => {
    // The first 60% of the text, whole paragraphs, then a "read more" link.
    const blocks = paragraphs(root);
    const total = blocks.reduce((n, b) => n + (b.textContent ?? '').length, 0);
    let kept = 0;
    for (const block of blocks) {
      if (kept >= total * 0.6) block.remove();
      else kept += (block.textContent ?? '').length;
    }
    const more = root.ownerDocument.createElement('p');
    more.innerHTML = '<a href="/continue">Continue reading on the original site</a>';
    root.appendChild(more);
  },
};

export function buildQualitySet(corpusDir = CORPUS_DIR, variants = 3, seed = 20071): QualitySet {
  const pages: QualityPage[] = [];
  const articles: string[] = [];
  const dropped: QualitySet['dropped'] = [];
  const seenTexts = new Map<string, string>();
  for (const name of readdirSync(corpusDir).sort()) {
    const source = join(corpusDir, name, 'source.html');
    const expected = join(corpusDir, name, 'expected.html');
    if (!existsSync(source) || !existsSync(expected)) continue;
    const sourceHtml = readFileSync(source, 'utf8');
    const extraction = extractArticle(parseHTML(sourceHtml).document);
    if (!extraction.ok) {
      dropped.push({ article: name, reason: extraction.message });
      continue;
    }
    if (isLoremIpsum(extraction.text)) {
      dropped.push({ article: name, reason: 'lorem ipsum test fixture' });
      continue;
    }
    const duplicateOf = seenTexts.get(extraction.text);
    if (duplicateOf) {
      dropped.push({ article: name, reason: `same text as ${duplicateOf}` });
      continue;
    }
    seenTexts.set(extraction.text, name);
    articles.push(name);
    pages.push({ path: `${name}/original.html`, article: name, kind: 'original', html: sourceHtml });

    const random = mulberry32(seed ^ hashName(name));
    const originalSite = new URL(`https://${name}.example/`).host;
    for (let variant = 1; variant <= variants; variant++) for (const kind of COPY_KINDS) {
      const { document } = parseHTML(`<!DOCTYPE html><html><body><div id="doppel-article">${readFileSync(expected, 'utf8')}</div></body></html>`);
      const root = document.getElementById('doppel-article')!;
      EDITS[kind](root, random, { site: originalSite });
      const site = pick(random, SITES);
      pages.push({ path: `${name}/copy-${kind}-${variant}.html`, article: name, kind, html: template(site, extraction.title, root.innerHTML, random) });
    }
  }
  return { pages, articles, dropped };
}

export function hashName(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

// ---------- Partial copies (passages) ----------

export type PartialKind = 'excerpt-30' | 'stitched' | 'quote';
export const PARTIAL_KINDS: readonly PartialKind[] = ['excerpt-30', 'stitched', 'quote'];

/** A page built from parts of articles: found when paired with each of `sources`; `related` may pair too. */
export interface PartialPage {
  path: string;
  kind: PartialKind;
  html: string;
  /** Articles whose original it should be found with. */
  sources: string[];
  /** Other articles it contains (a quote's host): a pair with them is no false pair. */
  related: string[];
}

/** A site's own box at the end of every partial page it runs (45 words): boilerplate, not copying. */
function siteBoilerplate(site: string): string {
  return `A version of this story appears in the weekend print edition of ${site}. Our journalism is funded by readers like you: for unlimited access to every article, podcast and newsletter, and to support reporting from our correspondents around the world, subscribe today from just one pound a week.`;
}

/** Words of the quote kind. */
export const QUOTE_WORDS = 60;

/** Paragraph blocks of an article's expected HTML, as outer HTML and text. */
function blocksOf(corpusDir: string, article: string): { html: string; text: string }[] {
  const { document } = parseHTML(`<!DOCTYPE html><html><body><div id="doppel-article">${readFileSync(join(corpusDir, article, 'expected.html'), 'utf8')}</div></body></html>`);
  return paragraphs(document.getElementById('doppel-article')!).map((el) => ({ html: el.outerHTML, text: el.textContent ?? '' }));
}

/** Whole blocks from the start (or from `fromShare` of the text on) until `share` of the text. */
function blocksUpTo(blocks: { html: string; text: string }[], fromShare: number, share: number): string[] {
  const total = blocks.reduce((n, b) => n + b.text.length, 0);
  const out: string[] = [];
  let seen = 0;
  for (const b of blocks) {
    if (seen >= total * fromShare && seen < total * share) out.push(b.html);
    seen += b.text.length;
  }
  return out;
}

/**
 * For each article, `variants` pages of each partial kind: the first 30% of it; its first half
 * followed by the second half of another article; a 60-word quote of it inside another article
 * (a blockquote halfway through). Each is dressed in a republishing site's template.
 */
export function buildPartialCopies(set: QualitySet, corpusDir = CORPUS_DIR, variants = 3, seed = 20231): PartialPage[] {
  const pages: PartialPage[] = [];
  const { articles } = set;
  const blocks = new Map(articles.map((a) => [a, blocksOf(corpusDir, a)]));
  const titles = new Map(set.pages.filter((p) => p.kind === 'original').map((p) => [p.article, /<title[^>]*>([^<]*)/i.exec(p.html)?.[1]?.trim() ?? p.article]));
  articles.forEach((article, i) => {
    const random = mulberry32(seed ^ hashName(article));
    const own = blocks.get(article)!;
    const dress = (kind: PartialKind, variant: number, body: string[], sources: string[], related: string[] = []): void => {
      const site = pick(random, SITES);
      const html = template(site, titles.get(article) ?? article, [...body, `<p>${escapeHtml(siteBoilerplate(site.name))}</p>`].join('\n'), random);
      pages.push({ path: `${article}/partial-${kind}-${variant}.html`, kind, sources, related, html });
    };
    for (let variant = 1; variant <= variants; variant++) {
      const other = articles[(i + variant * 17) % articles.length]!;
      dress('excerpt-30', variant, [...blocksUpTo(own, 0, 0.3), '<p><a href="/continue">Continue reading on the original site</a></p>'], [article]);
      dress('stitched', variant, [...blocksUpTo(own, 0, 0.5), ...blocksUpTo(blocks.get(other)!, 0.5, 1.01)], [article, other]);
      const words = own.map((b) => b.text).join(' ').split(/\s+/).filter(Boolean);
      const from = Math.floor(random() * Math.max(1, words.length - QUOTE_WORDS));
      const quote = escapeHtml(words.slice(from, from + QUOTE_WORDS).join(' '));
      const host = articles[(i + variant * 31 + 5) % articles.length]!;
      const hostBlocks = blocks.get(host)!.map((b) => b.html);
      const half = Math.floor(hostBlocks.length / 2);
      dress('quote', variant, [...hostBlocks.slice(0, half), `<blockquote><p>“${quote}”</p></blockquote>`, ...hostBlocks.slice(half)], [article], [host]);
    }
  });
  return pages;
}
