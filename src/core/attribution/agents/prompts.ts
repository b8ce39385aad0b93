/** The texts both agents read: the task, the error types, the checklist, system priors, the case. */
import { type BenchSplit, benchSplitOf, type TraceCase } from '../../cases/index.ts';
import type { Candidate } from '../types.ts';

/** The task statement both agents start from: find the earliest faulty and decisive operation. */
export const TASK = `A memory system (RAG, long-context, Mem0, EverMemOS, …) answered a question wrongly. You are given its execution graph: variables (values) and operations that read and write them. Find the DECISIVE ERROR: the earliest operation that is
(1) faulty — its output is wrong for its own local job,
(2) decisive — had it produced the correct output, with everything before it unchanged and everything after it behaving ideally, the answer would have been right,
(3) the earliest such operation in execution order.
There is a single decisive operation per failure.`;

/** The five error types, defined for the model. */
export const ERROR_TYPE_TEXT = `Error types:
- ExtractionError — the critical information never enters any memory unit during construction.
- UpdateError — a memory unit held the critical information; a later update removed or degraded it.
- DeletionError — a memory unit holding the critical information was deleted.
- RetrievalError — the store held the information, but the retrieved context for the question lacks it.
- ResponseError — the retrieved context held all the evidence, the final answer is still wrong.`;

/** The paper's attribution checklist, for the system prompt. */
export const CHECKLIST = `Checklist: find the critical information (the evidence for the golden answer); walk operations in execution order judging each against its own job; when an op is correct, follow its outputs; track each memory unit over its lifetime; classify with the types above; prefer the earliest decisive fault.`;

/** Optional per-system advice (the paper's system priors). */
export const SYSTEM_PRIORS: Record<BenchSplit, string> = {
  rag: 'System prior (RAG): check retrieval first (did the retrieved chunks contain the evidence?), then the response.',
  mem0: 'System prior (Mem0): check fact extraction first (was the evidence turned into a fact?), then follow the same memory ids through later updates and deletes, then retrieval, then the response.',
  evermemos:
    'System prior (EverMemOS): check boundary segmentation first (was the evidence kept in a memory cell?), then the branch of the two-round hybrid retrieval that actually ran, then the response.',
  long_context:
    'System prior (long-context): check whether trimming the history to the window dropped the evidence, then the response.',
};

/** The prior for a system name as traces spell it (`RAG`, `mem0`, `long-context`, …; see `benchSplitOf`). */
export function systemPrior(system: string | null | undefined): string | null {
  const split = system ? benchSplitOf(system) : null;
  return split ? SYSTEM_PRIORS[split] : null;
}

/**
 * The failed case as the agents read it: question, golden answers, prediction, question variable, system
 * and (when `withPrior`) its system prior.
 */
export function caseText(c: TraceCase, system: string | null | undefined, withPrior: boolean): string {
  const lines = [
    '# The failed question',
    `question: ${c.question}`,
    `golden answer: ${c.goldenAnswers.join(' | ') || '(none given)'}`,
    `prediction of the system: ${c.prediction ?? '(none)'}`,
    `question variable: ${c.queryId}`,
  ];
  if (system) lines.push(`memory system: ${system}`);
  const prior = withPrior ? systemPrior(system) : null;
  if (prior) lines.push('', prior);
  return lines.join('\n');
}

/**
 * The prior-mode section listing the evidence-flow candidates, most likely first, with the instruction to
 * verify them.
 */
export function candidatesText(candidates: readonly Candidate[]): string {
  return [
    '# Prior: a deterministic evidence-flow analysis ranked these operations (most likely first)',
    ...candidates.map((c, i) => `${i + 1}. ${c.op_id} — ${c.error_type}: ${c.reason}`),
    'Verify these first: inspect each candidate operation and judge it against its own job. Accept one only if it is faulty and decisive; otherwise explore further.',
  ].join('\n');
}
