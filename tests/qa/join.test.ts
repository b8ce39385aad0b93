/**
 * `joinQa` on hand-built traces: where a question's prediction comes from when several LLM
 * calls hold it (an agent's tool call first, a later turn's chat history after), what decides
 * the verdict (`correct` given, else the judge passed in), and a question no call holds.
 */
import { describe, expect, it } from 'vitest';
import { casePath, listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { type AnswerJudge, joinQa, parseQaFile } from '../../src/core/qa/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

/** A judge for the test: right when the prediction contains a golden answer, ignoring case. */
const contains: AnswerJudge = {
  rule: 'contains',
  accepts: (p, answers) => answers.some((a) => p.toLowerCase().includes(a.toLowerCase())),
};

function rows(list: object[]) {
  const r = parseQaFile(JSON.stringify(list), 'qa.json');
  if (!r.ok) throw new Error(r.message);
  return r.rows;
}

/** An agent: the question → a tool call; the tool; the question + tool result → the answer; a later turn repeats it in its history. */
function agentTrace() {
  const b = new DocBuilder();
  const q = b.variable('q', 'What is the weather in Tokyo today?', { category: 'message' });
  const call = b.variable('call', '{"city":"Tokyo"}', { category: 'llm_output' });
  b.op('chat', 'llm_call', [q], [call], { id: 'op-call-1' });
  const result = b.variable('result', 'Sunny, 24 C', { category: 'tool_result' });
  b.op('get_weather', 'tool', [call], [result], { id: 'op-tool' });
  const prompt = b.variable('p2', 'User: What is the weather in Tokyo today?\nTool: Sunny, 24 C', {
    category: 'message',
  });
  const answer = b.variable('a', 'It is sunny and 24 C in Tokyo.', { category: 'llm_output' });
  b.op('chat', 'llm_call', [prompt, result], [answer], { id: 'op-call-2' });
  const history = b.variable(
    'p3',
    'User: What is the weather in Tokyo today?\nAssistant: It is sunny.\nUser: And tomorrow?',
    {
      category: 'message',
    },
  );
  const later = b.variable('a3', 'Rain tomorrow.', { category: 'llm_output' });
  b.op('chat', 'llm_call', [history], [later], { id: 'op-call-3' });
  return b.doc;
}

describe('joinQa', () => {
  it('the prediction is the text answer of the first call that answers (not the tool call, not a later turn)', () => {
    const j = joinQa(
      agentTrace(),
      rows([{ question: 'what is the weather in tokyo today', answer: 'sunny' }]),
      contains,
    );
    expect(j).toMatchObject({ joined: 1, unmatched: [] });
    const g = buildGraph(j.doc);
    const cases = listCases(g, { includePassed: true });
    expect(cases.map((c) => [c.question, c.prediction, c.failed])).toEqual([
      ['what is the weather in tokyo today', 'It is sunny and 24 C in Tokyo.', false],
    ]);
    const path = casePath(g, cases[0]);
    expect(g.opId[path.answerOp]).toBe('op-call-2');
    // The tool call and the tool led to the answer; the later turn did not.
    expect(path.ops.map((o) => g.opId[o])).toEqual(['op-call-1', 'op-tool', 'op-call-2', 'op-qa-judge-qa-1']);
  });

  it('the verdict is the row’s `correct` when given (answer_rule "given"), else the judge’s rule', () => {
    const j = joinQa(
      agentTrace(),
      rows([
        { question: 'What is the weather in Tokyo today?', answer: 'sunny', correct: false, id: 'w1' },
        { question: 'What is the weather in Tokyo today?', answer: 'snow', id: 'w2' },
      ]),
      contains,
    );
    const g = buildGraph(j.doc);
    const cases = listCases(g, { includePassed: true });
    expect(cases.map((c) => [c.queryId, c.failed])).toEqual([
      ['query:qa-w1@1', true],
      ['query:qa-w2@1', true],
    ]);
    const rules = j.doc.data.operations
      .filter((o) => o.op_name === 'llm-judge')
      .map((o) => o.metadata.answer_rule);
    expect(rules).toEqual(['given', 'contains']);
  });

  it('a question no LLM call holds is said unmatched: a case on the file’s prediction, else left out; the document given is not changed', () => {
    const doc = agentTrace();
    const before = JSON.stringify(doc);
    const j = joinQa(
      doc,
      rows([
        { question: 'Where is Lisbon?', answer: 'Portugal', prediction: 'In Portugal.' },
        { question: 'Where is Oslo?', answer: 'Norway' },
      ]),
      contains,
    );
    expect(JSON.stringify(doc)).toBe(before);
    expect(j).toMatchObject({ joined: 0, unmatched: ['[0]', '[1]'] });
    const cases = listCases(buildGraph(j.doc), { includePassed: true });
    expect(cases.map((c) => [c.prediction, c.failed])).toEqual([['In Portugal.', false]]);
  });
});
