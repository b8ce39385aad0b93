/**
 * Who said a text and when. Memory units rarely carry this as fields: a RAG chunk
 * line reads "1:56 pm on 8 May, 2023 | Caroline: …", a Mem0 context item "8 May
 * 2023: Caroline: …", a message value is JSON with `name` and `timestamp`. The day
 * resolves relative dates ("yesterday"); the speaker stands for "I" and "we".
 */
import { referenceDay } from '../nlp/index.ts';
import { parseValue } from '../trace/index.ts';

export interface Said {
  text: string;
  /** Day the text was said or written (days since 1970-01-01, UTC), or null. */
  day: number | null;
  /** Who "I" / "we" is, lower-case, or null. */
  speaker: string | null;
  /** The day as the trace writes it ("9:16 am on 10 August, 2022"), when it names one. */
  written?: string | null;
}

const HEAD = /^\s*\[?([^|\n\]]{4,40}?)\]?\s*(?:\||:(?=\s))\s*/;
const SPEAKER = /^\s*([A-Z][\p{L}\p{N}_'.-]*(?: [A-Z][\p{L}\p{N}_'.-]*)?):\s+/u;

/**
 * Splits the heads a unit line may start with: a date ("… | " or "…: ") and a
 * speaker ("Caroline: "). Defaults come from the variable (metadata, the message).
 */
export function readSaid(
  line: string,
  defaults: { day: number | null; speaker: string | null; written?: string | null },
): Said {
  let text = line;
  let day = defaults.day;
  let speaker = defaults.speaker;
  let written = defaults.written ?? null;
  const head = HEAD.exec(text);
  if (head && /\d/.test(head[1])) {
    const d = referenceDay(head[1]);
    if (d !== null) {
      day = d;
      written = head[1].trim();
      text = text.slice(head[0].length);
    }
  }
  const who = SPEAKER.exec(text);
  if (who) {
    speaker = who[1].toLowerCase();
    text = text.slice(who[0].length);
  }
  return { text, day, speaker, written };
}

type Dict = Record<string, unknown>;

const DAY_KEYS = ['timestamp', 'created_at', 'date', 'time', 'session_date', 'current_time', 'date_time'];
const SPEAKER_KEYS = ['speaker', 'name', 'role'];

/** The day a record names under one of `DAY_KEYS`, and how it writes it. */
function dateFrom(d: Dict | null | undefined): { day: number; written: string } | null {
  if (!d) return null;
  for (const k of DAY_KEYS) {
    const v = d[k];
    if (typeof v === 'string') {
      const day = referenceDay(v);
      if (day !== null) return { day, written: v.trim() };
    }
  }
  return null;
}

/**
 * The text, day and speaker of a raw message value (`{"content", "name",
 * "timestamp"}` JSON or Python repr, or a plain string) with its variable metadata.
 */
export function readMessage(value: string, metadata: Dict | null): Said {
  let v: unknown = parseValue(value);
  if (typeof v === 'string') {
    const inner = parseValue(v);
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) v = inner;
  }
  const fromMeta = dateFrom(metadata);
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const d = v as Dict;
    const content = [d.content, d.text, d.message].find((x) => typeof x === 'string') as string | undefined;
    const name = SPEAKER_KEYS.map((k) => d[k]).find((x) => typeof x === 'string') as string | undefined;
    const speaker = name ?? (typeof metadata?.speaker === 'string' ? metadata.speaker : null);
    const date = dateFrom(d) ?? fromMeta;
    return readSaid(content ?? value, {
      day: date?.day ?? null,
      written: date?.written ?? null,
      speaker: speaker ? speaker.toLowerCase() : null,
    });
  }
  const speaker = typeof metadata?.speaker === 'string' ? metadata.speaker.toLowerCase() : null;
  return readSaid(typeof v === 'string' ? v : value, {
    day: fromMeta?.day ?? null,
    written: fromMeta?.written ?? null,
    speaker,
  });
}

/** The day a variable's metadata names (`timestamp`, `created_at`, `date`, …), and how it writes it. */
export function metadataDate(metadata: Dict | null): { day: number | null; written: string | null } {
  const date = dateFrom(metadata);
  return { day: date?.day ?? null, written: date?.written ?? null };
}
