import { describe, expect, it } from 'vitest';
import { attributeObs, GREP_MAX } from '../../src/core/attribution/index.ts';
import { type ChatRequest, ScriptedChatModel } from '../../src/core/llm/index.ts';
import { action, lastText, mem0Fixture, stepOf } from './fixtures.ts';

/** Scripted policy (no model): overview, grep, window, view the grepped retrieval block, answer. */
function searchPolicy(req: ChatRequest): string {
  switch (stepOf(req)) {
    case 0:
      return action('overview');
    case 1:
      return action('grep', { pattern: '7 MAY 2023' });
    case 2:
      return action('grep', { pattern: 'e' });
    case 3:
      return action('window', { offset: 0 });
    case 4: {
      const all = req.messages.map((m) => m.content).join('\n');
      const op = /\d+\. block \d+ \(op_id (\S+), memory-retrieval\)/.exec(all)?.[1];
      return action('view_op', { op_id: op ?? 'none' });
    }
    default: {
      const op = /\[block \d+ \(op_id (\S+), memory-retrieval\)/.exec(lastText(req))?.[1];
      return action('final_answer', {
        error_type: 'RetrievalError',
        op_id: op ?? 'none',
        reason: 'mem-1 not retrieved',
      });
    }
  }
}

describe('MemTrace-OBS agent (scripted policy)', () => {
  it('overview, grep (case-insensitive, capped, with op ids), window and op view', async () => {
    const f = mem0Fixture();
    const model = new ScriptedChatModel([searchPolicy], { loop: true });
    const a = await attributeObs(
      { graph: f.g, case: f.c, system: 'mem0' },
      { model, agent: { windowChars: 300 } },
    );
    expect(a).toMatchObject({ method: 'obs', error_type: 'RetrievalError', op_id: f.ops.retrieve });
    expect(a.cost.llm_calls).toBe(6);
    const overview = lastText(model.requests[1]);
    expect(overview).toMatch(/^The log has 7 operation blocks, \d+ characters\./);
    expect(overview).toContain(
      `[op_id ${f.ops.extract1} · offset 0]\n=== Operation block 1: fact-extraction [extraction]`,
    );
    const grep = lastText(model.requests[2]);
    expect(grep).toMatch(/^\[grep "7 MAY 2023" \(case-insensitive\) · \d+ match\(es\)\]/);
    expect(grep).toContain(`(op_id ${f.ops.retrieve}, memory-retrieval)`);
    expect(grep).toContain(`(op_id ${f.ops.extract1}, fact-extraction)`);
    const line = grep.split('\n').find((l) => l.includes(f.ops.update1))!;
    const snippet = line.slice(line.indexOf(': …') + 3, line.lastIndexOf('…'));
    expect(snippet.length).toBeLessThanOrEqual(120 * 2 + '7 May 2023'.length);
    const many = lastText(model.requests[3]);
    expect(many).toMatch(new RegExp(`first ${GREP_MAX} shown`));
    expect(many.split('\n').filter((l) => /^\d+\. block/.test(l))).toHaveLength(GREP_MAX);
    const win = lastText(model.requests[4]);
    expect(win).toMatch(/^\[window 0–300 of \d+\]/);
    expect(win).toContain(`- block 1 (op_id ${f.ops.extract1}, fact-extraction)`);
    expect(win).toMatch(/\(partly shown\)/);
    const block = lastText(model.requests[5]);
    expect(block).toContain(
      "- query:q-0 (message & query, version 1): 'When did Caroline go to the LGBTQ support group?'",
    );
    expect(block).not.toContain('edges');
    expect(a.path.map((p) => p.op_id)).toContain(f.ops.retrieve);
  });

  it('uses native tool calls when the provider has them', async () => {
    const f = mem0Fixture();
    let n = 0;
    const model = new ScriptedChatModel(
      [
        () => ({
          text: '',
          toolCalls: [{ id: `call-${++n}`, name: 'view_op', arguments: JSON.stringify({ block: 5 }) }],
        }),
        () => ({
          text: '',
          toolCalls: [
            {
              id: `call-${++n}`,
              name: 'final_answer',
              arguments: JSON.stringify({ error_type: 'RetrievalError', op_id: f.ops.retrieve, reason: 'r' }),
            },
          ],
        }),
      ],
      { nativeTools: true },
    );
    const a = await attributeObs({ graph: f.g, case: f.c }, { model });
    expect(a.op_id).toBe(f.ops.retrieve);
    expect(model.requests[0].tools?.map((t) => t.name)).toEqual([
      'overview',
      'grep',
      'window',
      'view_op',
      'final_answer',
    ]);
    const [, , asst, tool] = model.requests[1].messages;
    expect(asst).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call-1', name: 'view_op' }] });
    expect(tool).toMatchObject({ role: 'tool', toolCallId: 'call-1' });
    expect(tool.content).toContain(`[block 5 (op_id ${f.ops.retrieve}, memory-retrieval)`);
  });

  it('prior mode seeds the first message with the evidence-flow candidates and their blocks', async () => {
    const f = mem0Fixture();
    const model = new ScriptedChatModel([
      action('final_answer', {
        error_type: 'RetrievalError',
        op_id: f.ops.retrieve,
        reason: 'verified the prior',
      }),
    ]);
    const a = await attributeObs({ graph: f.g, case: f.c }, { model, prior: true });
    const first = model.requests[0].messages[1].content;
    expect(first).toContain('# Prior: a deterministic evidence-flow analysis ranked these operations');
    expect(first).toMatch(new RegExp(`1\\. ${f.ops.retrieve} — RetrievalError`));
    expect(first).toContain(`[block 5 (op_id ${f.ops.retrieve}, memory-retrieval)`);
    expect(a.op_id).toBe(f.ops.retrieve);
    expect(a.cost.llm_calls).toBe(1);
  });
});
