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
import type { TraceGraph } from '../graph/graph.ts';
import { opStructure } from '../graph/queries.ts';
import type { Evidence, Matcher } from './evidence-match.ts';

/** Carrying units per variable (unit indexes of `Matcher.unitsOf`). */
export type Carriers = Map<number, Set<number>>;

export interface Drop {
  op: number;
  /** The op wrote into another variable than the one it read the evidence from (a hand-off, not a cleared buffer). */
  transfer: boolean;
}

export interface PassOptions {
  /** Outputs that matter (e.g. the cone toward the store or the answer); others are ignored. */
  keep: (v: number) => boolean;
  /** Inputs an op read that the trace does not show (a store behind an untraced search). */
  extraInputs?: Map<number, number[]>;
}

/** Copies shorter than this are not told apart from coincidence ("Yes.", a name). */
const MIN_COPY = 12;

function carryingTexts(m: Matcher, carriers: Carriers, inputs: number[]): string[] {
  const out: string[] = [];
  for (const x of inputs) {
    const units = carriers.get(x);
    if (!units) continue;
    const texts = m.unitTexts(x);
    for (const j of units) out.push(m.bodyOf(texts[j]));
  }
  return out;
}

/** Is `text` a copy of an input unit that does not carry the evidence (or a piece of one, or a whole made of them)? */
function copiesOtherUnit(m: Matcher, carriers: Carriers, inputs: number[], text: string): boolean {
  const t = text.toLowerCase();
  if (t.length < MIN_COPY) return false;
  for (const x of inputs) {
    const carrying = carriers.get(x);
    const texts = m.unitTexts(x);
    for (let j = 0; j < texts.length; j++) {
      if (carrying?.has(j)) continue;
      const other = m.bodyOf(texts[j]).toLowerCase();
      if (other.length < MIN_COPY) continue;
      if (other === t || other.includes(t) || t.includes(other)) return true;
    }
  }
  return false;
}

/** The units of `w` that carry the evidence, given what the op read. */
export function carryingUnits(
  m: Matcher,
  e: Evidence,
  carriers: Carriers,
  w: number,
  inputs: number[],
): Set<number> {
  const texts = m.unitTexts(w);
  const carried = carryingTexts(m, carriers, inputs);
  const out = new Set<number>();
  for (let i = 0; i < texts.length; i++) {
    const body = m.bodyOf(texts[i]);
    if (carried.some((c) => c.length >= MIN_COPY && body.includes(c))) out.add(i);
    else if (m.unitCarries(w, i, e)) {
      // A piece of a carrying unit (a sentence split from the message) that states it: carries.
      const lower = body.toLowerCase();
      const partOfCarrier = carried.some((c) => c.toLowerCase().includes(lower));
      if (partOfCarrier || !copiesOtherUnit(m, carriers, inputs, body)) out.add(i);
    }
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
    for (const w of s.intermediates) {
      const units = carryingUnits(m, e, carriers, w, carrying);
      if (units.size) carriers.set(w, units);
    }
    if (outs.length === 0) continue;
    let any = false;
    for (const w of outs) {
      const units = carryingUnits(m, e, carriers, w, inputs);
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
