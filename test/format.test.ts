import { describe, expect, it } from 'vitest';
import { absoluteDay, absoluteTime, bitSimilarity, relativeTime, shownPercent } from '../lib/ui/format';

describe('format', () => {
  it('bitSimilarity is the share of equal bits', () => {
    expect([0, 2, 32, 64].map(bitSimilarity)).toEqual([100, 97, 50, 0]);
  });

  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  it.each([
    [now - 5_000, 'now'],
    [now - 5 * 60_000, '5 minutes ago'],
    [now - 3600_000, '1 hour ago'],
    [now - 24 * 3600_000, 'yesterday'],
    [now - 3 * 24 * 3600_000, '3 days ago'],
    [now - 15 * 24 * 3600_000, '2 weeks ago'],
    [now - 400 * 24 * 3600_000, 'last year'],
  ])('relativeTime(%i)', (then, expected) => {
    expect(relativeTime(then, now)).toBe(expected);
  });

  it('absoluteTime: medium date, short time, the same with the formatter kept', () => {
    const at = Date.UTC(2026, 10, 22, 15, 4);
    const want = new Date(at).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
    expect(want).toMatch(/Nov 22, 2026/);
    expect(absoluteTime(at)).toBe(want);
    expect(absoluteTime(at)).toBe(want);
    expect(absoluteTime(at, 'de')).toBe(new Date(at).toLocaleString('de', { dateStyle: 'medium', timeStyle: 'short' }));
    expect(relativeTime(at - 2 * 3600_000, at, 'de')).toBe('vor 2 Stunden');
  });

  it('absoluteDay: the medium date alone', () => {
    const at = Date.UTC(2026, 10, 22, 15, 4);
    expect(absoluteDay(at)).toBe(new Date(at).toLocaleDateString('en', { dateStyle: 'medium' }));
    expect(absoluteDay(at, 'es')).toBe(new Date(at).toLocaleDateString('es', { dateStyle: 'medium' }));
  });

  it.each([
    [0, 0],
    [1, 100],
    [0.999, 99], // 100% only when it is all
    [0.627, 62],
    [0.29, 29], // 28.999999999999996 in binary
    [0.57, 57],
    [0.01, 1],
    [0.0099, 0.9],
    [0.0042, 0.4],
    [0.0003, 0.03],
    [0.00001, 0.001],
    [-0.1, 0],
    [1.2, 100],
  ])('shownPercent(%f) = %f', (fraction, percent) => {
    expect(shownPercent(fraction)).toBeCloseTo(percent, 12);
  });
});
