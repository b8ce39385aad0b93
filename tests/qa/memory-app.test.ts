/**
 * A memory app as its developers write one (tests/qa/memory-app.ts: the real `openai` client,
 * OpenInference's OpenAI instrumentation, an in-process keyword retriever, the OTel SDK's
 * OTLP/protobuf exporter) talks to a scripted OpenAI-compatible double on 127.0.0.1 and sends
 * its trace to a real `memtrace serve`. Planted Extraction, Retrieval and Response failures
 * (tests/qa/scenario.ts) must be cases of `memtrace cases --qa`, get their stage and op from
 * `memtrace attribute --qa`, and have the answer's retrieval on their path; `memtrace bench --qa`
 * with no labels lists every question's verdict and stage, saying it scored nothing. What each plant
 * should blame is read from the received spans themselves, never from the import.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { type ScriptedLlmServer, startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';
import { type ServeProcess, startServe } from '../serve/helpers.ts';
import { ANSWER_PROMPT, EXTRACT_PROMPT, tracedApp } from './memory-app.ts';
import { CONVERSATIONS, conversationText, type Item, QUESTIONS, scriptedReply } from './scenario.ts';

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-qa-app-'));
let llm: ScriptedLlmServer;
let serve: ServeProcess;
let traceFile = '';
const qaFile = join(tmp, 'qa.jsonl');
const predictions = new Map<string, string>();
const stored: string[] = [];

/** A received span: name, id and string attributes. */
interface RawSpan {
  name: string;
  spanId: string;
  attrs: Map<string, string>;
}

function receivedSpans(file: string): RawSpan[] {
  const out: RawSpan[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    for (const rs of JSON.parse(line).resourceSpans)
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans) {
          const attrs = new Map<string, string>();
          for (const a of s.attributes ?? [])
            if (a.value.stringValue !== undefined) attrs.set(a.key, a.value.stringValue);
          out.push({ name: s.name, spanId: s.spanId, attrs });
        }
  }
  return out;
}

/** The span ids each plant should blame, found in the received spans. */
function expectedSpans(spans: RawSpan[]) {
  const messages = (s: RawSpan) =>
    [0, 1].map((i) => s.attrs.get(`llm.input_messages.${i}.message.content`) ?? '');
  const one = (what: string, hits: RawSpan[]) => {
    expect(hits, what).toHaveLength(1);
    return hits[0].spanId;
  };
  const extraction = (it: Item) => {
    const conv = conversationText(CONVERSATIONS.find((c) => c.includes(it))!);
    return one(
      `extraction of "${it.said}"`,
      spans.filter((s) => messages(s)[0] === EXTRACT_PROMPT && messages(s)[1] === conv),
    );
  };
  const retrieval = (it: Item) =>
    one(
      `search for "${it.question}"`,
      spans.filter(
        (s) =>
          s.attrs.get('openinference.span.kind') === 'RETRIEVER' &&
          s.attrs.get('input.value') === it.question,
      ),
    );
  const answer = (it: Item) =>
    one(
      `answer to "${it.question}"`,
      spans.filter(
        (s) => messages(s)[0] === ANSWER_PROMPT && messages(s)[1].endsWith(`Question: ${it.question}`),
      ),
    );
  return { extraction, retrieval, answer };
}

beforeAll(async () => {
  llm = await startScriptedLlmServer(scriptedReply);
  serve = await startServe(['--dir', join(tmp, 'traces')]);
  const t = tracedApp({ llmBaseURL: llm.base, otlpURL: `${serve.base}/v1/traces` });
  await t.run(async () => {
    for (const c of CONVERSATIONS) await t.app.remember(conversationText(c));
    for (const q of QUESTIONS) predictions.set(q.question!, await t.app.ask(q.question!));
  });
  stored.push(...t.app.store.facts.map((f) => f.text));
  const traceId = await t.finish();
  traceFile = join(tmp, 'traces', `${traceId}.jsonl`);
  writeFileSync(
    qaFile,
    `${QUESTIONS.map((q) => JSON.stringify({ question: q.question, answer: q.answer })).join('\n')}\n`,
  );
}, 60_000);

afterAll(async () => {
  await serve?.stop();
  await llm?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('a memory app traced by OpenInference, received by memtrace serve, debugged with --qa', () => {
  it('planted what it says: dropped at extraction, stored but not retrieved, retrieved but answered wrong', () => {
    const answerPrompt = (q: string) =>
      llm.calls.find((c) => c.request.messages[1]?.content.endsWith(`Question: ${q}`))!.request.messages[1]
        .content;
    for (const it of QUESTIONS) {
      const prompt = answerPrompt(it.question!);
      if (it.plant === 'Extraction') expect(stored).not.toContain(it.fact);
      else expect(stored).toContain(it.fact);
      expect(prompt.includes(it.fact), it.question!).toBe(it.plant === 'ok' || it.plant === 'Response');
      expect(predictions.get(it.question!)!.includes(it.answer), it.question!).toBe(it.plant === 'ok');
    }
  });

  it('memtrace cases --qa: every planted failure is a failed case, the right answers are not; the retrieval is on each path', async () => {
    const r = await runCli(['cases', traceFile, '--qa', qaFile, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as {
      query_id: string;
      question: string;
      failed: boolean;
      prediction: string;
      answer_rule: string;
      path: string[];
      path_names: string[];
    }[];
    const spans = expectedSpans(receivedSpans(traceFile));
    for (const it of QUESTIONS) {
      const row = rows.find((x) => x.question === it.question);
      expect(row, it.question!).toBeDefined();
      expect(row!.failed, it.question!).toBe(it.plant !== 'ok');
      expect(row!.prediction).toBe(predictions.get(it.question!));
      expect(row!.answer_rule).toBe('offline');
      const on = (spanId: string) => row!.path.some((op) => op.includes(spanId));
      expect(on(spans.retrieval(it)), `${it.question}: retrieval on the path`).toBe(true);
      expect(on(spans.answer(it)), `${it.question}: answer call on the path`).toBe(true);
      // What was retrieved came from the extraction call of its conversation, through its write.
      if (it.plant === 'ok' || it.plant === 'Response') {
        expect(on(spans.extraction(it))).toBe(true);
        expect(row!.path_names).toEqual([
          'OpenAI Chat Completions',
          ...Array(row!.path_names.length - 4).fill('memory.add'),
          'memory.search',
          'OpenAI Chat Completions',
          'llm-judge',
        ]);
      }
    }
  });

  it('memtrace attribute --qa names the stage (and its span) of at least 90 % of the planted failures', async () => {
    const r = await runCli(['attribute', traceFile, '--qa', qaFile, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const results = JSON.parse(r.stdout) as {
      query_id: string;
      error_type: string | null;
      op_id: string | null;
      path: object[];
    }[];
    const cases = JSON.parse((await runCli(['cases', traceFile, '--qa', qaFile, '--json'])).stdout) as {
      query_id: string;
      question: string;
    }[];
    const spans = expectedSpans(receivedSpans(traceFile));
    const planted = QUESTIONS.filter((q) => q.plant !== 'ok');
    let stage = 0;
    let op = 0;
    for (const it of planted) {
      const id = cases.find((c) => c.question === it.question)!.query_id;
      const a = results.find((x) => x.query_id === id);
      expect(a, it.question!).toBeDefined();
      expect(a!.path.length).toBeGreaterThan(0);
      if (a!.error_type === `${it.plant}Error`) stage++;
      const want =
        it.plant === 'Extraction'
          ? spans.extraction(it)
          : it.plant === 'Retrieval'
            ? spans.retrieval(it)
            : spans.answer(it);
      if (a!.op_id?.includes(want)) op++;
    }
    expect(planted.map((q) => q.plant).sort()).toEqual([
      ...Array(3).fill('Extraction'),
      ...Array(3).fill('Response'),
      ...Array(3).fill('Retrieval'),
    ]);
    expect(stage / planted.length).toBeGreaterThanOrEqual(0.9);
    expect(op / planted.length).toBeGreaterThanOrEqual(0.9);
  });

  it('memtrace bench --qa without labels: every question with its verdict, the wrong ones with their stage, said unscored, exit 0', async () => {
    const r = await runCli(['bench', traceFile, '--qa', qaFile, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as {
      scored: boolean;
      note: string;
      label_source: string;
      total_cases: number;
      wrong_answers: number;
      answer_rules: Record<string, number>;
      predicted_error_types: Record<string, number>;
      failed_cases: number;
      cases: { question: string; failed: boolean; answer_rule: string; error_type: string | null }[];
    };
    expect(s).toMatchObject({ scored: false, label_source: 'file', failed_cases: 0 });
    expect(s.note).toMatch(/^no labels given/);
    const planted = QUESTIONS.filter((q) => q.plant !== 'ok');
    expect(s.total_cases).toBe(QUESTIONS.length);
    expect(s.wrong_answers).toBe(planted.length);
    expect(s.answer_rules).toEqual({ offline: QUESTIONS.length });
    let stage = 0;
    for (const it of QUESTIONS) {
      const row = s.cases.find((c) => c.question === it.question);
      expect(row?.failed, it.question!).toBe(it.plant !== 'ok');
      if (it.plant === 'ok') expect(row!.error_type).toBeNull();
      else if (row!.error_type === `${it.plant}Error`) stage++;
    }
    expect(stage / planted.length).toBeGreaterThanOrEqual(0.9);
    // The counts per type are the wrong answers' stages.
    const counted: Record<string, number> = {};
    for (const c of s.cases.filter((x) => x.failed)) {
      const k = c.error_type ?? 'not_attributable';
      counted[k] = (counted[k] ?? 0) + 1;
    }
    expect(s.predicted_error_types).toEqual(counted);
    // As text: the note first, one row per question.
    const text = await runCli(['bench', traceFile, '--qa', qaFile]);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^no labels given/);
    expect(lines.filter((l) => /\t(WRONG|right)\t/.test(l))).toHaveLength(QUESTIONS.length);
  });
});
