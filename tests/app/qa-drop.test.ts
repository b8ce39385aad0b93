/**
 * A QA file dropped beside span traces (the engine's import on fake-indexeddb): recognised by
 * its shape, its rows joined to the traces dropped with it (or, alone, to the stored ones), the
 * cases stored with their verdicts, kept through a reload (a new engine on the same database
 * joins it again) and through the trace's replacement, and a bad QA file refused with one issue naming the file and the line.
 * Real span traces from ../shared/data/otel-thirdparty; the QA rows are written here.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { listCaseRows, listTraces, type MemtraceDb, openDb } from '../../src/db/index.ts';
import { EngineService } from '../../workers/engine.ts';

const THIRD = new URL('../../../shared/data/otel-thirdparty/', import.meta.url);
const VERCEL = 'vercel-ai-sdk-spans.json';
const AGENTS = 'langfuse-download-openai-agents.json';
const read = (name: string) => readFileSync(new URL(name, THIRD));

let db: MemtraceDb;
let n = 0;
afterEach(() => db.delete());
const fresh = () => {
  db = openDb(`qa-drop-${process.pid}-${n++}`);
  return new EngineService(db);
};
const input = (name: string, bytes: BlobPart) => ({ blob: new Blob([bytes]), name, path: name });

/** The Vercel file's spans whose attributes hold `text` (read from the raw file, not through the importer). */
function vercelSpansHolding(text: string): { name: string; spanId: string }[] {
  const spans = JSON.parse(read(VERCEL).toString('utf8')) as {
    name: string;
    spanContext: { spanId: string };
    attributes: Record<string, unknown>;
  }[];
  return spans
    .filter((s) => Object.values(s.attributes).some((v) => String(v).includes(text)))
    .map((s) => ({ name: s.name, spanId: s.spanContext.spanId }));
}

const QA = [
  // The trace answers "3 + 3 equals 6.": with 7 as the golden answer the verdict is WRONG.
  { question: 'And what is 3 + 3?', answer: '7', id: 'q-three' },
  { question: 'What is the capital of Portugal?', answer: 'Lisbon' },
];

describe('a QA file dropped beside span traces', () => {
  it('joins its rows to the trace dropped with it, stores the cases, and a reload joins them again', async () => {
    const engine = fresh();
    const results = await engine.importFiles(
      [input('answers.json', JSON.stringify(QA)), input(VERCEL, read(VERCEL))],
      {},
    );
    expect(results.map((r) => r.status)).toEqual(['questions', 'stored']);
    expect(results[0].traceId).toBe(results[1].traceId);
    expect(results[0].message).toContain(`1 joined to ${VERCEL} (1 failed)`);
    const traceId = results[1].traceId!;
    const cases = await listCaseRows(db, { traceId });
    const c = cases.find((x) => x.question === QA[0].question)!;
    expect(c).toMatchObject({ failed: true, goldenAnswers: ['7'], prediction: '3 + 3 equals 6.' });
    expect(cases.some((x) => x.question === QA[1].question)).toBe(false);
    const [meta] = await listTraces(db);
    expect(meta).toMatchObject({ qaFile: 'answers.json', caseCount: cases.length });

    // The answering call is a span whose attributes hold both the question and the answer.
    const holding = vercelSpansHolding(QA[0].question).filter((s) =>
      vercelSpansHolding('3 + 3 equals 6.').some((a) => a.spanId === s.spanId),
    );
    const check = async (e: EngineService) => {
      const overview = await e.caseOverview(traceId, c.queryId);
      expect(holding.some((s) => overview.answerOp?.id.includes(s.spanId))).toBe(true);
    };
    await check(engine);
    // A reload: a new engine on the same database opens the stored file and joins the QA file again.
    await check(new EngineService(db));
    // The trace replaced by a new copy of its file: the QA file stays and joins it again.
    const [again] = await engine.importFiles([input(VERCEL, read(VERCEL))], { replace: true });
    expect(again.status).toBe('replaced');
    expect((await listCaseRows(db, { traceId })).map((x) => x.question)).toContain(QA[0].question);
    expect((await listTraces(db))[0].qaFile).toBe('answers.json');
    await check(new EngineService(db));
  });

  it('dropped alone, joins the stored traces that hold its questions and leaves the others unchanged', async () => {
    const engine = fresh();
    await engine.importFiles([input(VERCEL, read(VERCEL)), input(AGENTS, read(AGENTS))], {});
    const before = await listTraces(db);
    const jsonl = `${JSON.stringify({ question: "What's the weather in Tokyo?", answer: 'snowing heavily' })}\n`;
    const [r] = await engine.importFiles([input('tokyo.jsonl', jsonl)], {});
    expect(r.status).toBe('questions');
    const after = await listTraces(db);
    const agents = after.find((t) => t.file === AGENTS)!;
    const vercel = after.find((t) => t.file === VERCEL)!;
    expect(r.traceId).toBe(agents.id);
    expect(agents.qaFile).toBe('tokyo.jsonl');
    expect(vercel.qaFile).toBeUndefined();
    expect(vercel.caseCount).toBe(before.find((t) => t.file === VERCEL)!.caseCount);
    const cases = await listCaseRows(db, { traceId: agents.id });
    expect(cases.find((x) => x.question === "What's the weather in Tokyo?")).toMatchObject({
      failed: true,
      goldenAnswers: ['snowing heavily'],
    });
  });

  it('a bad QA file is one issue naming the file and the line; broken JSON of another shape stays a trace error', async () => {
    const engine = fresh();
    const bad = '{"question": "A?", "answer": "x"}\n{"question": "B?", "answer": \n';
    const [r] = await engine.importFiles([input('qa.jsonl', bad)], {});
    expect(r.status).toBe('invalid');
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0].file).toBe('qa.jsonl');
    expect(r.issues[0].message).toMatch(/^line 2: not JSON/);
    const list = JSON.stringify([{ question: 'A?', answer: 'x' }, { question: 'B?' }]);
    const [r2] = await engine.importFiles([input('qa.json', list)], {});
    expect(r2.issues.map((i) => i.message)).toEqual(['[1]: no "answer"']);
    const [trace] = await engine.importFiles([input('t.json', '{"graph_id": "g", "data": {')], {});
    expect(trace.status).toBe('invalid');
    expect(trace.issues[0].code).toBe('json-syntax');
    expect(await listTraces(db)).toEqual([]);
  });
});
