/**
 * The memory units of a graph's versions (`splitUnits`), each split once per graph and kept
 * with the graph (a `WeakMap`): the stage walk asks about the same versions for every stage,
 * piece and case. Lines are kept once, as copies that keep no window alive.
 */
import type { TraceGraph } from '../graph/index.ts';
import { getOrSet } from '../maps.ts';
import { sharedString, valueCut } from '../trace/index.ts';
import { EMPTY_VALUE } from './carriers.ts';
import { lineUnits, splitUnits, type ValueUnits } from './evidence-match.ts';

/**
 * A copy of a text that keeps nothing else alive. A unit is cut out of its whole value (a
 * 20,000-character window): as a key kept for the whole walk (or across walks) it would keep
 * that value too, one per version, since engines share a cut-out text's original.
 */
export function detached(text: string): string {
  return text.length < 64 ? text : ` ${text}`.slice(1);
}

/**
 * The memory units of a graph's versions, each split once: every stage, piece and case of a
 * trace asks about the same versions (a long-context trace: thousands of 20,000-character
 * windows). A window repeats almost every line of the version before, so lines are kept once,
 * as copies (a line cut out of its window would keep the whole window alive).
 */
class GraphUnits {
  private readonly split = new Map<number, ValueUnits>();
  private readonly lines = new Map<string, string>();
  /** Per version: 0 not read yet, 1 empty (`EMPTY_VALUE`), 2 not (a read of a shared window is a copy of it). */
  private readonly emptiness: Uint8Array;
  constructor(private readonly g: TraceGraph) {
    this.emptiness = new Uint8Array(g.varValue.length);
  }

  isEmpty(v: number): boolean {
    if (this.emptiness[v] === 0) this.emptiness[v] = emptyNow(this.g, v) ? 1 : 2;
    return this.emptiness[v] === 1;
  }

  of(v: number): ValueUnits {
    return getOrSet(this.split, v, () => {
      // A shared window reads as a slice of its segment, parsed once for all its versions.
      const window = sharedString(this.g.vars[v]);
      const fresh = window === null ? splitUnits(this.g.varValue[v]) : lineUnits(window);
      return { ...fresh, texts: fresh.texts.map((t) => this.line(t)) };
    });
  }

  private line(text: string): string {
    let kept = this.lines.get(text);
    if (kept === undefined) {
      kept = detached(text);
      this.lines.set(kept, kept);
    }
    return kept;
  }
}

/** Five characters that are not white space: more than an empty value (`EMPTY_VALUE`: `None`, `[ ]`, …) has. */
const FIVE_MARKS = /\S(?:\s*\S){4}/;

/**
 * Whether v's value is empty (`EMPTY_VALUE`). A shared window is told from its cut of the shared
 * text (no copy): a read of its value would copy 20,000 characters to find its first word.
 */
function emptyNow(g: TraceGraph, v: number): boolean {
  const cut = valueCut(g.vars[v]);
  if (cut && FIVE_MARKS.test(cut.shared.text.slice(cut.start, cut.end))) return false;
  return EMPTY_VALUE.test(g.varValue[v]);
}

const graphUnits = new WeakMap<TraceGraph, GraphUnits>();

function unitsIndex(g: TraceGraph): GraphUnits {
  return getOrSet(graphUnits, g, () => new GraphUnits(g));
}

/** v's memory units (`splitUnits`), split once per graph. */
export function unitsOf(g: TraceGraph, v: number): ValueUnits {
  return unitsIndex(g).of(v);
}

/** Whether v's value is empty (`EMPTY_VALUE`), read once per graph. */
export function emptyValue(g: TraceGraph, v: number): boolean {
  return unitsIndex(g).isEmpty(v);
}
