/**
 * What a verdict rests on, named for people: the last text that still held the answer and what
 * came after it (each with its variable, version and the op that wrote it), the confidence, the
 * runner-up ops, the carrying test and how much of the answer each step still conveyed. Read
 * from an evidence-flow attribution and its graph once, so the app's panel and the report's
 * exemplars show the same grounds.
 */
import type {
  AnswerRuleUsed,
  NotAttributable,
  QuotedUnit,
  SupportStep,
  VerdictEvidence,
} from '../attribution/index.ts';
import { phraseMarks, producersOf, type TraceGraph } from '../graph/index.ts';

/** The evidence fields of an attribution (evidence-flow sets them; other engines and files may not). */
export interface AttributionEvidence {
  op_id: string | null;
  candidates?: readonly { op_id: string; error_type: string; score: number; reason: string }[];
  verdict_evidence?: VerdictEvidence | null;
  confidence?: number;
  support?: readonly SupportStep[];
  answer_rule?: AnswerRuleUsed;
  judge_disagrees?: boolean;
  not_attributable?: NotAttributable | null;
  rules?: readonly string[];
  uncertain?: boolean;
}

/** An op as a quote or a step names it (null fields: not in the graph). */
export interface GroundOp {
  op_id: string;
  op_name: string | null;
  op_category: string | null;
  /** Position in execution order + 1 (null: not in the graph). */
  step: number | null;
}

/** A quoted text with the variable, version and op it came from. */
export interface GroundQuote extends QuotedUnit {
  /** Full name of the variable (`class:name`), or its id when not in the graph. */
  variable: string;
  version: number | null;
  /** The op that wrote it (null: an input of the trace, or not in the graph). */
  written_by: GroundOp | null;
  /** It is a later version of the same variable as the held text. */
  same_variable: boolean;
}

/** A runner-up op: the error type it would be, its score (comparable within one verdict) and why. */
export interface RunnerUp extends GroundOp {
  error_type: string;
  score: number;
  reason: string;
}

/** The grounds of one verdict (`verdictGrounds`). */
export interface VerdictGrounds {
  held: GroundQuote | null;
  /** What replaced or dropped it: a later version, an output, the prediction (null: nothing after). */
  after: GroundQuote | null;
  /** 0–1, calibrated on development data (`Attribution.confidence`); null when the engine gave none. */
  confidence: number | null;
  /** The decision rules that fired, in order (`STAGE_RULES` ids). */
  rules: string[];
  /** Below the confidence threshold: the verdict and its runner-up are offered as candidates. */
  uncertain: boolean;
  runners_up: RunnerUp[];
  rule: AnswerRuleUsed | null;
  judge_disagrees: boolean;
  not_attributable: NotAttributable | null;
  /** Support of the answer before and after each op on the evidence's way, in order. */
  support: (GroundOp & { before: number; after: number })[];
}

function groundOp(g: TraceGraph, opId: string): GroundOp {
  const o = g.opIndex.get(opId);
  if (o === undefined) return { op_id: opId, op_name: null, op_category: null, step: null };
  return { op_id: opId, op_name: g.opName[o] || null, op_category: g.opCategory[o], step: g.opRank[o] + 1 };
}

function quoteOf(g: TraceGraph, q: QuotedUnit | null, held: QuotedUnit | null): GroundQuote | null {
  if (!q) return null;
  const v = g.varIndex.get(q.var_id);
  const h = held ? g.varIndex.get(held.var_id) : undefined;
  const writer = v === undefined ? undefined : producersOf(g, v)[0];
  return {
    ...q,
    variable: v === undefined ? q.var_id : g.varFullName[v],
    version: v === undefined ? null : g.vars[v].version,
    written_by: writer === undefined ? null : groundOp(g, g.opId[writer]),
    same_variable: v !== undefined && h !== undefined && v !== h && g.varLineage[v] === g.varLineage[h],
  };
}

/** The grounds of an attribution, named from its graph; null when the attribution carries none. */
export function verdictGrounds(g: TraceGraph, a: AttributionEvidence): VerdictGrounds | null {
  if (a.verdict_evidence === undefined && a.not_attributable === undefined && a.confidence === undefined)
    return null;
  const ev = a.verdict_evidence ?? null;
  return {
    held: quoteOf(g, ev?.held ?? null, null),
    after: quoteOf(g, ev?.after ?? null, ev?.held ?? null),
    confidence: a.confidence ?? null,
    rules: [...(a.rules ?? [])],
    uncertain: a.uncertain ?? false,
    runners_up: (a.candidates ?? [])
      .filter((c) => c.op_id !== a.op_id)
      .map((c) => ({ ...groundOp(g, c.op_id), error_type: c.error_type, score: c.score, reason: c.reason })),
    rule: a.answer_rule ?? null,
    judge_disagrees: a.judge_disagrees ?? false,
    not_attributable: a.not_attributable ?? null,
    support: (a.support ?? []).map((s) => ({ ...groundOp(g, s.op_id), before: s.before, after: s.after })),
  };
}

/** An op as one line: `name (category, step N)`, else its id. */
export function groundOpText(o: GroundOp): string {
  return o.op_name ? `${o.op_name} (${o.op_category}, step ${o.step})` : o.op_id;
}

/** Where a quote came from as one line: `variable v3, written by name (kind, step N)`. */
export function groundQuoteSource(q: GroundQuote): string {
  const version = q.version === null ? '' : ` v${q.version}`;
  return `${q.variable}${version}${q.written_by ? `, written by ${groundOpText(q.written_by)}` : ''}`;
}

/** What the text after the held one did, in words. */
export function afterRelation(after: GroundQuote | null): string {
  if (!after) return 'Nothing after it held the answer';
  const holds =
    after.support >= 1
      ? 'still holds the answer'
      : after.support > 0
        ? `holds ${Math.round(100 * after.support)} % of the answer`
        : 'no longer holds the answer';
  return `${after.same_variable ? 'Replaced by a later version' : 'What came after it'} (${holds})`;
}

/** Where a quote's matched words are in its text (whole words, case-insensitive), for marks. */
export function quoteMarks(q: QuotedUnit): [start: number, length: number][] {
  return phraseMarks(q.text, q.matched);
}

/** A 0–1 share as a whole percentage. */
export const percent = (x: number) => `${Math.round(100 * x)} %`;

/** The carrying test in one sentence: what it accepts and where it came from. */
export function ruleText(rule: AnswerRuleUsed): string {
  const verdicts = rule.passed + rule.failed;
  const from =
    rule.source === 'fitted'
      ? `learned from this trace's judge: it reproduces ${rule.agreement === null ? '–' : percent(rule.agreement)} of its ${verdicts} verdicts`
      : rule.source === 'pooled'
        ? `learned from the same judge in the traces opened with this one (this trace's ${rule.passed} passed and ${rule.failed} failed verdicts were too few alone): it reproduces ${rule.agreement === null ? '–' : percent(rule.agreement)} of them`
        : rule.source === 'prior'
          ? `the default test (the trace's judge gave too few verdicts of one kind to learn from: ${rule.passed} passed, ${rule.failed} failed)`
          : 'given by the caller';
  return `A text holds the answer when it has ${rule.description} — ${from}.`;
}

/** Why a case cannot be traced, as one sentence starting "Not attributable:". */
export function notAttributableText(n: NotAttributable): string {
  const detail = n.detail.replace(/^not attributable:\s*/i, '');
  return `Not attributable: ${detail}`;
}
