/**
 * The memory at question time in two runs: the store each run's question read from (core
 * attribution's `caseContext`: what the question-time ops read plus its peers, each at its
 * latest version before the answer), paired by unit name. A changed unit comes with its
 * diff in units — dict entries, list items or lines (`splitUnits`) — removed and added,
 * which is how memory differs in practice (a fact rewritten, a line trimmed off a window).
 */
import { caseContext, splitUnits } from '../attribution/index.ts';
import type { TraceCase } from '../cases/index.ts';
import type { TraceGraph } from '../graph/index.ts';
import { valueText } from '../trace/index.ts';
import type { RunSide } from './divergence.ts';

/** A memory unit only one run held at question time, with a short preview of its value. */
export interface MemoryUnit {
  /** The unit's full name (its identity across versions and runs). */
  unit: string;
  /** full_node_id of the version at question time. */
  id: string;
  preview: string;
}

/**
 * A unit both runs held with different values: the version ids and the entries, items or lines each side
 * lacks.
 */
export interface ChangedUnit {
  unit: string;
  id_a: string;
  id_b: string;
  /** Entries / items / lines of A's version that B's lacks, and the reverse (at most `MAX_DIFF` each). */
  removed: string[];
  added: string[];
  /** How many there were in all (the lists are cut at `MAX_DIFF`). */
  removed_count: number;
  added_count: number;
}

/**
 * The stores of two runs at question time, paired by unit name: units only in A, only in B, changed, and
 * how many are equal.
 */
export interface MemoryComparison {
  only_a: MemoryUnit[];
  only_b: MemoryUnit[];
  changed: ChangedUnit[];
  /** Units equal in both runs. */
  same: number;
}

/** At most this many removed (and added) entries are listed per changed unit. */
export const MAX_DIFF = 100;
const PREVIEW = 160;

function storeOf(g: TraceGraph, c: TraceCase | null): Map<string, number> {
  const out = new Map<string, number>();
  if (!c) return out;
  for (const v of caseContext(g, c).store) out.set(g.varFullName[v], v);
  return out;
}

function unitsOf(value: string): string[] {
  const u = splitUnits(value);
  return u.keyed ? u.texts.map((t, i) => `${u.keys[i]}: ${t}`) : u.texts;
}

/** Items of xs not matched one-for-one in ys (multiset difference), in xs order. */
function minus(xs: string[], ys: string[]): string[] {
  const left = new Map<string, number>();
  for (const y of ys) left.set(y, (left.get(y) ?? 0) + 1);
  const out: string[] = [];
  for (const x of xs) {
    const k = left.get(x) ?? 0;
    if (k > 0) left.set(x, k - 1);
    else out.push(x);
  }
  return out;
}

const unit = (g: TraceGraph, v: number): MemoryUnit => ({
  unit: g.varFullName[v],
  id: g.varId[v],
  preview: valueText(g.varValue[v]).slice(0, PREVIEW),
});

/** Memory at the time of a question in A and B (either side may be absent: an empty store). */
export function compareMemory(
  a: RunSide,
  b: RunSide,
  caseA: TraceCase | null,
  caseB: TraceCase | null,
): MemoryComparison {
  const sa = storeOf(a.g, caseA);
  const sb = storeOf(b.g, caseB);
  const out: MemoryComparison = { only_a: [], only_b: [], changed: [], same: 0 };
  for (const [name, va] of sa) {
    const vb = sb.get(name);
    if (vb === undefined) out.only_a.push(unit(a.g, va));
    else if (a.hashes.of(va) === b.hashes.of(vb) && a.g.varValue[va] === b.g.varValue[vb]) out.same++;
    else {
      const ua = unitsOf(a.g.varValue[va]);
      const ub = unitsOf(b.g.varValue[vb]);
      const removed = minus(ua, ub);
      const added = minus(ub, ua);
      out.changed.push({
        unit: name,
        id_a: a.g.varId[va],
        id_b: b.g.varId[vb],
        removed: removed.slice(0, MAX_DIFF),
        added: added.slice(0, MAX_DIFF),
        removed_count: removed.length,
        added_count: added.length,
      });
    }
  }
  for (const [name, vb] of sb) if (!sa.has(name)) out.only_b.push(unit(b.g, vb));
  return out;
}
