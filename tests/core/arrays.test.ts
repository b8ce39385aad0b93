/**
 * `appendAll` / `maxOf` / `minOf` do what `push(...)` and `Math.max(...)` do, for lists of any
 * length (a spread of ~130k elements overflows the stack), and no source spreads a list into
 * `push`, `unshift`, `Math.max` or `Math.min` any more.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendAll, maxOf, minOf } from '../../src/core/arrays.ts';

const BIG = 300_000;

describe('array helpers', () => {
  it('agree with push / Math.max / Math.min on small lists, NaN and empty ones included', () => {
    const lists = [[], [3], [1, 5, 2], [-1, -7], [2, Number.NaN, 1], [Number.POSITIVE_INFINITY, 0]];
    for (const xs of lists) {
      expect(maxOf(xs)).toBe(Math.max(...xs));
      expect(minOf(xs)).toBe(Math.min(...xs));
      expect(maxOf(xs, 0)).toBe(Math.max(0, ...xs));
      expect(minOf(xs, 0)).toBe(Math.min(0, ...xs));
      const a = [9];
      const b = [9];
      b.push(...xs);
      expect(appendAll(a, xs)).toBe(a);
      expect(a).toEqual(b);
    }
    expect(maxOf(new Set([4, 8, 1]).values())).toBe(8);
  });

  it(`handle ${BIG} elements, where a spread throws`, () => {
    const big = Array.from({ length: BIG }, (_, i) => (i * 7919) % BIG);
    expect(() => [].push(...(big as never[]))).toThrow(RangeError);
    expect(appendAll([-1], big)).toHaveLength(BIG + 1);
    expect(maxOf(big)).toBe(BIG - 1);
    expect(minOf(big)).toBe(0);
  });
});

/** Every .ts / .svelte file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|svelte)$/.test(name) ? [p] : [];
  });
}

describe('no list spread onto the stack in src/', () => {
  it('push / unshift / Math.max / Math.min take no spread list (use appendAll, maxOf, minOf)', () => {
    // `x.push(...list)`, `Math.max(...list)`, `Math.max(0, ...list)`, across line breaks too.
    const SPREAD = /\.(?:push|unshift)\(\s*\.\.\.|Math\.(?:max|min)\(\s*(?:[\w.]+\s*,\s*)?\.\.\./g;
    const found: string[] = [];
    for (const file of sources('src')) {
      if (file.endsWith(join('core', 'arrays.ts'))) continue; // its comment names the forms
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(SPREAD))
        found.push(`${file}:${text.slice(0, m.index).split('\n').length}: ${m[0].replace(/\s+/g, ' ')}`);
    }
    expect(found).toEqual([]);
  });
});
