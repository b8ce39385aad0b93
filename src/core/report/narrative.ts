/**
 * The optional narrative of the report, the paper's way: the failed cases go to a model
 * in batches (4 by default), in order, and the model keeps refining one report — an
 * overview, a paragraph per error category, a conclusion — with each batch. Cases are
 * named `C1…Cn`; the model cites them in square brackets, and citations of cases it was
 * not shown are removed (and counted). Every call, repairs included, is metered.
 */
import { z } from 'zod';
import { appendAll } from '../arrays.ts';
import { evidenceText } from '../attribution/index.ts';
import type { TraceCase } from '../cases/index.ts';
import { renderOpHeader, renderOpSubgraph, type TraceGraph } from '../graph/index.ts';
import { type ChatModel, completeJson, metered, UsageMeter } from '../llm/index.ts';
import type { Narrative, ReportCase } from './types.ts';

/** What the model reads about one case. */
export interface NarrativeCase {
  case_id: string;
  error_type: string | null;
  op_id: string | null;
  reason: string;
  question: string;
  golden_answers: string[];
  prediction: string | null;
  /** The evidence messages' texts, whole. */
  evidence: string[];
  /** The faulty op and its subgraph (variables with values, edges), as text. */
  op_graph: string;
}

/** The model's view of a report case, read from its graph. */
export function narrativeCase(g: TraceGraph, c: TraceCase, rc: ReportCase): NarrativeCase {
  const op = rc.op_id === null ? undefined : g.opIndex.get(rc.op_id);
  return {
    case_id: rc.case_id,
    error_type: rc.error_type,
    op_id: rc.op_id,
    reason: rc.reason,
    question: rc.question,
    golden_answers: rc.golden_answers,
    prediction: rc.prediction,
    evidence: c.evidenceIds
      .map((id) => g.varIndex.get(id))
      .filter((v): v is number => v !== undefined)
      .map((v) => evidenceText(g.varValue[v])),
    op_graph:
      op === undefined
        ? rc.op_id === null
          ? '(no decisive memory error was found: no faulty operation)'
          : `(the attributed operation "${rc.op_id}" is not in the execution graph)`
        : `${renderOpHeader(g, op)}\n${renderOpSubgraph(g, op, 'full')}`,
  };
}

/** The target-system overview the narrative prompt uses when the caller gives none. */
export const DEFAULT_OVERVIEW =
  'The target system is a memory system for a conversational assistant: it builds a memory from the conversation ' +
  '(extraction, updates, deletions), retrieves from it at question time, and answers. Its execution graph records ' +
  'every operation with the variables it read and wrote.';

/**
 * Options of `writeNarrative`: the model, the system overview, batch size, temperature, op
 * rendering limit, cancellation and progress.
 */
export interface NarrativeOptions {
  model: ChatModel;
  /** What the target system is and does (the paper's "target system overview"). */
  overview?: string;
  /** Cases per call (default 4, as the paper). */
  batchSize?: number;
  /** Default 1.0, as the paper. */
  temperature?: number;
  /** Characters kept of one op rendering; a longer one keeps its tail (default ≈ the paper's 600k tokens). */
  maxOpChars?: number;
  signal?: AbortSignal;
  /** After each batch: batches done, total, the report so far. */
  onBatch?: (done: number, total: number, text: string) => void;
}

const Reply = z.object({
  rationale: z.string().describe('How the report was refined with these cases.'),
  report: z
    .string()
    .describe('The full updated report: paragraphs separated by blank lines, cases cited as [C3].'),
});

const EMPTY =
  '(There is no report yet: this is the first batch of failed cases, so write the first version.)';

function instruction(current: string, cases: string, last: boolean): string {
  return [
    '# Instruction',
    '',
    'Improve the error analysis report of the target system with the failed cases below. Each case gives the error type, the faulty operation, the reason, the question, the golden answer, the prediction, the evidence and the faulty operation with its variables.',
    '',
    '- Write paragraphs, not bullet lists: one overview paragraph, one paragraph per major error category (refine a category into subtypes inside its paragraph when the cases show distinct mechanisms), one concluding paragraph.',
    '- Explain what goes wrong, why, and which recurring behaviour of the system it reveals. Synthesise patterns; do not retell every case.',
    '- Cite the cases a statement rests on by their id in square brackets, e.g. [C3] or [C3, C7]. Cite only ids given to you.',
    '- The report must read as a finished document: never mention batches, rounds or the order the cases came in.',
    '- Keep it concise; condense when it grows long.',
    '',
    '## Current report',
    '',
    current || EMPTY,
    '',
    '## Failed cases',
    '',
    cases,
    ...(last ? ['', 'NOTE: these are the last failed cases; make the report final.'] : []),
  ].join('\n');
}

function tail(text: string, max: number): string {
  return text.length <= max
    ? text
    : `…(${text.length - max} characters cut)\n${text.slice(text.length - max)}`;
}

function renderCase(ref: string, c: NarrativeCase, maxOpChars: number): string {
  return [
    `### Failed case ${ref}`,
    `Error type: ${c.error_type ?? 'none (no decisive memory error found)'}`,
    `Attributed operation id: ${c.op_id ?? '-'}`,
    `Error reason: ${c.reason || '-'}`,
    '',
    `Question:\n${c.question}`,
    '',
    `Golden answer:\n${c.golden_answers.join(', ')}`,
    '',
    `Model prediction:\n${c.prediction ?? '(none)'}`,
    '',
    `Source evidence:\n${c.evidence.length ? c.evidence.map((e, i) => `Source evidence ${i + 1}:\n${e}`).join('\n\n') : '(no source evidence is available)'}`,
    '',
    `Faulty operation's graph:\n${tail(c.op_graph, maxOpChars)}`,
  ].join('\n');
}

const CITATION = /\[\s*(C\d+(?:\s*[,;]\s*C\d+)*)\s*\]/g;

/** Keeps citations of shown cases; returns the text and the refs it dropped. */
function checkCitations(text: string, shown: ReadonlySet<string>): { text: string; dropped: string[] } {
  const dropped: string[] = [];
  const out = text.replace(CITATION, (_m, list: string) => {
    const refs = list.split(/\s*[,;]\s*/);
    const kept = refs.filter((r) => shown.has(r));
    for (const r of refs) if (!shown.has(r)) dropped.push(r);
    return kept.length ? `[${kept.join(', ')}]` : '';
  });
  return { text: out.replace(/[ \t]+([.,;:])/g, '$1').replace(/[ \t]{2,}/g, ' '), dropped };
}

/** Writes the narrative over the cases, in order (see the module comment). */
export async function writeNarrative(cases: NarrativeCase[], o: NarrativeOptions): Promise<Narrative> {
  const batchSize = Math.max(1, Math.floor(o.batchSize ?? 4));
  const maxOpChars = o.maxOpChars ?? 2_400_000;
  const meter = new UsageMeter();
  const model = metered(o.model, meter, { label: 'report narrative' });
  const refs = cases.map((_, i) => `C${i + 1}`);
  const shown = new Set<string>();
  const dropped: string[] = [];
  const system =
    'You are an expert failure analyst writing an error analysis report of a target system.\n\n## Target system overview\n\n' +
    (o.overview?.trim() || DEFAULT_OVERVIEW);
  const total = Math.ceil(cases.length / batchSize);
  let report = '';
  for (let b = 0; b < total; b++) {
    o.signal?.throwIfAborted();
    const start = b * batchSize;
    const batch = cases.slice(start, start + batchSize);
    for (let i = 0; i < batch.length; i++) shown.add(refs[start + i]);
    const text = batch.map((c, i) => renderCase(refs[start + i], c, maxOpChars)).join('\n\n');
    const { value } = await completeJson(
      model,
      {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: instruction(report, text, b === total - 1) },
        ],
        temperature: o.temperature ?? 1,
        signal: o.signal,
      },
      Reply,
      { name: 'error_analysis_report', description: 'The refined report.' },
    );
    const checked = checkCitations(value.report.trim(), shown);
    appendAll(dropped, checked.dropped);
    report = checked.text;
    o.onBatch?.(b + 1, total, report);
  }
  const cited = new Set<string>();
  for (const m of report.matchAll(CITATION)) for (const r of m[1].split(/\s*[,;]\s*/)) cited.add(r);
  return {
    text: report,
    citations: refs.flatMap((ref, i) => (cited.has(ref) ? [{ ref, case_id: cases[i].case_id }] : [])),
    dropped_citations: [...new Set(dropped)],
    model: o.model.model,
    provider: o.model.provider,
    batch_size: batchSize,
    batches: total,
    cost: meter.totals(),
    source: 'model',
  };
}

/** A narrative read from the paper's error_analysis_report.json (no model call): citations checked against the report's cases. */
export function narrativeFromText(text: string, caseIds: readonly string[]): Narrative {
  const refs = caseIds.map((_, i) => `C${i + 1}`);
  const checked = checkCitations(text.trim(), new Set(refs));
  const cited = new Set<string>();
  for (const m of checked.text.matchAll(CITATION)) for (const r of m[1].split(/\s*[,;]\s*/)) cited.add(r);
  return {
    text: checked.text,
    citations: refs.flatMap((ref, i) => (cited.has(ref) ? [{ ref, case_id: caseIds[i] }] : [])),
    dropped_citations: [...new Set(checked.dropped)],
    model: 'unknown',
    provider: 'error_analysis_report.json',
    batch_size: 0,
    batches: 0,
    cost: { calls: 0, failed: 0, cached: 0, inputTokens: 0, outputTokens: 0, estimated: false },
    source: 'file',
  };
}
