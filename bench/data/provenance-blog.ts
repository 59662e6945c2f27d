// The blog of the provenance set (bench/data/provenance-set.ts): articles of its own that link one
// or two publishers' articles without copying them or crediting them as a source.
import type { RewriteArticle } from './rewrite-set';
import { DAY, HOUR, between, humanDate, isoAt, local, shuffled, two } from './provenance-dates';
import { escapeHtml, navHtml, pageHtml, slugOf } from './provenance-html';
import { BLOG, type Placed, type ProvenancePage } from './provenance-sites';

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

export function blogPage(article: RewriteArticle, links: readonly Placed[], first: boolean, random: () => number): ProvenancePage {
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
