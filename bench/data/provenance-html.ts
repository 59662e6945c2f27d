// How the provenance set's pages (bench/data/provenance-set.ts) are written: the page skeleton every
// site fills in (header, article, byline, footer), its head's canonical and Open Graph tags, and
// the text helpers it needs (escaping, JSON in a script, a title's URL slug, a description).

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** JSON for a <script> element: no "</" or "<!--" can end or confuse it. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value, null, 1).replace(/</g, '\\u003c');
}

/** A URL slug of a title: ASCII words, at most six. */
export function slugOf(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.slice(0, 6).join('-') || 'story';
}

export interface PageParts {
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

export function pageHtml(p: PageParts): string {
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

export const paragraphsHtml = (paragraphs: readonly string[]): string => paragraphs.map((t) => `<p>${escapeHtml(t)}</p>`).join('\n');

export function navHtml(items: readonly string[], prefix = '/'): string {
  return `<nav class="main-nav" aria-label="Sections"><ul>${items.map((s) => `<li><a href="${prefix}${slugOf(s)}/">${escapeHtml(s)}</a></li>`).join('')}</ul></nav>`;
}

export function ogHead(o: { url: string; canonical: string; title: string; siteName: string; description: string; type?: string; locale?: string }): string {
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
export function describe(paragraphs: readonly string[]): string {
  const first = paragraphs.find((p) => p.split(/\s+/).length >= 8) ?? paragraphs[0] ?? '';
  const sentence = /^.*?[.!?](?=\s|$)/.exec(first)?.[0] ?? first;
  return sentence.length <= 160 ? sentence : `${sentence.slice(0, 157).replace(/\s+\S*$/, '')}…`;
}

export function footerHtml(name: string, links: readonly [string, string][], lang: 'en' | 'es' = 'en'): string {
  return `<footer class="site-footer">
<p>© 2025 ${escapeHtml(name)}. ${lang === 'es' ? 'Todos los derechos reservados.' : 'All rights reserved.'}</p>
<ul class="footer-links">${links.map(([href, label]) => `<li><a href="${href}">${escapeHtml(label)}</a></li>`).join('')}</ul>
</footer>`;
}
