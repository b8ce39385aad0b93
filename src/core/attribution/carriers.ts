/**
 * Which memory units carry a piece of evidence, followed through the graph unit by
 * unit. A value holds units (dict entries, list items, lines; a message is one
 * unit), and an op's output unit carries the evidence when
 *   - it contains a carrying input unit (a chunk, a window, a formatted copy), or
 *   - it states the critical information (the matcher's content test) and is not a
 *     copy of some *other* input unit — a store holds many units that may state the
 *     same answer (another message about counselling); only the ones this evidence
 *     flowed into count, as they do in counterfactual labels.
 * Forward, in execution order, over the ops the caller gives.
 */
import { opStructure, type TraceGraph } from '../graph/index.ts';
import { isMessageCategory, isPromptCategory } from '../trace/index.ts';
import { copiedInto, type Evidence, type Matcher, MIN_COPY_CHARS } from './evidence-match.ts';

/** An empty value as a trace records it: an empty string, list or record, or none (a deleted entry's value). */
export const EMPTY_VALUE = /^\s*(?:\[\s*\]|\{\s*\}|''|""|None|null)?\s*$/;

/** Carrying units per variable (unit indexes of `Matcher.unitsOf`). */
export type Carriers = Map<number, Set<number>>;

interface Drop {
  op: number;
  /** The op wrote into another variable than the one it read the evidence from (a hand-off, not a cleared buffer). */
  transfer: boolean;
}

export interface PassOptions {
  /** Outputs that matter (e.g. the cone toward the store or the answer); others are ignored. */
  keep: (v: number) => boolean;
  /** Inputs an op read that the trace does not show (a store behind an untraced search). */
  extraInputs?: Map<number, number[]>;
  /** Told of every op that read a carrier: what carried into it, what it wrote that matters, the day read. */
  onStep?: (op: number, carrying: number[], outputs: number[], day: number | null) => void;
}

/** The bodies of the carrying units of `inputs`. */
function carryingTexts(m: Matcher, carriers: Carriers, inputs: number[]): string[] {
  const out: string[] = [];
  for (const x of inputs) {
    const units = carriers.get(x);
    if (!units) continue;
    const bodies = m.bodiesOf(x);
    for (const j of units) out.push(bodies[j]);
  }
  return out;
}

/** What an op read, unit by unit: which bodies carry, which are copies of other units. */
interface ReadUnits {
  /** The day the carrying units were said or written, for outputs without a day of their own. */
  day: number | null;
  /** That day as the trace writes it ("12:45 am on 8 May, 2022"), when it does. */
  written: string | null;
  carried: string[];
  carriedSet: Set<string>;
  /** Bodies of input units that do not carry (exact copies of them carry nothing new). */
  others: Set<string>;
  inputs: number[];
  /**
   * The op read one message and it carries (prompts aside): what it wrote derives from this
   * evidence alone, so the answer decides, as a judge reads it, not the names or topic.
   */
  sole: boolean;
}

function readUnits(g: TraceGraph, m: Matcher, carriers: Carriers, inputs: number[]): ReadUnits {
  const carried = carryingTexts(m, carriers, inputs);
  const carriedSet = new Set(carried);
  let day: number | null = null;
  let written: string | null = null;
  for (const x of inputs) {
    const units = carriers.get(x);
    if (!units) continue;
    for (const j of units)
      if (day === null) {
        day = m.dayOf(x, j);
        written = m.writtenOf(x, j);
      }
    if (day !== null) break;
  }
  const others = new Set<string>();
  for (const x of inputs) {
    const carrying = carriers.get(x);
    m.bodiesOf(x).forEach((b, j) => {
      if (!carrying?.has(j) && !carriedSet.has(b)) others.add(b);
    });
  }
  const read = inputs.filter((x) => !isPromptCategory(g.varCategory[x]));
  const sole = read.length === 1 && isMessageCategory(g.varCategory[read[0]]) && carried.length === 1;
  return { day, written, carried, carriedSet, others, inputs, sole };
}

/** Is `body` a piece of an input unit that does not carry the evidence, or a whole made of them? */
function copiesOtherUnit(read: ReadUnits, body: string): boolean {
  const t = body.toLowerCase();
  if (t.length < MIN_COPY_CHARS) return false;
  for (const o of read.others) {
    const other = o.toLowerCase();
    if (copiedInto(t, other) || copiedInto(other, t)) return true;
  }
  return false;
}

/** The units of `w` that carry the evidence, given what the op read. */
function carryingUnits(m: Matcher, e: Evidence, w: number, read: ReadUnits): Set<number> {
  const bodies = m.bodiesOf(w);
  const out = new Set<number>();
  for (let i = 0; i < bodies.length; i++) {
    const body = bodies[i];
    // Exact copies first: the common case (a store or window carried forward).
    if (read.carriedSet.has(body)) out.add(i);
    else if (read.others.has(body)) continue;
    else if (read.carried.some((c) => copiedInto(c, body))) out.add(i);
    else if (m.unitCarries(w, i, e, read.day)) {
      // A piece of a carrying unit (a sentence split from the message) that states it: carries.
      const lower = body.toLowerCase();
      const partOfCarrier = read.carried.some((c) => c.toLowerCase().includes(lower));
      if (partOfCarrier || !copiesOtherUnit(read, body)) out.add(i);
    } else if (read.sole && !EMPTY_VALUE.test(body) && m.unitKeepsAnswer(w, i, e, read)) out.add(i);
  }
  return out;
}

/**
 * Follows the evidence from `start` through `ops` (in execution order): the units
 * that carry it, and the ops that read a carrier but wrote none (drops).
 */
export function followEvidence(
  g: TraceGraph,
  ops: readonly number[],
  start: Carriers,
  e: Evidence,
  m: Matcher,
  options: PassOptions,
): { carriers: Carriers; drops: Drop[] } {
  const carriers: Carriers = new Map(start);
  const drops: Drop[] = [];
  for (const op of ops) {
    const s = opStructure(g, op);
    const inputs = [...s.inputs, ...s.intermediates, ...(options.extraInputs?.get(op) ?? [])];
    const carrying = inputs.filter((v) => carriers.has(v));
    if (carrying.length === 0) continue;
    const outs = s.outputs.filter(options.keep);
    const read = readUnits(g, m, carriers, inputs);
    options.onStep?.(op, carrying, outs, read.day);
    for (const w of s.intermediates) {
      const units = carryingUnits(m, e, w, read);
      if (units.size) carriers.set(w, units);
    }
    if (outs.length === 0) continue;
    let any = false;
    for (const w of outs) {
      const units = carryingUnits(m, e, w, read);
      if (units.size) {
        const had = carriers.get(w);
        carriers.set(w, had ? new Set([...had, ...units]) : units);
        any = true;
      }
    }
    if (!any) {
      const sourceLineages = new Set(carrying.map((v) => g.varLineage[v]));
      drops.push({ op, transfer: outs.some((w) => !sourceLineages.has(g.varLineage[w])) });
    }
  }
  return { carriers, drops };
}
