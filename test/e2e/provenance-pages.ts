// The story pages of the provenance e2e suites (test/e2e/provenance.e2e.ts in Chromium,
// test/e2e-firefox/provenance.e2e.ts in Firefox): honest publishers' articles stating their dates
// in three ways, a farm's copies claiming a later date, another farm's undated copies with a promo,
// and a partner's copies naming the original by their canonical link.
import { englishLikeProse } from './harness';

export const DAY = 86_400_000;
export type Publisher = 'pubA' | 'pubB';
export type Form = 'meta' | 'json-ld' | 'byline';
export type Copy = 'late' | 'nodate' | 'partner';
export interface Article { key: string; pub: Publisher; slug: string; title: string; published: number; form: Form; paragraphs: string[]; lateDays: number }

/**
 * Articles of about 700 words, half of them pubA's (keys A0, A1, …) and half pubB's (B0, …),
 * the i-th published `daysBefore(i)` days (and i + 1 hours) before `now`, its words from `seed + i`;
 * farmLate's copy claims 2 to 5 days later.
 */
export function storyArticles(stories: readonly (readonly [title: string, slug: string, form: Form])[], now: number, seed: number, daysBefore: (i: number) => number): Article[] {
  const half = stories.length / 2;
  return stories.map(([title, slug, form], i) => {
    const words = englishLikeProse(seed + i);
    return {
      key: `${i < half ? 'A' : 'B'}${i % half}`,
      pub: i < half ? 'pubA' : 'pubB',
      slug,
      title,
      published: now - daysBefore(i) * DAY - (i + 1) * 3_600_000,
      form,
      paragraphs: Array.from({ length: 8 }, (_, p) => words(70 + 5 * p).join(' ')),
      lateDays: 2 + (i % 4),
    };
  });
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const iso = (t: number): string => new Date(t).toISOString();
export const lateTitle = (a: Article): string => `${a.title} and what it means for you`;
export const noDateTitle = (a: Article): string => `Everyone is talking about this ${a.title.toLowerCase()}`;

function page(title: string, head: string[], masthead: string, article: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
${head.join('\n')}
</head><body>
<header class="site-header"><a href="/">${masthead}</a><nav><a href="/news/">News</a> <a href="/about.html">About</a></nav></header>
<main><article><h1>${esc(title)}</h1>
${article}
</article></main>
<footer><p>© ${masthead}</p></footer>
</body></html>`;
}

const paras = (ps: string[]): string => ps.map((p) => `<p>${p}</p>`).join('\n');

/** A publisher's article at `path` (its own canonical link), its date in its form (JSON-LD with a later dateModified, which must not count). */
export function originalPage(a: Article, path: string): string {
  const date = iso(a.published);
  const head = [`<link rel="canonical" href="${path}">`];
  if (a.form === 'meta') head.push(`<meta property="article:published_time" content="${date}">`);
  if (a.form === 'json-ld') head.push(`<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: a.title, datePublished: date, dateModified: iso(a.published + DAY), author: { '@type': 'Person', name: 'Morag Ellis' } })}</script>`);
  const byline = a.form === 'byline' ? `By Morag Ellis · <time datetime="${date}">${new Date(a.published).toUTCString().slice(5, 16)}</time>` : 'By Morag Ellis';
  return page(a.title, head, a.pub === 'pubA' ? 'The Harrow Gazette' : 'Coastline Weekly', `<p class="byline">${byline}</p>\n${paras(a.paragraphs)}`);
}

/** A copy of `a` at `path`: the partner's names `originalUrl` by its canonical link; farmLate's dates itself later (odd articles lightly edited); farmNoDate's adds a promo and no date. */
export function copyPage(a: Article, kind: Copy, path: string, originalUrl: string): string {
  if (kind === 'partner') {
    const head = [`<link rel="canonical" href="${originalUrl}">`, `<meta property="article:published_time" content="${iso(a.published + 2 * 3_600_000)}">`];
    return page(a.title, head, 'Shoreline Partners', `<p class="byline">By Morag Ellis</p>\n${paras(a.paragraphs)}`);
  }
  if (kind === 'late') {
    // the odd articles lightly edited: a word changed in two paragraphs
    const edited = a.paragraphs.map((p, i) => (a.key.endsWith('1') || a.key.endsWith('3')) && (i === 2 || i === 5) ? p.replace(/ \S+ /, ' indeed ') : p);
    const head = [`<link rel="canonical" href="${path}">`, `<meta property="article:published_time" content="${iso(a.published + a.lateDays * DAY)}">`];
    return page(lateTitle(a), head, 'Buzz Daily', `<p class="byline">By Staff Writer</p>\n${paras(edited)}`);
  }
  const promo = 'Enjoying this story? Share it with your friends and sign up for the ClickHub newsletter to never miss what everyone is talking about.';
  return page(noDateTitle(a), [`<link rel="canonical" href="${path}">`], 'ClickHub', paras([...a.paragraphs.slice(0, 4), promo, ...a.paragraphs.slice(4)]));
}

/** Where each copy of the i-th article lives on its site. */
export const copyPath = (kind: Copy, a: Article, i: number): string => (kind === 'late' ? `/viral/${a.slug}.html` : kind === 'nodate' ? `/p/${1000 + i}.html` : `/partners/${a.slug}.html`);

/** What a popup shows of a story's original: its line under the status, its entries' tags, its site's flag. */
export interface PopupView { line: { visible: boolean; self?: string | null; evidence?: string | null; text: string }; matches: { url: string; tag: string | null }[]; flag: string | null }

/**
 * The popups of the copies of the articles `copyFirst` (each read before its original: farmLate's,
 * farmNoDate's and, for `partnered`, the partner's) and of every original, as `popupView` reads
 * them, beside what each must show: a copy names its original ("“title” (host)") and tags its
 * entry with the evidence, and carries its site's flag; an original says it is one, tags nothing
 * and has no flag.
 */
export async function popupsAgainstExpected(
  articles: readonly Article[],
  copyFirst: readonly string[],
  partnered: readonly string[],
  urls: { original(a: Article): string; copy(a: Article, kind: Copy): string },
  popupView: (url: string) => Promise<PopupView>,
): Promise<{ seen: object[]; expected: object[] }> {
  const seen: object[] = [];
  const expected: object[] = [];
  const host = (url: string): string => new URL(url).host;
  for (const key of copyFirst) {
    const a = articles.find((x) => x.key === key)!;
    for (const kind of ['late', 'nodate', ...(partnered.includes(key) ? ['partner'] : [])] as Copy[]) {
      const view = await popupView(urls.copy(a, kind));
      const { visible, self, evidence, text } = view.line;
      seen.push({ page: `${key} ${kind}`, visible, self, evidence, text: text.includes(`“${a.title}” (${host(urls.original(a))})`), tag: view.matches.find((m) => m.url === urls.original(a))?.tag ?? 'no entry', flag: view.flag });
      const why = kind === 'partner' ? 'canonical' : 'published';
      expected.push({ page: `${key} ${kind}`, visible: true, self: 'false', evidence: why, text: true, tag: why, flag: kind === 'partner' ? 'credited' : 'copies' });
    }
  }
  for (const a of articles) {
    const view = await popupView(urls.original(a));
    const { visible, self, evidence } = view.line;
    seen.push({ page: a.key, visible, self, evidence, tagged: view.matches.filter((m) => m.tag !== null), flag: view.flag });
    expected.push({ page: a.key, visible: true, self: 'true', evidence: 'published', tagged: [], flag: null });
  }
  return { seen, expected };
}
