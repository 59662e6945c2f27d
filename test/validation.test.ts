// lib/protocol/validation.ts: the checks every message validator shares, each refusal with its reason.
import { describe, expect, it } from 'vitest';
import { InvalidMessage, LIMITS, object, site, string } from '../lib/protocol/validation';

describe('object', () => {
  it('accepts an object', () => {
    expect(object({ a: 1 }, 'the payload')).toEqual({ a: 1 });
  });
  it.each<[string, unknown]>([
    ['null', null],
    ['a list', []],
    ['a string', 'x'],
    ['nothing', undefined],
  ])('refuses %s, naming what it is', (_, value) => {
    expect(() => object(value, 'the payload')).toThrow(new InvalidMessage('the payload must be an object'));
  });
});

describe('string', () => {
  it.each<[unknown, number, string | null]>([
    ['abc', 3, null],
    ['', 0, null],
    ['abcd', 3, 'title is too long: 4 characters (at most 3)'],
    [7, 3, 'title must be a string'],
    [undefined, 3, 'title must be a string'],
  ])('%j with at most %i characters', (value, max, refusal) => {
    const check = () => string({ title: value }, 'title', max);
    if (refusal === null) expect(check()).toBe(value);
    else expect(check).toThrow(new InvalidMessage(refusal));
  });
});

describe('site', () => {
  it.each(['example.com', 'news.example:8080', '127.0.0.1:3000', '[::1]:80'])('accepts %s', (host) => {
    expect(site({ site: host }, 'site')).toBe(host);
  });
  it.each(['https://example.com/', 'Example.com', 'a b.example', 'x'.repeat(LIMITS.siteChars + 1)])('refuses %s', (host) => {
    expect(() => site({ site: host }, 'site')).toThrow(InvalidMessage);
  });
});
