// The four publishers' original articles in the provenance set (bench/data/provenance-set.ts): each
// states its date its own way (article:published_time, JSON-LD, microdata, <meta name="date">
// beside a site header that shows today's date).
import { dateAt, HOUR, humanDate, humanTime, isoAt, between, pickOne } from './provenance-dates';
import { describe, escapeHtml, footerHtml, navHtml, ogHead, pageHtml, paragraphsHtml, scriptJson, type PageParts } from './provenance-html';
import type { ProvenancePage, Publisher, Story } from './provenance-sites';

export function publisherPage(pub: Publisher, story: Story, time: number, author: string, random: () => number): ProvenancePage {
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
