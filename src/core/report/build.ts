/**
 * The deterministic part of the report: counts and rates (with Wilson intervals) by
 * system, error type, faulty op, prompt and question category; the lift of every case
 * feature per error type; and clusters of failures (one error type at one kind of op)
 * with exemplars. No model, no IO: the same cases give the same report.
 */
import { ERROR_TYPES, type ErrorType } from '../trace/index.ts';
import { FEATURES, type FeatureId } from './features.ts';
import { lift, rate, wilson } from './stats.ts';
import type {
  CategoryRow,
  Cluster,
  ErrorReport,
  ErrorTypeCounts,
  Exemplar,
  FeaturePrevalence,
  FeatureRow,
  OpRow,
  PromptRow,
  RateCell,
  ReportCase,
  SystemRow,
} from './types.ts';

/** Options of `buildReport`: the timestamp to stamp it with and exemplars per cluster. */
export interface BuildOptions {
  /** When the report was made (ISO text); injected so the report itself is pure. */
  generatedAt?: string;
  /** Exemplars per cluster (default 3). */
  exemplars?: number;
}

function zeroTypes(): ErrorTypeCounts {
  return Object.fromEntries(ERROR_TYPES.map((t) => [t, 0])) as ErrorTypeCounts;
}

/** A count over `n` as a `RateCell`: the rate and its 95 % Wilson interval. */
export function rateCell(count: number, n: number): RateCell {
  const ci = wilson(count, n);
  return { count, rate: rate(count, n), ci_low: ci.low, ci_high: ci.high };
}

function groupBy<K>(cases: ReportCase[], key: (c: ReportCase) => K): Map<K, ReportCase[]> {
  const m = new Map<K, ReportCase[]>();
  for (const c of cases) {
    const k = key(c);
    const list = m.get(k);
    if (list) list.push(c);
    else m.set(k, [c]);
  }
  return m;
}

function typeCounts(cases: ReportCase[]): ErrorTypeCounts {
  const t = zeroTypes();
  for (const c of cases) if (c.error_type) t[c.error_type]++;
  return t;
}

const byCount =
  <T extends { count: number }>(key: (x: T) => string) =>
  (a: T, b: T) =>
    b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

function exemplarOf(c: ReportCase): Exemplar {
  return {
    case_id: c.case_id,
    trace_id: c.trace_id,
    query_id: c.query_id,
    op_id: c.op_id,
    op_name: c.op_name,
    op_category: c.op_category,
    question: c.question,
    golden_answers: c.golden_answers,
    prediction: c.prediction,
    reason: c.reason,
    grounds: c.grounds,
    evidence: c.evidence,
    before: c.before,
    after: c.after,
  };
}

/** Cases that read well as examples first: some evidence, short, then by id. */
function exemplarOrder(a: ReportCase, b: ReportCase): number {
  const ea = a.evidence_words > 0 ? 0 : 1;
  const eb = b.evidence_words > 0 ? 0 : 1;
  return (
    ea - eb ||
    a.evidence_words - b.evidence_words ||
    (a.case_id < b.case_id ? -1 : a.case_id > b.case_id ? 1 : 0)
  );
}

/** Readable cases first, one per distinct question while there are enough (fault-injected runs repeat questions). */
function pickExemplars(list: ReportCase[], k: number): ReportCase[] {
  const sorted = [...list].sort(exemplarOrder);
  const seen = new Set<string>();
  const picked: ReportCase[] = [];
  for (const c of sorted) {
    if (picked.length >= k) break;
    if (seen.has(c.question)) continue;
    seen.add(c.question);
    picked.push(c);
  }
  for (const c of sorted) {
    if (picked.length >= k) break;
    if (!picked.includes(c)) picked.push(c);
  }
  return picked;
}

function mostCommon(values: (string | null)[]): string | null {
  const n = new Map<string, number>();
  for (const v of values) if (v !== null) n.set(v, (n.get(v) ?? 0) + 1);
  let best: string | null = null;
  for (const [k, c] of n)
    if (best === null || c > (n.get(best) ?? 0) || (c === n.get(best) && k < best)) best = k;
  return best;
}

function clusterId(c: ReportCase): string {
  if (c.error_type === null) return 'no decisive memory error';
  return `${c.error_type} at ${c.op_name ?? '(op not in the graph)'} (${c.op_category ?? '?'})`;
}

function clusters(cases: ReportCase[], featureTotals: Map<FeatureId, number>, exemplars: number): Cluster[] {
  const n = cases.length;
  const out: Cluster[] = [];
  for (const [id, list] of groupBy(cases, clusterId)) {
    const first = list[0];
    const features = FEATURES.map(({ id: f }) => {
      const count = list.filter((c) => c.features[f]).length;
      const l = lift(count, list.length, featureTotals.get(f) ?? 0, n);
      return { feature: f, count, rate: count / list.length, lift: l ?? 0 };
    })
      .filter((x) => x.count >= 2 && x.lift > 1)
      .sort((a, b) => b.lift - a.lift || b.count - a.count);
    const systems: Record<string, number> = {};
    for (const c of list) systems[c.system] = (systems[c.system] ?? 0) + 1;
    out.push({
      id,
      error_type: first.error_type,
      op_name: first.op_name,
      op_category: first.op_category,
      prompt: mostCommon(list.map((c) => c.prompt)),
      ...rateCell(list.length, n),
      systems,
      features: features.slice(0, 3),
      exemplars: pickExemplars(list, exemplars).map(exemplarOf),
      case_ids: list.map((c) => c.case_id),
    });
  }
  return out.sort(byCount((c) => c.id));
}

function bySystem(cases: ReportCase[]): Record<string, SystemRow> {
  const out: Record<string, SystemRow> = {};
  for (const [system, list] of [...groupBy(cases, (c) => c.system)].sort(([a], [b]) => (a < b ? -1 : 1)))
    out[system] = {
      cases: list.length,
      by_error_type: typeCounts(list),
      no_decisive_error: list.filter((c) => c.error_type === null).length,
    };
  return out;
}

/** Attributed cases by faulty op (name and category), rates over all `n` cases. */
function byOp(withType: ReportCase[], n: number): OpRow[] {
  return [...groupBy(withType, (c) => `${c.op_name ?? ''}\u0000${c.op_category ?? ''}`)]
    .map(([, list]) => ({
      op_name: list[0].op_name ?? '(op not in the graph)',
      op_category: list[0].op_category ?? '?',
      ...rateCell(list.length, n),
      by_error_type: typeCounts(list),
    }))
    .sort(byCount((r) => `${r.op_name} ${r.op_category}`));
}

/** Attributed cases by the prompt behind the faulty op, rates over all `n` cases. */
function byPrompt(withType: ReportCase[], n: number): PromptRow[] {
  return [...groupBy(withType, (c) => c.prompt)]
    .map(([prompt, list]) => ({
      prompt,
      prompt_ids: [...new Set(list.map((c) => c.prompt_id).filter((x): x is string => x !== null))].sort(),
      ...rateCell(list.length, n),
      by_error_type: typeCounts(list),
    }))
    .sort(byCount((r) => r.prompt ?? '\uffff'));
}

function byCategory(cases: ReportCase[]): CategoryRow[] {
  return [...groupBy(cases, (c) => c.question_category)]
    .map(([category, list]) => ({ category, cases: list.length, by_error_type: typeCounts(list) }))
    .sort((a, b) => b.cases - a.cases || (a.category < b.category ? -1 : 1));
}

/** Per feature and error type: the cases with the feature of that type, their rate and lift. */
function featureRows(cases: ReportCase[], byType: ErrorTypeCounts): FeatureRow[] {
  const n = cases.length;
  const features: FeatureRow[] = [];
  for (const { id } of FEATURES) {
    const withFeature = cases.filter((c) => c.features[id]);
    for (const t of ERROR_TYPES) {
      const count = withFeature.filter((c) => c.error_type === t).length;
      const ci = wilson(count, withFeature.length);
      features.push({
        feature: id,
        error_type: t,
        count,
        rate: rate(count, withFeature.length),
        lift: lift(count, withFeature.length, byType[t], n),
        ci_low: ci.low,
        ci_high: ci.high,
        with_feature: withFeature.length,
      });
    }
  }
  return features;
}

/** The report over attributed failures (see ErrorReport). */
export function buildReport(cases: ReportCase[], options: BuildOptions = {}): ErrorReport {
  const n = cases.length;
  const withType = cases.filter((c) => c.error_type !== null);
  const byType = typeCounts(cases);
  const featureTotals = new Map<FeatureId, number>(
    FEATURES.map(({ id }) => [id, cases.filter((c) => c.features[id]).length]),
  );
  const prevalence: FeaturePrevalence[] = FEATURES.map(({ id, label, rule }) => ({
    feature: id,
    label,
    rule,
    ...rateCell(featureTotals.get(id) ?? 0, n),
  }));
  const methods: Record<string, number> = {};
  for (const c of cases) methods[c.method] = (methods[c.method] ?? 0) + 1;

  return {
    cases: n,
    attributed: withType.length,
    no_decisive_error: n - withType.length,
    uncertain: withType.filter((c) => c.grounds?.uncertain).length,
    by_system: bySystem(cases),
    by_error_type: byType,
    error_type_rates: ERROR_TYPES.map((t: ErrorType) => ({ error_type: t, ...rateCell(byType[t], n) })),
    by_op: byOp(withType, n),
    by_prompt: byPrompt(withType, n),
    by_question_category: byCategory(cases),
    features: featureRows(cases, byType),
    feature_prevalence: prevalence,
    clusters: clusters(cases, featureTotals, options.exemplars ?? 3),
    case_list: cases,
    methods,
    generated_at: options.generatedAt ?? '',
  };
}
