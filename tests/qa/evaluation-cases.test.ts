/**
 * Cases from the verdicts span traces carry without a golden answer: an OpenTelemetry GenAI
 * `gen_ai.evaluation.result` event with a pass/fail label, a Langfuse boolean score, an
 * OpenInference EVALUATOR that says "incorrect". A score that is no verdict on the answer
 * (toxicity 0, hallucination 0.1) makes no case. With `--qa` the golden answer joins them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph, opMetadata } from '../../src/core/graph/index.ts';
import { type AnswerJudge, joinQa, parseQaFile } from '../../src/core/qa/index.ts';
import { formatIssue, parseTraceText } from '../../src/core/trace/index.ts';
import { runCli } from '../helpers/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-eval-cases-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Attr = { key: string; value: Record<string, unknown> };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const d = (key: string, v: number): Attr => ({ key, value: { doubleValue: v } });
const TRACE = '5b8efff798038103d269b633813fc60c';
let n = 0;

function llmSpan(question: string, answer: string, events: object[] = []) {
  n++;
  return {
    traceId: TRACE,
    spanId: `eee19b7ec3c1${String(n).padStart(4, '0')}`,
    name: 'chat gpt-4o',
    kind: 3,
    startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n),
    endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n + 500n),
    attributes: [
      s('gen_ai.operation.name', 'chat'),
      s(
        'gen_ai.input.messages',
        JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
      ),
      s(
        'gen_ai.output.messages',
        JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]),
      ),
    ],
    events,
  };
}

const evaluation = (attrs: Attr[]) => ({
  name: 'gen_ai.evaluation.result',
  timeUnixNano: '1700000000100000000',
  attributes: attrs,
});

const otlp = (spans: object[]) =>
  JSON.stringify({
    resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }],
  });

function docOf(spans: object[]) {
  const r = parseTraceText(otlp(spans), { file: 'eval.json' });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.doc;
}

function casesOf(spans: object[]) {
  return listCases(buildGraph(docOf(spans)), { includePassed: true });
}

describe('evaluation verdicts without a golden answer are cases', () => {
  it('GenAI evaluation events: a "fail" label is a failed case, a "pass" label a passed one; toxicity 0 and hallucination 0.1 are none', () => {
    const cases = casesOf([
      llmSpan('Where did Ana move?', 'To Porto.', [
        evaluation([
          s('gen_ai.evaluation.name', 'correctness'),
          s('gen_ai.evaluation.score.label', 'fail'),
          s('gen_ai.evaluation.explanation', 'She moved to Lisbon.'),
        ]),
      ]),
      llmSpan('What is my cat called?', 'Miso.', [
        evaluation([s('gen_ai.evaluation.name', 'correctness'), s('gen_ai.evaluation.score.label', 'pass')]),
      ]),
      llmSpan('Summarise the day.', 'A calm day.', [
        evaluation([s('gen_ai.evaluation.name', 'toxicity'), d('gen_ai.evaluation.score.value', 0)]),
        evaluation([s('gen_ai.evaluation.name', 'hallucination'), d('gen_ai.evaluation.score.value', 0.1)]),
      ]),
    ]);
    expect(cases.map((c) => [c.question, c.prediction, c.failed, c.goldenAnswers])).toEqual([
      ['Where did Ana move?', 'To Porto.', true, []],
      ['What is my cat called?', 'Miso.', false, []],
    ]);
    expect(cases[0].judgeResponse).toBe('She moved to Lisbon.');
  });

  it('a 0/1 score of an evaluation about the answer (exact_match 0) is a failed case', () => {
    const cases = casesOf([
      llmSpan('How old is Lily?', 'Six.', [
        evaluation([s('gen_ai.evaluation.name', 'exact_match'), d('gen_ai.evaluation.score.value', 0)]),
      ]),
    ]);
    expect(cases.map((c) => [c.question, c.failed])).toEqual([['How old is Lily?', true]]);
  });

  it('an OpenInference EVALUATOR that says "incorrect" without a reference is a failed case', () => {
    n++;
    const judge = {
      traceId: TRACE,
      spanId: `eee19b7ec3c1${String(n).padStart(4, '0')}`,
      name: 'qa_eval',
      kind: 1,
      startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n),
      endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n + 500n),
      attributes: [
        s('openinference.span.kind', 'EVALUATOR'),
        s('input.value', JSON.stringify({ query: 'Which city?', output: 'Porto' })),
        s('input.mime_type', 'application/json'),
        s('output.value', JSON.stringify({ label: 'incorrect' })),
      ],
    };
    const cases = casesOf([llmSpan('Which city?', 'Porto'), judge]);
    expect(cases.map((c) => [c.question, c.prediction, c.failed])).toEqual([['Which city?', 'Porto', true]]);
  });
});

describe("a QA row asking a question the trace's own evaluation judged", () => {
  /** Two judged answers: "To Porto." failed by its evaluator, "Miso." passed. */
  const judged = () => [
    llmSpan('Where did Ana move?', 'To Porto.', [
      evaluation([s('gen_ai.evaluation.name', 'correctness'), s('gen_ai.evaluation.score.label', 'fail')]),
    ]),
    llmSpan('What is my cat called?', 'Miso.', [
      evaluation([s('gen_ai.evaluation.name', 'correctness'), s('gen_ai.evaluation.score.label', 'pass')]),
    ]),
  ];
  // The row's golden answer for the cat disagrees with the trace's evaluator (which passed "Miso.").
  const QA = [
    { question: 'Where did Ana move?', answer: 'Lisbon' },
    { question: 'What is my cat called?', answer: 'Tofu' },
  ];
  /** A judge that would fail both answers (neither holds its golden answer). */
  const contains: AnswerJudge = {
    rule: 'contains',
    accepts: (p, answers) => answers.some((a) => p.toLowerCase().includes(a.toLowerCase())),
  };

  it("is one case: the row's golden answer joins the trace's verdict, which decides (answer_rule trace)", () => {
    const spans = judged();
    const own = casesOf(spans);
    const rows = parseQaFile(JSON.stringify(QA), 'qa.json');
    if (!rows.ok) throw new Error(rows.message);
    const j = joinQa(docOf(spans), rows.rows, contains);
    expect(j).toMatchObject({ joined: 2, unmatched: [] });
    const g = buildGraph(j.doc);
    const cases = listCases(g, { includePassed: true });
    expect(cases.map((c) => [c.queryId, c.question, c.goldenAnswers, c.failed])).toEqual([
      [own[0].queryId, 'Where did Ana move?', ['Lisbon'], true],
      [own[1].queryId, 'What is my cat called?', ['Tofu'], false],
    ]);
    for (const c of cases) expect(opMetadata(g, g.opIndex.get(c.judgeOpId!)!).answer_rule).toBe('trace');
  });

  it('memtrace cases and attribute --qa list each question once, saying the trace decided', async () => {
    const spans = judged();
    const own = casesOf(spans).map((c) => c.queryId);
    const trace = join(tmp, 'judged.json');
    const qa = join(tmp, 'judged-qa.json');
    writeFileSync(trace, otlp(spans));
    writeFileSync(qa, JSON.stringify(QA));
    const r = await runCli(['cases', trace, '--qa', qa, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as {
      query_id: string;
      golden_answers: string[];
      answer_rule: string;
    }[];
    expect(rows.map((x) => [x.query_id, x.golden_answers, x.answer_rule])).toEqual([
      [own[0], ['Lisbon'], 'trace'],
      [own[1], ['Tofu'], 'trace'],
    ]);
    const a = await runCli(['attribute', trace, '--qa', qa, '--json']);
    expect(a.code, a.stderr).toBe(0);
    // Only the failed question is attributed, once.
    expect((JSON.parse(a.stdout) as { query_id: string }[]).map((x) => x.query_id)).toEqual([own[0]]);
  });
});
