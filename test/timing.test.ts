import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_MEASURES, measureHandling, measureName, measureStage } from '../lib/background/timing';

afterEach(() => {
  vi.restoreAllMocks();
  performance.clearMeasures();
});

describe('measureName', () => {
  it.each([
    ['report/get', 'doppel:report/get'],
    ['page/extracted', 'doppel:page/extracted'],
    ['report/get ', 'doppel:invalid'],
    ['<img src=x>', 'doppel:invalid'],
    [undefined, 'doppel:invalid'],
    [42, 'doppel:invalid'],
    ['toString', 'doppel:invalid'],
  ])('%j → %s', (type, name) => expect(measureName(type)).toBe(name));
});

describe('measureHandling', () => {
  it('records a measure from the start to now, named for the type', async () => {
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    measureHandling('report/get', start);
    const [entry, ...rest] = performance.getEntriesByName('doppel:report/get');
    expect(rest).toEqual([]);
    expect(entry!.startTime).toBe(start);
    expect(entry!.duration).toBeGreaterThanOrEqual(15);
    expect(entry!.duration).toBeLessThan(5000);
  });

  it('keeps at most MAX_MEASURES measures, clearing them all when full', () => {
    for (let i = 0; i < MAX_MEASURES; i++) measureHandling('settings/get', performance.now());
    expect(performance.getEntriesByType('measure')).toHaveLength(MAX_MEASURES);
    measureHandling('report/get', performance.now());
    expect(performance.getEntriesByType('measure').map((e) => e.name)).toEqual(['doppel:report/get']);
  });

  it('counts the timeline about once per MAX_MEASURES messages, and it never holds more than MAX_MEASURES', () => {
    const count = vi.spyOn(performance, 'getEntriesByType');
    let countsInside = 0;
    let most = 0;
    for (let i = 0; i < 3 * MAX_MEASURES; i++) {
      const before = count.mock.calls.length;
      measureHandling('page/html', performance.now());
      countsInside += count.mock.calls.length - before;
      most = Math.max(most, performance.getEntriesByType('measure').length);
    }
    expect(countsInside).toBeGreaterThanOrEqual(3);
    expect(countsInside).toBeLessThanOrEqual(4);
    expect(most).toBe(MAX_MEASURES);
  });

  it('a timeline someone else cleared fills up to MAX_MEASURES again before it is cleared', () => {
    for (let i = 0; i < 500; i++) measureHandling('report/get', performance.now());
    performance.clearMeasures(); // as bench:browser does before its queries
    for (let i = 0; i < MAX_MEASURES; i++) measureHandling('report/get', performance.now());
    expect(performance.getEntriesByName('doppel:report/get')).toHaveLength(MAX_MEASURES);
  });

  it('never throws where the browser refuses the measure', () => {
    const measure = vi.spyOn(performance, 'measure').mockImplementation(() => {
      throw new TypeError('measure options are not supported');
    });
    expect(() => measureHandling('report/get', performance.now())).not.toThrow();
    expect(measure).toHaveBeenCalledOnce();
  });
});

describe('measureStage', () => {
  it('records a stage of a page from the start to now, named for the stage', () => {
    const start = performance.now();
    measureStage('store', start);
    measureStage('read', start);
    expect(performance.getEntriesByType('measure').map((e) => [e.name, e.startTime])).toEqual([['doppel:stage/store', start], ['doppel:stage/read', start]]);
  });
});
