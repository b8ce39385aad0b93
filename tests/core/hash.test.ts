/**
 * core/hash: the one string hashing module. The ids and vectors made from it must not change,
 * so its results are checked against the algorithms as they were written before (FNV-1a's
 * published constants, the two-lane id hash of the OTel importer), written out here again.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ContentHasher, fnv1a, hash16, hash53, sha256Hex } from '../../src/core/hash/index.ts';

/** FNV-1a 32 as published (offset basis 2166136261, prime 16777619), with an optional basis. */
function fnvReference(s: string, basis = 2166136261): number {
  let h = basis;
  for (const c of Array.from({ length: s.length }, (_, i) => s.charCodeAt(i)))
    h = Number((BigInt(h ^ c) * 16777619n) & 0xffffffffn) >>> 0;
  return h >>> 0;
}

/** The OTel importer's id hash as it was (text-map.ts before core/hash). */
function hash16Before(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return hex(h1) + hex(h2);
}

const TEXTS = ['', 'a', 'op-1', 'Caroline went to the LGBTQ support group', 'ünïcödé ✓ 𝄞', 'x'.repeat(5000)];

describe('core/hash', () => {
  it('fnv1a is FNV-1a 32, also from another basis (span and trace ids) and over a slice (n-grams)', () => {
    for (const t of TEXTS) {
      expect(fnv1a(t)).toBe(fnvReference(t));
      expect(fnv1a(t, 0, t.length, 0x9747b28c)).toBe(fnvReference(t, 0x9747b28c));
      if (t.length > 3) expect(fnv1a(t, 1, 3)).toBe(fnvReference(t.slice(1, 3)));
    }
  });

  it('hash16 gives the ids it gave before', () => {
    for (const t of TEXTS) expect(hash16(t)).toBe(hash16Before(t));
  });

  it('hash53: equal texts equal numbers, different texts different numbers, all exact in a double', () => {
    const seen = new Map<number, string>();
    for (let i = 0; i < 20000; i++) {
      const t = `value ${i} ${i % 7 ? 'memory' : 'message'}`;
      const h = hash53(t);
      expect(Number.isSafeInteger(h)).toBe(true);
      expect(seen.get(h) ?? t).toBe(t);
      seen.set(h, t);
      expect(hash53(`${t}`)).toBe(h);
    }
  });

  it('ContentHasher is length-delimited and order-sensitive', () => {
    const d = (...xs: string[]) => xs.reduce((h, x) => h.update(x), new ContentHasher()).digest();
    expect(d('ab', 'c')).not.toBe(d('a', 'bc'));
    expect(d('a', 'b')).not.toBe(d('b', 'a'));
    expect(d('a', 'b')).toBe(d('a', 'b'));
    expect(d('a', 'b')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('sha256Hex equals node:crypto', () => {
    for (const t of TEXTS) expect(sha256Hex(t)).toBe(createHash('sha256').update(t, 'utf8').digest('hex'));
  });
});
