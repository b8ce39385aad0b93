/** Which memory system a trace comes from: a MemTraceBench split folder, metadata, or the project id. */
import type { TraceDocument } from '../trace/index.ts';

/** Split folder names of MemTraceBench. */
export const BENCH_SPLITS = ['rag', 'mem0', 'evermemos', 'long_context'] as const;

/** A MemTraceBench split, which is also how the project spells a known memory system. */
export type BenchSplit = (typeof BENCH_SPLITS)[number];

/** Other spellings of a split, after lower-casing and `-`/space → `_`. */
const SPLIT_ALIASES = new Map<string, BenchSplit>([
  ['longcontext', 'long_context'],
  ['long_ctx', 'long_context'],
]);

/**
 * The split a system name means, however traces and folders spell it (`RAG` → `rag`, `long-context`,
 * `longcontext` → `long_context`); null for any other name.
 */
export function benchSplitOf(name: string): BenchSplit | null {
  const k = name.trim().toLowerCase().replace(/[-\s]/g, '_');
  const split = SPLIT_ALIASES.get(k) ?? k;
  return (BENCH_SPLITS as readonly string[]).includes(split) ? (split as BenchSplit) : null;
}

/** The split named by a path segment (`…/mem0/graph-3.json` → `mem0`), or null. */
export function splitFromPath(path: string): string | null {
  const segments = path.split(/[\\/]/).slice(0, -1).reverse();
  for (const s of segments) {
    const split = benchSplitOf(s);
    if (split) return split;
  }
  return null;
}

/** Known system names in their split spelling (`benchSplitOf`); others as given. */
export function canonicalSystem(name: string): string {
  return benchSplitOf(name) ?? name;
}

/** Best guess of the system: the split folder, then metadata keys, then project_id, then op names. */
export function systemOf(doc: TraceDocument, path = ''): string | null {
  const split = splitFromPath(path);
  if (split) return split;
  const meta = doc.metadata && typeof doc.metadata === 'object' ? doc.metadata : {};
  for (const key of ['system', 'memory_system', 'layer_type']) {
    const v = meta[key];
    if (typeof v === 'string' && v) return canonicalSystem(v);
  }
  if (typeof doc.project_id === 'string' && doc.project_id) return canonicalSystem(doc.project_id);
  return systemFromOpNames(doc);
}

/** Op-name hints of the reference designs, most specific first (a guess; the UI lets people override it). */
const OP_HINTS: [RegExp, string][] = [
  [/evermem|boundary|memcell|episode/i, 'evermemos'],
  [/long[-_ ]?context|window/i, 'long_context'],
  [/mem0|fact[-_ ]?extraction|memory[-_ ]?update/i, 'mem0'],
  [/^rag\b|rag[._-]|chunk/i, 'rag'],
];

/** Guesses the system from what its ops are called; null when nothing matches. */
export function systemFromOpNames(doc: TraceDocument): string | null {
  const ops = Array.isArray(doc.data?.operations) ? doc.data.operations : [];
  const votes = new Map<string, number>();
  for (const op of ops) {
    const name = op && typeof op.op_name === 'string' ? op.op_name : '';
    const hit = OP_HINTS.find(([re]) => re.test(name));
    if (hit) votes.set(hit[1], (votes.get(hit[1]) ?? 0) + 1);
  }
  let best: string | null = null;
  for (const [k, n] of votes) if (best === null || n > (votes.get(best) ?? 0)) best = k;
  return best;
}
