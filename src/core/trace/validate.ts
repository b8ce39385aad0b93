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
import { fullNameOf, fullNodeIdOf } from './identity.ts';
import type { IssueCollector } from './issues.ts';
import { TOO_DEEP_MESSAGE, tooDeepAt } from './nesting.ts';
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

/** Fatal: a field nested deeper than MAX_NESTING. Returns whether the record is fine. */
function nesting(issues: IssueCollector, rec: Record<string, unknown>, path: string): boolean {
  let ok = true;
  for (const key of Object.keys(rec)) {
    const v = rec[key];
    const deep = typeof v === 'object' && v !== null ? tooDeepAt(v) : null;
    if (deep !== null) {
      issues.error('too-deep', `${key} ${TOO_DEEP_MESSAGE}`, `${path}.${key}`);
      ok = false;
    }
  }
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

/** Records of a list that passed the fatal checks, by index; the rest of the file is checked regardless. */
export interface ValidatedIds {
  sessionIds: Set<string>;
  nodeIds: Set<string>;
  opIds: Set<string>;
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
      return false;
    } else lists[name] = list;
  }

  const ids: ValidatedIds = { sessionIds: new Set(), nodeIds: new Set(), opIds: new Set() };
  const recordAt = (list: string, i: number, rec: unknown): rec is Record<string, unknown> => {
    if (isObject(rec)) return true;
    issues.error('not-a-record', `record is ${typeName(rec)}; expected an object`, `data.${list}[${i}]`);
    return false;
  };
  const unique = (set: Set<string>, id: string, path: string, what: string) => {
    const before = set.size;
    if (set.add(id).size === before) issues.error('duplicate-id', `duplicate ${what} "${id}"`, path);
  };

  lists.sessions.forEach((rec, i) => {
    const path = `data.sessions[${i}]`;
    if (!recordAt('sessions', i, rec)) return;
    if (field(issues, rec, 'session_id', 'string', path, true))
      unique(ids.sessionIds, rec.session_id as string, `${path}.session_id`, 'session_id');
    field(issues, rec, 'category', 'string', path, false);
    commonFields(issues, rec, path);
  });

  // Session references, checked once every list is read: [session id, list, index] (paths made only for a warning).
  const sessionRefs: [string, 'nodes' | 'operations', number][] = [];
  lists.nodes.forEach((rec, i) => {
    const path = `data.nodes[${i}]`;
    if (!recordAt('nodes', i, rec)) return;
    const okName = field(issues, rec, 'name', 'string', path, true);
    const okVersion = field(issues, rec, 'version', 'int>=1', path, true);
    const okClass = field(issues, rec, 'class_name', 'string?', path, true);
    if (okName && okVersion && okClass) {
      const name = rec.name as string;
      const cls = rec.class_name as string | null;
      const id = fullNodeIdOf(name, cls, rec.version as number);
      unique(ids.nodeIds, id, path, 'variable');
      derived(issues, rec, 'full_name', fullNameOf(name, cls), path);
      derived(issues, rec, 'node_id', `${name}@${rec.version}`, path);
      derived(issues, rec, 'full_node_id', id, path);
    }
    field(issues, rec, 'value', 'string', path, false);
    field(issues, rec, 'category', 'string', path, false);
    if (field(issues, rec, 'session_id', 'string', path, false))
      sessionRefs.push([rec.session_id as string, 'nodes', i]);
    commonFields(issues, rec, path);
  });

  lists.operations.forEach((rec, i) => {
    const path = `data.operations[${i}]`;
    if (!recordAt('operations', i, rec)) return;
    if (field(issues, rec, 'op_id', 'string', path, true))
      unique(ids.opIds, rec.op_id as string, `${path}.op_id`, 'op_id');
    field(issues, rec, 'op_name', 'string?', path, false);
    field(issues, rec, 'category', 'string', path, false);
    if (field(issues, rec, 'session_id', 'string', path, false))
      sessionRefs.push([rec.session_id as string, 'operations', i]);
    commonFields(issues, rec, path);
  });

  const edgeIds = new Set<string>();
  lists.edges.forEach((rec, i) => {
    const path = `data.edges[${i}]`;
    if (!recordAt('edges', i, rec)) return;
    if (field(issues, rec, 'edge_id', 'string', path, true))
      unique(edgeIds, rec.edge_id as string, `${path}.edge_id`, 'edge_id');
    if (field(issues, rec, 'op_id', 'string', path, true) && !ids.opIds.has(rec.op_id as string))
      issues.warn(
        'dangling-op',
        `edge names unknown operation "${rec.op_id}"; the edge is kept but left out of the graph`,
        `${path}.op_id`,
      );
    for (const end of ['source_full_node_id', 'target_full_node_id']) {
      if (field(issues, rec, end, 'string', path, true) && !ids.nodeIds.has(rec[end] as string))
        issues.warn(
          'dangling-endpoint',
          `edge ${end.split('_')[0]} "${String(rec[end]).slice(0, 120)}" is not a variable of this graph; the edge is kept but left out of the graph`,
          `${path}.${end}`,
        );
    }
    field(issues, rec, 'category', 'string', path, false);
    commonFields(issues, rec, path);
  });

  for (const [sid, list, i] of sessionRefs)
    if (!ids.sessionIds.has(sid))
      issues.warn(
        'unknown-session',
        `unknown session_id "${sid.slice(0, 120)}"`,
        `data.${list}[${i}].session_id`,
      );

  validateAnnotations(own(data, 'annotations'), ids, issues);
  return !issues.hasErrors;
}

/** Longest graph_id accepted (it is the stored trace's key and part of its address). */
export const MAX_GRAPH_ID_LENGTH = 512;

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
    const ev = own(rec, 'source_evidence_ids');
    if (ev !== undefined) field(issues, rec, 'source_evidence_ids', 'string[]', path, false);
  });
}
