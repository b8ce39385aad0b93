/**
 * The first point of divergence of a question between two runs: walking the question's
 * evidence path in execution order, the earliest op whose inputs match an op of the other
 * run while its outputs differ. Op ids are never compared (they differ between runs); ops
 * correspond by name and by input values:
 * - exactly: the same data input values (prompts and other `prompt`-category inputs are
 *   settings, not data: a changed prompt with a changed output is a divergence too,
 *   `setting_changed` — what a rewrite between two rounds of the closed loop looks like);
 * - else as a selection from the same memory: a search reads only the units it picked, so a
 *   run with another top-k reads other inputs from an identical store. Two ops with the same
 *   name that share an input and each read only values the other run also has are the same
 *   step (`selection`); when the data itself differed (a value one run never had), no op
 *   there is blamed.
 */
import { isPrompt } from '../attribution/index.ts';
import { predictionOf, type TraceCase } from '../cases/index.ts';
import {
  isSentinelVar,
  nextVersion,
  opStructure,
  previousVersion,
  row,
  type TraceGraph,
} from '../graph/index.ts';
import { type Difference, type DivergentOp, explainDivergence } from './explain.ts';
import { ValueHashes } from './value-hash.ts';

/**
 * The first point of divergence of a question: the two corresponding ops (one per run), how they were
 * matched, and whether their settings (prompts) differed.
 */
export interface Divergence {
  op_a: string;
  op_b: string;
  /** The two ops' prompt / setting inputs differ (a changed prompt made the difference). */
  setting_changed: boolean;
  /** `exact`: the same data inputs; `selection`: inputs picked differently from the same memory. */
  match: 'exact' | 'selection';
  /** The two ops by name, kind, step and session. */
  ops: { a: DivergentOp; b: DivergentOp };
  /** What differs between them: prompts, parameters (op metadata), data inputs, outputs — with line diffs. */
  differences: Difference[];
}

interface OpKeys {
  /** Data input value hashes, sorted. */
  inputs: number[];
  data: string;
  settings: string;
  outputs: string;
}

/** One run's side: value hashes, op keys (lazy), and its ops indexed by name then data key (lazy). */
export class RunSide {
  readonly hashes: ValueHashes;
  readonly #keys = new Map<number, OpKeys>();
  readonly #byName = new Map<string, number[]>();
  readonly #byKey = new Map<string, Map<string, number[]>>();
  /** Per op name: data input value hash → ops reading it. */
  readonly #byInput = new Map<string, Map<number, number[]>>();
  #values: Set<number> | null = null;

  constructor(readonly g: TraceGraph) {
    this.hashes = new ValueHashes(g);
    for (let op = 0; op < g.ops.length; op++) {
      const list = this.#byName.get(g.opName[op]);
      if (list) list.push(op);
      else this.#byName.set(g.opName[op], [op]);
    }
  }

  keys(op: number): OpKeys {
    let k = this.#keys.get(op);
    if (!k) {
      const s = opStructure(this.g, op);
      const real = (v: number) => !isSentinelVar(this.g, v);
      const inputs = s.inputs.filter(real);
      const data = inputs.filter((v) => !isPrompt(this.g, v));
      k = {
        inputs: data.map((v) => this.hashes.of(v)).sort((x, y) => x - y),
        data: this.hashes.keyOf(data),
        settings: this.hashes.keyOf(inputs.filter((v) => isPrompt(this.g, v))),
        outputs: this.hashes.keyOf(s.outputs.filter(real)),
      };
      this.#keys.set(op, k);
    }
    return k;
  }

  /** Ops of this run with the op name and data inputs of `op` of the other run, in execution order. */
  counterparts(other: RunSide, op: number): number[] {
    const name = other.g.opName[op];
    let index = this.#byKey.get(name);
    if (!index) {
      index = new Map();
      for (const o of (this.#byName.get(name) ?? []).sort((x, y) => this.g.opRank[x] - this.g.opRank[y])) {
        const key = this.keys(o).data;
        const list = index.get(key);
        if (list) list.push(o);
        else index.set(key, [o]);
      }
      this.#byKey.set(name, index);
    }
    return index.get(other.keys(op).data) ?? [];
  }

  /** Whether some variable of this run has this value. */
  hasValue(hash: number): boolean {
    if (!this.#values) {
      this.#values = new Set();
      for (let v = 0; v < this.g.vars.length; v++) this.#values.add(this.hashes.of(v));
    }
    return this.#values.has(hash);
  }

  /**
   * Ops of this run that are the same step as `op` of the other run with inputs picked
   * differently from the same memory: same name, at least one shared data input, and every
   * data input of each is a value the other run has. Most shared inputs first, then execution order.
   */
  selections(other: RunSide, op: number): number[] {
    const name = other.g.opName[op];
    let index = this.#byInput.get(name);
    if (!index) {
      index = new Map();
      for (const o of this.#byName.get(name) ?? [])
        for (const h of new Set(this.keys(o).inputs)) {
          const list = index.get(h);
          if (list) list.push(o);
          else index.set(h, [o]);
        }
      this.#byInput.set(name, index);
    }
    const mine = other.keys(op).inputs;
    if (!mine.every((h) => this.hasValue(h))) return [];
    const shared = new Map<number, number>();
    for (const h of new Set(mine))
      for (const o of index.get(h) ?? []) shared.set(o, (shared.get(o) ?? 0) + 1);
    return [...shared]
      .filter(([o]) => this.keys(o).inputs.every((h) => other.hasValue(h)))
      .sort(([x, nx], [y, ny]) => ny - nx || this.g.opRank[x] - this.g.opRank[y])
      .map(([o]) => o);
  }
}

const inputCache = new WeakMap<TraceGraph, (number[] | undefined)[]>();

/** An op's inputs (`opStructure`), cached per graph: cones of many questions share most ops. */
function opInputs(g: TraceGraph, op: number): number[] {
  let cache = inputCache.get(g);
  if (!cache) {
    cache = [];
    inputCache.set(g, cache);
  }
  let inputs = cache[op];
  if (!inputs) {
    inputs = opStructure(g, op).inputs;
    cache[op] = inputs;
  }
  return inputs;
}

/** Where a question sits in one run: the ops upstream of its answer, and the part of them on its evidence's path. */
export interface QuestionPath {
  /** Ops upstream of the judged prediction, no later than the answer op, in execution order. */
  cone: number[];
  /** Those downstream of the question's evidence messages (the cone when it names none the run has). */
  evidence: number[];
}

/**
 * The ops a variable's value came from, as of an op: walking up from `start`, each variable's
 * latest producer before the op reading it (content-named variables are written by many ops
 * — two questions retrieving the same list share it — and only the last write before a read
 * is its cause), and earlier versions of its chain. In execution order.
 */
export function causesOfValue(g: TraceGraph, start: number, before: number): number[] {
  const bound = new Int32Array(g.varValue.length).fill(-1); // latest rank each var is read at
  const seen = new Uint8Array(g.ops.length);
  const ops: number[] = [];
  const queue: number[] = [start, before];
  for (let head = 0; head < queue.length; head += 2) {
    const v = queue[head];
    const rank = queue[head + 1];
    if (bound[v] >= rank) continue;
    bound[v] = rank;
    let writer = -1;
    for (const e of row(g.varInEdges, v)) {
      const o = g.edgeOp[e];
      if (g.opRank[o] < rank && (writer < 0 || g.opRank[o] > g.opRank[writer])) writer = o;
    }
    if (writer >= 0) {
      if (!seen[writer]) {
        seen[writer] = 1;
        ops.push(writer);
      }
      for (const w of opInputs(g, writer)) queue.push(w, g.opRank[writer]);
    }
    // The previous version is a cause as of when this one was written.
    const prev = previousVersion(g, v);
    if (prev >= 0) queue.push(prev, writer >= 0 ? g.opRank[writer] : rank);
  }
  return ops.sort((a, b) => g.opRank[a] - g.opRank[b]);
}

/** Marks of the ops downstream of some variables (edges and later versions), as `closure` but with typed arrays. */
function downstreamOps(g: TraceGraph, start: number[]): Uint8Array {
  const seenVar = new Uint8Array(g.varValue.length);
  const ops = new Uint8Array(g.ops.length);
  const queue = start.filter((v) => {
    if (seenVar[v]) return false;
    seenVar[v] = 1;
    return true;
  });
  const visit = (w: number) => {
    if (w >= 0 && !seenVar[w]) {
      seenVar[w] = 1;
      queue.push(w);
    }
  };
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    for (const e of row(g.varOutEdges, v)) {
      ops[g.edgeOp[e]] = 1;
      visit(g.edgeDst[e]);
    }
    visit(nextVersion(g, v));
  }
  return ops;
}

/**
 * A question's paths in one run: the causal cone of its judged prediction up to the answer op
 * (`cone`), and the part of it downstream of its evidence messages (`evidence`).
 */
export function questionPath(g: TraceGraph, c: TraceCase): QuestionPath {
  const pred = predictionOf(g, c, { downstream: null });
  const judge = c.judgeOpId ? g.opIndex.get(c.judgeOpId) : undefined;
  if (pred < 0 || judge === undefined) return { cone: [], evidence: [] };
  const cone = causesOfValue(g, pred, g.opRank[judge]);
  const ev = c.evidenceIds.map((id) => g.varIndex.get(id)).filter((v): v is number => v !== undefined);
  if (ev.length === 0) return { cone, evidence: cone };
  const down = downstreamOps(g, ev);
  const evidence = cone.filter((o) => down[o] === 1);
  return { cone, evidence: evidence.length ? evidence : cone };
}

interface Found {
  a: number;
  b: number;
  setting: boolean;
  match: Divergence['match'];
}

function walk(from: RunSide, to: RunSide, path: number[], toPath: Set<number>): Found | null {
  for (const op of path) {
    const mine = from.keys(op);
    if (mine.outputs === '') continue;
    let match: Divergence['match'] = 'exact';
    let cands = to.counterparts(from, op);
    if (cands.length === 0) {
      match = 'selection';
      cands = to.selections(from, op);
    }
    if (cands.length === 0 || cands.some((o) => to.keys(o).outputs === mine.outputs)) continue;
    const other = cands.find((o) => toPath.has(o)) ?? cands[0];
    return { a: op, b: other, setting: to.keys(other).settings !== mine.settings, match };
  }
  return null;
}

function divergence(ga: TraceGraph, oa: number, gb: TraceGraph, ob: number, f: Found): Divergence {
  return {
    op_a: ga.opId[oa],
    op_b: gb.opId[ob],
    setting_changed: f.setting,
    match: f.match,
    ...explainDivergence(ga, oa, gb, ob),
  };
}

/**
 * The first divergence of a question between runs A and B (null: none). Looked for on the
 * question's evidence path first; when nothing differs there but the answers do (the memory
 * it read had diverged before the evidence arrived), on everything upstream of the answer.
 */
export function firstDivergence(
  a: RunSide,
  b: RunSide,
  caseA: TraceCase | null,
  caseB: TraceCase | null,
): Divergence | null {
  const none: QuestionPath = { cone: [], evidence: [] };
  const pa = caseA ? questionPath(a.g, caseA) : none;
  const pb = caseB ? questionPath(b.g, caseB) : none;
  const answersDiffer = (caseA?.prediction ?? null) !== (caseB?.prediction ?? null);
  const search = (which: 'evidence' | 'cone'): Divergence | null => {
    const onA = walk(a, b, pa[which], new Set(pb[which]));
    if (onA) return divergence(a.g, onA.a, b.g, onA.b, onA);
    const onB = walk(b, a, pb[which], new Set(pa[which]));
    if (onB) return divergence(a.g, onB.b, b.g, onB.a, onB);
    return null;
  };
  return search('evidence') ?? (answersDiffer ? search('cone') : null);
}
