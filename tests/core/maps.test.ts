import { describe, expect, it } from 'vitest';
import { getOrSet } from '../../src/core/maps.ts';

describe('getOrSet', () => {
  it('makes a value once and keeps it, null included', () => {
    const map = new Map<number, string | null>();
    let made = 0;
    const make = () => {
      made++;
      return null;
    };
    expect(getOrSet(map, 1, make)).toBeNull();
    expect(getOrSet(map, 1, make)).toBeNull();
    expect(made).toBe(1);
    expect(map.has(1)).toBe(true);
  });
  it('keeps a value that is undefined and does not make it again', () => {
    const map = new Map<string, undefined>();
    let made = 0;
    getOrSet(map, 'a', () => {
      made++;
      return undefined;
    });
    getOrSet(map, 'a', () => {
      made++;
      return undefined;
    });
    expect(made).toBe(1);
  });
  it('works on a WeakMap keyed by objects', () => {
    const map = new WeakMap<object, number[]>();
    const key = {};
    const first = getOrSet(map, key, () => []);
    expect(getOrSet(map, key, () => [1])).toBe(first);
  });
});
