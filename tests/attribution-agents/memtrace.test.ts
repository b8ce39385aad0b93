import { describe, expect, it } from 'vitest';
import {
  type AgentCheckpoint,
  type AttributionEvent,
  addToFrontier,
  attributeMemTrace,
  engineFor,
  finishCurrent,
  initialFrontier,
  MAX_FRONTIER,
  removeFromFrontier,
} from '../../src/core/attribution/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { type ChatRequest, ScriptedChatModel } from '../../src/core/llm/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { action, lastText, mem0Fixture, stepOf } from './fixtures.ts';

/**
 * A scripted policy (stand-in for the model) that walks the fixture like a careful
 * judge: reads the first message in full, tries a few frontier additions (some
 * refused), moves on, and answers the retrieval op — first with a wrong op id.
 */
function walkPolicy(f: ReturnType<typeof mem0Fixture>) {
  return (req: ChatRequest) => {
    if (req.messages[0].content.startsWith('You compress'))
      return 'Summary: m1 extracted correctly; store keeps it.';
    const step = stepOf(req);
    switch (step) {
      case 0:
        return action('explore', { mode: 'full', page: 1 });
      case 1:
        return action('add_to_frontier', { var_ids: [f.vars.m1, f.c.queryId, 'nope@1', f.vars.facts1] });
      case 2:
        return action('finish_node');
      case 3:
        return action('finish_node');
      case 4:
        return action('remove_from_frontier', { var_id: f.c.queryId });
      case 5:
        return action('search_value', { var_id: f.vars.facts1, pattern: '7 \\w+ 2023', context: 5 });
      case 6:
        return action('final_answer', {
          error_type: 'RetrievalError',
          op_id: 'op-does-not-exist',
          reason: 'guess',
        });
      default:
        return action('final_answer', {
          error_type: 'RetrievalError',
          op_id: f.ops.retrieve,
          reason: 'retrieval missed mem-1',
        });
    }
  };
}

describe('MemTrace frontier', () => {
  it('orders by (created_at, id), explores the first, caps at 16 and refuses as the paper says', () => {
    const f = mem0Fixture();
    const fr = initialFrontier(f.g, [f.c.queryId, f.vars.m2, f.vars.m1, f.vars.m1]);
    expect(fr).toEqual({ current: f.vars.m1, list: [f.vars.m2, f.c.queryId], explored: [] });
    expect(addToFrontier(f.g, fr, f.vars.m1)).toBe('current');
    expect(addToFrontier(f.g, fr, f.vars.m2)).toBe('listed');
    expect(addToFrontier(f.g, fr, 'x@1')).toBe('unknown');
    expect(addToFrontier(f.g, fr, f.vars.store2)).toBe('added');
    expect(fr.list.indexOf(f.vars.store2)).toBeLessThan(fr.list.indexOf(f.c.queryId));
    finishCurrent(fr);
    expect(fr.current).toBe(f.vars.m2);
    expect(addToFrontier(f.g, fr, f.vars.m1)).toBe('explored');
    expect(removeFromFrontier(fr, f.c.queryId)).toBe(true);
    expect(removeFromFrontier(fr, f.c.queryId)).toBe(false);
    const b = new DocBuilder();
    const many = Array.from({ length: 20 }, (_, i) => b.variable(`m${i}`, `'${i}'`, { category: 'message' }));
    const g = buildGraph(b.doc);
    const big = initialFrontier(g, many);
    expect(big.current).toBe(many[0]);
    expect(big.list).toEqual(many.slice(1, 1 + MAX_FRONTIER));
    removeFromFrontier(big, many[5]);
    expect(addToFrontier(g, big, many[18])).toBe('added');
    expect(addToFrontier(g, big, many[19])).toBe('full');
  });
});

describe('MemTrace agent (scripted policy)', () => {
  it('starts from the start points and the question, shows views, applies refusals, re-asks an invalid op id', async () => {
    const f = mem0Fixture();
    const model = new ScriptedChatModel([walkPolicy(f)], { loop: true });
    const events: AttributionEvent[] = [];
    const a = await engineFor('memtrace')(
      { graph: f.g, case: f.c, system: 'mem0' },
      { model },
      { onEvent: (e) => events.push(e) },
    );
    expect(a).toMatchObject({ method: 'memtrace', error_type: 'RetrievalError', op_id: f.ops.retrieve });
    const [first] = model.requests;
    expect(first.temperature).toBe(1);
    expect(first.messages[0].role).toBe('system');
    const intro = first.messages[1].content;
    expect(intro).toContain('golden answer: 7 May 2023');
    expect(intro).toContain('System prior (Mem0)');
    expect(intro).toContain(`exploring: ${f.vars.m1}`);
    expect(intro).toMatch(new RegExp(`to-explore \\(2/16\\): ${f.vars.m2}, ${f.c.queryId}`));
    expect(intro).toContain('preview');
    expect(intro).toContain(`op_id: ${f.ops.extract1}`);
    expect(intro).not.toContain('Caroline went to'); // preview: no values
    // Step 1: the full view has values.
    expect(lastText(model.requests[1])).toContain('· full · page 1/1');
    expect(lastText(model.requests[1])).toContain('Caroline went to the LGBTQ support group on 7 May 2023');
    // Step 2: refusals.
    const add = lastText(model.requests[2]);
    expect(add).toContain(`${f.vars.m1}: refused: it is being explored now`);
    expect(add).toContain(`${f.c.queryId}: refused: already in the to-explore list`);
    expect(add).toContain('nope@1: refused: no such variable');
    expect(add).toContain(`${f.vars.facts1}: added`);
    // Finishing moves to the earliest listed variable: m2, then the facts (created before the question).
    expect(lastText(model.requests[3])).toContain(`Now exploring ${f.vars.m2}`);
    expect(lastText(model.requests[4])).toContain(`Now exploring ${f.vars.facts1}`);
    expect(lastText(model.requests[4])).toContain(`to-explore (1/16): ${f.c.queryId}`);
    expect(lastText(model.requests[5])).toContain(`Removed ${f.c.queryId}`);
    expect(lastText(model.requests[6])).toMatch(/1 match\(es\)\]\n@46: …p on 7 May 2023'\]…/);
    // The invalid op id is refused and the model asked again.
    expect(lastText(model.requests[7])).toContain(
      'op_id "op-does-not-exist" is not an operation of this graph',
    );
    expect(model.requests).toHaveLength(8);
    expect(a.cost.llm_calls).toBe(8);
    expect(a.cost.input_tokens).toBeGreaterThan(1000);
    expect(a.path.map((p) => p.var_id ?? p.op_id)).toEqual([
      f.vars.m1,
      f.vars.m2,
      f.vars.facts1,
      f.ops.retrieve,
    ]);
    const types = new Set(events.map((e) => e.type));
    expect([...types].sort()).toEqual(['checkpoint', 'done', 'explore', 'frontier', 'step', 'tokens']);
    const tokens = events.filter((e) => e.type === 'tokens').at(-1);
    expect(tokens).toEqual({
      type: 'tokens',
      input_tokens: a.cost.input_tokens,
      output_tokens: a.cost.output_tokens,
    });
  });

  it('pages a full view by characters', async () => {
    const f = mem0Fixture(40);
    const model = new ScriptedChatModel([
      action('explore', { mode: 'full', page: 2 }),
      action('final_answer', { error_type: 'ExtractionError', op_id: f.ops.extract1, reason: 'r' }),
    ]);
    await attributeMemTrace({ graph: f.g, case: f.c }, { model, agent: { pageChars: 400 } });
    const view = lastText(model.requests[1]);
    expect(view).toMatch(/\[explore conv:D1:3@1 · full · page 2\/\d+ · \d+ chars\]/);
    const body = view.slice(view.indexOf(']\n') + 2, view.indexOf('\n\n[step'));
    expect(body.length).toBe(400);
  });

  it('compresses the history past the threshold, keeps the 3 latest messages, and counts the call', async () => {
    const f = mem0Fixture(30);
    const model = new ScriptedChatModel([walkPolicy(f)], { loop: true });
    const a = await attributeMemTrace({ graph: f.g, case: f.c }, { model, agent: { compressAt: 1500 } });
    const summaries = model.requests.filter((r) => r.messages[0].content.startsWith('You compress'));
    expect(summaries.length).toBeGreaterThan(0);
    expect(a.cost.llm_calls).toBe(model.requests.length);
    const after = model.requests[model.requests.indexOf(summaries[0]) + 1];
    expect(after.messages[1].content).toContain('Summary of the exploration so far');
    expect(after.messages[1].content).toContain('Summary: m1 extracted correctly');
    expect(after.messages[1].content).toContain('question: When did Caroline');
    expect(after.messages.length).toBeLessThanOrEqual(4); // system, summary(+latest), 2 more
    expect(a.op_id).toBe(f.ops.retrieve);
  });

  it('stops when the signal aborts mid-run', async () => {
    const f = mem0Fixture();
    const ctl = new AbortController();
    const policy = walkPolicy(f);
    const model = new ScriptedChatModel(
      [
        (req) => {
          if (stepOf(req) === 2) ctl.abort();
          return policy(req);
        },
      ],
      { loop: true },
    );
    await expect(
      attributeMemTrace({ graph: f.g, case: f.c }, { model }, { signal: ctl.signal }),
    ).rejects.toThrow(/abort/i);
    expect(model.requests).toHaveLength(3);
  });

  it('resumes from a checkpoint to the same result and cost', async () => {
    const f = mem0Fixture();
    const full = new ScriptedChatModel([walkPolicy(f)], { loop: true });
    const checkpoints: AgentCheckpoint[] = [];
    const a = await attributeMemTrace(
      { graph: f.g, case: f.c },
      { model: full },
      {
        onEvent: (e) => e.type === 'checkpoint' && checkpoints.push(e.checkpoint),
      },
    );
    const mid = JSON.parse(JSON.stringify(checkpoints.find((c) => c.step === 4))) as AgentCheckpoint;
    expect(mid.frontier?.current).toBe(f.vars.facts1);
    const rest = new ScriptedChatModel([walkPolicy(f)], { loop: true });
    const b = await attributeMemTrace({ graph: f.g, case: f.c }, { model: rest }, { resume: mid });
    expect(rest.requests).toHaveLength(full.requests.length - 4);
    expect(rest.requests[0].messages).toEqual(full.requests[4].messages);
    expect({ ...b, cost: { ...b.cost, seconds: 0 } }).toEqual({ ...a, cost: { ...a.cost, seconds: 0 } });
    await expect(
      attributeMemTrace(
        { graph: f.g, case: { ...f.c, queryId: 'other@1' } },
        { model: rest },
        { resume: mid },
      ),
    ).rejects.toThrow(/cannot resume/);
  });
});
