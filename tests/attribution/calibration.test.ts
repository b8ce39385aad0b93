/**
 * Calibrated confidence (calibration.ts): a verdict's keys, coarse to fine, and its rate read
 * from a table with each level shrunk toward the one above. Expectations are worked out here by
 * hand from small tables, never from the code's output.
 */
import { describe, expect, it } from 'vitest';
import {
  calibrationKey,
  calibrationKeys,
  confidenceFrom,
  PRIOR_WEIGHT,
  SCORE_BANDS,
  UNCERTAIN_BELOW,
} from '../../src/core/attribution/index.ts';

describe('calibration', () => {
  it('keys a verdict by source, decider and (evidence-flow) score band', () => {
    const flow = ['learned-judge', 'flow:RetrievalError'];
    expect(calibrationKeys(flow, 'fitted', 0.95)).toEqual([
      'judge',
      'flow:RetrievalError|judge',
      `flow:RetrievalError|judge|b${SCORE_BANDS.length}`,
    ]);
    expect(calibrationKeys(flow, 'pooled', 0)).toEqual([
      'judge',
      'flow:RetrievalError|judge',
      'flow:RetrievalError|judge|b0',
    ]);
    // A reading rule listed before the verdict does not move its key.
    expect(calibrationKey(['learned-judge', 'whole-memory', 'flow:RetrievalError'], 'fitted')).toBe(
      'flow:RetrievalError|judge',
    );
    // The walk's verdicts have no score: two levels; the last deciding rule names them.
    const walk = ['states-answer', 'topic-anchor', 'never-stored', 'stating-evidence-first'];
    expect(calibrationKeys(walk, 'prior')).toEqual(['prior', 'never-stored+stated|prior']);
    expect(calibrationKey(['states-answer', 'context-states'], 'prior')).toBe('context-states|prior');
  });

  it('shrinks each level toward the one above, by the weight of its verdicts', () => {
    const table = {
      judge: { n: 98, right: 89 },
      'flow:UpdateError|judge': { n: 10, right: 4 },
      'flow:UpdateError|judge|b0': { n: 2, right: 0 },
    };
    // judge: (89 + 2·0.5) / (98 + 2) = 0.9.
    const source = (89 + PRIOR_WEIGHT.source * 0.5) / (98 + PRIOR_WEIGHT.source);
    expect(source).toBeCloseTo(0.9, 10);
    expect(confidenceFrom(table, ['judge'])).toBeCloseTo(0.9, 10);
    const decider = (4 + PRIOR_WEIGHT.decider * source) / (10 + PRIOR_WEIGHT.decider);
    expect(confidenceFrom(table, ['judge', 'flow:UpdateError|judge'])).toBeCloseTo(decider, 10);
    const band = (0 + PRIOR_WEIGHT.band * decider) / (2 + PRIOR_WEIGHT.band);
    const keys = ['judge', 'flow:UpdateError|judge', 'flow:UpdateError|judge|b0'];
    expect(confidenceFrom(table, keys)).toBeCloseTo(band, 10);
    // Two wrong verdicts in a band pull it below its decider's rate, but not to zero.
    expect(band).toBeLessThan(decider);
    expect(band).toBeGreaterThan(0);
  });

  it('a way never seen keeps its parent’s rate; an empty table says one in two', () => {
    const table = { prior: { n: 8, right: 8 } };
    expect(confidenceFrom(table, ['prior', 'memory-lost|prior'])).toBeCloseTo(0.9, 10);
    expect(confidenceFrom({}, ['judge', 'flow:DeletionError|judge', 'flow:DeletionError|judge|b1'])).toBe(
      0.5,
    );
  });

  it('a decider seen mostly wrong stays below the uncertain threshold', () => {
    // 2 of 6 right under a source right 90 % of the time: (2 + 0.9) / 7 ≈ 0.41.
    const table = { prior: { n: 98, right: 89 }, 'memory-lost|prior': { n: 6, right: 2 } };
    const c = confidenceFrom(table, ['prior', 'memory-lost|prior']);
    expect(c).toBeCloseTo((2 + PRIOR_WEIGHT.decider * 0.9) / (6 + PRIOR_WEIGHT.decider), 10);
    expect(c).toBeLessThan(UNCERTAIN_BELOW);
  });
});
