/**
 * The goals of issue 31 (attribution people can trust) as one table: each figure beside its bar,
 * with a 95 % bootstrap interval (cases resampled within their labelled type), so a reader sees
 * both whether a bar is met and whether the cases measured could tell.
 */
import { UNCERTAIN_BELOW } from '../src/core/attribution/index.ts';
import { type ScoredCase, summarize } from '../src/core/bench/index.ts';
import { bootstrapInterval } from './bootstrap.ts';
import { type Calibrated, calibrationStats } from './stats-util.ts';

/** A scored case as the goals read it. */
export interface GoalCase extends ScoredCase {
  /** The naive stage rule's type for the case. */
  naiveType: string | null;
  /** The verdict's out-of-fold confidences, one per cross-fitting; absent when it gave no verdict. */
  fitted?: readonly number[];
  /**
   * For a verdict on LLM-written memories: its confidence under a table fitted without any verdict
   * of its system design (leave one design out), the stricter reading of "an unseen design".
   */
  designApart?: readonly number[];
}

/** Which out-of-fold confidences a calibration figure reads. */
type Fitting = 'fitted' | 'designApart';

/** A bar: the figure must be at least (`≥`) or at most (`≤`) this. */
export interface Bar {
  op: '≥' | '≤';
  value: number;
}

/** One goal: a figure of some cases and its bar. */
export interface Goal {
  data: string;
  figure: keyof typeof FIGURES;
  bar: Bar;
  cases: GoalCase[];
}

const eta = (xs: GoalCase[]) => summarize(xs).error_type_accuracy;
const withNaive = (xs: GoalCase[]) => xs.map((c) => ({ ...c, predicted_type: c.naiveType }));

/** Calibration of the verdicts among `xs` under one cross-fitting of `by` (`rep`, or drawn from `rand`). */
function calibration(xs: GoalCase[], by: Fitting, pick: (reps: number) => number) {
  const verdicts = xs.filter((c) => c[by]);
  if (verdicts.length === 0) return null;
  const rep = pick((verdicts[0][by] as number[]).length);
  const rows: Calibrated[] = verdicts.map((c) => ({
    right: c.predicted_type === c.label_type,
    confidence: (c[by] as number[])[rep],
  }));
  return calibrationStats(rows, UNCERTAIN_BELOW);
}

/** A calibration figure: on the whole set, its mean over the cross-fittings; in a resample, one drawn at random. */
function calibrationFigure(f: (s: ReturnType<typeof calibrationStats>) => number, by: Fitting = 'fitted') {
  return (xs: GoalCase[], rand?: () => number): number => {
    if (rand) {
      const s = calibration(xs, by, (n) => Math.floor(rand() * n));
      return s ? f(s) : Number.NaN;
    }
    const reps = (xs.find((c) => c[by])?.[by] ?? []).length;
    const each = Array.from({ length: reps }, (_, r) => calibration(xs, by, () => r));
    return each.length ? each.reduce((s, x) => s + f(x!), 0) / each.length : Number.NaN;
  };
}

/** The figures a goal can name, each a function of the cases (and, in a resample, its random source). */
export const FIGURES = {
  ETA: (xs: GoalCase[]) => eta(xs),
  'ETA − naive ETA': (xs: GoalCase[]) => eta(xs) - eta(withNaive(xs)),
  'macro ETA': (xs: GoalCase[]) => summarize(xs).macro_error_type_accuracy,
  'macro OIA': (xs: GoalCase[]) => summarize(xs).macro_op_id_accuracy,
  ECE: calibrationFigure((s) => s.ece),
  'most confident half': calibrationFigure((s) => s.topHalf),
  'ECE, design left out': calibrationFigure((s) => s.ece, 'designApart'),
  'most confident half, design left out': calibrationFigure((s) => s.topHalf, 'designApart'),
} satisfies Record<string, (xs: GoalCase[], rand?: () => number) => number>;

const met = (bar: Bar, x: number) => (bar.op === '≥' ? x >= bar.value : x <= bar.value);
const show = (figure: string, x: number) =>
  figure.startsWith('ECE')
    ? x.toFixed(3)
    : `${figure.includes('−') && x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;

/**
 * For a macro figure, its smallest type's count: a type of one or two cases moves the mean by whole
 * steps, which an interval drawn within types cannot show.
 */
function smallestType(g: Goal): string {
  if (!g.figure.startsWith('macro')) return '';
  const counts = new Map<string, number>();
  for (const c of g.cases) counts.set(c.label_type, (counts.get(c.label_type) ?? 0) + 1);
  return ` (smallest type: ${Math.min(...counts.values())})`;
}

/** The goals table: figure, bar, value, its 95 % interval, and whether the bar is met. */
export function goalTable(goals: readonly Goal[]): string[] {
  const lines = [
    '| data | n | figure | bar | value | 95 % interval | met |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const g of goals) {
    if (g.cases.length === 0) continue;
    const stat = FIGURES[g.figure];
    const value = stat(g.cases);
    if (!Number.isFinite(value)) continue;
    const [lo, hi] = bootstrapInterval(g.cases, stat, { stratumOf: (c) => c.label_type });
    const inside = lo <= g.bar.value && g.bar.value <= hi;
    const verdict = `${met(g.bar, value) ? 'yes' : '**no**'}${inside ? ' (the bar is inside the interval)' : ''}`;
    lines.push(
      `| ${g.data} | ${g.cases.length} | ${g.figure}${smallestType(g)} | ${g.bar.op} ${show(g.figure, g.bar.value)} | ${show(g.figure, value)} | ${show(g.figure, lo)} – ${show(g.figure, hi)} | ${verdict} |`,
    );
  }
  return lines;
}
