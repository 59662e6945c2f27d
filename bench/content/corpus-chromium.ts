// The set-up that bench:content-split and bench:passage-marks share: Readability's test pages served
// on 127.0.0.1, a script of the bench's own bundled for the page, and Debian's Chromium with every
// request that would leave the machine refused.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { CHROMIUM_PATH, type Site, servePages } from '../../test/e2e/harness';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CORPUS_DIR = resolve(ROOT, '../shared/corpus/readability-test-pages');

export interface CorpusChromium {
  /** The page entry, bundled as an IIFE to add to each page. */
  script: string;
  /** The corpus pages' folder names, sorted. */
  names: string[];
  site: Site;
  browser: Browser;
  ctx: BrowserContext;
  /** Closes the browser and the server. */
  close(): Promise<void>;
}

/** The corpus in Chromium, or null (with the skip message printed) where the corpus is absent. */
export async function openCorpusInChromium(bench: string, pageEntry: string, json: boolean): Promise<CorpusChromium | null> {
  if (!existsSync(CORPUS_DIR)) {
    const message = `${bench} skipped: the corpus is not at ${CORPUS_DIR} (it comes from ../shared/corpus).`;
    console.log(json ? JSON.stringify({ skipped: message }) : message);
    return null;
  }
  const bundle = await build({ stdin: { contents: pageEntry, resolveDir: ROOT, loader: 'ts' }, bundle: true, format: 'iife', write: false, logLevel: 'warning' });
  const names = readdirSync(CORPUS_DIR).filter((n) => existsSync(resolve(CORPUS_DIR, n, 'source.html'))).sort();
  const site = await servePages(CORPUS_DIR);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  let ctx: BrowserContext;
  try {
    ctx = await browser.newContext();
    await ctx.route((url) => url.hostname !== '127.0.0.1', (route) => route.abort('internetdisconnected')); // nothing leaves the machine
  } catch (error) {
    await browser.close();
    await site.close();
    throw error;
  }
  return {
    script: bundle.outputFiles[0]!.text,
    names,
    site,
    browser,
    ctx,
    close: async () => {
      await browser.close();
      await site.close();
    },
  };
}
