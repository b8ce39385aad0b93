/**
 * Verdicts: `gen_ai.evaluation.*` attributes and events, OpenInference's `evaluations.N.evaluation.*`
 * and `annotations.N.annotation.*` span attributes, or an evaluator's plain keys.
 */
import { ANNOTATIONS, EVALUATIONS } from '@arizeai/openinference-semantic-conventions';
import { type Attrs, asText, indexed, isObject, num, str } from './attrs.ts';
import type { SpanEvaluation } from './items.ts';
import { maybeJson } from './values.ts';

/** Keys evaluator inputs use for the question, the golden answer and the answer judged. */
const QUERY_KEYS = ['query', 'question', 'input'];
const GOLDEN_KEYS = [
  'golden_answers',
  'golden_answer',
  'expected_output',
  'expectedOutput',
  'reference',
  'ground_truth',
  'expected',
  'answer',
];
const PREDICTION_KEYS = ['prediction', 'output', 'response', 'completion', 'generated_answer'];

function pick(o: Attrs, keys: string[]): string | null {
  for (const k of keys) if (Object.hasOwn(o, k) && o[k] !== null && o[k] !== undefined) return asText(o[k]);
  return null;
}

const PASS = /^(correct|pass|passed|true|yes|right|relevant)$/i;
const FAIL = /^(incorrect|wrong|fail|failed|false|no|not_relevant)$/i;

/** A verdict from `gen_ai.evaluation.*` attributes (or an evaluator's plain keys). */
export function evaluationFrom(a: Attrs, fallbackName: string): SpanEvaluation {
  const label = str(a['gen_ai.evaluation.score.label']) ?? str(a.label);
  let score = num(a['gen_ai.evaluation.score.value'] ?? a.score ?? a.value);
  if (score === null && label) score = PASS.test(label) ? 1 : FAIL.test(label) ? 0 : null;
  const input = maybeJson(a.input);
  const inObj = isObject(input) ? input : a;
  return {
    name: str(a['gen_ai.evaluation.name']) ?? str(a.name) ?? fallbackName,
    score,
    label,
    explanation: str(a['gen_ai.evaluation.explanation']) ?? str(a.explanation) ?? str(a.comment),
    query: pick(inObj, QUERY_KEYS),
    golden: pick(inObj, GOLDEN_KEYS) ?? pick(a, GOLDEN_KEYS),
    prediction: pick(inObj, PREDICTION_KEYS),
  };
}

/** OpenInference's evaluations and annotations of a span (`evaluations.0.evaluation.explanation`, …). */
export function openInferenceEvaluations(a: Attrs, fallbackName: string): SpanEvaluation[] {
  const out: SpanEvaluation[] = [];
  for (const [prefix, field] of [
    [EVALUATIONS, 'evaluation'],
    [ANNOTATIONS, 'annotation'],
  ] as const)
    for (const row of indexed(a, prefix)) {
      const at = (k: string) => row[`${field}.${k}`] ?? row[k] ?? null;
      out.push(
        evaluationFrom(
          {
            'gen_ai.evaluation.name': at('name'),
            'gen_ai.evaluation.score.value': at('score'),
            'gen_ai.evaluation.score.label': at('label'),
            'gen_ai.evaluation.explanation': at('explanation'),
          },
          fallbackName,
        ),
      );
    }
  return out;
}
