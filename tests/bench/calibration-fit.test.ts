/**
 * Fitting the calibration table and scoring out of fold: expectations worked out by hand from the
 * verdicts written here.
 */
import { describe, expect, it } from 'vitest';
import { halvings, levelsOf, outOfFold, tableOf } from '../../bench/calibration-fit.ts';
import { calibrationKeys } from '../../src/core/attribution/index.ts';

const v = (fold: string, right: boolean) => ({ fold, right, keys: ['prior', 'store-states|prior'] });

describe('calibration fitting', () => {
  it('counts every level of every verdict', () => {
    const t = tableOf([v('a', true), v('a', false), { fold: 'b', right: true, keys: ['judge'] }]);
    expect(t).toEqual({
      prior: { n: 2, right: 1 },
      'store-states|prior': { n: 2, right: 1 },
      judge: { n: 1, right: 1 },
    });
  });

  it('scores each verdict with the table of the other folds, an unseen fold with the whole table', () => {
    // Fold a: two right; fold b: two wrong. A verdict of a sees only b (0 of 2), of b only a (2 of 2).
    const fit = [v('a', true), v('a', true), v('b', false), v('b', false)];
    const rate = (t: Record<string, { n: number; right: number }>) => t.prior.right / t.prior.n;
    const got = outOfFold([fit[0], fit[2], v('c', true)], fit, (x) => x.fold, rate);
    expect(got).toEqual([0, 1, 0.5]);
  });

  it('halves a set the same way for the same seed, a different way each time', () => {
    const hs = halvings(9, 20, 31);
    for (const h of hs) expect(h.filter(Boolean)).toHaveLength(5);
    expect(halvings(9, 20, 31)).toEqual(hs);
    expect(new Set(hs.map((h) => h.join())).size).toBeGreaterThan(1);
  });

  it('reads a key back into the levels the attributor gives a verdict', () => {
    const keys = calibrationKeys(['learned-judge', 'flow:RetrievalError'], 'fitted', 0.95);
    expect(keys).toHaveLength(3);
    expect(levelsOf(keys[2])).toEqual(keys);
    expect(levelsOf(keys[1])).toEqual(keys.slice(0, 2));
    expect(levelsOf('prior')).toEqual(['prior']);
  });
});
