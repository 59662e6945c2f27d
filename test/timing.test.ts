import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_MEASURES, measureHandling, measureName } from '../lib/timing';

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

  it('never throws where the browser refuses the measure', () => {
    const measure = vi.spyOn(performance, 'measure').mockImplementation(() => {
      throw new TypeError('measure options are not supported');
    });
    expect(() => measureHandling('report/get', performance.now())).not.toThrow();
    expect(measure).toHaveBeenCalledOnce();
  });
});
