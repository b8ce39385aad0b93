/** Text and regex search across variable values, with snippets around each match. */
import type { TraceGraph } from './graph.ts';

/** One search match in a variable's value, with a snippet around it. */
export interface ValueMatch {
  var: number;
  fullNodeId: string;
  /** Character offset of the match in the value. */
  offset: number;
  length: number;
  /** Text around the match, `context` characters each side, newlines kept. */
  snippet: string;
  /** Where the match sits inside `snippet`. */
  snippetOffset: number;
}

/** Options of `searchValues`. */
export interface SearchOptions {
  /** Treat the query as a regular expression (default: plain text). */
  regex?: boolean;
  caseSensitive?: boolean;
  /** Stop after this many matches in all (default 100). */
  limit?: number;
  /** At most this many matches per variable (default 3). */
  perVariable?: number;
  context?: number;
  /** Only these variables (default: all, in file order). */
  vars?: Iterable<number>;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Builds the search pattern; throws a SyntaxError with the engine's message for a bad regex. */
export function compilePattern(
  query: string,
  options: Pick<SearchOptions, 'regex' | 'caseSensitive'> = {},
): RegExp {
  return new RegExp(options.regex ? query : escapeRegExp(query), options.caseSensitive ? 'g' : 'gi');
}

/** The non-empty matches of a global pattern in `text`, in order, from its start (an empty match would loop forever; it is stepped past). */
export function* nonEmptyMatches(re: RegExp, text: string): Generator<RegExpExecArray> {
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    yield m;
  }
}

/** The text `context` characters each side of a match, and where the match starts in it. */
export function snippetAround(text: string, offset: number, length: number, context: number) {
  const start = Math.max(0, offset - context);
  const end = Math.min(text.length, offset + length + context);
  return { snippet: text.slice(start, end), snippetOffset: offset - start };
}

/**
 * Matches of a text or regex query in variable values, in variable order, at most `perVariable` per
 * variable and `limit` in all; empty matches are skipped. Throws a SyntaxError for a bad regex.
 */
export function searchValues(g: TraceGraph, query: string, options: SearchOptions = {}): ValueMatch[] {
  const limit = options.limit ?? 100;
  const perVariable = options.perVariable ?? 3;
  const context = options.context ?? 60;
  const re = compilePattern(query, options);
  const out: ValueMatch[] = [];
  const vars = options.vars ?? g.varId.keys();
  for (const v of vars) {
    const value = g.varValue[v];
    let found = 0;
    for (const m of nonEmptyMatches(re, value)) {
      out.push({
        var: v,
        fullNodeId: g.varId[v],
        offset: m.index,
        length: m[0].length,
        ...snippetAround(value, m.index, m[0].length, context),
      });
      if (out.length >= limit) return out;
      if (++found >= perVariable) break;
    }
  }
  return out;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whole words of `text` at `[start, end)` grown to word ends: a query word typed as a prefix marks the word it began. */
function toWordEnd(text: string, end: number): number {
  while (end < text.length && WORD_CHAR.test(text[end])) end++;
  return end;
}

/**
 * Where the query matches in a text, as whole words: the whole phrase (its words in order,
 * any white space between) where it occurs, else each query word as a whole word — "car" in
 * "the car" but not in "carpet" or "scar" — and only when a value has none of those, the
 * words the query words begin (the index matches prefixes while typing), marked whole.
 * Sorted, not overlapping.
 */
export function phraseMarks(text: string, words: string[]): [start: number, length: number][] {
  const clean = words.map((w) => w.trim()).filter(Boolean);
  if (clean.length === 0) return [];
  const find = (source: string, whole: boolean): [number, number][] => {
    const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${source})${whole ? '(?![\\p{L}\\p{N}])' : ''}`, 'giu');
    const out: [number, number][] = [];
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const end = toWordEnd(text, m.index + m[0].length);
      out.push([m.index, end - m.index]);
      re.lastIndex = Math.max(end, m.index + 1);
    }
    return out;
  };
  const alternatives = clean.map(escapeRegExp).join('|');
  if (clean.length > 1) {
    const phrase = find(clean.map(escapeRegExp).join('\\s+'), true);
    if (phrase.length) return phrase;
  }
  const whole = find(alternatives, true);
  return whole.length ? whole : find(alternatives, false);
}

/**
 * A snippet around the first place the query matches in a value (`phraseMarks`: the phrase,
 * else its words as whole words), for hits of a word index that gives no positions; `marks`
 * are every match inside the snippet, `at` / `length` the first (-1 when none: the value's
 * head is shown).
 */
export function wordSnippet(
  value: string,
  words: string[],
  context = 80,
): { snippet: string; at: number; length: number; marks: [number, number][] } {
  const all = phraseMarks(value, words);
  if (all.length === 0) return { snippet: value.slice(0, 2 * context), at: -1, length: 0, marks: [] };
  const [first, len] = all[0];
  const s = snippetAround(value, first, len, context);
  const from = first - s.snippetOffset;
  const marks = all
    .filter(([at, n]) => at >= from && at + n <= from + s.snippet.length)
    .map(([at, n]): [number, number] => [at - from, n]);
  return { snippet: s.snippet, at: s.snippetOffset, length: len, marks };
}

/**
 * Variables grouped by logical variable (version chain), groups in the order of their
 * first variable in `vars`, versions inside a group in version order.
 */
export function groupByLineage(g: TraceGraph, vars: Iterable<number>): { lineage: number; vars: number[] }[] {
  const groups = new Map<number, number[]>();
  for (const v of vars) {
    const l = g.varLineage[v];
    const list = groups.get(l);
    if (list) list.push(v);
    else groups.set(l, [v]);
  }
  return Array.from(groups, ([lineage, list]) => ({
    lineage,
    vars: list.sort((a, b) => g.vars[a].version - g.vars[b].version || a - b),
  }));
}
