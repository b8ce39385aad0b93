/**
 * A case's verdict comes with the names of what it names (issue 33, build item 6: names, never
 * raw ids, from the first frame): `caseVerdict` sends every op its panel shows — the verdict's
 * op, the label's op, the path's ops and variables, the runners-up, the writers of the quoted
 * texts — named, computed or reused. The names are checked against the raw file's operations and
 * nodes, read here as JSON (not through the workbench's graph). IndexedDB is fake-indexeddb under the real Dexie.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { type MemtraceDb, openDb } from '../../src/db/index.ts';
import type { EvaluatedCase } from '../../src/db/runs.ts';
import { EngineService } from '../../workers/engine.ts';

const bytes = readFileSync(
  new URL('../../../shared/data/smartcomment/conv-26-fault-1.json', import.meta.url),
);
const raw = JSON.parse(bytes.toString('utf8')) as {
  data: {
    operations: { op_id: string; op_name: string; category: string }[];
    nodes: { full_node_id: string; full_name: string; version: number }[];
  };
};
const rawOps = new Map(raw.data.operations.map((o) => [o.op_id, o]));
const rawVars = new Map(raw.data.nodes.map((n) => [n.full_node_id, n]));
const opened = openTrace(bytes.toString('utf8'), { file: 'f1.json' });
if (!opened.ok) throw new Error('test file does not open');
const failed = listCases(opened.graph).filter((c) => c.failed);

const dbs: MemtraceDb[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.delete();
});

/** Every op id the attribution panel shows for `v`, read off the verdict. */
function shownOps(v: EvaluatedCase): string[] {
  const g = v.grounds;
  return [
    v.predicted_op,
    v.label_op,
    ...v.path.map((s) => s.op_id),
    ...(g?.runners_up ?? []).map((r) => r.op_id),
    g?.held?.written_by?.op_id,
    g?.after?.written_by?.op_id,
  ].filter((id): id is string => !!id);
}

describe('a verdict comes with its names', () => {
  it('names every op and variable its panel shows, as the file names them, when attributed and when reused', async () => {
    const db = openDb(`verdict-names-${process.pid}`);
    dbs.push(db);
    const engine = new EngineService(db);
    const [r] = await engine.importFiles([{ blob: new Blob([bytes]), name: 'f1.json', path: 'f1.json' }], {});
    let named = 0;
    let namedVars = 0;
    for (const c of failed.slice(0, 4)) {
      for (const turn of ['attributed', 'reused']) {
        const { verdict, names } = await engine.caseVerdict(r.traceId!, c.queryId);
        const byId = new Map(names.ops.map((o) => [o.id, o]));
        for (const id of shownOps(verdict)) {
          const o = rawOps.get(id);
          expect(o, `${turn} ${c.queryId}: ${id} is an op of the file`).toBeDefined();
          expect(byId.get(id)?.name, `${turn} ${c.queryId}: ${id}`).toBe(o?.op_name);
          expect(byId.get(id)?.category).toBe(o?.category);
          named++;
        }
        const pathVars = verdict.path.map((s) => s.var_id).filter((id): id is string => !!id);
        const varsById = new Map(names.variables.map((v) => [v.id, v]));
        for (const id of pathVars) {
          const n = rawVars.get(id);
          expect(varsById.get(id), `${turn} ${c.queryId}: variable ${id}`).toEqual(
            n && { id, name: n.full_name, version: n.version },
          );
          namedVars++;
        }
      }
    }
    expect(named).toBeGreaterThan(0);
    expect(namedVars).toBeGreaterThan(0);
  }, 120_000);
});
