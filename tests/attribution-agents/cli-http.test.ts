/** `memtrace attribute --method obs` end to end over real HTTP against a local OpenAI-compatible server. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';
import { type MockLlmServer, startMockLlmServer } from '../llm/mock-llm-server.ts';

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlmServer();
});
afterAll(() => server.close());

const file = join(SMARTCOMMENT_DIR, 'conv-26-rag-0.json');
const QUERY = 'query:conv-26-qa-0@1';
const ANSWER_OP = 'op-4abf891a8592422bba81e87231f76035'; // rag.answer, the labelled op of this case

describe('memtrace attribute --method obs over HTTP', () => {
  it('runs the agent through tool calls and reports the answer and the server-counted tokens', async () => {
    server.plan(
      { reply: '', toolCall: { name: 'grep', arguments: JSON.stringify({ pattern: 'support group' }) } },
      { reply: '', toolCall: { name: 'view_op', arguments: JSON.stringify({ op_id: ANSWER_OP }) } },
      {
        reply: '',
        toolCall: {
          name: 'final_answer',
          arguments: JSON.stringify({
            error_type: 'ResponseError',
            op_id: ANSWER_OP,
            reason: 'The context had the date; the answer ignored it.',
          }),
        },
      },
    );
    const { code, stdout, stderr } = await runCli(
      [
        'attribute',
        file,
        '--case',
        QUERY,
        '--method',
        'obs',
        '--provider',
        'openai',
        '--base-url',
        server.openaiBase,
        '--model',
        'm',
        '--api-key-env',
        'K',
        '--json',
      ],
      { K: 'sk-test' },
    );
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      query_id: QUERY,
      method: 'obs',
      error_type: 'ResponseError',
      op_id: ANSWER_OP,
      label_type: 'ResponseError',
      label_op_id: ANSWER_OP,
      cost: { input_tokens: 33, output_tokens: 21, llm_calls: 3 },
    });
    expect(server.requests).toHaveLength(3);
    const [first, second, third] = server.requests.map((r) => r.body);
    expect(first.temperature).toBe(1);
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      'overview',
      'grep',
      'window',
      'view_op',
      'final_answer',
    ]);
    expect(first.messages[1].content).toContain('question: When did Caroline go to the LGBTQ support group?');
    const toolMsg = second.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMsg.content).toMatch(/^\[grep "support group" \(case-insensitive\) · \d+ match\(es\)/);
    expect(toolMsg.content).toMatch(/^1\. block \d+ \(op_id op-[0-9a-f]+, rag\.\w+\) @\d+: …/m);
    const viewed = third.messages.filter((m: { role: string }) => m.role === 'tool').at(-1);
    expect(viewed.content).toMatch(new RegExp(`^\\[block \\d+ \\(op_id ${ANSWER_OP}, rag\\.answer\\)`));
  });
});
