import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  attributeMemTrace,
  attributeObs,
  memtraceOracle,
  obsOracle,
} from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace, opVariables } from '../../src/core/graph/index.ts';
import { ScriptedChatModel } from '../../src/core/llm/index.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const file = join(SMARTCOMMENT_DIR, 'conv-26-fault-0.json');
const opened = openTrace(readFileSync(file, 'utf8'), { file });
if (!opened.ok) throw new Error('fixture did not open');
const g = opened.graph;
const cases = listCases(g).filter((c) => c.label?.opId);

/**
 * The oracle knows the label and answers it once the agent's tools have shown that op, so the
 * answer itself proves nothing: these tests check what the tools did — which variables the
 * walk explored, which blocks it read — against the graph's own edges, and that a label the
 * tools never show is never answered.
 */
describe('agents on a real file with scripted oracle judges (no LLM)', () => {
  const c = cases.find((x) => x.label?.errorType === 'ExtractionError')!;
  const label = { op_id: c.label!.opId!, error_type: c.label!.errorType };
  const labelOp = g.opIndex.get(label.op_id)!;
  /** Variables of the labelled op, from the graph's edges (not from the agent). */
  const labelVars = new Set(opVariables(g, labelOp).map((v) => g.varId[v]));

  it('MemTrace walks from the start points to the labelled op; prior mode gets there cheaper', async () => {
    const runs = [];
    for (const prior of [false, true]) {
      const oracle = memtraceOracle(g, label);
      const model = new ScriptedChatModel([oracle.step], { loop: true });
      const a = await attributeMemTrace({ graph: g, case: c, system: 'mem0' }, { model, prior });
      expect(oracle.reached).toBe(true);
      if (!prior) {
        // The walk's last explored variable touches the labelled op: the explore view showed it.
        const explored = a.path.filter((p) => p.var_id).map((p) => p.var_id!);
        expect(labelVars.has(explored[explored.length - 1])).toBe(true);
        // Every explored variable is a variable of the graph, reached along its edges from the start.
        for (const id of explored) expect(g.varIndex.has(id)).toBe(true);
      }
      expect(a.cost.llm_calls).toBe(model.requests.length);
      const first = model.requests[0].messages[1].content;
      if (!prior) {
        expect(first).toContain(`query:conv-26-qa-11@1`); // the question node is in the frontier
        expect(first).toMatch(/to-explore \(8\/16\)/); // 8 start points + the question, one being explored
      } else expect(first).toContain('# Prior:');
      runs.push(a.cost.input_tokens);
    }
    expect(runs[1]).toBeLessThan(runs[0]);
  });

  it('OBS greps and reads blocks until the labelled op; prior mode answers from the seeded blocks', async () => {
    const runs = [];
    for (const prior of [false, true]) {
      const oracle = obsOracle(g, label, c.question, c.goldenAnswers);
      const model = new ScriptedChatModel([oracle.step], { loop: true });
      const a = await attributeObs({ graph: g, case: c }, { model, prior });
      expect(oracle.reached).toBe(true);
      // The blocks the agent read (its path) include the labelled op, shown by grep / window / view_op.
      expect(a.path.map((p) => p.op_id)).toContain(label.op_id);
      runs.push(a.cost.input_tokens);
      if (prior) expect(a.cost.llm_calls).toBe(1);
    }
    expect(runs[1]).toBeLessThan(runs[0]);
  });

  it('an answer naming an op the graph does not have is refused, so no run "finds" a made-up label', async () => {
    const fake = { op_id: 'op-not-in-this-graph', error_type: 'ExtractionError' };
    const oracle = obsOracle(g, fake, c.question, c.goldenAnswers);
    const model = new ScriptedChatModel([oracle.step], { loop: true });
    // No accepted answer within the budget: the run fails (a failed case), it does not answer "none".
    await expect(
      attributeObs({ graph: g, case: c }, { model, agent: { maxSteps: 12 } }),
    ).rejects.toMatchObject({
      name: 'AgentStoppedError',
      kind: 'budget-exhausted',
    });
    expect(oracle.reached).toBe(false);
  });
});
