/**
 * Schema and reference checks of a parsed smartcomment document.
 *
 * Fatal (the file is not loaded): the top level or `data` is not an object, a record
 * list is not a list, a record is not an object, a record's identity fields are
 * missing or of the wrong type, or two records share an id — a graph built from
 * those would be wrong, not just incomplete.
 * Warnings (the file loads; every record is kept for export): a missing record
 * list, wrong types in descriptive fields, derived ids that disagree with the fields
 * they derive from, malformed timestamps, and dangling references (unknown session,
 * an edge whose op or endpoint is unknown — such an edge is left out of the graph
 * structure), and annotations that name unknown records.
 */

import { edgeCycles } from './cycles.ts';
import { fullNameOf, fullNodeIdOf } from './identity.ts';
import type { IssueCollector } from './issues.ts';
import { MAX_NESTING, nestsDeeperThan, TOO_DEEP_MESSAGE } from './nesting.ts';
import type { TraceDocument } from './types.ts';

type Kind = 'string' | 'string?' | 'int' | 'int>=1' | 'object' | 'bool' | 'string[]';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,9})?$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hasKind(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'string?':
      return v === null || typeof v === 'string';
    case 'int':
      return Number.isInteger(v) && (v as number) >= 0;
    case 'int>=1':
      return Number.isInteger(v) && (v as number) >= 1;
    case 'object':
      return isObject(v);
    case 'bool':
      return typeof v === 'boolean';
    case 'string[]':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
  }
}

const KIND_TEXT: Record<Kind, string> = {
  string: 'a string',
  'string?': 'a string or null',
  int: 'a whole number ≥ 0',
  'int>=1': 'a whole number ≥ 1',
  object: 'an object',
  bool: 'true or false',
  'string[]': 'a list of strings',
};

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return v.length > 40 ? `a string` : `"${v}"`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

function own(rec: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

/** Checks one field; returns whether it is well-formed. */
function field(
  issues: IssueCollector,
  rec: Record<string, unknown>,
  key: string,
  kind: Kind,
  path: string,
  fatal: boolean,
): boolean {
  const v = own(rec, key);
  if (hasKind(v, kind)) return true;
  const what = v === undefined ? 'is missing' : `is ${typeName(v)}`;
  const msg = `${key} ${what}; expected ${KIND_TEXT[kind]}`;
  if (fatal) issues.error(v === undefined ? 'missing-field' : 'wrong-type', msg, `${path}.${key}`);
  else issues.warn(v === undefined ? 'missing-field' : 'wrong-type', msg, `${path}.${key}`);
  return false;
}

const COMMON: [string, Kind][] = [
  ['created_at', 'string'],
  ['filename', 'string'],
  ['lineno', 'int'],
  ['metadata', 'object'],
];

/** Fatal: `v` nested deeper than MAX_NESTING (`name` is how the message calls it). Returns whether it is fine. */
function shallow(issues: IssueCollector, name: string, v: unknown, path: string): boolean {
  if (typeof v !== 'object' || v === null || !nestsDeeperThan(v, MAX_NESTING)) return true;
  issues.error('too-deep', `${name} ${TOO_DEEP_MESSAGE}`, path);
  return false;
}

/** Fatal: a field of `rec` nested deeper than MAX_NESTING. Returns whether the record is fine. */
function nesting(issues: IssueCollector, rec: Record<string, unknown>, path: string): boolean {
  let ok = true;
  for (const key of Object.keys(rec)) ok = shallow(issues, key, rec[key], `${path}.${key}`) && ok;
  return ok;
}

function commonFields(issues: IssueCollector, rec: Record<string, unknown>, path: string) {
  nesting(issues, rec, path);
  for (const [key, kind] of COMMON) field(issues, rec, key, kind, path, false);
  const ts = own(rec, 'created_at');
  if (typeof ts === 'string' && !TIMESTAMP.test(ts))
    issues.warn(
      'bad-timestamp',
      `created_at "${ts.slice(0, 40)}" is not YYYY-MM-DD HH:MM:SS.mmm`,
      `${path}.created_at`,
    );
}

function derived(
  issues: IssueCollector,
  rec: Record<string, unknown>,
  key: string,
  expected: string,
  path: string,
) {
  const v = own(rec, key);
  if (v !== undefined && v !== expected)
    issues.warn(
      'derived-mismatch',
      `${key} ${typeName(v)} disagrees with the fields it derives from ("${expected.slice(0, 80)}"); the derived value is used`,
      `${path}.${key}`,
    );
}

const LISTS = ['sessions', 'nodes', 'operations', 'edges'] as const;

/** The edges between known variables through a known op: variable numbers and the edge's index. */
interface Flow {
  src: number[];
  dst: number[];
  edge: number[];
}

/** Records of a list that passed the fatal checks, by index; the rest of the file is checked regardless. */
interface ValidatedIds {
  sessionIds: Set<string>;
  /** Each variable's full_node_id → its number, in file order. */
  nodeIds: Map<string, number>;
  opIds: Set<string>;
}

type Lists = Record<(typeof LISTS)[number], unknown[]>;

/**
 * The top level beside `data` (graph id, nesting, metadata), the record lists (a missing one
 * read as empty) and `data`'s other fields; null when a record list is not a list (fatal).
 */
function readLists(value: Record<string, unknown>, data: Record<string, unknown>, issues: IssueCollector) {
  graphId(issues, own(value, 'graph_id'));
  const { data: _records, ...top } = value;
  nesting(issues, top, '$');
  field(issues, value, 'metadata', 'object', '$', false);
  const lists: Record<string, unknown[]> = {};
  for (const name of LISTS) {
    const list = own(data, name);
    if (list === undefined) {
      issues.warn('missing-list', `data.${name} is missing; read as an empty list`, `data.${name}`);
      lists[name] = [];
    } else if (!Array.isArray(list)) {
      issues.error('wrong-type', `data.${name} is ${typeName(list)}; expected a list`, `data.${name}`);
      return null;
    } else lists[name] = list;
  }
  // data's fields besides the record lists (a list of annotations is checked record by record below).
  for (const key of Object.keys(data))
    if (!(LISTS as readonly string[]).includes(key) && !(key === 'annotations' && Array.isArray(data[key])))
      shallow(issues, key, data[key], `data.${key}`);
  return lists as Lists;
}

/** The record checks of one document: its issues, the ids seen so far, and references to check at the end. */
class RecordChecks {
  readonly ids: ValidatedIds = { sessionIds: new Set(), nodeIds: new Map(), opIds: new Set() };
  /** Session references, checked once every list is read: [session id, list, index] (paths made only for a warning). */
  readonly sessionRefs: [string, 'nodes' | 'operations', number][] = [];

  constructor(readonly issues: IssueCollector) {}

  /** Fatal: a record that is not an object. */
  recordAt(list: string, i: number, rec: unknown): rec is Record<string, unknown> {
    if (isObject(rec)) return true;
    this.issues.error('not-a-record', `record is ${typeName(rec)}; expected an object`, `data.${list}[${i}]`);
    return false;
  }

  /** Fatal: an id already seen. */
  unique(set: Set<string>, id: string, path: string, what: string): void {
    const before = set.size;
    if (set.add(id).size === before) this.issues.error('duplicate-id', `duplicate ${what} "${id}"`, path);
  }

  sessions(list: unknown[]): void {
    const { issues } = this;
    list.forEach((rec, i) => {
      const path = `data.sessions[${i}]`;
      if (!this.recordAt('sessions', i, rec)) return;
      if (field(issues, rec, 'session_id', 'string', path, true))
        this.unique(this.ids.sessionIds, rec.session_id as string, `${path}.session_id`, 'session_id');
      field(issues, rec, 'category', 'string', path, false);
      commonFields(issues, rec, path);
    });
  }

  nodes(list: unknown[]): void {
    const { issues, ids } = this;
    list.forEach((rec, i) => {
      const path = `data.nodes[${i}]`;
      if (!this.recordAt('nodes', i, rec)) return;
      const okName = field(issues, rec, 'name', 'string', path, true);
      const okVersion = field(issues, rec, 'version', 'int>=1', path, true);
      const okClass = field(issues, rec, 'class_name', 'string?', path, true);
      if (okName && okVersion && okClass) {
        const name = rec.name as string;
        const cls = rec.class_name as string | null;
        const id = fullNodeIdOf(name, cls, rec.version as number);
        if (ids.nodeIds.has(id)) issues.error('duplicate-id', `duplicate variable "${id}"`, path);
        else ids.nodeIds.set(id, ids.nodeIds.size);
        derived(issues, rec, 'full_name', fullNameOf(name, cls), path);
        derived(issues, rec, 'node_id', `${name}@${rec.version}`, path);
        derived(issues, rec, 'full_node_id', id, path);
      }
      field(issues, rec, 'value', 'string', path, false);
      field(issues, rec, 'category', 'string', path, false);
      if (field(issues, rec, 'session_id', 'string', path, false))
        this.sessionRefs.push([rec.session_id as string, 'nodes', i]);
      commonFields(issues, rec, path);
    });
  }

  operations(list: unknown[]): void {
    const { issues } = this;
    list.forEach((rec, i) => {
      const path = `data.operations[${i}]`;
      if (!this.recordAt('operations', i, rec)) return;
      if (field(issues, rec, 'op_id', 'string', path, true))
        this.unique(this.ids.opIds, rec.op_id as string, `${path}.op_id`, 'op_id');
      field(issues, rec, 'op_name', 'string?', path, false);
      field(issues, rec, 'category', 'string', path, false);
      if (field(issues, rec, 'session_id', 'string', path, false))
        this.sessionRefs.push([rec.session_id as string, 'operations', i]);
      commonFields(issues, rec, path);
    });
  }

  /** The edges; those between known variables through a known op make the flow. */
  edges(list: unknown[]): Flow {
    const edgeIds = new Set<string>();
    const flow: Flow = { src: [], dst: [], edge: [] };
    list.forEach((rec, i) => {
      const path = `data.edges[${i}]`;
      if (!this.recordAt('edges', i, rec)) return;
      if (field(this.issues, rec, 'edge_id', 'string', path, true))
        this.unique(edgeIds, rec.edge_id as string, `${path}.edge_id`, 'edge_id');
      if (this.edgeEnds(rec, path)) {
        flow.src.push(this.ids.nodeIds.get(rec.source_full_node_id as string) as number);
        flow.dst.push(this.ids.nodeIds.get(rec.target_full_node_id as string) as number);
        flow.edge.push(i);
      }
      field(this.issues, rec, 'category', 'string', path, false);
      commonFields(this.issues, rec, path);
    });
    return flow;
  }

  /** Whether an edge's op and both its ends are known; a warning for each one that is not. */
  private edgeEnds(rec: Record<string, unknown>, path: string): boolean {
    const { issues, ids } = this;
    if (field(issues, rec, 'op_id', 'string', path, true) && !ids.opIds.has(rec.op_id as string))
      issues.warn(
        'dangling-op',
        `edge names unknown operation "${rec.op_id}"; the edge is kept but left out of the graph`,
        `${path}.op_id`,
      );
    let known = ids.opIds.has(rec.op_id as string);
    for (const end of ['source_full_node_id', 'target_full_node_id']) {
      if (field(issues, rec, end, 'string', path, true) && !ids.nodeIds.has(rec[end] as string)) {
        known = false;
        issues.warn(
          'dangling-endpoint',
          `edge ${end.split('_')[0]} "${String(rec[end]).slice(0, 120)}" is not a variable of this graph; the edge is kept but left out of the graph`,
          `${path}.${end}`,
        );
      }
    }
    return known;
  }

  /** Warnings: session ids no session has. */
  unknownSessions(): void {
    for (const [sid, list, i] of this.sessionRefs)
      if (!this.ids.sessionIds.has(sid))
        this.issues.warn(
          'unknown-session',
          `unknown session_id "${sid.slice(0, 120)}"`,
          `data.${list}[${i}].session_id`,
        );
  }
}

export function validateDocument(value: unknown, issues: IssueCollector): value is TraceDocument {
  if (!isObject(value)) {
    issues.error('not-a-graph', `the top level is ${typeName(value)}; expected a smartcomment graph object`);
    return false;
  }
  const data = own(value, 'data');
  if (!isObject(data)) {
    issues.error(
      data === undefined ? 'missing-field' : 'wrong-type',
      `data ${data === undefined ? 'is missing' : `is ${typeName(data)}`}; expected an object of record lists`,
      'data',
    );
    return false;
  }
  const lists = readLists(value, data, issues);
  if (!lists) return false;
  const checks = new RecordChecks(issues);
  checks.sessions(lists.sessions);
  checks.nodes(lists.nodes);
  checks.operations(lists.operations);
  const flow = checks.edges(lists.edges);
  checks.unknownSessions();
  cycles(issues, checks.ids.nodeIds, flow, lists);
  validateAnnotations(own(data, 'annotations'), checks.ids, issues);
  return !issues.hasErrors;
}

/**
 * Warning: a cycle of edges that goes back in time — an op reads a variable that only it or
 * later ops write, and the edges lead from what it wrote back to that variable. (Cycles in
 * time order are normal where values are named by their content: the same value written
 * again later is the same variable.) The graph is still built and exported as is. The case
 * path walks ops back in execution order (a cause is the latest writer before a read), so it
 * cuts such a cycle at the reversed edge; evidence-flow's question-derived set follows edges
 * forward regardless of time, so a cycle through the question can change its verdict.
 */
function cycles(
  issues: IssueCollector,
  nodeIds: Map<string, number>,
  flow: Flow,
  lists: Record<string, unknown[]>,
) {
  if (flow.edge.length === 0) return;
  const found = edgeCycles(nodeIds.size, Int32Array.from(flow.src), Int32Array.from(flow.dst));
  if (found.length === 0) return;
  const when = opTimes(lists.operations);
  const opOf = (k: number) =>
    when.get((lists.edges[flow.edge[k]] as Record<string, unknown>).op_id as string);
  const before = (a: OpTime, b: OpTime) => a.at < b.at || (a.at === b.at && a.index < b.index);
  const firstWrite: (OpTime | undefined)[] = new Array(nodeIds.size);
  // An edge whose op is not among the operations (reported as dangling) has no time: skipped.
  for (let k = 0; k < flow.edge.length; k++) {
    const w = opOf(k);
    const first = firstWrite[flow.dst[k]];
    if (w && (!first || before(w, first))) firstWrite[flow.dst[k]] = w;
  }
  const cycleOf = new Int32Array(nodeIds.size).fill(-1);
  for (const [i, c] of found.entries()) for (const v of c.vars) cycleOf[v] = i;
  const names = [...nodeIds.keys()];
  const reported = new Set<number>();
  for (let k = 0; k < flow.edge.length; k++) {
    const src = flow.src[k];
    const c = cycleOf[src];
    if (c < 0 || c !== cycleOf[flow.dst[k]] || reported.has(c)) continue;
    const reader = opOf(k);
    const written = firstWrite[src];
    if (!reader || !written || before(written, reader)) continue; // written before this read: in time order
    reported.add(c);
    const vars = found[c].vars;
    const shown = vars.slice(0, 3).map((v) => `"${names[v].slice(0, 80)}"`);
    const more = vars.length > 3 ? `, … (${vars.length} in all)` : '';
    issues.warn(
      'edge-cycle',
      `op "${reader.id.slice(0, 80)}" reads "${names[src].slice(0, 80)}", which only it or later ops write, and the edges lead back to it (a cycle through ${shown.join(', ')}${more}); the case path cuts the cycle there, but attribution may answer otherwise than without it: check the edges`,
      `data.edges[${flow.edge[k]}]`,
    );
  }
}

/** When an op ran, as the graph orders ops: created_at text, then file order. */
interface OpTime {
  id: string;
  at: string;
  index: number;
}

function opTimes(operations: unknown[]): Map<string, OpTime> {
  const out = new Map<string, OpTime>();
  operations.forEach((rec, index) => {
    if (!isObject(rec) || typeof rec.op_id !== 'string' || out.has(rec.op_id)) return;
    const t = own(rec, 'created_at');
    out.set(rec.op_id, {
      id: rec.op_id,
      at: typeof t === 'string' ? t : t == null ? '' : JSON.stringify(t),
      index,
    });
  });
  return out;
}

/** Longest graph_id accepted (it is the stored trace's key and part of its address). */
const MAX_GRAPH_ID_LENGTH = 512;

/** The graph's identity: a non-empty string without control characters, at most MAX_GRAPH_ID_LENGTH long. */
function graphId(issues: IssueCollector, v: unknown) {
  const expected = `expected a non-empty string of at most ${MAX_GRAPH_ID_LENGTH} characters (the trace's identity)`;
  let problem: string | null = null;
  if (v === undefined) problem = 'is missing';
  else if (typeof v !== 'string') problem = `is ${typeName(v)}`;
  else if (v.trim() === '') problem = 'is empty';
  else if (v.length > MAX_GRAPH_ID_LENGTH) problem = `is ${v.length} characters long`;
  else if (/[\u0000-\u001f\u007f]/.test(v)) problem = 'holds a control character';
  if (problem)
    issues.error(
      v === undefined ? 'missing-field' : 'bad-graph-id',
      `graph_id ${problem}; ${expected}`,
      '$.graph_id',
    );
}

function validateAnnotations(list: unknown, ids: ValidatedIds, issues: IssueCollector) {
  if (list === undefined) return;
  if (!Array.isArray(list)) {
    issues.warn(
      'wrong-type',
      `data.annotations is ${typeName(list)}; expected a list — ignored`,
      'data.annotations',
    );
    return;
  }
  list.forEach((rec, i) => {
    const path = `data.annotations[${i}]`;
    if (!isObject(rec)) {
      if (shallow(issues, 'annotation', rec, path))
        issues.warn('not-a-record', `annotation is ${typeName(rec)}; expected an object — ignored`, path);
      return;
    }
    nesting(issues, rec, path);
    if (field(issues, rec, 'query_id', 'string', path, false) && !ids.nodeIds.has(rec.query_id as string))
      issues.warn(
        'dangling-annotation',
        `query_id "${rec.query_id}" is not a variable of this graph`,
        `${path}.query_id`,
      );
    field(issues, rec, 'final_error_type', 'string', path, false);
    // A null final_op_id is how some labels say "no single op"; only a non-string, non-null is malformed.
    const opId = own(rec, 'final_op_id');
    if (typeof opId === 'string' && !ids.opIds.has(opId))
      issues.warn(
        'dangling-annotation',
        `final_op_id "${opId}" is not an operation of this graph`,
        `${path}.final_op_id`,
      );
    else if (opId !== null && typeof opId !== 'string')
      field(issues, rec, 'final_op_id', 'string', path, false);
    for (const key of ANNOTATION_TEXT)
      if (own(rec, key) !== undefined) field(issues, rec, key, 'string', path, false);
    const gold = own(rec, 'golden_answers');
    if (gold !== undefined && typeof gold !== 'string')
      field(issues, rec, 'golden_answers', 'string[]', path, false);
    const ev = own(rec, 'source_evidence_ids');
    if (ev !== undefined && field(issues, rec, 'source_evidence_ids', 'string[]', path, false)) {
      const missing = (ev as string[]).filter((id) => !ids.nodeIds.has(id));
      if (missing.length)
        issues.warn(
          'dangling-evidence',
          `source_evidence_ids names ${missing.length} id(s) that are not variables of this graph (${missing
            .slice(0, 3)
            .map((id) => `"${id.slice(0, 80)}"`)
            .join(', ')}${missing.length > 3 ? ', …' : ''}); the case's evidence is read without them`,
          `${path}.source_evidence_ids`,
        );
    }
  });
}

/** An annotation's optional text fields (MemTraceBench's and the workbench's): read only when they are strings. */
const ANNOTATION_TEXT = ['query', 'prediction', 'reason', 'label_source', 'annotator', 'created_at'];
