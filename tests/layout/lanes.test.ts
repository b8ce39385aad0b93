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
  BAND_MESSAGES,
  BAND_QUESTIONS,
  BAND_UNITS,
  defaultExpanded,
  firstInSlot,
  type LaneLayout,
  type LaneRows,
  laneLayout,
  laneLayoutTransferables,
  laneRows,
  packRows,
  ROLE_INPUT,
  ROLE_OUTPUT,
} from '../../src/core/layout/index.ts';
import { otlpJson } from '../../src/sdk/otel.ts';
import { graph, withSentinels } from './build.ts';

const DATA = join(import.meta.dirname, '../../../shared/data/smartcomment');
const realFiles = readdirSync(DATA).filter((f) => f.endsWith('.json'));

function open(file: string): TraceGraph {
  const r = openTrace(readFileSync(join(DATA, file), 'utf8'), { file });
  if (!r.ok) throw new Error(`${file} did not open`);
  return r.graph;
}

const allOpen = (l: LaneLayout) => new Uint8Array(l.bands).fill(1);

/** Invariants every lane layout keeps, checked against the graph it was made from; returns what is broken. */
function problems(g: TraceGraph, l: LaneLayout, rows: LaneRows = laneRows(l, allOpen(l))): string[] {
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
  // Every visible version of a lineage on the same lane and slot, in version order along x.
  for (let v = 0; v < nv; v++) {
    if (isSentinelVar(g, v)) {
      check(l.varSlot[v] === -1 && rows.varRow[v] === -1, `sentinel var ${v} shown`);
      continue;
    }
    check(l.varSlot[v] >= 0, `var ${v} hidden`);
    check(l.laneLineage[l.varLane[v]] === g.varLineage[v], `var ${v} on another lineage's lane`);
    check(l.laneSlot[l.varLane[v]] === l.varSlot[v], `var ${v} off its lane's slot`);
    check(l.slotBand[l.varSlot[v]] === l.laneBand[l.varLane[v]], `var ${v} in another band's slot`);
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
    if (l.varSlot[v] < 0 || row(g.lineages, g.varLineage[v])[0] !== v) continue;
    let first = Number.POSITIVE_INFINITY;
    for (const e of row(g.varInEdges, v))
      if (l.opColumn[g.edgeOp[e]] >= 0) first = Math.min(first, l.opColumn[g.edgeOp[e]]);
    if (first !== Number.POSITIVE_INFINITY) check(l.varX0[v] === first, `var ${v} not at its producer`);
  }
  // Lanes are grouped by band, in band order, and by first appearance inside a band.
  for (let k = 1; k < l.lanes; k++) {
    check(l.laneBand[k] >= l.laneBand[k - 1], `lane ${k} out of band order`);
    if (l.laneBand[k] === l.laneBand[k - 1]) check(l.laneX0[k] >= l.laneX0[k - 1], `lane ${k} out of order`);
  }
  // Each band's slots are its own, contiguous; its lane count is right.
  for (let b = 0; b < l.bands; b++) {
    const lanes = Array.from(l.laneBand).filter((x) => x === b).length;
    check(lanes === l.bandLaneCount[b] && lanes > 0, `band ${b} lane count`);
    check(l.bandSlotOffsets[b + 1] > l.bandSlotOffsets[b], `band ${b} has no slot`);
  }
  check(l.bandSlotOffsets[l.bands] === l.slots, 'slots of the bands add up');
  // Each op's connector spans exactly the rows of its visible variables.
  for (let o = 0; o < g.opId.length; o++) {
    if (l.opColumn[o] < 0) continue;
    let min = Number.POSITIVE_INFINITY;
    let max = -1;
    for (let i = l.opVarOffsets[o]; i < l.opVarOffsets[o + 1]; i++) {
      min = Math.min(min, rows.varRow[l.opVarItems[i]]);
      max = Math.max(max, rows.varRow[l.opVarItems[i]]);
    }
    if (max < 0) check(rows.opRowMin[o] === -1, `empty op ${o} has a connector`);
    else check(rows.opRowMin[o] === min && rows.opRowMax[o] === max, `op ${o} connector span`);
  }
  // Slots are sorted by x so the view can binary-search them.
  let indexed = 0;
  for (let r = 0; r < l.slots; r++) {
    const items = l.slotVarItems.subarray(l.slotVarOffsets[r], l.slotVarOffsets[r + 1]);
    indexed += items.length;
    for (let k = 1; k < items.length; k++) {
      check(l.varX1[items[k]] >= l.varX1[items[k - 1]], `slot ${r} unsorted by x1`);
      check(l.varX0[items[k]] >= l.varX0[items[k - 1]], `slot ${r} unsorted by x0`);
    }
    for (const v of items) check(l.varSlot[v] === r, `var ${v} indexed in slot ${r}`);
  }
  check(indexed === Array.from(l.varSlot).filter((r) => r >= 0).length, 'slot index misses variables');
  // Rows: every slot drawn in exactly one row, inside its band's rows.
  for (let r = 0; r < rows.rows; r++)
    for (let s = rows.rowSlot0[r]; s < rows.rowSlot1[r]; s++)
      check(l.slotBand[s] === rows.rowBand[r], `row ${r} draws slot ${s} of another band`);
  return out;
}

describe('laneLayout(graph) on the real smartcomment files', () => {
  it.each(realFiles)('%s: every op at its execution rank, every version chain on one lane', (file) => {
    const g = open(file);
    const l = laneLayout(g);
    expect(l.columns).toBe(g.opId.length);
    expect(l.lanes).toBe(g.lineageNames.length);
    expect(l.slots).toBe(l.lanes);
    expect(problems(g, l)).toEqual([]);
    // Collapsed bands keep the invariants too (one row per band).
    const closed = laneRows(l, new Uint8Array(l.bands));
    expect(closed.rows).toBe(l.bands);
    expect(problems(g, l, closed)).toEqual([]);
  });

  it('packing keeps a lane per lineage, shares slots only between lanes of one band that do not overlap', () => {
    const g = open(realFiles[0]);
    const l = laneLayout(g, { pack: true, packGap: 1 });
    expect(problems(g, l)).toEqual([]);
    expect(l.slots).toBeLessThan(l.lanes);
    const bySlot = new Map<number, number[]>();
    for (let k = 0; k < l.lanes; k++) bySlot.set(l.laneSlot[k], [...(bySlot.get(l.laneSlot[k]) ?? []), k]);
    for (const lanes of bySlot.values())
      for (let i = 1; i < lanes.length; i++) {
        expect(l.laneX0[lanes[i]]).toBeGreaterThan(l.laneX1[lanes[i - 1]] + 1);
        expect(l.laneBand[lanes[i]]).toBe(l.laneBand[lanes[0]]);
      }
  });

  it('bands: raw messages per session, memory chains by kind, the questions together', () => {
    const g = open(realFiles[0]);
    const l = laneLayout(g, { pack: true });
    const bandOf = (id: string) => l.laneBand[l.varLane[g.varIndex.get(id)!]];
    const kinds = Array.from(l.bandKind);
    // Every raw message (category exactly "message") is in a messages band of its session.
    for (let v = 0; v < g.varId.length; v++) {
      if (g.varCategory[v] !== 'message' || row(g.lineages, g.varLineage[v]).length > 1) continue;
      const b = l.laneBand[l.varLane[v]];
      expect(kinds[b]).toBe(BAND_MESSAGES);
      expect(l.bandName[b]).toContain('messages');
    }
    // The memory store's version chain is a lane of a units band; question variables share one band.
    expect(kinds[bandOf('memory-store@1')]).toBe(BAND_UNITS);
    const q = g.varId.findIndex((_, v) => g.vars[v].class_name === 'query');
    const pred = g.varId.findIndex((_, v) => g.vars[v].class_name === 'prediction');
    expect(kinds[bandOf(g.varId[q])]).toBe(BAND_QUESTIONS);
    expect(bandOf(g.varId[pred])).toBe(bandOf(g.varId[q]));
    // Bands are stacked messages, units, others, questions.
    expect(kinds).toEqual([...kinds].sort((a, b) => a - b));
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
    const rows = laneRows(l, allOpen(l));
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
    expect(rows.opRowMin[g.opIndex.get('op0')!]).toBe(-1); // an op with no edges draws nothing
  });

  it('flags the inputs an OpenTelemetry import inferred, and the connector span of the recorded rest', async () => {
    // The fault-injected run as OTLP with the GenAI attributes only: its dataflow is inferred.
    const doc = JSON.parse(readFileSync(join(DATA, 'conv-26-fault-0.json'), 'utf8'));
    const text = new TextDecoder().decode(await otlpJson(doc, { flavour: 'genai', exact: false }));
    const r = openTrace(text, { file: 'fault-0.otlp.json' });
    if (!r.ok) throw new Error('the OTLP export did not open');
    const g = r.graph;
    const l = laneLayout(g);
    const rows = laneRows(l, allOpen(l));
    let inferred = 0;
    let recordedInputs = 0;
    for (let o = 0; o < g.opId.length; o++) {
      if (l.opColumn[o] < 0) continue;
      // From the edges: an input is inferred when no edge of this op from it is recorded.
      const recorded = new Set<number>();
      const inputs = new Set<number>();
      for (const e of row(g.opEdges, o)) {
        inputs.add(g.edgeSrc[e]);
        recorded.add(g.edgeDst[e]);
        if (!g.edges[e].metadata?.inferred) recorded.add(g.edgeSrc[e]);
      }
      const kept: number[] = [];
      for (let i = l.opVarOffsets[o]; i < l.opVarOffsets[o + 1]; i++) {
        const v = l.opVarItems[i];
        expect(l.opVarInferred[i]).toBe(inputs.has(v) && !recorded.has(v) ? 1 : 0);
        if (l.opVarInferred[i]) inferred++;
        else {
          kept.push(rows.varRow[v]);
          if (inputs.has(v)) recordedInputs++;
        }
      }
      expect(rows.opRecordedMin[o]).toBe(kept.length ? Math.min(...kept) : -1);
      expect(rows.opRecordedMax[o]).toBe(kept.length ? Math.max(...kept) : -1);
    }
    expect(inferred).toBeGreaterThan(0);
    expect(recordedInputs).toBeGreaterThan(0);
    // A smartcomment trace records all of its dataflow.
    const plain = laneLayout(open('conv-26-fault-0.json'));
    expect(plain.opVarInferred.includes(1)).toBe(false);
  });

  it('sentinel variables and ops are hidden and never stretch a connector', () => {
    const g = withSentinels();
    const l = laneLayout(g);
    const rows = laneRows(l, allOpen(l));
    expect(problems(g, l)).toEqual([]);
    const none = g.varIndex.get('COMMENT:NONE@1')!;
    expect(rows.varRow[none]).toBe(-1);
    expect(l.laneName).not.toContain('COMMENT:NONE');
    expect(l.opColumn[g.opIndex.get('__none_op__')!]).toBe(-1);
    const make = g.opIndex.get('op-make')!;
    expect(rows.opRowMin[make]).toBe(rows.varRow[g.varIndex.get('a@1')!]);
    expect(rows.opRowMax[make]).toBe(rows.opRowMin[make]);
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

  it('firstInSlot finds the first version ending at or after x', () => {
    const g = graph({
      vars: [{ name: 's' }, { name: 's', version: 2 }, { name: 's', version: 3 }],
      ops: [
        { id: 'm1', at: '2024-01-01 00:00:01.000', in: ['s@1'], out: ['s@2'] },
        { id: 'm2', at: '2024-01-01 00:00:02.000', in: ['s@2'], out: ['s@3'] },
      ],
    });
    const l = laneLayout(g);
    expect(l.slotVarItems[firstInSlot(l, 0, 0.7)]).toBe(1); // s@2 spans [0, 1]
    expect(l.slotVarItems[firstInSlot(l, 0, 1.2)]).toBe(2);
    expect(firstInSlot(l, 0, 99)).toBe(l.slotVarOffsets[1]);
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
  it('a 20k-variable synthetic run keeps the invariants and shows structure at fit: a few rows, not a staircase', () => {
    const g = buildGraph(syntheticDocument(20_000, 7));
    const l = laneLayout(g, { pack: true });
    expect(problems(g, l)).toEqual([]);
    expect(l.slots).toBeLessThan(l.lanes / 4);
    // By default the big bands are closed: the messages, the facts, the memory units and the
    // questions each take one row; the store (one chain) its lane.
    const rows = laneRows(l, defaultExpanded(l));
    expect(rows.rows).toBeLessThanOrEqual(l.bands + 12 * l.bands);
    expect(rows.rows).toBeLessThan(40);
    const messages = Array.from(l.bandKind).indexOf(BAND_MESSAGES);
    expect(l.bandLaneCount[messages]).toBe(
      Array.from({ length: g.varId.length }, (_, v) => g.varCategory[v]).filter((c) => c === 'message')
        .length,
    );
    expect(problems(g, l, rows)).toEqual([]);
  });

  it('bands: false gives every lane its own band (the layout before bands)', () => {
    const g = buildGraph(syntheticDocument(2_000, 3));
    const l = laneLayout(g, { bands: false });
    expect(l.bands).toBe(l.lanes);
    expect(problems(g, l)).toEqual([]);
  });
});
