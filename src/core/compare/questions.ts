/**
 * The questions of two runs of one conversation, paired by identity — the query variable's
 * full name (a question id, or a content hash), else the question text — never by op ids,
 * which differ between runs. Each side's outcome comes from its judge.
 */
import { listCases, type TraceCase } from '../cases/index.ts';
import type { TraceGraph } from '../graph/index.ts';

/** A question's outcome in one run: judged correct, judged wrong, or missing (not asked or not scored). */
export type Outcome = 'correct' | 'wrong' | 'missing';
/** What happened to a question from run A to run B (see `changeOf`). */
export type Change = 'fixed' | 'broken' | 'same';

/** One question in both runs (either side null when only one run asked it), with its outcomes and change. */
export interface QuestionPair {
  query: string;
  a: TraceCase | null;
  b: TraceCase | null;
  outcome_a: Outcome;
  outcome_b: Outcome;
  change: Change;
}

/** A judged question's outcome: score > 0 correct, 0 wrong; no question or no score: missing. */
export function outcomeOf(c: TraceCase | null): Outcome {
  if (!c || c.judgeScore === null) return 'missing';
  return c.judgeScore > 0 ? 'correct' : 'wrong';
}

/** fixed: B right where A was not; broken: the reverse; same otherwise (still wrong, still right). */
export function changeOf(a: Outcome, b: Outcome): Change {
  if (a !== 'correct' && b === 'correct') return 'fixed';
  if (a === 'correct' && b !== 'correct') return 'broken';
  return 'same';
}

const normText = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

function identity(g: TraceGraph, c: TraceCase): string {
  const q = g.varIndex.get(c.queryId);
  return q === undefined ? `text:${normText(c.question)}` : `name:${g.varFullName[q]}`;
}

/** Every judged (or annotated) question of either run, paired; A's order first, then B's unpaired ones. */
export function pairQuestions(ga: TraceGraph, gb: TraceGraph): QuestionPair[] {
  const casesA = listCases(ga, { includePassed: true });
  const casesB = listCases(gb, { includePassed: true });
  const byName = new Map<string, TraceCase>();
  const byText = new Map<string, TraceCase>();
  for (const c of casesB) {
    const id = identity(gb, c);
    if (!byName.has(id)) byName.set(id, c);
    const t = normText(c.question);
    if (t && !byText.has(t)) byText.set(t, c);
  }
  const used = new Set<TraceCase>();
  const pairs: QuestionPair[] = [];
  const take = (a: TraceCase | null, b: TraceCase | null) => {
    if (b) used.add(b);
    const outcome_a = outcomeOf(a);
    const outcome_b = outcomeOf(b);
    pairs.push({
      query: (a ?? b)!.question,
      a,
      b,
      outcome_a,
      outcome_b,
      change: changeOf(outcome_a, outcome_b),
    });
  };
  for (const a of casesA) {
    let b = byName.get(identity(ga, a));
    if (!b || used.has(b)) b = byText.get(normText(a.question));
    take(a, b && !used.has(b) ? b : null);
  }
  for (const b of casesB) if (!used.has(b)) take(null, b);
  return pairs;
}
