/**
 * The carrying rule of the recorded-memories benchmark: when does a memory text hold a
 * question's critical information? When the trace's own judge (its offline rule, `JudgeRule`)
 * would accept the text, read with its date, as the answer. Labels use this rule, never the
 * attributor's matcher (src/core/attribution), so they stay independent of what they score.
 *
 * Rules that only ask for the answer's words (`offline`, `containment`, `half-words`) judge
 * the whole text: more text never hides an answer from them. `token-f1` also weighs precision,
 * so a whole memory (or a whole message) would fail it however plainly it states the answer;
 * it judges the text's best window instead — one or two consecutive segments (the date it was
 * written on, a sentence, a resolved time expression), the span an answerer would quote.
 *
 * Reading with a date: the text is prefixed with the date it was written on and followed by
 * the relative time expressions it holds, resolved against that date (`resolveRelativeDate`),
 * so "painted a sunrise last year" written in May 2023 counts for "2022".
 *
 * Several evidence turns: a text keeps the information of evidence turn `e` when it can stand in
 * for `e` wherever `e` is needed — beside every smallest set of the other turns' raw texts that
 * the judge does not accept alone but does with `e`. Read beside all the other turns only, the
 * test would be vacuous (any text passes) whenever those already answer without `e`: two turns
 * that each state the answer, or three of which any two do. When `e` is needed nowhere (it adds
 * nothing the answer needs), any text keeps it. With one evidence turn that is just "the judge
 * accepts the text"; with two that do not answer alone, "accepted beside the other".
 */
import { acceptsAnswer, type JudgeRule } from './judge-rules.ts';
import { parseLooseDate, resolveRelativeDate } from './offline.ts';
import { sentences } from './text.ts';
import type { Conversation } from './types.ts';

/** One piece of a memory unit: a text and the date of the session it was written in. */
export interface MemoryPart {
  text: string;
  date: string;
}

/** The relative time expressions of a text resolved against the date it was written on. */
function resolvedDates(text: string, date: string): string[] {
  const said = parseLooseDate(date);
  if (!said) return [];
  return sentences(text)
    .map((s) => resolveRelativeDate(s, said))
    .filter((r): r is string => r !== null);
}

/** A memory read with its date: `date: text (resolved relative dates)`, parts joined. */
export function readMemory(parts: readonly MemoryPart[]): string {
  return parts
    .map(({ text, date }) => {
      const resolved = resolvedDates(text, date);
      return `${date ? `${date}: ` : ''}${text}${resolved.length ? ` (${resolved.join('; ')})` : ''}`;
    })
    .join('\n');
}

/** A memory read with its date as segments: per part its date, its sentences, its resolved time expressions. */
export function memorySegments(parts: readonly MemoryPart[]): string[] {
  return parts.flatMap(({ text, date }) => [
    ...(date ? [date] : []),
    ...sentences(text),
    ...resolvedDates(text, date),
  ]);
}

/** Windows of the `token-f1` carrying test: one or two consecutive segments. */
export const F1_WINDOW = 2;

/** Does `rule` accept a memory made of `memories` (each a unit's parts) as the answer? */
export function acceptsMemory(
  rule: JudgeRule,
  memories: readonly (readonly MemoryPart[])[],
  answers: readonly string[],
): boolean {
  if (rule !== 'token-f1') return acceptsAnswer(rule, memories.map(readMemory).join('\n'), answers);
  const segs = memories.flatMap(memorySegments);
  for (let i = 0; i < segs.length; i++)
    for (let w = 1; w <= F1_WINDOW && i + w <= segs.length; w++)
      if (acceptsAnswer(rule, segs.slice(i, i + w).join(' '), answers)) return true;
  return false;
}

/** What the rule needs of a question: its golden answers and its evidence turn ids. */
export interface CarryQuestion {
  answers: string[];
  evidence: string[];
}

/** Most other evidence turns whose sets `CarryRule` searches (2^8 judge calls per turn, once). */
const MAX_SEARCHED_OTHERS = 8;

/** Every subset of `items`, smallest first. */
function subsetsBySize<T>(items: readonly T[]): T[][] {
  const all: T[][] = [];
  for (let mask = 0; mask < 1 << items.length; mask++) all.push(items.filter((_, i) => mask & (1 << i)));
  return all.sort((a, b) => a.length - b.length);
}

/** The carrying rule for one question of one conversation (results cached per text). */
export class CarryRule {
  private readonly raw = new Map<string, MemoryPart[]>();
  private readonly cache = new Map<string, boolean>();
  /** The evidence turns' own texts, read with their dates, are accepted together. */
  readonly evidenceCarries: boolean;
  /** Per evidence turn, the smallest sets of other turns it completes (`neededWith`), found once. */
  private readonly needed = new Map<string, string[][]>();

  /** `rule`: the trace's judge rule (default `offline`). */
  constructor(
    conv: Conversation,
    private readonly q: CarryQuestion,
    private readonly rule: JudgeRule = 'offline',
  ) {
    for (const s of conv.sessions)
      for (const t of s.turns)
        if (q.evidence.includes(t.id))
          this.raw.set(t.id, [{ text: `${t.speaker}: ${t.text}`, date: s.dateTime }]);
    this.evidenceCarries =
      this.raw.size === q.evidence.length && this.accepted(q.evidence.map((e) => this.raw.get(e) ?? []));
  }

  private rawOf(turns: readonly string[]): MemoryPart[][] {
    return turns.map((e) => this.raw.get(e) ?? []);
  }

  /**
   * The smallest sets of the other evidence turns that the judge does not accept alone but does
   * with `turn` (smallest first; a superset of a found set is not searched). With more than
   * `MAX_SEARCHED_OTHERS` others, or evidence that does not carry, just all the others.
   */
  private neededWith(turn: string): string[][] {
    let sets = this.needed.get(turn);
    if (sets) return sets;
    const others = this.q.evidence.filter((e) => e !== turn);
    sets = [];
    if (!this.evidenceCarries || others.length > MAX_SEARCHED_OTHERS) sets.push(others);
    else
      for (const s of subsetsBySize(others))
        if (!sets.some((found) => found.every((e) => s.includes(e))) && this.completes(turn, s)) sets.push(s);
    this.needed.set(turn, sets);
    return sets;
  }

  /** `turn`'s text turns the other turns `s`, not accepted alone, into an accepted answer. */
  private completes(turn: string, s: string[]): boolean {
    return !this.accepted(this.rawOf(s)) && this.accepted([...this.rawOf(s), this.raw.get(turn) ?? []]);
  }

  private accepted(memories: (readonly MemoryPart[])[]): boolean {
    return acceptsMemory(this.rule, memories, this.q.answers);
  }

  /** Does a memory made of `parts` keep evidence turn `turn`'s information? */
  keeps(parts: readonly MemoryPart[], turn: string): boolean {
    const read = readMemory(parts);
    const key = `${turn}\u0000${read}`;
    let r = this.cache.get(key);
    if (r === undefined) {
      const sets = this.neededWith(turn);
      r =
        sets.length === 0
          ? true // needed nowhere: the others answer without it
          : sets.every((s) => this.accepted([parts, ...this.rawOf(s)]));
      this.cache.set(key, r);
    }
    return r;
  }
}
