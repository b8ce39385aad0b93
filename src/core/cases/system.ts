/** Which memory system a trace comes from: a MemTraceBench split folder, metadata, or the project id. */
import type { TraceDocument } from '../trace/types.ts';

/** Split folder names of MemTraceBench. */
export const BENCH_SPLITS = ['rag', 'mem0', 'evermemos', 'long_context'] as const;

/** The split named by a path segment (`…/mem0/graph-3.json` → `mem0`), or null. */
export function splitFromPath(path: string): string | null {
  const segments = path.split(/[\\/]/).slice(0, -1).reverse();
  for (const s of segments) {
    const k = s.toLowerCase().replace(/-/g, '_');
    if ((BENCH_SPLITS as readonly string[]).includes(k)) return k;
  }
  return null;
}

/** Best guess of the system: the split folder, then metadata keys, then project_id. */
export function systemOf(doc: TraceDocument, path = ''): string | null {
  const split = splitFromPath(path);
  if (split) return split;
  const meta = doc.metadata && typeof doc.metadata === 'object' ? doc.metadata : {};
  for (const key of ['system', 'memory_system', 'layer_type']) {
    const v = meta[key];
    if (typeof v === 'string' && v) return v;
  }
  return typeof doc.project_id === 'string' && doc.project_id ? doc.project_id : null;
}
