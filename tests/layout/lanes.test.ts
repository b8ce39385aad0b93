import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticDocument } from '../../bench/lanes-synthetic.ts';
import {
  buildGraph,
  isSentinelOp,
  isSentinelVar,
  openTrace,
  row,
  type TraceGraph,
} from '../../src/core/graph/index.ts';
import {
  firstInRow,
  type LaneLayout,
  laneLayout,
  laneLayoutTransferables,
  packRows,
  ROLE_INPUT,
  ROLE_OUTPUT,
} from '../../src/core/layout/index.ts';
import { graph, withSentinels } from './build.ts';

const DATA = join(import.meta.dirname, '../../../shared/data/smartcomment');
const realFiles = readdirSync(DATA).filter((f) => f.endsWith('.json'));

function open(file: string): TraceGraph {
  const r = openTrace(readFileSync(join(DATA, file), 'utf8'), { file });
  if (!r.ok) throw new Error(`${file} did not open`);
  return r.graph;
}

/** Invariants every lane layout keeps, checked against the graph it was made from; returns what is broken. */
function problems(g: TraceGraph, l: LaneLayout): string[] {
  const out: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok && out.length < 20) out.push(what);
  };
  const nv = g.varId.length;
  // Every op at its execution rank; hidden exactly when it is a sentinel.
  for (let o = 0; o < g.opId.length; o++) {
    if (isSentinelOp(g, o)) check(l.opColumn[o] === -1, `sentinel op ${o} shown`);
    else {
      check(l.opColumn[o] === g.opRank[o], `op ${o} not at its rank`);
      check(l.columnOp[g.opRank[o]] === o, `column of op ${o} does not map back`);
    }
  }
  // Every visible version of a lineage on the same lane and row, in version order along x.
  for (let v = 0; v < nv; v++) {
    if (isSentinelVar(g, v)) {
      check(l.varRow[v] === -1, `sentinel var ${v} shown`);
      continue;
    }
    check(l.varRow[v] >= 0, `var ${v} hidden`);
    check(l.laneLineage[l.varLane[v]] === g.varLineage[v], `var ${v} on another lineage's lane`);
    check(l.laneRow[l.varLane[v]] === l.varRow[v], `var ${v} off its lane's row`);
    check(l.varX1[v] >= l.varX0[v], `var ${v} ends before it starts`);
  }
  for (let ln = 0; ln < g.lineageNames.length; ln++) {
    const chain = Array.from(row(g.lineages, ln)).filter((v) => !isSentinelVar(g, v));
    for (let k = 1; k < chain.length; k++) {
      check(l.varLane[chain[k]] === l.varLane[chain[0]], `lineage ${ln} split over lanes`);
      check(l.varX0[chain[k]] >= l.varX0[chain[k - 1]], `lineage ${ln} goes back in time`);
      check(l.varX1[chain[k - 1]] === l.varX0[chain[k]], `lineage ${ln} has a gap`);
    }
  }
  // The first version starts at the column of its first producer.
  for (let v = 0; v < nv; v++) {
    if (l.varRow[v] < 0 || row(g.lineages, g.varLineage[v])[0] !== v) continue;
    let first = Number.POSITIVE_INFINITY;
    for (const e of row(g.varInEdges, v))
      if (l.opColumn[g.edgeOp[e]] >= 0) first = Math.min(first, l.opColumn[g.edgeOp[e]]);
    if (first !== Number.POSITIVE_INFINITY) check(l.varX0[v] === first, `var ${v} not at its producer`);
  }
  // Lanes are ordered by first appearance.
  for (let k = 1; k < l.lanes; k++) check(l.laneX0[k] >= l.laneX0[k - 1], `lane ${k} out of order`);
  // Each op's connector spans exactly the rows of its visible variables.
  for (let o = 0; o < g.opId.length; o++) {
    if (l.opColumn[o] < 0) continue;
    let min = Number.POSITIVE_INFINITY;
    let max = -1;
    for (let i = l.opVarOffsets[o]; i < l.opVarOffsets[o + 1]; i++) {
      min = Math.min(min, l.varRow[l.opVarItems[i]]);
      max = Math.max(max, l.varRow[l.opVarItems[i]]);
    }
    if (max < 0) check(l.opRowMin[o] === -1, `empty op ${o} has a connector`);
    else check(l.opRowMin[o] === min && l.opRowMax[o] === max, `op ${o} connector span`);
  }
  // Rows are sorted by x so the view can binary-search them.
  let indexed = 0;
  for (let r = 0; r < l.rows; r++) {
    const items = l.rowVarItems.subarray(l.rowVarOffsets[r], l.rowVarOffsets[r + 1]);
    indexed += items.length;
    for (let k = 1; k < items.length; k++) {
      check(l.varX1[items[k]] >= l.varX1[items[k - 1]], `row ${r} unsorted by x1`);
      check(l.varX0[items[k]] >= l.varX0[items[k - 1]], `row ${r} unsorted by x0`);
    }
    for (const v of items) check(l.varRow[v] === r, `var ${v} indexed in row ${r}`);
  }
  check(indexed === Array.from(l.varRow).filter((r) => r >= 0).length, 'row index misses variables');
  return out;
}

describe('laneLayout(graph) on the real smartcomment files', () => {
  it.each(realFiles)('%s: every op at its execution rank, every version chain on one lane', (file) => {
    const g = open(file);
    const l = laneLayout(g);
    expect(l.columns).toBe(g.opId.length);
    expect(l.lanes).toBe(g.lineageNames.length);
    expect(l.rows).toBe(l.lanes);
    expect(problems(g, l)).toEqual([]);
  });

  it('packing keeps a lane per lineage, shares rows only between lanes that do not overlap', () => {
    const g = open(realFiles[0]);
    const l = laneLayout(g, { pack: true, packGap: 1 });
    expect(problems(g, l)).toEqual([]);
    expect(l.rows).toBeLessThan(l.lanes);
    const byRow = new Map<number, number[]>();
    for (let k = 0; k < l.lanes; k++) byRow.set(l.laneRow[k], [...(byRow.get(l.laneRow[k]) ?? []), k]);
    for (const lanes of byRow.values())
      for (let i = 1; i < lanes.length; i++)
        expect(l.laneX0[lanes[i]]).toBeGreaterThan(l.laneX1[lanes[i - 1]] + 1);
  });
});

describe('laneLayout(graph) on hand-built graphs', () => {
  it('a mutation chain is one lane; inputs start just before their reader', () => {
    const g = graph({
      vars: [
        { name: 'msg' },
        { name: 'store' },
        { name: 'store', version: 2 },
        { name: 'store', version: 3 },
      ],
      ops: [
        { id: 'op1', at: '2024-01-01 00:00:01.000', in: ['msg@1', 'store@1'], out: ['store@2'] },
        { id: 'op0', at: '2024-01-01 00:00:00.500', in: [], out: [] },
        { id: 'op2', at: '2024-01-01 00:00:02.000', in: ['store@2'], out: ['store@3'] },
      ],
    });
    const l = laneLayout(g);
    const [msg, s1, s2, s3] = ['msg@1', 'store@1', 'store@2', 'store@3'].map((id) => g.varIndex.get(id)!);
    expect(l.opColumn[g.opIndex.get('op0')!]).toBe(0);
    expect(l.opColumn[g.opIndex.get('op1')!]).toBe(1);
    expect(l.opColumn[g.opIndex.get('op2')!]).toBe(2);
    expect(l.lanes).toBe(2);
    expect(l.varLane[s1]).toBe(l.varLane[s2]);
    expect(l.varLane[s2]).toBe(l.varLane[s3]);
    expect([l.varX0[msg], l.varX0[s1], l.varX0[s2], l.varX0[s3]]).toEqual([0.5, 0.5, 1, 2]);
    expect(l.varX1[s3]).toBe(2.5); // last version visible for half a column
    const o1 = g.opIndex.get('op1')!;
    const items = Array.from(l.opVarItems.subarray(l.opVarOffsets[o1], l.opVarOffsets[o1 + 1]));
    const roles = Array.from(l.opVarRole.subarray(l.opVarOffsets[o1], l.opVarOffsets[o1 + 1]));
    expect(items).toEqual([msg, s2, s1]); // first appearance among the op's edges
    expect(roles).toEqual([ROLE_INPUT, ROLE_OUTPUT, ROLE_INPUT]);
    expect(l.opRowMin[g.opIndex.get('op0')!]).toBe(-1); // an op with no edges draws nothing
  });

  it('sentinel variables and ops are hidden and never stretch a connector', () => {
    const g = withSentinels();
    const l = laneLayout(g);
    expect(problems(g, l)).toEqual([]);
    const none = g.varIndex.get('COMMENT:NONE@1')!;
    expect(l.varRow[none]).toBe(-1);
    expect(l.laneName).not.toContain('COMMENT:NONE');
    expect(l.opColumn[g.opIndex.get('__none_op__')!]).toBe(-1);
    const make = g.opIndex.get('op-make')!;
    expect(l.opRowMin[make]).toBe(l.varRow[g.varIndex.get('a@1')!]);
    expect(l.opRowMax[make]).toBe(l.opRowMin[make]);
  });

  it('versions that no op touches are placed by their timestamp', () => {
    const g = graph({
      vars: [{ name: 'x', at: '2024-01-01 00:00:01.500' }],
      ops: [
        { id: 'a', at: '2024-01-01 00:00:01.000', in: [], out: [] },
        { id: 'b', at: '2024-01-01 00:00:02.000', in: [], out: [] },
      ],
    });
    expect(laneLayout(g).varX0[0]).toBe(0.5);
  });

  it('firstInRow finds the first version ending at or after x', () => {
    const g = graph({
      vars: [{ name: 's' }, { name: 's', version: 2 }, { name: 's', version: 3 }],
      ops: [
        { id: 'm1', at: '2024-01-01 00:00:01.000', in: ['s@1'], out: ['s@2'] },
        { id: 'm2', at: '2024-01-01 00:00:02.000', in: ['s@2'], out: ['s@3'] },
      ],
    });
    const l = laneLayout(g);
    expect(l.rowVarItems[firstInRow(l, 0, 0.7)]).toBe(1); // s@2 spans [0, 1]
    expect(l.rowVarItems[firstInRow(l, 0, 1.2)]).toBe(2);
    expect(firstInRow(l, 0, 99)).toBe(l.rowVarOffsets[1]);
  });

  it('packRows gives each lane the lowest row free at its start', () => {
    const rows = packRows(Float64Array.of(0, 1, 3, 4, 9), Float64Array.of(2, 5, 6, 8, 10), 0);
    expect(Array.from(rows)).toEqual([0, 1, 0, 2, 0]);
  });

  it('laneLayoutTransferables lists distinct buffers of the typed arrays', () => {
    const l = laneLayout(withSentinels());
    const buffers = laneLayoutTransferables(l);
    expect(new Set(buffers).size).toBe(buffers.length);
    expect(buffers).toContain(l.varX0.buffer);
  });
});

describe('laneLayout at scale', () => {
  // Its speed is measured by bench/lanes-synthetic.ts, not asserted here (timings belong in benchmarks).
  it('a 20k-variable synthetic run keeps the invariants', () => {
    const g = buildGraph(syntheticDocument(20_000, 7));
    const l = laneLayout(g, { pack: true });
    expect(problems(g, l)).toEqual([]);
    expect(l.rows).toBeLessThan(l.lanes / 4);
  });
});
