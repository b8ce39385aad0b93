/**
 * Time expressions as day spans, so a memory that says "in June 2023" can be
 * compared with a message that said "next month" on 25 May 2023, and with a golden
 * answer "June 2023" or "The week before 27 June 2023". Resolution is compromise-dates'
 * (relative expressions against a reference day); the glue here only rewrites the
 * golden answers' "the <X> before <date>" into "last <X>" said on <date>, so both
 * sides go through the same resolver. Results are cached per (text, reference day).
 */
import nlp from 'compromise';
import datesPlugin from 'compromise-dates';
import { appendAll } from '../arrays.ts';

nlp.plugin(datesPlugin);

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 (UTC), inclusive on both ends. */
export interface DaySpan {
  start: number;
  end: number;
  /** Slack in days when comparing ("last Friday", "a few days ago" are loose). */
  fuzz: number;
}

/** A time expression found in a text, with the day span it names when a reference day reads it. */
export interface TemporalMention {
  /** The words of the expression as written. */
  text: string;
  /** null when the expression is relative and there is no reference day. */
  span: DaySpan | null;
  /** A relative expression ("yesterday", "last week"), lower-cased: comparable as words when no day is known. */
  relative: string | null;
}

const CUE =
  /\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this|week|weekend|month|year|morning|evening|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun|january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|spring|summer|autumn|fall|winter|recently|earlier|later|before|after|since|\d{4}|\d{1,2}(?:st|nd|rd|th))\b|\d{4}[-/]\d{1,2}/i;

/** True when the text may hold a time expression (cheap; no false negatives for what compromise reads). */
export function hasTemporalCue(text: string): boolean {
  return CUE.test(text) || /\b(?:previous|prior|following|day before|day after)\b/i.test(text);
}

const RELATIVE =
  /\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this|few|recently|earlier|later|weekend|previous|prior|following|coming|upcoming|past)\b/i;
const LOOSE =
  /\b(?:last|next|this)\s+(?:week|weekend|mon|tue|wed|thu|fri|sat|sun)|\bfew\b|\bweekends?\b|\bweeks?\s+ago\b/i;

/** "on Sunday": past or coming Sunday, the words do not say. */
const BARE_WEEKDAY = /^(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day$/i;

function toDay(iso: string | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso.slice(0, 10));
  return Number.isFinite(t) ? Math.floor(t / DAY_MS) : null;
}

function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

interface CompromiseDate {
  text: string;
  dates?: { start?: string; end?: string };
}

function parseDates(text: string, today: number | null): CompromiseDate[] {
  // The dates plugin's methods are not in compromise's types.
  const doc = nlp(text) as unknown as {
    dates(o: { today: string; timezone: string }): { json(): CompromiseDate[] };
  };
  // Without a reference day compromise uses the clock; pass a fixed one and drop relative results below.
  return doc.dates({ today: isoDay(today ?? 0), timezone: 'UTC' }).json();
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/**
 * "the Friday before 15 July 2023" is the last Friday before that day (14 July), "after" the first
 * one after it. Kept as loose as "last Friday" (7 days): people's "last Friday" may mean the
 * week before.
 */
function weekdayNear(weekday: string, anchor: number, direction: string): DaySpan | null {
  const wanted = WEEKDAYS.indexOf(weekday);
  if (wanted < 0) return null;
  const weekdayOf = (day: number) => (day + 4) % 7; // 1970-01-01 was a Thursday
  const step = direction === 'before' ? -1 : 1;
  let day = anchor + step;
  while (weekdayOf(day) !== wanted) day += step;
  return { start: day, end: day, fuzz: 7 };
}

/** "the week before 27 June 2023" → ["last week", day of 27 June 2023]; "two weekends before X" → "2 weeks ago". */
function beforeForm(text: string): { phrase: string; anchor: number; day: DaySpan | null } | null {
  // Only short texts (golden answers): a long text's "before" is rarely a date offset.
  if (text.length > 60) return null;
  const m = /\b(?:the\s+)?([a-z0-9 -]{2,30}?)\s+(before|after)\s+(.+)$/i.exec(text.trim());
  if (!m) return null;
  const anchorDates = parseDates(m[3], null);
  const anchor = toDay(anchorDates[0]?.dates?.start);
  if (anchor === null || RELATIVE.test(m[3])) return null;
  let what = m[1].toLowerCase().replace(/\bweekends?\b/, (w) => (w.endsWith('s') ? 'weeks' : 'weekend'));
  const day = weekdayNear(what, anchor, m[2].toLowerCase());
  const count = /^(\w+)\s+(days?|weeks?|months?|years?)$/.exec(what);
  if (m[2].toLowerCase() === 'before') what = count ? `${what} ago` : `last ${what}`;
  else what = count ? `in ${what}` : `next ${what}`;
  return { phrase: what, anchor, day };
}

/**
 * Relative phrases compromise-dates does not read, as the phrase it does: "on the previous
 * day" written on 8 May is "yesterday", "the following week" is "next week". "The day before"
 * followed by a date is a golden answer's range (`beforeForm`), not rewritten.
 */
const PLAIN_RELATIVE: [RegExp, string][] = [
  [/\b(?:the\s+)?(?:previous|prior)\s+(?:day|evening|night)\b|\blast\s+night\b/gi, 'yesterday'],
  [/\bthe\s+day\s+before\b(?!\s+(?:the\s+)?\w*\d)/gi, 'yesterday'],
  [/\bthe\s+(?:next|following)\s+day\b|\bthe\s+day\s+after\b(?!\s+(?:the\s+)?\w*\d)/gi, 'tomorrow'],
  [/\b(?:the\s+)?(?:previous|prior|past)\s+(week|weekend|month|year)\b/gi, 'last $1'],
  [/\b(?:the\s+)?(?:following|coming|upcoming)\s+(week|weekend|month|year)\b/gi, 'next $1'],
];

function plainRelative(text: string): string {
  let out = text;
  for (const [re, by] of PLAIN_RELATIVE) out = out.replace(re, by);
  return out;
}

const cache = new Map<string, TemporalMention[]>();

const GLUED_MONTH =
  /(\d)(?=(?:january|february|march|april|may|june|july|august|september|october|november|december)\b)/gi;

/** "3June, 2022" (as some LoCoMo answers write a date) → "3 June, 2022". */
function unglued(text: string): string {
  return text.replace(GLUED_MONTH, '$1 ');
}

/** Relative times that need no other words to name a day or a span. */
const RELATIVE_PHRASE =
  /\b(?:yesterday|today|tonight|tomorrow|(?:last|next|this)\s+(?:week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:\d+|a|an|one|two|three|four|five|six|a few|a couple of)\s+(?:days?|weeks?|months?|years?)\s+ago)\b/gi;

/**
 * compromise's dates as mentions. Relative ones with no day to read them against keep no span,
 * nor do those without a year ("on Sunday", "in June"): with no day, compromise would place them
 * in 1970 or in the clock's week.
 */
function mentionsOf(dates: readonly CompromiseDate[], today: number | null): TemporalMention[] {
  const out: TemporalMention[] = [];
  for (const d of dates) {
    const start = toDay(d.dates?.start);
    const end = toDay(d.dates?.end) ?? start;
    if (start === null || end === null) continue;
    const words = d.text.replace(/[\s\W]+$/, '').trim();
    const unplaced = today === null && !/\b\d{4}\b/.test(words);
    const relative = RELATIVE.test(words) || unplaced ? words.toLowerCase() : null;
    out.push({
      text: words,
      span:
        relative && today === null
          ? null
          : { start, end, fuzz: LOOSE.test(words) || BARE_WEEKDAY.test(words) ? 7 : 0 },
      relative,
    });
  }
  return out;
}

/**
 * Time expressions in `text` with their day spans, resolved against `today` (the
 * day the text was said or written; null when unknown — relative expressions then
 * keep only their words).
 */
export function temporalMentions(written: string, today: number | null): TemporalMention[] {
  const text = unglued(written);
  if (!hasTemporalCue(text)) return [];
  const key = `${today}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let out: TemporalMention[];
  const before = beforeForm(text);
  if (before?.day) out = [{ text, span: before.day, relative: null }];
  else if (before) {
    const inner = temporalMentions(before.phrase, before.anchor);
    out = inner.map((x) => ({ text, span: x.span, relative: null }));
  } else {
    const plain = plainRelative(text).replace(/\bweekends ago\b/gi, 'weeks ago');
    out = mentionsOf(parseDates(plain, today), today);
    // compromise drops a relative time run into a number ("Cyberpunk 2077 yesterday"): read
    // each such phrase it missed on its own.
    for (const [phrase] of plain.matchAll(RELATIVE_PHRASE))
      if (!out.some((m) => m.text.toLowerCase().includes(phrase.toLowerCase())))
        appendAll(out, mentionsOf(parseDates(phrase, today), today));
  }
  if (cache.size > 50_000) cache.clear();
  cache.set(key, out);
  return out;
}

/** The day a reference string names ("1:56 pm on 8 May, 2023", "2023/05/20 (Sat) 02:21", ISO), or null. */
export function referenceDay(text: string): number | null {
  const iso = /(\d{4})[-/](\d{1,2})[-/](\d{1,2})/.exec(text);
  if (iso) {
    const t = Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]));
    return Number.isFinite(t) ? Math.floor(t / DAY_MS) : null;
  }
  const found = temporalMentions(text, null).find(
    (m) => m.span && m.relative === null && m.span.end === m.span.start,
  );
  return found?.span?.start ?? null;
}

/**
 * Does a mention's span state the golden span? It must overlap it (within the looser
 * of the two slacks) and not be much coarser: "May 2023" does not state "7 May 2023".
 */
export function spanStates(mention: DaySpan, golden: DaySpan): boolean {
  const fuzz = Math.max(mention.fuzz, golden.fuzz);
  if (mention.end + fuzz < golden.start || mention.start - fuzz > golden.end) return false;
  const len = (s: DaySpan) => s.end - s.start + 1;
  return len(mention) <= Math.max(3 * len(golden), len(golden) + 7);
}

const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
);

/** A day as dated answers write it: "7 May 2023". */
export function dayText(day: number): string {
  const d = new Date(day * DAY_MS);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** A span as dated answers write it: its day, its month ("June 2023"), its year, else its first and last days. */
export function spanText(span: DaySpan): string {
  if (span.start === span.end) return dayText(span.start);
  const a = new Date(span.start * DAY_MS);
  const b = new Date((span.end + 1) * DAY_MS);
  if (a.getUTCDate() === 1 && b.getUTCDate() === 1) {
    if (a.getUTCMonth() === 0 && b.getUTCMonth() === 0) return String(a.getUTCFullYear());
    if ((b.getUTCMonth() - a.getUTCMonth() + 12) % 12 === 1)
      return `${MONTHS[a.getUTCMonth()]} ${a.getUTCFullYear()}`;
  }
  return `${dayText(span.start)} ${dayText(span.end)}`;
}
