/**
 * The engine's span answers (workers/trace-engine.ts) on real files from ../shared/data: the
 * span rows of Phoenix span rows of an agent turn (read off the file: s01 `pxi.turn` holds
 * s02–s18, s11 failed with status ERROR), none for a smartcomment trace, and the cases whose
 * path passes through an op — each case's own judge op is on its path (the path ends with it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/core/graph/index.ts';
import { cell, STATUS } from '../../src/core/spans/index.ts';
import { TraceEngine } from '../../workers/trace-engine.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

function engine(rel: string): TraceEngine {
  const opened = openTrace(readFileSync(join(SHARED_DATA, rel), 'utf8'), { file: rel });
  if (!opened.ok) throw new Error(opened.issues[0]?.message);
  return new TraceEngine(rel, opened.graph);
}

describe('TraceEngine span answers', () => {
  it('gives the span rows of a Phoenix agent turn: one root holding 17 spans, s11 failed', () => {
    const t = engine('otel-thirdparty/phoenix-span-rows-agent-turn.json').spanTable;
    expect(t.count).toBe(18);
    expect(cell(t.spanId, 0)).toBe('s01');
    expect(cell(t.name, 0)).toBe('pxi.turn');
    expect([...t.depth]).toEqual([0, ...new Array(17).fill(1)]);
    expect(Array.from({ length: 18 }, (_, r) => cell(t.spanId, r))).toEqual(
      Array.from({ length: 18 }, (_, i) => `s${String(i + 1).padStart(2, '0')}`),
    );
    const failed = [...t.status].flatMap((s, r) => (s === STATUS.error ? [cell(t.spanId, r)] : []));
    expect(failed).toEqual(['s11']);
  });

  it('gives no span rows for a smartcomment trace, and the cases through each judge op', () => {
    const e = engine('smartcomment/conv-26-rag-0.json');
    expect(e.spanTable.count).toBe(0);
    const judged = e.cases.filter((c) => c.judgeOpId);
    expect(judged.length).toBeGreaterThan(0);
    for (const c of judged.slice(0, 5))
      expect(e.casesThroughOp(c.judgeOpId!).map((x) => x.queryId)).toContain(c.queryId);
    expect(e.casesThroughOp('no-such-op')).toEqual([]);
  });
});
