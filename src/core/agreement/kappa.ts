/**
 * Chance-corrected agreement on categories. Undefined values (no items, or chance agreement
 * of 1 — every rating in one class) are `null`, never a made-up 0 or 1.
 */

/**
 * Cohen's κ of two raters over the same items: (pₒ − pₑ) / (1 − pₑ), pₒ the share of items
 * both put in the same class, pₑ = Σₖ (share of A in k)·(share of B in k).
 */
export function cohenKappa(pairs: readonly (readonly [string, string])[]): number | null {
  const n = pairs.length;
  if (n === 0) return null;
  const a = new Map<string, number>();
  const b = new Map<string, number>();
  let agree = 0;
  for (const [x, y] of pairs) {
    if (x === y) agree++;
    a.set(x, (a.get(x) ?? 0) + 1);
    b.set(y, (b.get(y) ?? 0) + 1);
  }
  const po = agree / n;
  let pe = 0;
  for (const [k, ca] of a) pe += (ca / n) * ((b.get(k) ?? 0) / n);
  return pe >= 1 ? null : (po - pe) / (1 - pe);
}

/**
 * Fleiss' κ over items each rated by two or more raters (items with fewer are left out).
 * Pᵢ = (Σⱼ nᵢⱼ² − nᵢ) / (nᵢ(nᵢ − 1)), P̄ their mean, pⱼ = Σᵢ nᵢⱼ / Σᵢ nᵢ, P̄ₑ = Σⱼ pⱼ²,
 * κ = (P̄ − P̄ₑ) / (1 − P̄ₑ). With the same number of raters per item this is Fleiss (1971);
 * with varying numbers it is the usual extension (each item's Pᵢ over its own raters).
 */
export function fleissKappa(items: readonly (readonly string[])[]): number | null {
  const rated = items.filter((r) => r.length >= 2);
  if (rated.length === 0) return null;
  const totals = new Map<string, number>();
  let ratings = 0;
  let sumP = 0;
  for (const r of rated) {
    const counts = new Map<string, number>();
    for (const c of r) counts.set(c, (counts.get(c) ?? 0) + 1);
    let sq = 0;
    for (const [c, k] of counts) {
      sq += k * k;
      totals.set(c, (totals.get(c) ?? 0) + k);
    }
    sumP += (sq - r.length) / (r.length * (r.length - 1));
    ratings += r.length;
  }
  const pBar = sumP / rated.length;
  let pe = 0;
  for (const k of totals.values()) pe += (k / ratings) ** 2;
  return pe >= 1 ? null : (pBar - pe) / (1 - pe);
}
