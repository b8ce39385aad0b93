/**
 * Random corruptions of OTLP/JSON span files (GenAI-only and with the memtrace records):
 * the importer returns a document or structured problems naming the file — it never throws
 * and never reports an internal failure — and whatever loads builds a graph and its cases.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { seededRandom } from '../../src/core/random.ts';
import { parseTraceText } from '../../src/core/trace/index.ts';

import { otlpJson } from '../../src/sdk/otel.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const HOSTILE: unknown[] = [
  null,
  7,
  -1,
  '',
  'x',
  [],
  {},
  { low: 'a' },
  '__proto__',
  { __proto__: { polluted: 1 } },
  '[{"role":',
  1e308,
  true,
];

/** Replaces one random value somewhere in the object tree. */
function corrupt(value: unknown, r: () => number): unknown {
  const copy = structuredClone(value);
  let node = copy as Record<string, unknown>;
  for (let depth = 0; depth < 12; depth++) {
    const keys = Object.keys(node);
    if (!keys.length) break;
    const k = keys[Math.floor(r() * keys.length)];
    const child = node[k];
    if (child && typeof child === 'object' && r() < 0.8) {
      node = child as Record<string, unknown>;
      continue;
    }
    node[k] = HOSTILE[Math.floor(r() * HOSTILE.length)];
    break;
  }
  return copy;
}

const doc = (() => {
  const r = parseTraceText(readFileSync(join(SMARTCOMMENT_DIR, 'conv-26-rag-0.json'), 'utf8'), {
    file: 'rag',
  });
  if (!r.ok) throw new Error('fixture');
  // A small slice of the real file keeps the test fast: its first 40 ops and what they touch.
  const ops = r.doc.data.operations.slice(0, 40);
  const keep = new Set(ops.map((o) => o.op_id));
  const edges = r.doc.data.edges.filter((e) => keep.has(e.op_id));
  const ids = new Set(edges.flatMap((e) => [e.source_full_node_id, e.target_full_node_id]));
  return {
    ...r.doc,
    data: {
      ...r.doc.data,
      operations: ops,
      edges,
      nodes: r.doc.data.nodes.filter((n) => ids.has(n.full_node_id ?? '')),
      annotations: [],
    },
  };
})();

describe('fuzzed span files', () => {
  it.each([false, true])('exact records %s: 150 corruptions never throw', async (exact) => {
    const base = JSON.parse(new TextDecoder().decode(await otlpJson(doc, { flavour: 'genai', exact })));
    const r = seededRandom(exact ? 7 : 11);
    for (let i = 0; i < 150; i++) {
      const text = JSON.stringify(corrupt(base, r));
      const out = parseTraceText(text, { file: 'fuzz.json' });
      expect(out.issues.every((x) => x.file === 'fuzz.json' && x.code !== 'internal')).toBe(true);
      if (out.ok) listCases(buildGraph(out.doc));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
