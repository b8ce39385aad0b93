/**
 * A stored evidence-flow verdict (what the app keeps: type, op, reason, method and its grounds,
 * not the attributor's candidates) makes the same report case as the live attribution: the
 * report reads "evidence unit changed later" off the stored grounds instead of running the
 * carrying test again. On the shared files with an injected update and deletion fault.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evidenceFlowEngine } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { reportCase, verdictGrounds } from '../../src/core/report/index.ts';
import { corpusFromGraph, RetrievalIndex } from '../../src/core/retrieval/index.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

describe('a report case from a stored verdict', () => {
  it('equals the one from the live attribution, "unit changed later" included', async () => {
    let changed = 0;
    let n = 0;
    for (const name of ['conv-26-fault-1.json', 'conv-26-fault-2.json']) {
      const opened = openTrace(readFileSync(join(SMARTCOMMENT_DIR, name), 'utf8'), { file: name });
      if (!opened.ok) throw new Error(`${name} does not open`);
      const g = opened.graph;
      const deps = { index: await RetrievalIndex.build(corpusFromGraph(g, 'messages')) };
      for (const c of listCases(g).filter((x) => x.failed)) {
        const a = await evidenceFlowEngine({ graph: g, case: c }, deps);
        const live = reportCase(g, c, a);
        const stored = reportCase(g, c, {
          error_type: a.error_type,
          op_id: a.op_id,
          reason: a.reason,
          method: a.method,
          grounds: verdictGrounds(g, a),
        });
        expect(stored).toEqual(live);
        n++;
        if (live.features.unit_updated) changed++;
      }
    }
    expect(n).toBeGreaterThan(10);
    // The injected update and deletion faults: the path under test is taken.
    expect(changed).toBeGreaterThan(0);
  }, 120_000);
});
