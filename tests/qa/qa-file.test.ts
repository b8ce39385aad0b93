/**
 * QA files: the layouts people have (a JSON list, JSON Lines, LoCoMo's conversations with
 * their `qa`, LongMemEval's rows), and bad files refused in one line naming the file and the
 * place (the line of JSON Lines, the index of a list) — by the parser and by the CLI (exit 1).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { looksLikeQaFile, parseQaFile } from '../../src/core/qa/index.ts';
import { runCli } from '../helpers/cli.ts';
import { SHARED_DATA, smartcommentFiles } from '../helpers/shared-data.ts';

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-qa-file-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function ok(text: string) {
  const r = parseQaFile(text, 'qa.json');
  if (!r.ok) throw new Error(r.message);
  return r.rows;
}

describe('parseQaFile', () => {
  it('reads a JSON list and JSON Lines of {question, answer} with optional prediction, correct and id', () => {
    const list = ok(
      JSON.stringify([
        { question: 'Where does Ana live?', answer: 'Lisbon' },
        { question: 'How old is Lily?', answer: 7, prediction: 'Seven.', correct: true, id: 'q2' },
      ]),
    );
    expect(list.map((r) => [r.question, r.answers, r.prediction, r.correct, r.id])).toEqual([
      ['Where does Ana live?', ['Lisbon'], null, null, null],
      ['How old is Lily?', ['7'], 'Seven.', true, 'q2'],
    ]);
    const lines = ok('{"question": "A?", "answer": ["x", "y"]}\n\n{"question": "B?", "answer": "z"}\n');
    expect(lines.map((r) => [r.question, r.answers, r.place])).toEqual([
      ['A?', ['x', 'y'], 'line 1'],
      ['B?', ['z'], 'line 3'],
    ]);
  });

  it("reads LoCoMo's conversations: every question with an answer, its evidence ids as the turns' texts", () => {
    const text = readFileSync(join(SHARED_DATA, 'locomo/locomo-dev.json'), 'utf8');
    const data = JSON.parse(text) as {
      qa: { question: string; answer?: unknown; evidence: string[] }[];
      conversation: Record<string, unknown>;
    }[];
    const rows = ok(text);
    expect(rows).toHaveLength(data.flatMap((c) => c.qa.filter((q) => q.answer !== undefined)).length);
    const first = data[0].qa[0];
    const session = Number(first.evidence[0].match(/^D(\d+):/)![1]);
    const turn = (data[0].conversation[`session_${session}`] as { dia_id: string; text: string }[]).find(
      (t) => t.dia_id === first.evidence[0],
    )!;
    expect(rows[0].question).toBe(first.question);
    expect(rows[0].evidenceTexts).toEqual([turn.text]);
    expect(rows[0].place).toBe('[0].qa[0]');
  });

  it("reads LongMemEval's rows (question_id, a number as answer, the turns marked has_answer as evidence)", () => {
    // A row in LongMemEval's published layout, written here (the data set is not in shared/).
    const row = {
      question_id: 'e47becba',
      question_type: 'single-session-user',
      question: 'What degree did I graduate with?',
      answer: 'Business Administration',
      question_date: '2023/05/30 (Tue) 23:40',
      haystack_session_ids: ['s1'],
      haystack_dates: ['2023/05/20 (Sat) 02:21'],
      haystack_sessions: [
        [
          {
            role: 'user',
            content: 'I graduated with a degree in Business Administration.',
            has_answer: true,
          },
          { role: 'assistant', content: 'Congratulations!' },
        ],
      ],
      answer_session_ids: ['s1'],
    };
    const [r] = ok(JSON.stringify([row, { ...row, question_id: 'n1', answer: 3 }]));
    expect(r.id).toBe('e47becba');
    expect(r.answers).toEqual(['Business Administration']);
    expect(r.evidenceTexts).toEqual(['I graduated with a degree in Business Administration.']);
    expect(ok(JSON.stringify([row, { ...row, answer: 3 }]))[1].answers).toEqual(['3']);
  });

  it('refuses a bad file in one line naming the file and the place', () => {
    const bad = (text: string) => {
      const r = parseQaFile(text, 'qa.jsonl');
      return r.ok ? 'accepted' : r.message;
    };
    expect(
      bad('{"question": "A?", "answer": "x"}\n{"question": "B?", "answer": "y"}\n{"question": \n'),
    ).toMatch(/^qa\.jsonl: line 3: not JSON/);
    expect(bad('{"question": "A?", "answer": "x"}\n{"answer": "y"}\n')).toBe(
      'qa.jsonl: line 2: no "question" text',
    );
    expect(
      bad(
        JSON.stringify([
          { question: 'A?', answer: 'x' },
          { question: 'B?', answer: 'y' },
          { question: 'C?' },
        ]),
      ),
    ).toBe('qa.jsonl: [2]: no "answer"');
    expect(bad(JSON.stringify([{ question: 'A?', answer: { nested: 1 } }]))).toBe(
      'qa.jsonl: [0]: "answer" must be text, a number or a list of them',
    );
    expect(bad(JSON.stringify([{ question: 'A?', answer: 'x', correct: 'yes' }]))).toBe(
      'qa.jsonl: [0]: "correct" must be true or false',
    );
    expect(bad('[]')).toBe('qa.jsonl: no questions (rows of {question, answer})');
    expect(bad('"just text"')).toBe(
      'qa.jsonl: the file: a row must be an object with "question" and "answer"',
    );
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(bad(deep)).toBe('qa.jsonl: the file: nests more than 256 levels deep');
  });
});

describe('looksLikeQaFile', () => {
  it('knows QA files by shape (list, JSON Lines, LoCoMo, broken ones) and no shared trace file is one', () => {
    expect(looksLikeQaFile(readFileSync(join(SHARED_DATA, 'locomo/locomo-dev.json'), 'utf8'))).toBe(true);
    expect(looksLikeQaFile('\ufeff[{"answer": "x", "question": "A?"}]')).toBe(true);
    expect(looksLikeQaFile('\n{"question_id": "q1", "question": "A?", "answer": 3}\n{"question": ')).toBe(
      true,
    );
    // Broken before any row parses: the first object opens with a QA key.
    expect(looksLikeQaFile('[{"question": "A?", "answer": "x"},\n{"question": "B?", "ans')).toBe(true);
    expect(looksLikeQaFile('{"graph_id": "g", "data": {')).toBe(false);
    expect(looksLikeQaFile('[]')).toBe(false);
    const traces = [
      ...smartcommentFiles(),
      ...['otel', 'otel-thirdparty'].flatMap((d) =>
        readdirSync(join(SHARED_DATA, d))
          .filter((f) => /\.jsonl?$/.test(f) && !f.includes('schema'))
          .map((f) => join(SHARED_DATA, d, f)),
      ),
    ];
    expect(traces.length).toBeGreaterThan(10);
    for (const f of traces) expect(looksLikeQaFile(readFileSync(f, 'utf8')), f).toBe(false);
  });
});

describe('memtrace --qa with a bad QA file', () => {
  it('exits 1 with one line naming the file and the line, for cases, attribute and bench', async () => {
    const qa = join(tmp, 'bad.jsonl');
    writeFileSync(qa, '{"question": "A?", "answer": "x"}\n{"question": "B?", "answer": "y"\n');
    const trace = smartcommentFiles()[0];
    for (const cmd of ['cases', 'attribute', 'bench']) {
      const r = await runCli([cmd, trace, '--qa', qa]);
      expect(r.code, cmd).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines, cmd).toHaveLength(1);
      expect(lines[0].startsWith(`memtrace ${cmd}: ${qa}: line 2: not JSON`), lines[0]).toBe(true);
    }
    const missing = await runCli(['cases', trace, '--qa', join(tmp, 'none.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(`memtrace cases: ${join(tmp, 'none.json')}: no such file`);
  });
});

describe('memtrace cases --qa on a smartcomment trace with the LoCoMo file', () => {
  it('joins the questions the trace answers to its own judges (one case each) and leaves out the other conversations', async () => {
    const trace = smartcommentFiles().find((f) => f.endsWith('conv-26-fault-0.json'))!;
    const doc = JSON.parse(readFileSync(trace, 'utf8')) as {
      data: {
        operations: { op_name: string; op_id: string }[];
        nodes: { class_name: string | null; value: string }[];
      };
    };
    const asked = doc.data.nodes.filter((v) => v.class_name === 'query').length;
    const locomo = join(SHARED_DATA, 'locomo/locomo-dev.json');
    const r = await runCli(['cases', trace, '--qa', locomo, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as {
      query_id: string;
      judge_op_id: string;
      answer_rule: string | null;
      path: string[];
    }[];
    // Every question the trace asked is a row of the QA file, joined to the trace's own judge:
    // one case per question, its verdict the trace's (answer_rule `trace`).
    expect(new Set(rows.map((c) => c.query_id)).size).toBe(rows.length);
    const fromQa = rows.filter((c) => c.answer_rule === 'trace');
    expect(fromQa.length).toBe(asked);
    expect(rows.filter((c) => c.answer_rule === 'offline')).toEqual([]);
    const answerOps = new Set(
      doc.data.operations.filter((o) => o.op_name === 'question-answering').map((o) => o.op_id),
    );
    for (const c of fromQa) expect(c.path.some((op) => answerOps.has(op))).toBe(true);
    expect(r.stderr).toMatch(/question\(s\) of .*locomo-dev\.json are asked by no LLM call/);
  });
});
