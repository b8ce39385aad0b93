/**
 * A synthetic memory-system run of about `targetVars` variables, built in memory as a
 * TraceDocument (no file): per turn a message, a fact extraction, an update of a shared
 * memory store and of one of many memory units (long version chains); every 20 turns a
 * question with retrieval, generation and a judge. Deterministic for a seed.
 */
import { seededRandom } from '../src/core/random.ts';
import type { EdgeRecord, OperationRecord, TraceDocument, VariableRecord } from '../src/core/trace/index.ts';

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** `2024-01-01 HH:MM:SS.mmm` for a millisecond counter (days roll into the hour field). */
function stamp(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `2024-01-01 ${pad(Math.floor(s / 3600), 4)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}.${pad(ms % 1000, 3)}`;
}

export function syntheticDocument(targetVars: number, seed = 1): TraceDocument {
  const random = seededRandom(seed);
  const graph_id = `graph-synthetic-${targetVars}`;
  const base = {
    filename: 'synthetic.py',
    lineno: 1,
    metadata: {},
    graph_id,
    user_id: 'bench',
    project_id: 'lanes',
  };
  const nodes: VariableRecord[] = [];
  const operations: OperationRecord[] = [];
  const edges: EdgeRecord[] = [];
  let clock = 0;
  const version = new Map<string, number>();
  const variable = (name: string, category: string, value: string, className: string | null = null) => {
    const full = className ? `${className}:${name}` : name;
    const v = (version.get(full) ?? 0) + 1;
    version.set(full, v);
    nodes.push({
      ...base,
      created_at: stamp(clock),
      name,
      version: v,
      value,
      class_name: className,
      comment: null,
      category,
      session_id: 's1',
    });
    return `${full}@${v}`;
  };
  const op = (name: string, category: string, inputs: string[], outputs: string[]) => {
    clock += 1 + Math.floor(random() * 3);
    const op_id = `op-${operations.length.toString(16).padStart(32, '0')}`;
    operations.push({
      ...base,
      created_at: stamp(clock),
      op_id,
      op_name: name,
      comment: null,
      category,
      session_id: 's1',
    });
    for (const s of inputs)
      for (const t of outputs)
        edges.push({
          ...base,
          created_at: stamp(clock),
          edge_id: `edge-${edges.length}`,
          op_id,
          category,
          source_full_node_id: s,
          target_full_node_id: t,
          comment: null,
          session_id: 's1',
        });
  };

  const units = Math.max(8, Math.floor(targetVars / 40));
  const unitHead = new Map<number, string>();
  let store = variable('memory-store', 'memory_store', '[]');
  let turn = 0;
  while (nodes.length < targetVars) {
    turn++;
    const msg = variable(`conv:D${turn}`, 'message', `'message ${turn} about topic ${turn % 97}'`);
    const facts = variable(`facts:${turn}`, 'facts', `['fact ${turn}a', 'fact ${turn}b']`, 'list');
    op('fact-extraction', 'extraction', [msg], [facts]);
    const nextStore = variable('memory-store', 'memory_store', `[${turn} facts]`);
    op('memory-update', 'update', [facts, store], [nextStore]);
    store = nextStore;
    const u = Math.floor(random() * random() * units); // a few units change often
    const prev = unitHead.get(u);
    const unit = variable(`memory-unit-${u}`, 'memory_entry', `'unit ${u} as of turn ${turn}'`);
    op(
      prev ? 'memory-unit-update' : 'memory-unit-add',
      prev ? 'update' : 'extraction',
      prev ? [facts, prev] : [facts],
      [unit],
    );
    unitHead.set(u, unit);
    if (turn % 20 === 0) {
      const q = variable(`q${turn}`, 'message & query', `'what about topic ${turn % 97}?'`, 'query');
      const got = variable(`retrieved:${turn}`, 'retrieved_memories', `['unit ${u}']`);
      op('retrieve', 'retrieval', [q, store], [got]);
      const answer = variable(`q${turn}`, 'answer', `'topic ${turn % 97}'`, 'prediction');
      op('answer', 'generation', [q, got], [answer]);
      const golden = variable(`q${turn}`, 'golden', `['topic ${turn % 97}']`, 'golden_answers');
      const score = variable(`q${turn}`, 'judge', random() < 0.3 ? '0' : '1', 'judge_score');
      op('llm-judge', 'evaluation', [q, answer, golden], [score]);
    }
  }
  return {
    graph_id,
    user_id: 'bench',
    project_id: 'lanes',
    storage_path: null,
    strict: true,
    driver_type: 'in_memory',
    created_at: stamp(0),
    metadata: {},
    data: {
      sessions: [
        {
          ...base,
          created_at: stamp(0),
          session_id: 's1',
          session_name: 'synthetic',
          comment: null,
          category: 'session',
        },
      ],
      nodes,
      operations,
      edges,
    },
  };
}
