// The interface in the browser's language: Chromium started with --lang=es and --lang=zh-CN shows
// the popup, the badge's title and the history page in Spanish and in Chinese, with numbers and
// plurals of that language (public/_locales/). The English runs are the other e2e files.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { badgeTitle, EXTENSION_DIR, type ExtensionSession, launchWithExtension, pollFor, type Session, type Site, startSession, tabIdOf, visit, waitForPopupState } from './harness';


interface Expected {
  lang: string;
  htmlLang: string;
  status: string;
  /** #matches-heading for one near-duplicate within 3 bits */
  heading: string;
  forget: string;
  /** .likeness of the verbatim copy's match */
  likeness: RegExp;
  badgeTitle: string;
  /** the title of a match's first-seen time: a date in the language's format */
  firstSeenOn: RegExp;
  historyHeading: string;
  overview: RegExp;
  /** #status-detail of a sign-in page: why it is not an article */
  notArticle: RegExp;
}

const LANGUAGES: Expected[] = [
  {
    lang: 'es',
    htmlLang: 'es',
    status: 'Ya has leído esto antes, en otro sitio.',
    heading: '1 casi duplicado a 3 bits o menos',
    forget: 'Olvidar esta página',
    likeness: /^El mismo texto · 0 bits de diferencia · 100\s?% de la huella en común$/,
    badgeTitle: 'Doppel: 1 casi duplicado de esta página entre las que has leído',
    firstSeenOn: /^Vista por primera vez el \d{1,2} [a-z]{3,4}\.? \d{4}, \d{1,2}:\d{2}$/,
    historyHeading: 'Historial y datos',
    overview: /^2 páginas · 1 artículo distinto · 1 artículo encontrado más de una vez\.$/,
    notArticle: /^(No se encontró ningún artículo en esta página\.|El artículo es demasiado corto para compararlo: \d+ palabras? \(hacen falta al menos \d+\)\.)$/,
  },
  {
    lang: 'zh-CN',
    htmlLang: 'zh-CN',
    status: '你以前在别处读过这篇内容。',
    heading: '1 个近似重复（相差不超过 3 位）',
    forget: '忘记此网页',
    likeness: /^文本相同 · 相差 0 位 · 指纹有 100% 相同$/,
    badgeTitle: 'Doppel：你读过的网页中有 1 个与此页近似重复',
    firstSeenOn: /^首次看到于 \d{4}年\d{1,2}月\d{1,2}日 \d{1,2}:\d{2}$/,
    historyHeading: '历史与数据',
    overview: /^2 个网页 · 1 篇不同的文章 · 1 篇文章遇到过不止一次。$/,
    notArticle: /^(此网页上没有找到文章。|文章太短，无法比较：只有 \d+ 个词（至少需要 \d+ 个）。)$/,
  },
];

let original: Site;
let republisher: Site;
let almanac: Site;

let session: Session<'original' | 'republisher' | 'almanac'>;

beforeAll(async () => {
  session = await startSession({ original: 'original', republisher: 'republisher', almanac: 'almanac' }, { launch: false });
  ({ original, republisher, almanac } = session.sites);
});

afterAll(() => session?.close());

describe.each(LANGUAGES)('Chromium with --lang=$lang', (want) => {
  let ext: ExtensionSession;
  beforeAll(async () => {
    ext = await launchWithExtension(EXTENSION_DIR, { args: [`--lang=${want.lang}`] });
  });
  afterAll(async () => {
    await ext?.close();
  });

  test('the popup, the badge title and the history page speak the language', async () => {
    const popup = await ext.ctx.newPage();
    const first = await ext.ctx.newPage();
    await visit(first, original.url('/news/2024/ferry-returns.html'));
    await waitForPopupState(popup, original.url('/news/2024/ferry-returns.html'), 'ready');
    const copy = await ext.ctx.newPage();
    const copyUrl = republisher.url('/stories/ferry-service-back.html');
    await visit(copy, copyUrl);
    await waitForPopupState(popup, copyUrl, 'ready');

    expect(await popup.evaluate(() => document.documentElement.lang)).toBe(want.htmlLang);
    expect(await popup.textContent('#status-text')).toBe(want.status);
    expect(await popup.textContent('#matches-heading')).toBe(want.heading);
    expect(await popup.textContent('#forget')).toBe(want.forget);
    expect(await popup.locator('#matches .likeness').first().textContent()).toMatch(want.likeness);
    expect(await popup.locator('#matches time').first().getAttribute('title')).toMatch(want.firstSeenOn);

    const worker = await ext.getWorker();
    const tabId = await tabIdOf(worker, copy);
    expect(await pollFor(() => badgeTitle(worker, tabId), want.badgeTitle)).toBe(want.badgeTitle);

    const signIn = await ext.ctx.newPage();
    await visit(signIn, almanac.url('/account/sign-in.html'));
    await waitForPopupState(popup, almanac.url('/account/sign-in.html'), 'not-article');
    expect(await popup.textContent('#status-detail')).toMatch(want.notArticle);

    const history = await ext.ctx.newPage();
    await history.goto(`chrome-extension://${ext.extensionId}/history.html`);
    expect(await history.textContent('h1')).toBe(want.historyHeading);
    await history.locator('#list[data-state="ready"]').waitFor();
    await expect.poll(() => history.textContent('#overview')).toMatch(want.overview);
    for (const page of [popup, first, copy, signIn, history]) await page.close();
  });
});
