/**
 * Bootstrap intervals and the goals table built on them: expectations from the cases written
 * here (constant data has no spread; a fair coin's mean spreads as the normal law says).
 */
import { describe, expect, it } from 'vitest';
import { type GoalCase, goalTable } from '../../bench/attribution-goals.ts';
import { bootstrapInterval } from '../../bench/bootstrap.ts';

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe('bootstrap intervals', () => {
  it('data without spread gives an interval of one point', () => {
    expect(bootstrapInterval([3, 3, 3, 3], mean)).toEqual([3, 3]);
  });

  it('a fair coin tossed 400 times: the mean’s 95 % interval is about ± 1.96 × 0.025', () => {
    const coin = Array.from({ length: 400 }, (_, i) => i % 2);
    const [lo, hi] = bootstrapInterval(coin, mean);
    expect(lo).toBeCloseTo(0.5 - 1.96 * 0.025, 1);
    expect(hi).toBeCloseTo(0.5 + 1.96 * 0.025, 1);
    expect(hi - lo).toBeGreaterThan(0.07);
    expect(hi - lo).toBeLessThan(0.13);
  });

  it('resampling within strata keeps each stratum’s size', () => {
    const xs = ['a', 'a', 'a', 'b'];
    const shareOfA = (s: string[]) => s.filter((x) => x === 'a').length / s.length;
    expect(bootstrapInterval(xs, shareOfA, { stratumOf: (x) => x })).toEqual([0.75, 0.75]);
    const [lo, hi] = bootstrapInterval(xs, shareOfA);
    expect(hi - lo).toBeGreaterThan(0);
  });
});

const scored = (right: boolean): GoalCase => ({
  system: null,
  label_type: 'ExtractionError',
  label_op: 'op-1',
  predicted_type: right ? 'ExtractionError' : 'RetrievalError',
  predicted_op: right ? 'op-1' : 'op-2',
  input_tokens: 0,
  output_tokens: 0,
  seconds: 0,
  naiveType: 'RetrievalError',
});

describe('the goals table', () => {
  it('says whether the bar is met and whether the cases could tell', () => {
    const allRight = Array.from({ length: 10 }, () => scored(true));
    const eightOfTen = Array.from({ length: 10 }, (_, i) => scored(i < 8));
    const rows = goalTable([
      { data: 'all right', figure: 'ETA', bar: { op: '≥', value: 0.8 }, cases: allRight },
      { data: 'eight of ten', figure: 'ETA', bar: { op: '≥', value: 0.9 }, cases: eightOfTen },
      { data: 'over naive', figure: 'ETA − naive ETA', bar: { op: '≥', value: 0.1 }, cases: eightOfTen },
    ]).slice(2);
    expect(rows[0]).toBe('| all right | 10 | ETA | ≥ 80.0 % | 100.0 % | 100.0 % – 100.0 % | yes |');
    expect(rows[1]).toMatch(
      /^\| eight of ten \| 10 \| ETA \| ≥ 90\.0 % \| 80\.0 % \| .* \| \*\*no\*\* \(the bar is inside the interval\) \|$/,
    );
    // The naive rule is never right here: ETA − naive = ETA.
    expect(rows[2]).toContain('| +80.0 % |');
  });

  it('a calibration figure is the mean over the cross-fittings, of the verdicts only', () => {
    // Two cross-fittings: one right verdict at 0.9 then 0.7, one wrong at 0.1 then 0.3; a case with
    // no verdict is left out. ECE per fitting: (0.1 + 0.1) / 2, then (0.3 + 0.3) / 2 — mean 0.2.
    const cases = [
      { ...scored(true), fitted: [0.9, 0.7] },
      { ...scored(false), fitted: [0.1, 0.3] },
      { ...scored(false), predicted_type: null },
    ];
    const [row] = goalTable([{ data: 'fitted', figure: 'ECE', bar: { op: '≤', value: 0.1 }, cases }]).slice(
      2,
    );
    expect(row).toMatch(/^\| fitted \| 3 \| ECE \| ≤ 0\.100 \| 0\.200 \| .* \| \*\*no\*\*/);
  });

  it('a "design left out" figure reads the confidences of the table fitted without the design', () => {
    // In-design confidences rank the wrong verdict last (most confident half: 100 %); the table
    // that never saw the design ranks it first (0 %), and its ECE is |0.2 - 1| / 2 + |0.8 - 0| / 2.
    const cases = [
      { ...scored(true), fitted: [0.9], designApart: [0.2] },
      { ...scored(false), fitted: [0.1], designApart: [0.8] },
    ];
    const rows = goalTable([
      { data: 'in design', figure: 'most confident half', bar: { op: '≥', value: 0.9 }, cases },
      { data: 'apart', figure: 'most confident half, design left out', bar: { op: '≥', value: 0.9 }, cases },
      { data: 'apart', figure: 'ECE, design left out', bar: { op: '≤', value: 0.1 }, cases },
    ]).slice(2);
    expect(rows[0]).toContain('| most confident half | ≥ 90.0 % | 100.0 % |');
    expect(rows[1]).toContain('| most confident half, design left out | ≥ 90.0 % | 0.0 % |');
    expect(rows[2]).toContain('| ECE, design left out | ≤ 0.100 | 0.800 |');
  });

  it('names the smallest type of a macro figure: one case of a type moves it by whole steps', () => {
    const oneUpdate = { ...scored(false), label_type: 'UpdateError' };
    const [row] = goalTable([
      {
        data: 'mixed',
        figure: 'macro ETA',
        bar: { op: '≥', value: 0.85 },
        cases: [scored(true), scored(true), oneUpdate],
      },
    ]).slice(2);
    // Extraction 2 of 2, Update 0 of 1: the macro is (100 + 0) / 2.
    expect(row).toContain('| macro ETA (smallest type: 1) | ≥ 85.0 % | 50.0 % |');
  });
});
