/**
 * The calibration figures every attribution bench reports: expectations worked out by hand from
 * the verdicts written here.
 */
import { describe, expect, it } from 'vitest';
import { calibrationStats, topHalfAccuracy } from '../../bench/stats-util.ts';

const v = (right: boolean, confidence: number) => ({ right, confidence });

describe('calibration statistics', () => {
  it('the most confident half counts a group of ties straddling it by the group’s own accuracy', () => {
    // Half of 6 is 3: the 0.9 verdict, then 2 of the four tied at 0.8 (2 of them right: half).
    const rows = [v(true, 0.9), v(false, 0.8), v(false, 0.8), v(true, 0.8), v(true, 0.8), v(false, 0.1)];
    expect(topHalfAccuracy(rows)).toBeCloseTo((1 + 2 * 0.5) / 3, 10);
    // The order the tied verdicts come in does not matter (taken in order: 1/3 or 3/3).
    expect(topHalfAccuracy([...rows].reverse())).toBeCloseTo((1 + 2 * 0.5) / 3, 10);
  });

  it('ECE weighs each bin’s gap between accuracy and mean confidence by its share of verdicts', () => {
    // Bin 9: two verdicts at 0.95, one right (gap 0.45); bin 2: two at 0.25, none right (gap 0.25).
    const c = calibrationStats([v(true, 0.95), v(false, 0.95), v(false, 0.25), v(false, 0.25)], 0.5);
    expect(c.ece).toBeCloseTo(0.5 * 0.45 + 0.5 * 0.25, 10);
    expect(c.unsure).toBe(2);
    expect(c.unsureRight).toBe(0);
  });
});
