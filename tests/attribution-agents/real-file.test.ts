import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  attributeMemTrace,
  attributeObs,
  memtraceOracle,
  obsOracle,
} from '../../src/core/attribution/agents/index.ts';
import { listCases } from '../../src/core/cases/cases.ts';
import { openTrace } from '../../src/core/graph/open.ts';
import { ScriptedChatModel } from '../../src/core/llm/scripted.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const file = join(SMARTCOMMENT_DIR, 'conv-26-fault-0.json');
const opened = openTrace(readFileSync(file, 'utf8'), { file });
if (!opened.ok) throw new Error('fixture did not open');
const g = opened.graph;
const cases = listCases(g).filter((c) => c.label?.opId);

describe('agents on a real file with scripted oracle judges (no LLM)', () => {
  const c = cases.find((x) => x.label?.errorType === 'ExtractionError')!;
  const label = { op_id: c.label!.opId!, error_type: c.label!.errorType };

  it('MemTrace walks from the start points to the labelled op; prior mode gets there cheaper', async () => {
    const runs = [];
    for (const prior of [false, true]) {
      const oracle = memtraceOracle(g, label);
      const model = new ScriptedChatModel([oracle.step], { loop: true });
      const a = await attributeMemTrace({ graph: g, case: c, system: 'mem0' }, { model, prior });
      expect(oracle.reached).toBe(true);
      expect(a).toMatchObject({ error_type: 'ExtractionError', op_id: label.op_id });
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
      expect(a.op_id).toBe(label.op_id);
      runs.push(a.cost.input_tokens);
      if (prior) expect(a.cost.llm_calls).toBe(1);
    }
    expect(runs[1]).toBeLessThan(runs[0]);
  });
});
