// The two partners' pages in the provenance set (bench/data/provenance-set.ts): republished articles
// that name their original by a canonical link or by a credit line (in English or Spanish), and
// articles of their own.
import type { RewriteArticle, RewriteText } from './rewrite-set';
import { DAY, HOUR, between, dateAt, humanDate, isoAt, ownTime, pickOne } from './provenance-dates';
import { describe, escapeHtml, footerHtml, navHtml, ogHead, pageHtml, paragraphsHtml, slugOf } from './provenance-html';
import { PARTNER_CANON, PARTNER_CREDIT, type Placed, type ProvenancePage } from './provenance-sites';

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

export function partnerCanonCopy(placed: Placed, random: () => number): ProvenancePage {
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


export function partnerCanonOwn(article: RewriteArticle, random: () => number): ProvenancePage {
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

export type CreditStyle = 'permission' | 'spanish' | 'source';

export function partnerCreditCopy(placed: Placed, style: CreditStyle, random: () => number): ProvenancePage {
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

export function partnerCreditOwn(article: RewriteArticle, random: () => number): ProvenancePage {
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
