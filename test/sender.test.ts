// lib/protocol/sender.ts: who sent a message.
import { describe, expect, it } from 'vitest';
import { type SenderInfo, classifySender } from '../lib/protocol/sender';

const ext = { id: 'doppel@test', origin: 'chrome-extension://doppelid/' };
const popup: SenderInfo = { id: ext.id, url: 'chrome-extension://doppelid/popup.html' };
function tab(url: string, { tabId = 1, frameId = 0, incognito = false }: { tabId?: number; frameId?: number; incognito?: boolean } = {}): SenderInfo {
  return { id: ext.id, url, frameId, tab: { id: tabId, incognito } };
}

describe('classifySender', () => {
  it('tells content scripts, Doppel pages and everything else apart', () => {
    expect(classifySender(tab('https://a.example/x', { tabId: 7, incognito: true }), ext)).toEqual({ kind: 'content', tabId: 7, incognito: true, url: 'https://a.example/x' });
    expect(classifySender(tab('http://a.example/'), ext)).toMatchObject({ kind: 'content', incognito: false });
    expect(classifySender(popup, ext)).toEqual({ kind: 'extension-page' });
    expect(classifySender({ ...popup, tab: { id: 3 }, frameId: 0 }, ext)).toEqual({ kind: 'extension-page' }); // the popup opened in a tab
    const foreign = (sender: SenderInfo) => {
      const kind = classifySender(sender, ext);
      expect(kind.kind).toBe('foreign');
      return kind.kind === 'foreign' ? kind.why : '';
    };
    expect(foreign({ ...tab('https://a.example/'), id: 'other-extension' })).toContain('another extension');
    expect(foreign({ url: 'https://a.example/' })).toContain('another extension');
    expect(foreign({ ...popup, id: 'other-extension' })).toContain('another extension');
    expect(foreign(tab('https://a.example/', { frameId: 2 }))).toContain('frame');
    expect(foreign({ id: ext.id, url: 'https://a.example/', tab: { id: 1 } })).toContain('frame'); // no frameId
    expect(foreign({ id: ext.id, url: 'https://a.example/', frameId: 0 })).toContain('neither a tab');
    expect(foreign(tab('file:///home/me/a.html'))).toContain('not an http');
    expect(foreign({ id: ext.id, url: 'chrome-extension://doppelidother/popup.html' })).toContain('neither a tab');
  });
});
