/**
 * The carrying rule of the recorded-memories benchmark: when does a memory text hold a
 * question's critical information? When the trace's own judge (`offlineJudge`) would accept
 * the text, read with its date, as the answer. Labels use this rule, never the attributor's
 * matcher (src/core/attribution), so they stay independent of what they score.
 *
 * Reading with a date: the text is prefixed with the date it was written on and followed by
 * the relative time expressions it holds, resolved against that date (`resolveRelativeDate`),
 * so "painted a sunrise last year" written in May 2023 counts for "2022".
 *
 * Several evidence turns: a text keeps the information of evidence turn `e` when the judge
 * accepts it together with the raw text of the other evidence turns (it can stand in for `e`).
 * With one evidence turn that is just "the judge accepts the text".
 */
import { offlineJudge } from './judge.ts';
import { parseLooseDate, resolveRelativeDate } from './offline.ts';
import { sentences } from './text.ts';
import type { Conversation } from './types.ts';

/** One piece of a memory unit: a text and the date of the session it was written in. */
export interface MemoryPart {
  text: string;
  date: string;
}

/** A memory read with its date: `date: text (resolved relative dates)`, parts joined. */
export function readMemory(parts: readonly MemoryPart[]): string {
  return parts
    .map(({ text, date }) => {
      const said = parseLooseDate(date);
      const resolved = said
        ? sentences(text)
            .map((s) => resolveRelativeDate(s, said))
            .filter((r): r is string => r !== null)
        : [];
      return `${date ? `${date}: ` : ''}${text}${resolved.length ? ` (${resolved.join('; ')})` : ''}`;
    })
    .join('\n');
}

/** What the rule needs of a question: its golden answers and its evidence turn ids. */
export interface CarryQuestion {
  answers: string[];
  evidence: string[];
}

/** The carrying rule for one question of one conversation (results cached per text). */
export class CarryRule {
  private readonly raw = new Map<string, string>();
  private readonly cache = new Map<string, boolean>();
  /** The evidence turns' own texts, read with their dates, are accepted together. */
  readonly evidenceCarries: boolean;

  constructor(
    conv: Conversation,
    private readonly q: CarryQuestion,
  ) {
    for (const s of conv.sessions)
      for (const t of s.turns)
        if (q.evidence.includes(t.id))
          this.raw.set(t.id, readMemory([{ text: `${t.speaker}: ${t.text}`, date: s.dateTime }]));
    this.evidenceCarries =
      this.raw.size === q.evidence.length && this.accepted(q.evidence.map((e) => this.raw.get(e) ?? ''));
  }

  private accepted(texts: string[]): boolean {
    return offlineJudge(texts.join('\n'), this.q.answers).correct;
  }

  /** Does a memory made of `parts` keep evidence turn `turn`'s information? */
  keeps(parts: readonly MemoryPart[], turn: string): boolean {
    const read = readMemory(parts);
    const key = `${turn}\u0000${read}`;
    let r = this.cache.get(key);
    if (r === undefined) {
      const others = this.q.evidence.filter((e) => e !== turn).map((e) => this.raw.get(e) ?? '');
      r = this.accepted([read, ...others]);
      this.cache.set(key, r);
    }
    return r;
  }
}
