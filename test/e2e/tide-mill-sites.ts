// The tide-mill story of samples/ as the rewrite suites serve it (test/e2e/rewrites.e2e.ts in
// Chromium, test/e2e-firefox/rewrites.e2e.ts in Firefox): the article on its own site, a reworded
// version of it on a content farm, and its Spanish and German translations, crediting the article,
// on a third and a fourth.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Site, servePages } from './harness';

const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));

const PAGES = {
  original: ['original-site', '/2024/05/wrenmouth-tide-mill-turns-again.html', 'https://estuary-courier.example/2024/05/wrenmouth-tide-mill-turns-again'],
  farm: ['rewrite-mill', '/2024/05/historic-tide-mill-spins-again.html', 'https://heritagedailydigest.example/2024/05/historic-tide-mill-spins-again.html'],
  translations: ['traducciones', '/2024/05/el-molino-de-marea-de-wrenmouth-vuelve-a-girar.html', null],
  german: ['de', '/2024/05/die-gezeitenmuehle-von-wrenmouth-dreht-sich-wieder.html', null],
} as const;

export type TideMillSite = keyof typeof PAGES;

export interface TideMillSites {
  sites: Record<TideMillSite, Site>;
  url: { original(): string; rewrite(): string; spanish(): string; german(): string };
  close(): Promise<void>;
}

/**
 * Serves the three pages, each on its own origin. Served on 127.0.0.1, a sample's canonical link
 * would name another site, which reads as naming a source; so every address a sample gives of
 * itself (its canonical link, the translation's credit line) is written as the address that
 * serves it, and the pages say what they say on their own sites. The server reads its routes at
 * each request, so they are rewritten once the ports are known.
 */
export async function serveTideMill(): Promise<TideMillSites> {
  const routes = {} as Record<TideMillSite, Record<string, string>>;
  const sites = {} as Record<TideMillSite, Site>;
  const names = Object.keys(PAGES) as TideMillSite[];
  const close = async (): Promise<void> => {
    for (const site of Object.values<Site>(sites)) await site.close();
  };
  try {
    for (const name of names) {
      const [folder, path] = PAGES[name];
      routes[name] = { [path]: readFileSync(join(SAMPLES, folder, path), 'utf8') };
      sites[name] = await servePages(routes[name]);
    }
  } catch (error) {
    await close();
    throw error;
  }
  const served = names.flatMap((name) => {
    const [, path, own] = PAGES[name];
    return own === null ? [] : [[own, sites[name].url(path)] as const];
  });
  for (const name of names) {
    const [, path] = PAGES[name];
    routes[name][path] = served.reduce((html, [from, to]) => html.replaceAll(from, to), routes[name][path]!);
  }
  return {
    sites,
    url: {
      original: () => sites.original.url(PAGES.original[1]),
      rewrite: () => sites.farm.url(PAGES.farm[1]),
      spanish: () => sites.translations.url(PAGES.translations[1]),
      german: () => sites.german.url(PAGES.german[1]),
    },
    close,
  };
}
