/**
 * A synthetic smartcomment graph shaped like a long-context memory run: every
 * turn appends a message to a window variable (a new version each time, the
 * whole window as its value, trimmed to a budget), so long values repeat across
 * versions — the shape that makes real files reach 100 MB. Questions at the end
 * retrieve the window, answer, and are judged (`llm-judge`); failures whose
 * evidence was trimmed away are annotated with the trimming update (UpdateError).
 *
 * Pure and streaming: `syntheticChunks` yields JSON text in pieces, so Node can
 * write a 100 MB file and a browser can build one without holding two copies.
 */
import { seededRandom } from '../src/core/random.ts';

export interface SyntheticOptions {
  /** Stop adding turns once the output passes this many bytes (approximately). */
  targetBytes: number;
  /** Window budget in characters (default 20,000). */
  windowChars?: number;
  /** Questions at the end (default 40). */
  questions?: number;
  /** Exactly this many turns instead of as many as fit `targetBytes` (the same conversation with other settings). */
  turns?: number;
  seed?: number;
}

const WORDS =
  'the a we went to on at my our new old big small trip dog cat garden park museum concert painting book friend sister brother job interview project deadline weekend morning evening dinner lunch coffee beach mountain lake city train flight hotel birthday party wedding class course guitar piano race marathon recipe cake bread soup festival camping hiking swimming adoption support group school teacher doctor appointment plan idea'.split(
    ' ',
  );
// Made-up speakers, not a data set's (screenshots show them); the same lengths as the names
// used before, so files of a target size hold the same turns as earlier benchmark runs.
const NAMES = ['Beatrice', 'Eleanor', 'Ivo', 'Rosa', 'Ada', 'Finn', 'Lotte', 'Mirela', 'Otto', 'Selina'];

function hex32(r: () => number): string {
  let s = '';
  for (let i = 0; i < 4; i++)
    s += Math.floor(r() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return s;
}

function stamp(base: number, ms: number): string {
  const d = new Date(base + ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}`;
}

/** Python repr of a str, as the toolkit stores string values. */
function pyStr(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

export function* syntheticChunks(options: SyntheticOptions): Generator<string> {
  const r = seededRandom(options.seed ?? 7);
  const windowChars = options.windowChars ?? 20_000;
  const questions = options.questions ?? 40;
  const graphId = `graph-${hex32(r)}`;
  const base = Date.UTC(2026, 0, 1, 9, 0, 0);
  let clock = 0;
  const now = () => stamp(base, clock++);
  const common = (lineno: number, sessionId: string) => ({
    graph_id: graphId,
    user_id: null,
    project_id: 'synthetic-long-context',
    session_id: sessionId,
    lineno,
    filename: 'synthetic.py',
    trigger_point: `synthetic.py:${lineno}`,
  });
  const node = (
    name: string,
    version: number,
    value: string,
    category: string,
    cls: string | null,
    session: string,
    metadata: object = {},
    comment: string | null = null,
  ) => {
    const fullName = cls === null ? name : `${cls}:${name}`;
    return {
      created_at: now(),
      filename: 'synthetic.py',
      lineno: 40,
      name,
      version,
      value,
      comment,
      category,
      graph_id: graphId,
      user_id: null,
      class_name: cls,
      project_id: 'synthetic-long-context',
      session_id: session,
      metadata,
      trigger_point: 'synthetic.py:40',
      full_name: fullName,
      node_id: `${name}@${version}`,
      full_node_id: `${fullName}@${version}`,
    };
  };
  const nodes: string[] = [];
  const ops: string[] = [];
  const edges: string[] = [];
  const sessions: string[] = [];
  const annotations: string[] = [];
  let bytes = 0;
  const push = (list: string[], rec: object) => {
    const s = JSON.stringify(rec);
    bytes += s.length + 2;
    list.push(s);
  };
  const op = (
    name: string,
    category: string,
    session: string,
    inputs: string[],
    outputs: string[],
    comment: string,
  ) => {
    const opId = `op-${hex32(r)}`;
    const created = now();
    push(ops, {
      created_at: created,
      op_id: opId,
      op_name: name,
      comment,
      category,
      metadata: {},
      ...common(60, session),
    });
    for (const s of inputs)
      for (const t of outputs)
        push(edges, {
          created_at: created,
          edge_id: `edge-${hex32(r)}`,
          op_id: opId,
          category,
          source_full_node_id: s,
          target_full_node_id: t,
          comment,
          metadata: {},
          ...common(61, session),
        });
    return opId;
  };

  const construction = 'construction';
  push(sessions, {
    created_at: now(),
    session_name: 'construction',
    comment: null,
    category: 'memory_construction',
    metadata: {},
    ...common(10, construction),
  });
  const turns: string[] = [];
  let window = '';
  let windowVersion = 0;
  let windowId = '';
  // The window holds turns firstTurn..t; evictedBy[t] is the update op that trimmed turn t away.
  let firstTurn = 0;
  const evictedBy: string[] = [];
  const reserve = questions * 2 * windowChars + 200_000;
  const more = (t: number) =>
    options.turns === undefined ? bytes < options.targetBytes - reserve : t < options.turns;
  for (let t = 0; more(t); t++) {
    const speaker = NAMES[t % 2];
    const len = 8 + Math.floor(r() * 30);
    const words: string[] = [];
    for (let k = 0; k < len; k++) words.push(WORDS[Math.floor(r() * WORDS.length)]);
    const text = `${speaker}: ${words.join(' ')} #${t}`;
    turns.push(text);
    const msgName = `turn-${t}`;
    push(
      nodes,
      node(
        msgName,
        1,
        pyStr(text),
        'message',
        null,
        construction,
        { dia_id: `D${1 + Math.floor(t / 20)}:${(t % 20) + 1}` },
        'A raw conversation message.',
      ),
    );
    window = window ? `${window}\n${text}` : text;
    const oldFirst = firstTurn;
    if (window.length > windowChars) {
      window = window.slice(window.indexOf('\n', window.length - windowChars) + 1);
      firstTurn = Number(window.slice(window.indexOf('#') + 1, window.indexOf('\n')));
    }
    windowVersion++;
    const prev = windowId;
    push(
      nodes,
      node(
        'context-window',
        windowVersion,
        pyStr(window),
        'memory_store',
        null,
        construction,
        {},
        'The long-context window.',
      ),
    );
    windowId = `context-window@${windowVersion}`;
    const updateOp = op(
      'long-context.update',
      'update',
      construction,
      prev ? [prev, msgName + '@1'] : [msgName + '@1'],
      [windowId],
      'Append the turn and trim the window.',
    );
    for (let k = oldFirst; k < firstTurn; k++) evictedBy[k] = updateOp;
  }
  const search = 'search';
  push(sessions, {
    created_at: now(),
    session_name: 'search',
    comment: null,
    category: 'memory_search',
    metadata: {},
    ...common(20, search),
  });
  for (let q = 0; q < questions; q++) {
    const target = Math.floor(r() * turns.length);
    const question = `What did they say in turn ${target}?`;
    const qName = `qa-${q}`;
    push(
      nodes,
      node(
        qName,
        1,
        pyStr(question),
        'message & query',
        'query',
        search,
        { evidence: [`turn-${target}`] },
        'The user question.',
      ),
    );
    push(nodes, node(`ctx-${q}`, 1, pyStr(window), 'retrieved_memories', null, search));
    op(
      'long-context.retrieve',
      'retrieval',
      search,
      [`query:${qName}@1`, windowId],
      [`ctx-${q}@1`],
      'Pass the window through.',
    );
    const inWindow = target >= firstTurn;
    const answer = inWindow ? turns[target] : 'Not mentioned.';
    push(nodes, node(`pred-${q}`, 1, pyStr(answer), 'answer', 'prediction', search));
    op(
      'long-context.answer',
      'generation',
      search,
      [`query:${qName}@1`, `ctx-${q}@1`],
      [`prediction:pred-${q}@1`],
      'Answer from the window.',
    );
    push(nodes, node(`gold-${q}`, 1, `[${pyStr(turns[target])}]`, 'golden', 'golden_answers', search));
    push(
      nodes,
      node(`judge-${q}`, 1, pyStr(inWindow ? 'CORRECT' : 'WRONG'), 'judge', 'judge_response', search),
    );
    push(nodes, node(`score-${q}`, 1, inWindow ? '1.0' : '0.0', 'judge', 'judge_score', search));
    op(
      'llm-judge',
      'evaluation',
      search,
      [`query:${qName}@1`, `prediction:pred-${q}@1`, `golden_answers:gold-${q}@1`],
      [`judge_response:judge-${q}@1`, `judge_score:score-${q}@1`],
      'LLM-as-a-judge.',
    );
    if (!inWindow && annotations.length < 10)
      annotations.push(
        JSON.stringify({
          query_id: `query:${qName}@1`,
          query: question,
          golden_answers: [turns[target]],
          prediction: answer,
          source_evidence_ids: [`turn-${target}@1`],
          final_error_type: 'UpdateError',
          final_op_id: evictedBy[target],
          label_source: 'synthetic',
        }),
      );
  }

  yield `{\n  "graph_id": ${JSON.stringify(graphId)},\n  "user_id": null,\n  "project_id": "synthetic-long-context",\n  "storage_path": null,\n  "strict": false,\n  "driver_type": "in_memory",\n  "created_at": ${JSON.stringify(stamp(base, 0))},\n  "metadata": {"synthetic": true, "layer_type": "long_context"},\n  "data": {\n`;
  const lists: [string, string[]][] = [
    ['sessions', sessions],
    ['nodes', nodes],
    ['operations', ops],
    ['edges', edges],
    ['annotations', annotations],
  ];
  for (const [k, [name, list]] of lists.entries()) {
    yield `    ${JSON.stringify(name)}: [\n`;
    // Yield in batches so a consumer's buffer stays bounded.
    for (let i = 0; i < list.length; i += 256) yield `${i ? ',\n' : ''}${list.slice(i, i + 256).join(',\n')}`;
    yield `\n    ]${k < lists.length - 1 ? ',' : ''}\n`;
  }
  yield '  }\n}\n';
}

/** The whole synthetic file as one string (for browsers and tests; Node benchmarks stream it to disk). */
export function syntheticText(options: SyntheticOptions): string {
  return [...syntheticChunks(options)].join('');
}
