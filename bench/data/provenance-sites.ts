// The sites of the provenance set (bench/data/provenance-set.ts) and the shapes of what it holds:
// its pages, its copies, the four publishers, the three farms, the two partners and the blog, and
// the story each publisher's article carries.
import type { RewriteArticle } from './rewrite-set';
import type { Zone } from './provenance-dates';

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

type PublisherId = 'pub-a' | 'pub-b' | 'pub-c' | 'pub-d';

export interface Publisher {
  id: PublisherId;
  host: string;
  name: string;
  zone: Zone;
  sections: string[];
  authors: string[];
  color: string;
}

export const PUBLISHERS: readonly Publisher[] = [
  { id: 'pub-a', host: 'pub-a.example', name: 'The Morning Ledger', zone: 'eu', sections: ['World', 'Politics', 'Business', 'Technology', 'Science', 'Culture'], authors: ['Clara Jennings', 'Tomás Ferreira', 'Hannah Okafor', 'Luc Marchetti'], color: '#12355b' },
  { id: 'pub-b', host: 'pub-b.example', name: 'Northfield Gazette', zone: 'utc', sections: ['News', 'Local', 'Money', 'Tech', 'Health', 'Opinion'], authors: ['Priya Raman', 'Owen Gallagher', 'Maya Lindqvist', 'Daniel Osei'], color: '#7a1f1f' },
  { id: 'pub-c', host: 'pub-c.example', name: 'Coastline Herald', zone: 'us', sections: ['U.S.', 'World', 'Economy', 'Science', 'Arts', 'Sports'], authors: ['Rebecca Thornton', 'Marcus Bell', 'Julia Navarro', 'Kenji Watanabe'], color: '#0b5d4b' },
  { id: 'pub-d', host: 'pub-d.example', name: 'The Civic Times', zone: 'utc', sections: ['Home', 'Nation', 'World', 'Business', 'Life', 'Tech'], authors: ['Alan Whitfield', 'Sofia Brandt', 'Grace Mbeki', 'Peter Novak'], color: '#333366' },
];

export const FARM_LATE = { host: 'farm-late.example', name: 'Viral Daily Digest' };
export const FARM_NODATE = { host: 'farm-nodate.example', name: 'TopNewsHub' };
export const FARM_BACKDATE = { host: 'farm-backdate.example', name: 'Evergreen News Wire' };
export const PARTNER_CANON = { host: 'partner-canon.example', name: 'Meridian Syndicate' };
export const PARTNER_CREDIT = { host: 'partner-credit.example', name: 'The Commons Review' };
export const BLOG = { host: 'blog.example', name: 'Field Notes', author: 'Sam Ortega' };

export const SITES: ProvenanceSet['sites'] = [
  ...PUBLISHERS.map((p) => ({ site: p.host, role: 'publisher' as const, honest: true })),
  { site: FARM_LATE.host, role: 'farm', honest: false },
  { site: FARM_NODATE.host, role: 'farm', honest: false },
  { site: FARM_BACKDATE.host, role: 'farm', honest: false },
  { site: PARTNER_CANON.host, role: 'partner', honest: true },
  { site: PARTNER_CREDIT.host, role: 'partner', honest: true },
  { site: BLOG.host, role: 'blog', honest: true },
];

export interface Story {
  /** The rewrite set's slug: the article's id. */
  id: string;
  /** The URL slug of its title. */
  slug: string;
  /** The original as its publisher writes it. */
  title: string;
  paragraphs: string[];
  source: RewriteArticle;
}

export interface Placed {
  story: Story;
  publisher: Publisher;
  /** The true publication time (ms). */
  time: number;
  author: string;
  page: ProvenancePage;
}
