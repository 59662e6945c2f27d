// Doppel sends nothing anywhere: in Chromium, every context of the extension (its service worker,
// the reader document that parses the pages' HTML, the popup, the history page) is watched over CDP while pages are visited, the popup opened and
// the history exported, and none of them may ask for anything but the extension's own files
// (chrome-extension://ID/…) and the export's blob:/data: URLs. Requests the CSP blocks never reach
// the network domain, so attempts are caught too: as CSP issues (Audits.issueAdded, blockedURL),
// and any CSP violation at all fails the test (it would also mean the CSP breaks a page). The tabs
// of the visited sites may only load from their own site, and nothing there may be started by the
// extension's content script. Also: the built manifest's CSP has no 'unsafe-inline'/'unsafe-eval'.
//
// The worker is not a page, so Playwright cannot open a CDP session on it: a session on a page
// attaches to the worker's target (Target.attachToTarget, not flattened) and talks to it through
// Target.sendMessageToTarget / Target.receivedMessageFromTarget.
import type { CDPSession, Page } from 'playwright-core';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXTENSION_DIR, type ExtensionSession, type Session, type Site, sleep, startSession, stopServiceWorker, visit, waitForPopupState } from './harness';

const FIREFOX_DIR = '.output/firefox-mv2';

interface Seen {
  /** worker, popup, history, or a site tab */
  context: string;
  url: string;
  /** request: sent to the network stack; blocked: refused by the CSP (an attempt all the same) */
  kind: 'request' | 'blocked' | 'csp-violation';
  /** The script that started it, when CDP says (first frame of the initiator's stack). */
  initiator?: string;
}

interface RequestWillBeSent {
  request: { url: string };
  initiator?: { url?: string; stack?: { callFrames: { url: string }[] } };
}
interface IssueAdded {
  issue: { code: string; details: { contentSecurityPolicyIssueDetails?: { blockedURL?: string; violatedDirective: string } } };
}
interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

let session: Session<'original' | 'republisher'>;
let original: Site;
let republisher: Site;
let ext: ExtensionSession;
const seen: Seen[] = [];
const sessions: CDPSession[] = [];

const firstScript = (e: RequestWillBeSent): string | undefined =>
  e.initiator?.stack?.callFrames.find((f) => f.url)?.url ?? e.initiator?.url;

function record(context: string, method: string, params: unknown): void {
  if (method === 'Network.requestWillBeSent') {
    const e = params as RequestWillBeSent;
    seen.push({ context, url: e.request.url, kind: 'request', initiator: firstScript(e) });
  } else if (method === 'Audits.issueAdded') {
    const { issue } = params as IssueAdded;
    const csp = issue.details.contentSecurityPolicyIssueDetails;
    if (issue.code === 'ContentSecurityPolicyIssue' && csp) {
      seen.push({ context, url: csp.blockedURL ?? `(${csp.violatedDirective})`, kind: csp.blockedURL ? 'blocked' : 'csp-violation' });
    }
  }
}

/** Watches a page (before it navigates): its requests and CSP issues. */
async function watchPage(page: Page, context: string): Promise<void> {
  const session = await ext.ctx.newCDPSession(page);
  sessions.push(session);
  session.on('Network.requestWillBeSent', (e) => record(context, 'Network.requestWillBeSent', e));
  session.on('Audits.issueAdded', (e) => record(context, 'Audits.issueAdded', e));
  await session.send('Network.enable');
  await session.send('Audits.enable');
}

/**
 * Watches the extension's service worker and its reader document (Chromium's offscreen document,
 * where Readability reads the pages' HTML) from `control` (a page kept open): attaches to their
 * targets now and to any later one (a restarted worker, a reopened reader is a new target).
 */
async function watchWorker(control: Page): Promise<void> {
  const session = await ext.ctx.newCDPSession(control);
  sessions.push(session);
  const prefix = `chrome-extension://${ext.extensionId}/`;
  const contexts = new Map<string, string>(); // sessionId → context
  const attached = new Set<string>();
  let id = 0;
  const contextOf = (t: TargetInfo): string | null => {
    if (!t.url.startsWith(prefix)) return null;
    if (t.type === 'service_worker') return 'worker';
    return t.url === `${prefix}reader.html` ? 'reader' : null;
  };
  const attach = async (t: TargetInfo): Promise<void> => {
    const context = contextOf(t);
    if (context === null || attached.has(t.targetId)) return;
    attached.add(t.targetId);
    readerWatched ||= context === 'reader';
    const { sessionId } = await session.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
    contexts.set(sessionId, context);
    for (const method of ['Network.enable', 'Audits.enable']) {
      await session.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: ++id, method }) });
    }
  };
  session.on('Target.receivedMessageFromTarget', ({ sessionId, message }) => {
    const { method, params } = JSON.parse(message) as { method?: string; params?: unknown };
    if (method) record(contexts.get(sessionId) ?? 'worker', method, params);
  });
  session.on('Target.targetCreated', ({ targetInfo }) => void attach(targetInfo).catch(() => {}));
  // A document's target may be created before its URL is known.
  session.on('Target.targetInfoChanged', ({ targetInfo }) => void attach(targetInfo).catch(() => {}));
  await session.send('Target.setDiscoverTargets', { discover: true });
  const { targetInfos } = await session.send('Target.getTargets');
  for (const t of targetInfos) await attach(t);
  expect(attached.size, "the extension's service worker target").toBeGreaterThan(0);
}

/** Whether the reader document was seen and watched. */
let readerWatched = false;

const url = {
  original: () => original.url('/news/2024/ferry-returns.html'),
  verbatim: () => republisher.url('/stories/ferry-service-back.html'),
  unrelated: () => original.url('/culture/repair-cafe.html'),
};

beforeAll(async () => {
  session = await startSession({ original: 'original', republisher: 'republisher' });
  ({ original, republisher } = session.sites);
  ext = session.ext!;
});

afterAll(async () => {
  for (const s of sessions) await s.detach().catch(() => {});
  await session?.close();
});

describe('Doppel sends nothing anywhere', () => {
  test("the built manifests' CSP allows no inline code and no eval", () => {
    const csps: string[] = [];
    const chrome = JSON.parse(readFileSync(join(EXTENSION_DIR, 'manifest.json'), 'utf8'));
    csps.push(chrome.content_security_policy?.extension_pages);
    // The Firefox build, when there is one (`npm test` builds it after the Chromium tests).
    if (existsSync(join(FIREFOX_DIR, 'manifest.json'))) {
      csps.push(JSON.parse(readFileSync(join(FIREFOX_DIR, 'manifest.json'), 'utf8')).content_security_policy);
    }
    for (const csp of csps) {
      expect(typeof csp).toBe('string');
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes|\*/);
      expect(csp).toMatch(/(^|;)\s*script-src 'self'\s*(;|$)/);
      expect(csp).toMatch(/(^|;)\s*connect-src 'none'\s*(;|$)/);
    }
  });

  test("the built manifests override no browser page (the history page must not replace the browser's history)", () => {
    const dirs = [EXTENSION_DIR, ...(existsSync(join(FIREFOX_DIR, 'manifest.json')) ? [FIREFOX_DIR] : [])];
    for (const dir of dirs) {
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
      expect(manifest).not.toHaveProperty('chrome_url_overrides');
      expect(manifest).not.toHaveProperty('chrome_settings_overrides');
      expect(existsSync(join(dir, 'history.html'))).toBe(true);
    }
  });

  test('no context of the extension requests anything but its own files, through visits, popup and export', async () => {
    // Playwright's own view too (it holds a starting worker until it watches it): every request
    // of the worker and of extension pages, from now on.
    const own = `chrome-extension://${ext.extensionId}/`;
    ext.ctx.on('request', (request) => {
      let by = request.serviceWorker()?.url();
      if (by === undefined) by = (() => { try { return request.frame().url(); } catch { return ''; } })();
      if (by.startsWith(own)) seen.push({ context: request.serviceWorker() ? 'worker' : 'extension page', url: request.url(), kind: 'request' });
    });
    const control = await ext.ctx.newPage();
    await watchWorker(control);
    // Restart the worker while it is watched, so what it does on startup is seen as well
    // (Audits.enable also replays the issues a target had before it was attached).
    await stopServiceWorker(ext.ctx, ext.extensionId);
    // A probe that proves the worker is watched: it fetches one of its own files (allowed).
    const worker = await ext.getWorker();
    const probe = await worker.evaluate(async () => {
      const { chrome } = globalThis as unknown as { chrome: { runtime: { getURL(path: string): string } } };
      return (await fetch(chrome.runtime.getURL('manifest.json'))).status;
    });
    expect(probe).toBe(200);

    const popup = await ext.ctx.newPage();
    await watchPage(popup, 'popup');
    for (const [site, address] of [
      [original, url.original()],
      [republisher, url.verbatim()],
      [original, url.unrelated()],
    ] as const) {
      const tab = await ext.ctx.newPage();
      await watchPage(tab, `tab ${site.origin}`);
      await visit(tab, address);
      await waitForPopupState(popup, address, 'ready');
      await tab.close();
    }
    expect(await waitForPopupState(popup, url.verbatim(), 'ready')).toEqual([url.original()]);

    const history = await ext.ctx.newPage();
    await watchPage(history, 'history');
    await history.goto(`chrome-extension://${ext.extensionId}/history.html`, { waitUntil: 'load' });
    const [download] = await Promise.all([history.waitForEvent('download'), history.locator('#export').click()]);
    expect(download.suggestedFilename()).toMatch(/\.ndjson$/);
    await expect.poll(() => history.locator('#export-status').textContent()).toBe('Exported 3 pages.');
    await sleep(500); // late events

    const extensionContexts = ['worker', 'reader', 'popup', 'history', 'extension page'];
    expect(readerWatched, 'the reader document, where the pages were read, was watched').toBe(true);
    // Sanity: the watching works (the probe, the pages' own files, the sites' pages were seen).
    expect(seen).toContainEqual(expect.objectContaining({ context: 'worker', url: `${own}manifest.json`, kind: 'request' }));
    expect(seen.some((s) => s.context === 'popup' && s.url.startsWith(`${own}chunks/`))).toBe(true);
    expect(seen.some((s) => s.context === 'history' && s.url.startsWith(`${own}assets/`))).toBe(true);
    expect(seen.some((s) => s.url === url.verbatim())).toBe(true);

    const offending = seen.filter((s) => {
      if (s.kind !== 'request') return true; // a CSP-blocked attempt or any other violation
      if (extensionContexts.includes(s.context)) return !(s.url.startsWith(own) || /^(blob|data):/.test(s.url));
      // a site's tab: only its own site, and nothing the extension's content script started
      return !s.url.startsWith(`${s.context.slice('tab '.length)}/`) || (s.initiator ?? '').startsWith('chrome-extension://');
    });
    expect(offending).toEqual([]);
    expect(ext.pageErrors).toEqual([]);
  });
});
