// The three content farms' copies in the provenance set (bench/data/provenance-set.ts): one dates
// its copies 1 to 10 days late, one dates nothing, one backdates verbatim copies; and the texts
// they copy (an excerpt, a light edit of synonyms and a promotion).
import type { RewriteText } from './rewrite-set';
import { DAY, HOUR, between, humanDate, isoAt, pickOne, shuffled } from './provenance-dates';
import { describe, escapeHtml, footerHtml, navHtml, ogHead, pageHtml, paragraphsHtml, scriptJson, slugOf } from './provenance-html';
import { FARM_BACKDATE, FARM_LATE, FARM_NODATE, type Placed, type ProvenancePage } from './provenance-sites';

/** The first 60–70% of the paragraphs (at least one). */
export function excerptOf(paragraphs: readonly string[], random: () => number): string[] {
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

export function farmLatePage(placed: Placed, kind: 'verbatim' | 'edited' | 'excerpt', random: () => number): ProvenancePage {
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

export function farmNodatePage(placed: Placed, kind: 'excerpt' | 'rewrite' | 'translation_es', random: () => number): ProvenancePage {
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

export function farmBackdatePage(placed: Placed, random: () => number): ProvenancePage {
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
