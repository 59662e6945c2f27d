import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PAGE_REPLY_DEADLINE_MS, settleWithin } from '../lib/background/deadline';

describe('settleWithin', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const later = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms));
  const failLater = (ms: number, message: string): Promise<never> => new Promise((_, reject) => setTimeout(() => reject(new Error(message)), ms));

  it('gives the result of work that settles before the deadline, and clears its timer', async () => {
    const late = vi.fn(() => 'late');
    const reply = settleWithin(later(1_000, 'done'), 5_000, late, () => {});
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(reply).resolves.toBe('done');
    expect(vi.getTimerCount()).toBe(0);
    expect(late).not.toHaveBeenCalled();
  });

  it('passes on a rejection that comes before the deadline', async () => {
    const onLateError = vi.fn();
    const reply = settleWithin(failLater(1_000, 'no store'), 5_000, () => 'late', onLateError);
    const caught = reply.catch((error: Error) => error.message);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await caught).toBe('no store');
    expect(onLateError).not.toHaveBeenCalled();
  });

  it('replies late() at the deadline while the work goes on to its end', async () => {
    let finished = false;
    const work = later(10_000, 'recorded').then((value) => {
      finished = true;
      return value;
    });
    const reply = settleWithin(work, 5_000, () => 'later', () => {});
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(reply).resolves.toBe('later');
    expect(finished).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(finished).toBe(true);
    await expect(work).resolves.toBe('recorded');
  });

  it('hands a rejection after the deadline to onLateError instead of leaving it unhandled', async () => {
    const onLateError = vi.fn();
    const reply = settleWithin(failLater(10_000, 'quota'), 5_000, () => 'later', onLateError);
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(reply).resolves.toBe('later');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(onLateError).toHaveBeenCalledTimes(1);
    expect((onLateError.mock.calls[0]![0] as Error).message).toBe('quota');
  });

  it('replies to a page well inside the 5 minutes after which Chrome stops the worker', () => {
    expect(PAGE_REPLY_DEADLINE_MS).toBeLessThan(5 * 60 * 1000);
    expect(PAGE_REPLY_DEADLINE_MS).toBeGreaterThan(60 * 1000);
  });
});
