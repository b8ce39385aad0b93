/**
 * A question joins the call that answers it, never one that holds it only as chat history: in
 * the Vercel AI SDK's real spans (../shared/data/otel-thirdparty), one call's messages are
 * "What is 2 + 2?", its earlier answer, then "And what is 3 + 3?" — that call answers the
 * second question. Expectations are read from the file's own span attributes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

const TRACE = join(SHARED_DATA, 'otel-thirdparty', 'vercel-ai-sdk-spans.json');
const tmp = mkdtempSync(join(tmpdir(), 'memtrace-qa-history-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Span {
  name: string;
  attributes: Record<string, unknown>;
}
const spans = JSON.parse(readFileSync(TRACE, 'utf8')) as Span[];
/** The span whose prompt holds both questions, and the answer it gave. */
const chat = spans.find(
  (s) => s.name === 'ai.generateText' && String(s.attributes['ai.prompt']).includes('3 + 3'),
);

async function cases(question: string, answer: string) {
  const qa = join(tmp, `${answer}.json`);
  writeFileSync(qa, JSON.stringify([{ question, answer }]));
  const r = await runCli(['cases', TRACE, '--qa', qa, '--json']);
  expect(r.code).toBe(0);
  return { rows: JSON.parse(r.stdout) as { question: string; prediction: string; failed: boolean }[], r };
}

describe('QA rows and chat history', () => {
  it('the later question joins the call that asked it last, with that call’s answer', async () => {
    expect(chat).toBeDefined();
    const { rows } = await cases('And what is 3 + 3?', '6');
    expect(rows).toHaveLength(1);
    expect(rows[0].prediction).toBe(String(chat?.attributes['ai.response.text']));
    expect(rows[0].failed).toBe(false);
  });

  it('a question only in the history is answered by no call in the trace: not joined', async () => {
    const { rows, r } = await cases('What is 2 + 2?', '4');
    expect(rows).toEqual([]);
    expect(r.stderr).toContain('1 of 1 question(s)');
    expect(r.stderr).toContain('only as history before a later question');
  });
});
