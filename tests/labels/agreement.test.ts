/**
 * Agreement numbers against values worked out by hand (the arithmetic is in the comments),
 * a published Fleiss example, and the degenerate cases: one annotator, no overlap, one class.
 */
import { describe, expect, it } from 'vitest';
import { agreement, cohenKappa, fleissKappa, pairAgreement } from '../../src/core/agreement/index.ts';
import type { LabelRecord } from '../../src/core/labels/index.ts';
import { seededRandom } from '../../src/core/random.ts';

const G = 'graph-1';
function label(
  annotator: string,
  q: number,
  errorType: string,
  opId: string | null = 'op-1',
  createdAt = '',
): LabelRecord {
  return {
    graphId: G,
    queryId: `query:q${q}@1`,
    errorType,
    opId,
    reason: `${annotator} on q${q}`,
    source: 'person',
    annotator,
    createdAt,
    origin: 'imported',
  };
}

describe('cohenKappa', () => {
  it('is 0.4 on the textbook 2×2 table (20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no)', () => {
    // pₒ = 35/50 = 0.7; A says yes 25/50, B 30/50; pₑ = 0.5·0.6 + 0.5·0.4 = 0.5; κ = 0.2/0.5
    const pairs: [string, string][] = [
      ...Array(20).fill(['yes', 'yes']),
      ...Array(5).fill(['yes', 'no']),
      ...Array(10).fill(['no', 'yes']),
      ...Array(15).fill(['no', 'no']),
    ];
    expect(cohenKappa(pairs)).toBeCloseTo(0.4, 12);
  });
  it('is undefined (null) with no items and when both raters use one class only', () => {
    expect(cohenKappa([])).toBeNull();
    expect(
      cohenKappa([
        ['a', 'a'],
        ['a', 'a'],
      ]),
    ).toBeNull();
  });
  it('is 1 for perfect agreement over two classes and negative for systematic disagreement', () => {
    expect(
      cohenKappa([
        ['a', 'a'],
        ['b', 'b'],
      ]),
    ).toBe(1);
    // pₒ = 0, pₑ = 0.5·0.5 + 0.5·0.5 = 0.5 → κ = −1
    expect(
      cohenKappa([
        ['a', 'b'],
        ['b', 'a'],
      ]),
    ).toBe(-1);
  });
});

describe('fleissKappa', () => {
  it('is 1/2 on a hand-worked 3-rater, 4-item table', () => {
    // Pᵢ: 1, (1+4−3)/6 = 1/3, 1/3, 1 → P̄ = 2/3; each class 4/12 → P̄ₑ = 1/3; κ = (1/3)/(2/3)
    const items = [
      ['E', 'E', 'E'],
      ['E', 'R', 'R'],
      ['R', 'R', 'S'],
      ['S', 'S', 'S'],
    ];
    expect(fleissKappa(items)).toBeCloseTo(0.5, 12);
  });
  it("is 0.210 on Fleiss' published example (10 items, 14 raters, 5 classes)", () => {
    const table = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    const items = table.map((row) => row.flatMap((k, j) => Array<string>(k).fill(`c${j}`)));
    expect(fleissKappa(items)).toBeCloseTo(0.21, 2);
  });
  it('leaves out items rated once and is null when nothing is rated twice or all is one class', () => {
    expect(fleissKappa([['a']])).toBeNull();
    expect(
      fleissKappa([
        ['a', 'a'],
        ['a', 'a', 'a'],
      ]),
    ).toBeNull();
    expect(
      fleissKappa([['E', 'E', 'E'], ['E', 'R', 'R'], ['R', 'R', 'S'], ['S', 'S', 'S'], ['X']]),
    ).toBeCloseTo(0.5, 12);
  });
});

describe('agreement(records)', () => {
  // Six cases, two annotators:
  //   q1 E/E same op · q2 E/U · q3 R/R other op · q4 R/R · q5 S/R other op · q6 S/S
  // type: 2 of 6 differ (q2, q5); op: q3 and q5 differ → 2/6.
  // Cohen: pₒ = 4/6; A: E2 R2 S2, B: E1 U1 R3 S1; pₑ = (2·1 + 2·0 + 2·3 + 2·1)/36 = 10/36;
  // κ = (24 − 10)/(36 − 10) = 14/26.
  const two: LabelRecord[] = [
    label('ann', 1, 'ExtractionError', 'op-a'),
    label('bob', 1, 'ExtractionError', 'op-a'),
    label('ann', 2, 'ExtractionError', 'op-a'),
    label('bob', 2, 'UpdateError', 'op-a'),
    label('ann', 3, 'RetrievalError', 'op-r'),
    label('bob', 3, 'RetrievalError', 'op-s'),
    label('ann', 4, 'RetrievalError', 'op-r'),
    label('bob', 4, 'RetrievalError', 'op-r'),
    label('ann', 5, 'ResponseError', 'op-x'),
    label('bob', 5, 'RetrievalError', 'op-r'),
    label('ann', 6, 'ResponseError', 'op-x'),
    label('bob', 6, 'ResponseError', 'op-x'),
  ];

  it('reports per pair n, op and type disagreement, Cohen κ and the confusion matrix', () => {
    const r = agreement(two);
    expect(r.annotators).toEqual(['ann', 'bob']);
    expect(r.shared_cases).toBe(6);
    expect(r.pairs).toHaveLength(1);
    const p = r.pairs[0];
    expect(p).toMatchObject({ a: 'ann', b: 'bob', n: 6 });
    expect(p.type_disagreement).toBeCloseTo(2 / 6, 12);
    expect(p.op_disagreement).toBeCloseTo(2 / 6, 12);
    expect(p.cohen_kappa).toBeCloseTo(14 / 26, 12);
    expect(JSON.parse(JSON.stringify(p.confusion))).toEqual({
      ExtractionError: { ExtractionError: 1, UpdateError: 1 },
      RetrievalError: { RetrievalError: 2 },
      ResponseError: { RetrievalError: 1, ResponseError: 1 },
    });
  });

  it('lists the disputed cases with each annotator label and reason, and disagreement per type', () => {
    const r = agreement(two);
    expect(r.disputed.map((d) => d.query_id)).toEqual(['query:q2@1', 'query:q3@1', 'query:q5@1']);
    const q3 = r.disputed[1];
    expect(q3).toMatchObject({ type_disputed: false, op_disputed: true });
    expect(q3.labels).toEqual([
      expect.objectContaining({
        annotator: 'ann',
        error_type: 'RetrievalError',
        op_id: 'op-r',
        reason: 'ann on q3',
      }),
      expect.objectContaining({
        annotator: 'bob',
        error_type: 'RetrievalError',
        op_id: 'op-s',
        reason: 'bob on q3',
      }),
    ]);
    // RetrievalError appears in q3, q4, q5: type differs in q5, op in q3 and q5
    expect(r.by_error_type.RetrievalError.n).toBe(3);
    expect(r.by_error_type.RetrievalError.type_disagreement).toBeCloseTo(1 / 3, 12);
    expect(r.by_error_type.RetrievalError.op_disagreement).toBeCloseTo(2 / 3, 12);
  });

  it("counts each annotator's newest label of a case, and Fleiss κ over three annotators", () => {
    // The hand-worked Fleiss table as three annotators; ann first said something else on q2.
    const rows = [
      ['ExtractionError', 'ExtractionError', 'ExtractionError'],
      ['ExtractionError', 'RetrievalError', 'RetrievalError'],
      ['RetrievalError', 'RetrievalError', 'ResponseError'],
      ['ResponseError', 'ResponseError', 'ResponseError'],
    ];
    const names = ['ann', 'bob', 'cy'];
    const records = rows.flatMap((row, q) =>
      row.map((t, k) => label(names[k], q + 1, t, 'op', '2026-01-02T00:00:00Z')),
    );
    records.unshift(label('ann', 2, 'DeletionError', 'op', '2026-01-01T00:00:00Z'));
    const r = agreement(records);
    expect(r.fleiss_kappa).toBeCloseTo(0.5, 12);
    expect(r.pairs.map((p) => [p.a, p.b, p.n])).toEqual([
      ['ann', 'bob', 4],
      ['ann', 'cy', 4],
      ['bob', 'cy', 4],
    ]);
    // ann–bob differ only on q2 (E vs R) once the newer label counts
    expect(r.pairs[0].type_disagreement).toBeCloseTo(1 / 4, 12);
  });

  it('one annotator: no pairs, no Fleiss κ, nothing disputed', () => {
    const r = agreement(two.filter((l) => l.annotator === 'ann'));
    expect(r).toMatchObject({
      annotators: ['ann'],
      shared_cases: 0,
      pairs: [],
      fleiss_kappa: null,
      disputed: [],
    });
  });

  it('no overlap: no pair is listed (a pair without a shared case says nothing); asked for, it has n = 0 and undefined rates', () => {
    const records = [label('ann', 1, 'ExtractionError'), label('bob', 2, 'ExtractionError')];
    const r = agreement(records);
    expect(r.pairs).toEqual([]);
    expect(r.pairs_truncated).toBe(false);
    expect(r.fleiss_kappa).toBeNull();
    expect(r.shared_cases).toBe(0);
    expect(pairAgreement(records, 'bob', 'ann')).toEqual({
      a: 'ann',
      b: 'bob',
      n: 0,
      op_disagreement: null,
      type_disagreement: null,
      cohen_kappa: null,
      confusion: {},
    });
  });

  it('a single class: no type disagreement, κ undefined, op disagreement still counted', () => {
    const r = agreement([
      label('ann', 1, 'ResponseError', 'op-1'),
      label('bob', 1, 'ResponseError', 'op-1'),
      label('ann', 2, 'ResponseError', 'op-2'),
      label('bob', 2, 'ResponseError', 'op-3'),
    ]);
    expect(r.pairs[0]).toMatchObject({ n: 2, type_disagreement: 0, op_disagreement: 0.5, cohen_kappa: null });
    expect(r.fleiss_kappa).toBeNull();
    expect(r.disputed.map((d) => [d.query_id, d.type_disputed, d.op_disputed])).toEqual([
      ['query:q2@1', false, true],
    ]);
  });

  it('an annotator without a name counts under its label source; hostile names stay plain keys', () => {
    const fileLabel: LabelRecord = {
      ...label('', 1, '__proto__'),
      source: 'fault-injection',
      origin: 'file',
    };
    const r = agreement([fileLabel, label('__proto__', 1, 'constructor')]);
    expect(r.annotators).toEqual(['__proto__', 'fault-injection']);
    expect(r.pairs[0].n).toBe(1);
    expect(Object.keys(r.pairs[0].confusion)).toEqual(['constructor']);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it('leaves adjudicated labels out of the numbers and shows them on the case they settle', () => {
    const final = {
      ...label('ann', 2, 'UpdateError', 'op-a', '2026-05-01T00:00:00Z'),
      source: 'adjudicated',
    };
    const r = agreement([...two, final]);
    expect(r.annotators).toEqual(['ann', 'bob']);
    expect(r.pairs[0].type_disagreement).toBeCloseTo(2 / 6, 12);
    const q2 = r.disputed.find((d) => d.query_id === 'query:q2@1')!;
    expect(q2.adjudicated).toMatchObject({
      annotator: 'ann',
      error_type: 'UpdateError',
      label_source: 'adjudicated',
    });
    expect(r.disputed.find((d) => d.query_id === 'query:q3@1')!.adjudicated).toBeNull();
  });

  it('can leave annotators out', () => {
    expect(agreement(two, { exclude: (a) => a === 'bob' }).annotators).toEqual(['ann']);
  });
});

describe('pairs found through shared cases', () => {
  /** Random labels: `people` annotators, each labelling a few of `cases` cases, some twice (the newer counts). */
  function randomLabels(seed: number, people: number, cases: number): LabelRecord[] {
    const r = seededRandom(seed);
    const types = ['ExtractionError', 'UpdateError', 'RetrievalError', 'ResponseError'];
    const out: LabelRecord[] = [];
    for (let p = 0; p < people; p++)
      for (let k = 0; k < 1 + Math.floor(r() * 4); k++)
        out.push(
          label(
            `p${String(p).padStart(3, '0')}`,
            Math.floor(r() * cases),
            types[Math.floor(r() * types.length)],
            `op-${Math.floor(r() * 3)}`,
            `2026-01-0${1 + Math.floor(r() * 9)}`,
          ),
        );
    return out;
  }

  /** Every two annotators tried against every case: the definition, worked out independently of the code. */
  function bruteForcePairs(records: LabelRecord[]) {
    const newest = new Map<string, LabelRecord>();
    for (const l of [...records].sort((x, y) =>
      x.createdAt < y.createdAt ? -1 : x.createdAt > y.createdAt ? 1 : 0,
    ))
      newest.set(`${l.annotator}|${l.queryId}`, l);
    const names = [...new Set(records.map((l) => l.annotator))].sort();
    const queries = [...new Set(records.map((l) => l.queryId))];
    const out: { a: string; b: string; n: number; op: number; type: number }[] = [];
    for (let i = 0; i < names.length; i++)
      for (let j = i + 1; j < names.length; j++) {
        let n = 0;
        let op = 0;
        let type = 0;
        for (const q of queries) {
          const x = newest.get(`${names[i]}|${q}`);
          const y = newest.get(`${names[j]}|${q}`);
          if (!x || !y) continue;
          n++;
          if (x.opId !== y.opId) op++;
          if (x.errorType !== y.errorType) type++;
        }
        if (n > 0) out.push({ a: names[i], b: names[j], n, op: op / n, type: type / n });
      }
    return out;
  }

  it('lists exactly the pairs that share a case, with the numbers of the brute-force definition', () => {
    for (const seed of [1, 2, 3]) {
      const records = randomLabels(seed, 60, 40);
      const expected = bruteForcePairs(records);
      const r = agreement(records, { maxPairs: Number.POSITIVE_INFINITY });
      expect(
        r.pairs.map((p) => ({ a: p.a, b: p.b, n: p.n, op: p.op_disagreement, type: p.type_disagreement })),
      ).toEqual(expected);
      expect(r.pairs_truncated).toBe(false);
      expect(r.max_pairs).toBeNull();
      expect(expected.length).toBeGreaterThan(100);
    }
  });

  it('stops at the cap (default 1000) and says so; the first pairs are the same as without a cap', () => {
    const records = randomLabels(4, 60, 40);
    const all = bruteForcePairs(records);
    for (const cap of [0, 1, 17, all.length - 1, all.length, all.length + 5]) {
      const r = agreement(records, { maxPairs: cap });
      expect(r.pairs.map((p) => `${p.a}|${p.b}`)).toEqual(all.slice(0, cap).map((p) => `${p.a}|${p.b}`));
      expect(r.pairs_truncated, `cap ${cap}`).toBe(all.length > cap);
      expect(r.max_pairs).toBe(cap);
    }
    // 1,500 annotators who all labelled one case: ~1.1 M pairs exist, the default lists 1,000.
    const crowd = Array.from({ length: 1500 }, (_, i) =>
      label(`a${String(i).padStart(4, '0')}`, 1, 'UpdateError'),
    );
    const r = agreement(crowd);
    expect(r.pairs).toHaveLength(1000);
    expect(r.pairs_truncated).toBe(true);
    expect(r.pairs[999]).toMatchObject({ a: 'a0000', b: 'a1000', n: 1 });
    expect(r.shared_cases).toBe(1);
  });
});
