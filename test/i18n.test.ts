// The interface in three languages (public/_locales/{en,es,zh_CN}): the catalogues agree, every key
// the code names exists, no page hard-codes English (test/i18n-check.ts, each check shown failing
// on a planted case), and lib/ui/i18n.ts formats messages, plurals, numbers and dates per language.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { createLocalizer, formatLocale, localizePage, nodeAt, placeNodes, pluralKey } from '../lib/ui/i18n';
import { LOCALES, catalogue, getMessageOf, localizerFor } from './support/catalogues';
import { COMMON_WORDS } from '../lib/fingerprint/common-words';
import { type Catalogue, baseKey, catalogueProblems, englishInHtml, englishInTs, importClosure, placeholders, unframedErrorTexts } from './support/i18n-check';

const ROOT = new URL('..', import.meta.url).pathname;
const en = catalogue('en');

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

describe('message catalogues', () => {
  it('the locale folders are en, es and zh_CN', () => {
    expect(readdirSync(join(ROOT, 'public/_locales')).sort()).toEqual(Object.keys(LOCALES).sort());
  });

  it.each(Object.entries(LOCALES))('%s has every key of English, the plural forms of its language, the same placeholders', (folder, locale) => {
    const messages = catalogue(folder);
    expect(catalogueProblems(en, messages, locale)).toEqual([]);
    expect(messages['catalogLocale']?.message).toBe(locale);
    expect(Object.keys(messages).length).toBeGreaterThan(150);
  });

  it('the check finds a missing key, a missing plural form, a lost placeholder and an extra key', () => {
    const es = catalogue('es');
    const planted: Catalogue = { ...es, exportFailed: { message: 'La exportación ha fallado' }, stray: { message: 'x' } };
    delete planted['forgotPages_many'];
    delete planted['cancel'];
    expect(catalogueProblems(en, planted, 'es').sort()).toEqual([
      'es: cancel is missing',
      'es: exportFailed uses no placeholder, the reference $1',
      'es: forgotPages has the forms one, other; es needs many, one, other',
      'es: stray is not in the reference',
    ]);
    expect(catalogueProblems(en, { ...en, 'bad-name': { message: '' } }, 'en')).toEqual(['en: bad-name is not a valid message name', 'en: bad-name has no message', 'en: bad-name is not in the reference']);
  });

  it('placeholders and plural keys', () => {
    expect(placeholders('$2 of $1, $2')).toEqual(['$1', '$2']);
    expect(baseKey('pagesCount_many')).toBe('pagesCount');
    expect(baseKey('catalogLocale')).toBe('catalogLocale');
    expect(pluralKey('pagesCount', 1_000_000, new Intl.PluralRules('es'))).toBe('pagesCount_many');
    expect(pluralKey('pagesCount', 1, new Intl.PluralRules('zh-CN'))).toBe('pagesCount_other');
  });
});

/**
 * Every module whose strings can reach a page: what the pages, the content script, the worker and
 * the reader document load (the worker's words reach the popup and the history page in its replies).
 */
const ENTRY_MODULES = ['entrypoints/popup/main.ts', 'entrypoints/history/main.ts', 'entrypoints/content.ts', 'entrypoints/background/index.ts', 'entrypoints/reader/main.ts'];
const loadedModules = importClosure(ROOT, ENTRY_MODULES.map((f) => join(ROOT, f)));
const wordingModules = loadedModules.filter((f) => f.includes('/lib/'));

describe('the code and the catalogues', () => {
  const sources = [...filesUnder(join(ROOT, 'entrypoints'), (n) => /\.(ts|html)$/.test(n)), ...wordingModules, join(ROOT, 'wxt.config.ts')];
  const text = sources.map((f) => readFileSync(f, 'utf8')).join('\n');
  const named = new Set([
    ...[...text.matchAll(/\bl\.(?:t|count)\('(\w+)'/g)].map((m) => m[1]!),
    ...[...text.matchAll(/data-i18n(?:-[a-z-]+)?="(\w+)"/g)].map((m) => m[1]!),
    ...[...text.matchAll(/__MSG_(\w+)__/g)].map((m) => m[1]!),
  ]);
  const bases = new Set(Object.keys(en).map(baseKey));

  it('every key the code names is in the English catalogue', () => {
    expect(named.size).toBeGreaterThan(100);
    expect([...named].filter((key) => !bases.has(key))).toEqual([]);
  });

  it('every key of the catalogue is used somewhere in the code', () => {
    const quoted = new Set([...text.matchAll(/['"](\w+)['"]/g)].map((m) => m[1]!));
    expect([...bases].filter((key) => !named.has(key) && !quoted.has(key))).toEqual([]);
  });

  it('the manifest takes its name and description from the catalogue, English by default', () => {
    const config = readFileSync(join(ROOT, 'wxt.config.ts'), 'utf8');
    expect(config).toMatch(/name: '__MSG_extName__'/);
    expect(config).toMatch(/description: '__MSG_extDescription__'/);
    expect(config).toMatch(/default_locale: 'en'/);
  });
});

/**
 * Strings that look like English but are not shown to a reader, each with why. Anything else a
 * loaded module spells out in English fails the test below.
 */
const NOT_SHOWN: Record<string, string[]> = {
  // a CSS selector (the footer inside an article), where a page's credit line may stand
  'lib/text/provenance.ts': ['article footer'],
  // the reply to the content script, which does not show it (it only logs)
  'entrypoints/background/index.ts': ['Doppel is still updating how your history is stored; it will record this page when that is done.'],
  // why a delivery was not acknowledged, kept in its end state for tests; the page never shows it
  'lib/content/delivery.ts': ['the worker gave no reply', 'the worker replied without an acknowledgement', "the worker replied without the page's state", 'no reply within '],
  // chrome.offscreen's justification, read by Chrome's reviewers
  'entrypoints/background/reader.ts': ["Reads the article of a visited page from its HTML with Readability, off the page's main thread."],
  'entrypoints/history/list.ts': ['tag copy'], // class names
  'entrypoints/history/shared.ts': ['noopener noreferrer'], // rel
  'entrypoints/popup/main.ts': ['noopener noreferrer'],
  'lib/ui/passages-view.ts': ['noopener noreferrer'],
  // the offscreen reader document is never shown; its errors are logged by the worker
  'entrypoints/reader/index.html': ['Doppel reader'],
  'entrypoints/reader/main.ts': [
    'The reader document could not read the page: ',
    'The reader document reads only for Doppel.',
    'The reader document rejected a malformed request: ',
    'The reader document received a request without its target.',
  ],
  // why a page is not an article, for the record: the popup words the outcome's code (Localizer.notArticle)
  'lib/text/reading.ts': [
    'The article is too short to compare: ',
    ' words (at least ',
    'The page is empty.',
    'The page has more than ',
    ' elements, too many to read.',
    'The page is too large to read in full: ',
    ' elements and ',
    ' characters of text.',
    'The page is nested more than ',
    ' elements deep, too deep to read.',
  ],
  'lib/text/extract.ts': ['The page has more than ', ' elements, too many to read.', 'The page could not be read: ', 'No article was found on this page.'],
  'lib/content/page-reader.ts': ['The page could not be read: ', "The page's HTML is longer than ", ' characters, too long to read in full.'],
  'lib/background/recorder.ts': [
    'The article has no words to compare.',
    'Doppel could not read this page: ',
    "this browser gives Doppel nowhere to read a page's HTML",
    "the reader document's reading of ",
    ' was malformed: ',
    'its reading was malformed',
    // a refused or failed request: a page shows these words only as the detail of its own message ("Could not change it: $1")
    'Doppel rejected a malformed message: ',
    'an unknown sender',
    'only the content script of a page may report it',
    "only Doppel's own pages may send it",
    'a page may only report a page of its own origin',
    'Doppel refused a ',
    ' message because ',
    'Doppel could not complete ',
  ],
  // the reply text of a storage failure, for the record: the pages word its failure code, 'storage-unavailable'; the rest are log lines
  'lib/background/storage-full.ts': [
    'The browser cannot write to Doppel’s storage right now; the disk is probably full. Nothing already stored is lost, and Doppel records again once there is room.',
    'storage is full: forgot the ',
    ' least recently seen pages to make room',
    'storage is full and the pages seen longest ago could not be forgotten: ',
    'storage has room again: recording resumed',
    'storage is still full after making room: nothing new is recorded until there is room',
  ],
  // the detail of a failed job, shown inside the history page's message ("The import failed: $1")
  'lib/background/writer.ts': ['Doppel refused a message: '],
  'lib/ui/writer-client.ts': ['Doppel’s worker sent a message the page cannot read: '],
  // replies to the content script, which logs them
  'lib/content/marks.ts': ["Passages are marked only for Doppel's own pages: ", 'it came from a content script', 'Malformed message: ', 'The passages could not be marked: '],
  'lib/protocol/sender.ts': [
    'it came from another extension or a web page',
    'it came from neither a tab nor a Doppel page',
    'it came from a frame inside the page, and only the top page is recorded',
    'it came from a page that is not an http or https page',
  ],
  // a page's note in scan's report (why it has few rare words); the extension keeps no note
  'lib/fingerprint/rewrites.ts': [
    'no words',
    'the text is in ',
    ' script, which has no capitals: only its numbers and Latin-script names are anchors (',
    'numbers only (',
    ' words): not compared',
    'no names, rare words or numbers: nothing to compare',
    ' anchors: too few to show a rewrite',
    ' anchors but ',
    ' distinct pairs',
  ],
  // words the rare-word scan reads in a page's text, and the list of common words it leaves out
  'lib/fingerprint/rewrite-numbers.ts': ['mil millones'],
  'lib/fingerprint/common-words.ts': [COMMON_WORDS],
  // what a damaged store's error names ("Doppel's stored rewrite fingerprints of block 3 are damaged: …")
  'lib/store/passages.ts': ['passage marks'],
  'lib/index/slots.ts': ['passage fingerprints'],
  'lib/index/rewrite-store.ts': ['rewrite fingerprints', 'rewrite postings'],
  // a table design's label and its error detail, for logs and benchmarks
  'lib/index/tables.ts': [' per table)', '-bit keys'],
  // the names of what a validation error is about: details of an InvalidMessage
  'lib/protocol/messages.ts': ["the reader document's reply", 'a range of sets['],
  'lib/protocol/replies.ts': ['passage match', 'an excluded site', "the worker's reply"],
  'lib/protocol/tab-protocol.ts': ['the reply', 'an end'],
  'lib/protocol/writer-protocol.ts': ['the writer request', 'the writer event', 'a rejected line'],
  // why a file is refused, for the record: the history page words the refusal's code (data.ts refusalText)
  'lib/protocol/ndjson.ts': [
    'this is not a Doppel export: the first line must be its header, {"format":"',
    "the header's version must be a whole number from 1: got ",
    'this file is in version ',
    ' of the Doppel export format, newer than version ',
    ', the newest this copy of Doppel reads: update Doppel to import it',
  ],
};

/** The pages' own code: what it throws is shown as is, so it words its errors too. */
const PAGE_CODE = /^entrypoints\/(?:popup|history)\//;

describe('no page hard-codes English', () => {
  const pages = [...filesUnder(join(ROOT, 'entrypoints'), (n) => /\.(ts|html)$/.test(n)), ...wordingModules];

  it.each(pages.map((f) => relative(ROOT, f)))('%s', (file) => {
    const source = readFileSync(join(ROOT, file), 'utf8');
    const found = file.endsWith('.html') ? englishInHtml(source) : englishInTs(source, file, { errorDetails: !PAGE_CODE.test(file) });
    expect(found.filter((text) => !(NOT_SHOWN[file] ?? []).includes(text))).toEqual([]);
  });

  it('every exception is still needed', () => {
    const stale = Object.entries(NOT_SHOWN).flatMap(([file, texts]) => {
      const source = readFileSync(join(ROOT, file), 'utf8');
      const found = file.endsWith('.html') ? englishInHtml(source) : englishInTs(source, file, { errorDetails: !PAGE_CODE.test(file) });
      return texts.filter((text) => !found.includes(text)).map((text) => `${file}: ${text}`);
    });
    expect(stale).toEqual([]);
  });

  it('covers every module the entry points load, not only those that name Localizer', () => {
    const loaded = loadedModules.map((f) => relative(ROOT, f));
    expect(loaded).toEqual(expect.arrayContaining(['entrypoints/history/data.ts', 'lib/protocol/ndjson.ts', 'lib/store/transfer.ts', 'lib/background/storage-full.ts', 'lib/ui/import-problems.ts', 'lib/text/reading.ts']));
    expect(pages.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining(['entrypoints/popup/index.html', 'entrypoints/popup/main.ts', 'entrypoints/history/index.html', 'entrypoints/history/list.ts', 'lib/ui/passages-view.ts', 'lib/protocol/ndjson.ts']),
    );
  });

  it('a page shows an error\'s own words only inside a message of its language', () => {
    const bare = pages
      .filter((f) => PAGE_CODE.test(relative(ROOT, f)) && f.endsWith('.ts'))
      .flatMap((f) => unframedErrorTexts(readFileSync(f, 'utf8')).map((call) => `${relative(ROOT, f)}: ${call}`));
    expect(bare).toEqual([]);
    expect(unframedErrorTexts("a.textContent = errorText(error);\nb.textContent = l.t('changeFailed', errorText(error));")).toEqual(['errorText(error)']);
  });

  it('the HTML check finds planted text nodes and attributes, and lets keys, the name and numbers pass', () => {
    const page = `<html><head><title>Doppel</title></head><body>
      <h1>Doppel</h1><p data-i18n="loading"></p><output>3</output>
      <p>Hard-coded words</p><label data-i18n="dateFrom"><input type="date" /></label>
      <input placeholder="Search titles" /><button aria-label="Close">×</button><button value="cancel" data-i18n="cancel"></button>
      <script>const notText = 'Some words';</script></body></html>`;
    expect(englishInHtml(page)).toEqual(['Hard-coded words', 'placeholder="Search titles"', 'aria-label="Close"']);
  });

  it('the TypeScript check finds planted strings and templates, not console output, imports or single tokens', () => {
    const source = [
      "import { x } from './some module';",
      "view.status.textContent = 'Forget this page';",
      'view.detail.textContent = `${n} pages selected.`;',
      "console.warn('Doppel: organising the store failed:', error);",
      "element.className = 'entry';",
      "view.status.textContent = l.t('loading');",
      "throw new Error('Doppel did not answer.');",
    ].join('\n');
    expect(englishInTs(source)).toEqual(['Forget this page', ' pages selected.', 'Doppel did not answer.']);
  });

  it('with errorDetails, the words of thrown and made errors pass, and nothing else', () => {
    const source = [
      "throw new Error('Doppel did not answer.');",
      "const e = new InvalidMessage('the reply must be an object');",
      "if (bad) fail('its URL is not text');",
      "class Stopped extends Error { constructor() { super('The worker stopped early.'); } }",
      "class View { constructor() { super('Not an error at all'); } }",
      "view.status.textContent = 'Forget this page';",
    ].join('\n');
    expect(englishInTs(source, 'lib.ts', { errorDetails: true })).toEqual(['Not an error at all', 'Forget this page']);
  });
});

describe('createLocalizer', () => {
  const localizer = localizerFor;
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);

  it.each([
    ['en', 'en-US', 1, '1 page'],
    ['en', 'en-US', 1234, '1,234 pages'],
    ['es', 'es', 1, '1 página'],
    ['es', 'es', 12_345, '12.345 páginas'],
    ['es', 'es', 1_000_000, '1.000.000 de páginas'],
    ['zh_CN', 'zh-CN', 1, '1 个网页'],
    ['zh_CN', 'zh-CN', 12_345, '12,345 个网页'],
  ] as const)('%s: pagesCount %d', (folder, ui, n, expected) => {
    expect(localizer(folder, ui).count('pagesCount', n)).toBe(expected);
  });

  it('fills the substitutions after the count, in their order in the message', () => {
    expect(localizer('en', 'en').count('siteExcludedForgot', 3, 'example.com')).toBe('example.com will not be recorded; 3 pages forgotten.');
    expect(localizer('es', 'es').count('siteExcludedForgot', 1, 'ejemplo.es')).toBe('ejemplo.es no se registrará; se ha olvidado 1 página.');
    expect(localizer('zh_CN', 'zh-CN').count('siteExcludedForgot', 2, 'example.cn')).toBe('不会再记录 example.cn；已忘记 2 个网页。');
    expect(localizer('en', 'en').t('markFailed', 'a.com', 'no room')).toBe('Could not mark a.com: no room');
  });

  it('likeness and distance, percentages in the locale', () => {
    expect(localizer('en', 'en').distanceDetail(1)).toBe('1 bit apart · 98% of the fingerprint in common');
    expect(localizer('en', 'en').distanceDetail(2)).toBe('2 bits apart · 97% of the fingerprint in common');
    expect(localizer('es', 'es').distanceDetail(3)).toBe(`3 bits de diferencia · ${new Intl.NumberFormat('es', { style: 'percent' }).format(0.95)} de la huella en común`);
    expect(localizer('zh_CN', 'zh-CN').distanceDetail(3)).toBe('相差 3 位 · 指纹有 95% 相同');
    expect([0, 1, 3].map((d) => localizer('es', 'es').likeness(d))).toEqual(['El mismo texto', 'Texto casi idéntico', 'Texto muy parecido']);
  });

  it.each([
    ['en', 'en', { code: 'too-short', words: 1, minWords: 50 }, 'The article is too short to compare: 1 word (at least 50 needed).'],
    ['en', 'en', { code: 'too-short', words: 12, minWords: 50 }, 'The article is too short to compare: 12 words (at least 50 needed).'],
    ['es', 'es', { code: 'too-short', words: 12, minWords: 50 }, 'El artículo es demasiado corto para compararlo: 12 palabras (hacen falta al menos 50).'],
    ['zh_CN', 'zh-CN', { code: 'too-short', words: 12, minWords: 50 }, '文章太短，无法比较：只有 12 个词（至少需要 50 个）。'],
    ['es', 'es', { code: 'no-article' }, 'No se encontró ningún artículo en esta página.'],
    ['zh_CN', 'zh-CN', { code: 'too-large' }, '此网页太大，Doppel 无法读取。'],
    ['es', 'es', { code: 'no-words' }, 'El artículo no tiene palabras que comparar.'],
    ['es', 'es', null, 'the reader’s sentence'],
    ['es', 'es', { code: 'too-short' }, 'the reader’s sentence'],
  ] as const)('%s: why a page is not an article, %j', (folder, ui, why, expected) => {
    expect(localizer(folder, ui).notArticle(why, 'the reader’s sentence')).toBe(expected);
  });

  it('shares of a page as percentages in the locale, never rounded up', () => {
    expect([0.62, 0.999, 0.004, 1, 0].map((x) => localizer('en', 'en').share(x))).toEqual(['62%', '99%', '0.4%', '100%', '0%']);
    const es = new Intl.NumberFormat('es', { style: 'percent', maximumFractionDigits: 1 });
    expect([0.627, 0.004].map((x) => localizer('es', 'es').share(x))).toEqual([es.format(0.62), es.format(0.004)]);
    expect(localizer('zh_CN', 'zh-CN').share(0.8)).toBe('80%');
  });

  it('dates and relative times in the UI locale; "just now" from the catalogue', () => {
    const at = now - 3 * 24 * 3600_000;
    expect(localizer('es', 'es').relative(at, now)).toBe('hace 3 días');
    expect(localizer('zh_CN', 'zh-CN').relative(at, now)).toBe('3天前');
    expect(localizer('en', 'en').relative(at, now)).toBe('3 days ago');
    expect(localizer('es', 'es').relative(now - 5_000, now)).toBe('ahora mismo');
    expect(localizer('es', 'es').date(at)).toBe(new Intl.DateTimeFormat('es', { dateStyle: 'medium', timeStyle: 'short' }).format(at));
    expect(localizer('zh_CN', 'zh-CN').date(at)).toMatch(/^2026年11月19日/);
    expect(localizer('zh_CN', 'zh-CN').day(at)).toBe('2026年11月19日');
    expect(localizer('en', 'en-US').day(at)).toBe('Nov 19, 2026');
    expect(localizer('es', 'es').day(at)).toBe(new Intl.DateTimeFormat('es', { dateStyle: 'medium' }).format(at));
  });

  it('the UI locale formats, the catalogue picks the words and plural rules', () => {
    // a Swiss German browser gets the English catalogue, with Swiss numbers
    const l = createLocalizer(getMessageOf(en), 'de-CH');
    expect(l.catalogLocale).toBe('en');
    expect(l.locale).toBe('de-CH');
    expect(l.count('pagesCount', 12_345)).toBe(`${new Intl.NumberFormat('de-CH').format(12_345)} pages`);
    expect(l.count('pagesCount', 12_345)).not.toBe('12,345 pages');
  });

  it.each([
    ['en-GB', 'en', 'en-GB'],
    ['de-CH', 'en', 'de-CH'],
    ['es-MX', 'es', 'es-MX'],
    ['zh-CN', 'zh-CN', 'zh-CN'],
    ['en-US', 'es', 'es'],
    ['en-US', 'zh-CN', 'zh-CN'],
  ])('formats for UI %s with the %s catalogue in %s', (ui, catalog, expected) => {
    expect(formatLocale(ui, catalog)).toBe(expected);
  });

  it('a UI locale that disagrees with the catalogue formats in the catalogue\'s language', () => {
    const l = createLocalizer(getMessageOf(catalogue('es')), 'en-US');
    expect(l.locale).toBe('es');
    expect(l.count('pagesCount', 12_345)).toBe('12.345 páginas');
  });

  it('a missing key shows itself; a missing plural form falls back to other; a bad locale to the catalogue\'s', () => {
    const partial = { ...catalogue('es') };
    delete partial['pagesCount_many'];
    const l = createLocalizer(getMessageOf(partial), 'not a locale!');
    expect(l.locale).toBe('es');
    expect(l.t('noSuchKey')).toBe('noSuchKey');
    expect(l.count('pagesCount', 1_000_000)).toBe('1.000.000 páginas');
    expect(createLocalizer(getMessageOf(en), 'not a locale!').locale).toBe('en');
  });
});

describe('placeNodes', () => {
  it('puts each node where its language\'s message puts it, and says which it placed', () => {
    const link = { node: 'link' };
    const when = { node: 'time' };
    const words = (folder: 'en' | 'zh_CN') => localizerFor(folder).t('passageShare', '62%', nodeAt(0), nodeAt(1));
    expect(placeNodes(words('en'), [link, when])).toEqual({ parts: ['62% of this page appeared in ', link, ', which you read on ', when], placed: [0, 1] });
    expect(placeNodes(words('zh_CN'), [link, when])).toEqual({ parts: ['此页有 62% 的内容出现在你 ', when, ' 读过的 ', link, ' 中'], placed: [1, 0] });
    expect(placeNodes(`${nodeAt(0)}`, [link, when])).toEqual({ parts: [link], placed: [0] });
  });
});

describe('localizePage', () => {
  it('fills text, places child elements at $1 or before the text, fills attributes, sets lang', () => {
    const { document } = parseHTML(`<html lang="en"><body>
      <h1 data-i18n="historyAndData">old</h1>
      <label id="from" data-i18n="dateFrom"><input type="date" /></label>
      <label id="paused" data-i18n="pauseRecording"><input type="checkbox" /></label>
      <input id="search" data-i18n-placeholder="searchPlaceholder" data-i18n-aria-label="searchPlaceholder" />
    </body></html>`);
    localizePage(document as unknown as Document, createLocalizer(getMessageOf(catalogue('zh_CN')), 'zh-CN'));
    expect(document.documentElement.lang).toBe('zh-CN');
    expect(document.querySelector('h1')!.textContent).toBe('历史与数据');
    expect(document.getElementById('from')!.innerHTML).toBe('从 <input type="date">');
    expect(document.getElementById('paused')!.innerHTML).toBe('<input type="checkbox"> 暂停记录');
    expect(document.getElementById('search')!.getAttribute('placeholder')).toBe('搜索标题、网址和网站');
    expect(document.getElementById('search')!.getAttribute('aria-label')).toBe('搜索标题、网址和网站');
  });
});
