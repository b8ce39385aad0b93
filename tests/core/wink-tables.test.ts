/**
 * The app's build rewrites wink-lexicon's WordNet tables as JSON (src/core/nlp/wink-tables.node.ts):
 * each rewritten module must rebuild exactly the value the package's own module exports, as
 * Node loads it — same keys and values, same prototype, shared sense lists still shared.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tableModule, WINK_TABLES } from '../../src/core/nlp/wink-tables.node.ts';

const require = createRequire(import.meta.url);
const dir = dirname(require.resolve('wink-lexicon/src/wn-words.js'));
const tables = readdirSync(dir)
  .map((f) => join(dir, f))
  .filter((f) => WINK_TABLES.test(f));

/** Runs a CommonJS module's source and returns its exports. */
function run(source: string): unknown {
  const module = { exports: {} as unknown };
  new Function('module', source)(module);
  return module.exports;
}

describe('wink-lexicon tables rewritten as JSON', () => {
  it('covers the five tables wink-lemmatizer requires', () => {
    const lemmatizer = require('node:fs').readFileSync(require.resolve('wink-lemmatizer'), 'utf8') as string;
    const required = [...lemmatizer.matchAll(/require\(\s*'wink-lexicon\/src\/([\w-]+\.js)'\s*\)/g)].map(
      (m) => m[1],
    );
    expect(required.sort()).toEqual(tables.map((f) => f.slice(dir.length + 1)).sort());
  });

  it('writes the word → position table (wn-words) as a plain word list, in about half the bytes of its JSON', () => {
    const words = require(join(dir, 'wn-words.js')) as Record<string, number>;
    const source = tableModule(words)!;
    expect(source).not.toContain('JSON.parse');
    expect(source.length).toBeLessThan(0.6 * JSON.stringify(JSON.stringify(words)).length);
    expect(run(tableModule({ a: 0, b: 2 })!)).toStrictEqual({ a: 0, b: 2 }); // not positions: JSON
  });

  it.each(tables.map((f) => [f.slice(dir.length + 1), f]))(
    '%s: the same value as the original module',
    (_name, file) => {
      const original = require(file) as Record<string, unknown> | unknown[];
      const source = tableModule(original);
      expect(source).not.toBeNull();
      const rebuilt = run(source!) as typeof original;
      expect(Object.getPrototypeOf(rebuilt)).toBe(Object.getPrototypeOf(original));
      expect(Object.keys(rebuilt)).toEqual(Object.keys(original));
      expect(rebuilt).toStrictEqual(original);
      if (Array.isArray(original)) {
        // A list shared by several words in the original is one list in the rebuilt value too.
        const ids = (xs: unknown[]) => {
          const seen = new Map<unknown, number>();
          return xs.map((x) => {
            if (!seen.has(x)) seen.set(x, seen.size);
            return seen.get(x);
          });
        };
        expect(ids(rebuilt as unknown[])).toEqual(ids(original));
      } else {
        // Prototype-less: a word such as "constructor" is not found on Object.prototype.
        expect((rebuilt as Record<string, unknown>).constructor).toBe(original.constructor);
      }
    },
  );
});
