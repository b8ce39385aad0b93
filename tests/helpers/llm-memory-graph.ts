/**
 * Mem0-like traces whose memories an LLM wrote, for tests: per message an extraction op and
 * one memory unit per fact, one question whose search returns (or not) the evidence's unit.
 * The decisive op is known by construction.
 */
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { DocBuilder } from './doc-builder.ts';

export const py = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
export const pyList = (xs: string[]) => `[${xs.map(py).join(', ')}]`;

export interface Said {
  speaker: string;
  text: string;
  /** LoCoMo's session date format. */
  date: string;
}

interface RunSpec {
  evidence: Said;
  /** What the LLM extracted from the evidence message (one memory unit per fact). */
  facts: string[];
  /** Other messages and the facts written from them (`evidence`: also the question's evidence; always retrievable). */
  others?: { said: Said; facts: string[]; evidence?: boolean }[];
  question: string;
  gold: string;
  prediction?: string;
  /** Does the search return the evidence's memory unit? */
  retrieved: boolean;
  /** Lines the search also returned, from memories the trace does not hold (a slice of a longer run). */
  untracedLines?: string[];
  /** The search reads only the question (a vector database the tracer does not see). */
  untracedStore?: boolean;
}

export const message = (s: Said) =>
  py(JSON.stringify({ content: s.text, name: s.speaker, role: 'user', timestamp: s.date }));

/** A Mem0-like run: per message an extraction op and one memory unit per fact; one question. */
export function factRun(spec: RunSpec) {
  const b = new DocBuilder();
  const prompt = b.variable('extract-prompt', py('Extract facts about the user.'), { category: 'prompt' });
  const ops: Record<string, string> = {};
  const units: { id: string; text: string; date: string; evidence: boolean }[] = [];
  const all = [
    { said: spec.evidence, facts: spec.facts, evidence: true },
    ...(spec.others ?? []).map((o) => ({ ...o, evidence: false, alsoEvidence: o.evidence === true })),
  ];
  const evidenceIds: string[] = [];
  all.forEach((m, i) => {
    const msg = b.variable(`conv:D1:${i + 1}`, message(m.said), {
      category: 'message',
      metadata: { timestamp: m.said.date },
    });
    if (m.evidence || ('alsoEvidence' in m && m.alsoEvidence)) evidenceIds.push(`conv:D1:${i + 1}`);
    const facts = b.variable(`facts-${i}`, pyList(m.facts), { category: 'facts' });
    const op = b.op(`llm-extract-${i}`, 'llm_call', [msg, prompt], [facts]);
    if (m.evidence) ops.extract = op;
    m.facts.forEach((f, j) => {
      const id = b.variable(`unit-${i}-${j}`, py(f), {
        category: 'memory_unit',
        metadata: { created_at: m.said.date },
      });
      b.op(`store-write-${i}-${j}`, 'update', [facts], [id]);
      units.push({ id, text: f, date: m.said.date, evidence: m.evidence });
    });
  });
  const q = b.variable('qa-1', py(spec.question), {
    className: 'query',
    category: 'message & query',
    metadata: { evidence: evidenceIds },
  });
  const picked = units.filter((u) => spec.retrieved || !u.evidence).slice(0, 3);
  const context = b.variable(
    'context',
    pyList([...picked.map((u) => `${u.date}: ${u.text}`), ...(spec.untracedLines ?? [])]),
    {
      category: 'retrieved_memories',
    },
  );
  ops.search = b.op('vector-search', 'retrieval', spec.untracedStore ? [q] : [q, ...units.map((u) => u.id)], [
    context,
  ]);
  const answerPrompt = b.variable('answer-prompt', py('Answer from the memories.'), { category: 'prompt' });
  const pred = b.variable('pred-1', py(spec.prediction ?? 'I do not know.'), {
    className: 'prediction',
    category: 'answer',
  });
  ops.answer = b.op('answer', 'generation', [answerPrompt, q, context], [pred]);
  const gold = b.variable('gold-1', pyList([spec.gold]), { className: 'golden_answers', category: 'golden' });
  const score = b.variable('score-1', '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [q, pred, gold], [score]);
  const g = buildGraph(b.doc);
  const [c] = listCases(g);
  return { g, c, ops, doc: b.doc };
}
