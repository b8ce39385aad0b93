import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTrace, opStructure, type TraceGraph } from '../../src/core/graph/index.ts';
import {
  EDGE_LINEAGE,
  type LayeredLayout,
  layeredLayout,
  NODE_OP,
  NODE_VAR,
  neighbourhood,
  neighbourhoodLayout,
} from '../../src/core/layout/index.ts';
import { graph, withSentinels } from './build.ts';

const DATA = join(import.meta.dirname, '../../../shared/data/smartcomment');

function open(file: string): TraceGraph {
  const r = openTrace(readFileSync(join(DATA, file), 'utf8'), { file });
  if (!r.ok) throw new Error(`${file} did not open`);
  return r.graph;
}

/** Boxes of one layer overlapping (centres closer than half their heights). */
function overlaps(l: LayeredLayout): number {
  let n = 0;
  for (let a = 0; a < l.x.length; a++)
    for (let b = a + 1; b < l.x.length; b++)
      if (l.layer[a] === l.layer[b] && Math.abs(l.y[a] - l.y[b]) < (l.height[a] + l.height[b]) / 2) n++;
  return n;
}

describe('layeredLayout(input)', () => {
  it('puts every edge of a DAG from a lower layer to a higher one, left to right', () => {
    // a diamond with a long edge and a source that only feeds the last node
    const src = [0, 0, 1, 2, 0, 5];
    const dst = [1, 2, 3, 3, 3, 3];
    const l = layeredLayout({ nodes: 6, edgeSrc: src, edgeDst: dst });
    for (let e = 0; e < src.length; e++) {
      expect(l.layer[src[e]]).toBeLessThan(l.layer[dst[e]]);
      expect(l.x[src[e]]).toBeLessThan(l.x[dst[e]]);
    }
    expect(l.layer[5]).toBe(l.layer[3] - 1); // sources sit next to their consumer
    expect(Array.from(l.edgeReversed)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(overlaps(l)).toBe(0);
  });

  it('routes a long edge through one point per layer it crosses', () => {
    const l = layeredLayout({ nodes: 4, edgeSrc: [0, 1, 2, 0], edgeDst: [1, 2, 3, 3] });
    const e = 3; // 0 → 3 crosses layers 1 and 2
    expect(l.edgePointOffsets[e + 1] - l.edgePointOffsets[e]).toBe(4);
    const first = l.edgePointOffsets[e] * 2;
    const last = (l.edgePointOffsets[e + 1] - 1) * 2;
    expect(l.edgePoints[first]).toBeCloseTo(l.x[0] + l.width[0] / 2);
    expect(l.edgePoints[last]).toBeCloseTo(l.x[3] - l.width[3] / 2);
  });

  it('breaks a cycle by turning one edge around and still layers the rest forwards', () => {
    const src = [0, 1, 2, 3];
    const dst = [1, 2, 0, 3];
    const l = layeredLayout({ nodes: 4, edgeSrc: src, edgeDst: dst });
    expect(l.edgeReversed[2]).toBe(1);
    expect(l.edgeReversed[3]).toBe(1); // a self loop
    for (const e of [0, 1]) expect(l.layer[src[e]]).toBeLessThan(l.layer[dst[e]]);
  });

  it('removes the crossings of two swapped pairs', () => {
    // priority puts b above a in layer 0 but their targets in the other order
    const l = layeredLayout({ nodes: 4, edgeSrc: [0, 1], edgeDst: [2, 3], priority: [1, 0, 0, 1] });
    expect(l.crossings).toBe(0);
    expect(Math.sign(l.y[0] - l.y[1])).toBe(Math.sign(l.y[2] - l.y[3]));
  });

  it('stops reducing crossings once the deadline has passed', () => {
    let t = 0;
    const l = layeredLayout({ nodes: 4, edgeSrc: [0, 1], edgeDst: [3, 2] }, { now: () => t++, deadline: -1 });
    expect(l.timedOut).toBe(true);
  });
});

describe('neighbourhood(graph, seeds) on real files', () => {
  const g = open('conv-26-fault-0.json');

  it('around an op: its inputs feed it, it feeds its outputs', () => {
    const op = g.opName.indexOf('memory-update');
    const nb = neighbourhood(g, { ops: [op] }, { depth: 1 });
    const s = opStructure(g, op);
    expect(nb.kind[0]).toBe(NODE_OP);
    const local = (v: number) => Array.from(nb.index).findIndex((i, k) => i === v && nb.kind[k] === NODE_VAR);
    for (const v of s.inputs) expect(pairs(nb)).toContainEqual([local(v), 0]);
    for (const v of s.outputs) expect(pairs(nb)).toContainEqual([0, local(v)]);
    expect(nb.kind.length).toBe(1 + s.inputs.length + s.outputs.length + s.intermediates.length);
  });

  it('the layered layout of a real neighbourhood has no edge pointing backwards in layers', () => {
    for (const name of ['llm-judge', 'memory-update', 'fact-extraction']) {
      const op = g.opName.lastIndexOf(name);
      const { nb, layout } = neighbourhoodLayout(g, { ops: [op] }, { depth: 4, maxNodes: 200 });
      expect(nb.kind.length).toBeGreaterThan(3);
      expect(nb.kind.length).toBeLessThanOrEqual(200);
      for (let e = 0; e < nb.edgeSrc.length; e++) {
        expect(layout.edgeReversed[e]).toBe(0);
        expect(layout.layer[nb.edgeSrc[e]]).toBeLessThan(layout.layer[nb.edgeDst[e]]);
      }
      expect(overlaps(layout)).toBe(0);
    }
  });

  it('maxNodes keeps the nearest nodes and says it cut', () => {
    const v = g.varIndex.get('memory-store@40')!;
    const nb = neighbourhood(g, { vars: [v] }, { depth: 10, maxNodes: 30 });
    expect(nb.kind.length).toBe(30);
    expect(nb.truncated).toBe(true);
    for (let k = 1; k < nb.depth.length; k++) expect(nb.depth[k]).toBeGreaterThanOrEqual(nb.depth[k - 1]);
  });
});

describe('neighbourhood(graph, seeds) on hand-built graphs', () => {
  it('links versions no shown op connects, and leaves sentinels out', () => {
    const g = withSentinels();
    const a1 = g.varIndex.get('a@1')!;
    const nb = neighbourhood(g, { vars: [a1] }, { depth: 1 });
    expect(Array.from(nb.index).filter((_, k) => nb.kind[k] === NODE_VAR)).not.toContain(
      g.varIndex.get('COMMENT:NONE@1'),
    );
    expect(Array.from(nb.index).filter((_, k) => nb.kind[k] === NODE_OP)).not.toContain(
      g.opIndex.get('__none_op__'),
    );
    expect(Array.from(nb.edgeKind)).not.toContain(EDGE_LINEAGE); // op-mut links a@1 → a@2
  });

  it('links consecutive versions that no op connects (a non-strict change)', () => {
    const g = graph({
      vars: [{ name: 'x' }, { name: 'x', version: 2 }, { name: 'y' }],
      ops: [{ id: 'r', at: '2024-01-01 00:00:01.000', in: ['x@2'], out: ['y@1'] }],
    });
    const nb = neighbourhood(g, { vars: [0] }, { depth: 3 });
    const x2 = Array.from(nb.index).findIndex((i, k) => i === 1 && nb.kind[k] === NODE_VAR);
    const lineage = Array.from(nb.edgeKind).indexOf(EDGE_LINEAGE);
    expect([nb.edgeSrc[lineage], nb.edgeDst[lineage]]).toEqual([0, x2]);
    expect(nb.kind.length).toBe(4);
  });

  it('a version step through a shown mutation op is not doubled by a lineage edge', () => {
    const g = graph({
      vars: [{ name: 'x' }, { name: 'x', version: 2 }],
      ops: [{ id: 'm', at: '2024-01-01 00:00:01.000', in: ['x@1'], out: ['x@2'] }],
    });
    const nb = neighbourhood(g, { ops: [0] });
    expect(Array.from(nb.edgeKind)).not.toContain(EDGE_LINEAGE);
    expect(nb.edgeSrc.length).toBe(2);
  });
});

function pairs(nb: { edgeSrc: Int32Array; edgeDst: Int32Array }): number[][] {
  return Array.from(nb.edgeSrc, (s, e) => [s, nb.edgeDst[e]]);
}
