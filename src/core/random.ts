/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same sequence on
 * every platform, so samples, shuffles and synthetic data are reproducible. Not for secrets.
 */

/** Numbers in [0, 1) from `seed` (taken as an unsigned 32-bit integer). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A copy of `xs` in random order drawn from `rand` (Fisher–Yates). */
export function shuffledWith<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
