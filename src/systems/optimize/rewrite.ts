/**
 * The optimiser's three steps, the paper's way: feedback on one prompt from one
 * attributed failure; feedback aggregated in rolling batches (8 by default: the first
 * batch gives a summary, each next batch is summarised with it); the prompt rewritten
 * from the aggregate. A rewrite that loses a `{{placeholder}}` of the prompt is refused,
 * since the system fills those in.
 */
import { z } from 'zod';
import { type ChatModel, completeJson } from '../../core/llm/index.ts';

const SYSTEM =
  'You are an expert in generating concrete, valuable feedback for improving one optimizable target variable.';

export interface FailureView {
  error_type: string;
  op_id: string;
  reason: string;
  question: string;
  golden_answers: string[];
  prediction: string | null;
  /** The faulty op and its subgraph, as text. */
  op_graph: string;
}

const Feedback = z.object({ rationale: z.string(), feedback: z.string() });
const Aggregated = z.object({ rationale: z.string(), aggregated_feedback: z.string() });
const Improved = z.object({ rationale: z.string(), improved_value: z.string() });

function target(name: string, value: string): string {
  return `Variable: ${name}\nCategory: prompt\nComment: a prompt of the memory system; {{name}} placeholders are filled in by the system and must stay.\nValue:\n${value}`;
}

/** One step's call: the optimiser's system prompt, `user`, and the one string field `field` of the JSON answer. */
async function ask<K extends string>(
  model: ChatModel,
  user: string,
  schema: z.ZodType<Record<K, string>>,
  field: K,
  signal?: AbortSignal,
): Promise<string> {
  const r = await completeJson(
    model,
    {
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: user },
      ],
      temperature: 1,
      signal,
    },
    schema,
    { name: field },
  );
  return r.value[field];
}

/** One failure's feedback for one prompt. */
export async function feedbackFor(
  model: ChatModel,
  prompt: { name: string; value: string },
  f: FailureView,
  signal?: AbortSignal,
): Promise<string> {
  const user = [
    '## Instruction',
    '',
    "Generate feedback for improving one target variable's value so that the failed case below is avoided.",
    '- Only the target variable is optimisable; the operation flow is not.',
    '- Phrase every piece of feedback as a concrete improvement to the current value, not a complete new value.',
    '- Keep it realistic for how the variable is used in the workflow.',
    '',
    '## Target variable',
    '',
    target(prompt.name, prompt.value),
    '',
    '## Failed case',
    '',
    `Error type: ${f.error_type}`,
    `Attributed operation id: ${f.op_id}`,
    `Reason: ${f.reason}`,
    `Question: ${f.question}`,
    `Golden answer: ${f.golden_answers.join(', ')}`,
    `Prediction: ${f.prediction ?? '(none)'}`,
    '',
    "Erroneous operation's graph:",
    f.op_graph,
  ].join('\n');
  return ask(model, user, Feedback, 'feedback', signal);
}

async function summarise(model: ChatModel, items: string[], signal?: AbortSignal): Promise<string> {
  const user = [
    '## Instruction',
    '',
    'Aggregate these feedback suggestions for improving one target variable: merge overlapping ones, keep important details and constraints, stay specific.',
    '',
    '## Collected feedback suggestions',
    '',
    ...items.map((f, i) => `#### Feedback ${i + 1}\n${f}`),
  ].join('\n');
  return ask(model, user, Aggregated, 'aggregated_feedback', signal);
}

/** Rolling aggregation: one item is itself; else batches of `batch`, each next batch summarised with the summary so far. */
export async function aggregateFeedback(
  model: ChatModel,
  items: string[],
  batch = 8,
  signal?: AbortSignal,
): Promise<string> {
  if (items.length === 0) throw new Error('no feedback to aggregate');
  if (items.length === 1) return items[0];
  const size = Math.max(2, batch);
  let summary = await summarise(model, items.slice(0, size), signal);
  for (let i = size; i < items.length; i += size - 1)
    summary = await summarise(model, [summary, ...items.slice(i, i + size - 1)], signal);
  return summary;
}

/** The prompt rewritten from the aggregated feedback. */
export async function rewritePrompt(
  model: ChatModel,
  prompt: { name: string; value: string },
  aggregated: string,
  signal?: AbortSignal,
): Promise<string> {
  const user = [
    '## Instruction',
    '',
    'Improve the current value of the target variable according to the aggregated feedback. Keep the parts the feedback does not concern; keep every {{placeholder}} exactly; return the whole improved value.',
    '',
    '## Target variable',
    '',
    target(prompt.name, prompt.value),
    '',
    '## Aggregated feedback',
    '',
    aggregated,
  ].join('\n');
  return ask(model, user, Improved, 'improved_value', signal);
}

/** `{{name}}` placeholders of a template. */
export function placeholders(template: string): Set<string> {
  return new Set([...template.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]));
}

/** Why a rewrite cannot replace the prompt, or null when it can. */
export function rewriteProblem(before: string, after: string): string | null {
  if (after.trim() === '') return 'the rewrite is empty';
  if (after.trim() === before.trim()) return 'the rewrite is the same prompt';
  const lost = [...placeholders(before)].filter((p) => !placeholders(after).has(p));
  return lost.length
    ? `the rewrite drops the placeholder(s) ${lost.map((p) => `{{${p}}}`).join(', ')}`
    : null;
}
