import { describe, expect, it } from 'vitest';
import { buildGraph, openTrace } from '../../src/core/graph/index.ts';
import {
  findJsonSyntaxError,
  formatIssue,
  parseTraceText,
  type TraceIssue,
} from '../../src/core/trace/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

function small() {
  const b = new DocBuilder();
  const m = b.variable('m1', "'hello'", { category: 'message' });
  const f = b.variable('facts', "['hello']", { category: 'facts' });
  b.op('extract', 'extraction', [m], [f]);
  return b;
}

function only(issues: TraceIssue[], code: string) {
  return issues.filter((i) => i.code === code);
}

describe('JSON syntax errors report line:column', () => {
  it('a missing comma', () => {
    const r = parseTraceText('{\n  "a": 1\n  "b": 2\n}', { file: 'x.json' });
    expect(r.ok).toBe(false);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({
      code: 'json-syntax',
      severity: 'error',
      file: 'x.json',
      line: 3,
      column: 3,
    });
    expect(formatIssue(r.issues[0])).toMatch(
      /^x\.json:3:3: error: invalid JSON: unexpected '"', expected ',' or '}'/,
    );
  });
  it('truncation points at the end', () => {
    const text = small().text();
    const cut = text.slice(0, 200);
    const r = parseTraceText(cut, { file: 'cut.json' });
    const lines = cut.split('\n');
    expect(r.issues[0]).toMatchObject({ code: 'json-syntax', line: lines.length });
  });
  it('a raw newline inside a string', () => {
    const e = findJsonSyntaxError('{"a": "x\ny"}');
    expect(e).toMatchObject({ line: 1, column: 9 });
  });
  it('trailing garbage, bad escapes, bare words, empty input', () => {
    expect(findJsonSyntaxError('{} x')).toMatchObject({ line: 1, column: 4 });
    expect(findJsonSyntaxError('["\\q"]')).toMatchObject({ column: 3 });
    expect(findJsonSyntaxError('[True]')).toMatchObject({ column: 2 });
    expect(findJsonSyntaxError('   ')?.message).toMatch(/empty input/);
    expect(findJsonSyntaxError('[1,]')).toMatchObject({ column: 4 });
    expect(findJsonSyntaxError('{"a":1,}')).toMatchObject({ column: 8 });
  });
  it('agrees with JSON.parse on valid input', () => {
    for (const t of [
      '0',
      '"s"',
      '[]',
      '{}',
      '{"a":[1,2,{"b":null}],"c":"\\u00e9"}',
      '-1.5e+3',
      ' [ true , false ] ',
    ]) {
      expect(() => JSON.parse(t)).not.toThrow();
      expect(findJsonSyntaxError(t)).toBeNull();
    }
  });
  it('a byte-order mark is accepted', () => {
    expect(parseTraceText(`\ufeff${small().text()}`, { file: 'bom.json' }).ok).toBe(true);
  });
});

describe('schema errors name the record path', () => {
  it('top level not an object', () => {
    const r = parseTraceText('[1,2]', { file: 'f' });
    expect(r.issues[0]).toMatchObject({ code: 'not-a-graph', severity: 'error' });
  });
  it('data missing', () => {
    const r = parseTraceText('{"graph_id": "g", "metadata": {}}', { file: 'f' });
    expect(r.issues[0]).toMatchObject({ code: 'missing-field', path: 'data', severity: 'error' });
  });
  it('a list of the wrong type', () => {
    const b = small();
    (b.doc.data as Record<string, unknown>).edges = { a: 1 };
    const r = parseTraceText(b.text(), { file: 'f' });
    expect(r.ok).toBe(false);
    expect(r.issues[0]).toMatchObject({ code: 'wrong-type', path: 'data.edges' });
  });
  it('a missing list is a warning and reads as empty', () => {
    const b = small();
    delete (b.doc.data as Record<string, unknown>).sessions;
    const r = openTrace(b.text(), { file: 'f' });
    expect(r.ok).toBe(true);
    expect(only(r.issues, 'missing-list')[0]).toMatchObject({ path: 'data.sessions', severity: 'warning' });
  });
  it('a record that is not an object', () => {
    const b = small();
    (b.doc.data.nodes as unknown[]).push(42);
    const r = parseTraceText(b.text(), { file: 'f' });
    expect(r.ok).toBe(false);
    expect(only(r.issues, 'not-a-record')[0]).toMatchObject({ path: 'data.nodes[2]' });
  });
  it('an edge whose op_id is a number', () => {
    const b = small();
    (b.doc.data.edges[0] as Record<string, unknown>).op_id = 12;
    const r = parseTraceText(b.text(), { file: 'f' });
    expect(r.ok).toBe(false);
    expect(r.issues[0]).toMatchObject({ code: 'wrong-type', path: 'data.edges[0].op_id', severity: 'error' });
    expect(r.issues[0].message).toMatch(/op_id is number 12; expected a string/);
  });
  it('a variable without a version', () => {
    const b = small();
    delete (b.doc.data.nodes[1] as Record<string, unknown>).version;
    const r = parseTraceText(b.text(), { file: 'f' });
    expect(r.issues[0]).toMatchObject({ code: 'missing-field', path: 'data.nodes[1].version' });
  });
  it('descriptive fields of the wrong type are warnings; the value is shown as text', () => {
    const b = small();
    const n = b.doc.data.nodes[0] as Record<string, unknown>;
    n.value = 3.5;
    n.metadata = 'oops';
    n.lineno = -1;
    const r = openTrace(b.text(), { file: 'f' });
    expect(r.ok).toBe(true);
    expect(r.issues.map((i) => i.path).sort()).toEqual([
      'data.nodes[0].lineno',
      'data.nodes[0].metadata',
      'data.nodes[0].value',
    ]);
    if (r.ok) expect(r.graph.varValue[0]).toBe('3.5');
  });
  it('a malformed timestamp is a warning', () => {
    const b = small();
    b.doc.data.operations[0].created_at = 'yesterday';
    const r = openTrace(b.text(), { file: 'f' });
    expect(r.ok).toBe(true);
    expect(only(r.issues, 'bad-timestamp')[0]).toMatchObject({ path: 'data.operations[0].created_at' });
  });
  it('derived ids that disagree with their fields are warnings; the id built from fields is used', () => {
    const b = small();
    b.doc.data.nodes[0].full_node_id = 'something-else@1';
    const r = openTrace(b.text(), { file: 'f' });
    expect(r.ok).toBe(true);
    expect(only(r.issues, 'derived-mismatch')[0]).toMatchObject({ path: 'data.nodes[0].full_node_id' });
    if (r.ok) expect(r.graph.varIndex.has('m1@1')).toBe(true);
  });
});

describe('reference errors', () => {
  it('duplicate ids are fatal, naming the second record', () => {
    const b = small();
    b.doc.data.nodes.push({ ...b.doc.data.nodes[0] });
    b.doc.data.operations.push({ ...b.doc.data.operations[0] });
    b.doc.data.edges.push({ ...b.doc.data.edges[0] });
    b.doc.data.sessions.push({ ...b.doc.data.sessions[0] });
    const r = parseTraceText(b.text(), { file: 'f' });
    expect(r.ok).toBe(false);
    expect(only(r.issues, 'duplicate-id').map((i) => i.path)).toEqual([
      'data.sessions[1].session_id',
      'data.nodes[2]',
      'data.operations[1].op_id',
      'data.edges[1].edge_id',
    ]);
  });
  it('a dangling edge is a warning: the file loads and the edge stays out of the graph but in the export', () => {
    const b = small();
    const e = b.doc.data.edges[0];
    b.doc.data.edges.push({ ...e, edge_id: 'edge-x', target_full_node_id: 'ghost@1' });
    b.doc.data.edges.push({ ...e, edge_id: 'edge-y', op_id: 'op-ghost' });
    const r = openTrace(b.text(), { file: 'f' });
    expect(r.ok).toBe(true);
    expect(only(r.issues, 'dangling-endpoint')[0]).toMatchObject({
      path: 'data.edges[1].target_full_node_id',
      severity: 'warning',
    });
    expect(only(r.issues, 'dangling-op')[0]).toMatchObject({ path: 'data.edges[2].op_id' });
    if (!r.ok) return;
    expect(r.graph.edges).toHaveLength(1);
    expect(r.graph.doc.data.edges).toHaveLength(3);
  });
  it('an unknown session is a warning', () => {
    const b = small();
    b.doc.data.nodes[0].session_id = 'nope';
    const r = openTrace(b.text(), { file: 'f' });
    expect(r.ok).toBe(true);
    expect(only(r.issues, 'unknown-session')[0]).toMatchObject({ path: 'data.nodes[0].session_id' });
  });
  it('annotations naming unknown records are warnings', () => {
    const b = small();
    b.doc.data.annotations = [
      { query_id: 'query:q@1', final_error_type: 'ResponseError', final_op_id: 'op-zzz' },
    ];
    const r = openTrace(b.text(), { file: 'f' });
    expect(r.ok).toBe(true);
    expect(only(r.issues, 'dangling-annotation').map((i) => i.path)).toEqual([
      'data.annotations[0].query_id',
      'data.annotations[0].final_op_id',
    ]);
  });
});

describe('limits', () => {
  it('lists at most the cap and counts the rest', () => {
    const b = small();
    for (let i = 0; i < 500; i++)
      b.doc.data.nodes.push({
        ...b.doc.data.nodes[0],
        name: `n${i}`,
        full_name: `n${i}`,
        node_id: `n${i}@1`,
        full_node_id: `n${i}@1`,
        session_id: 'zzz',
      });
    const r = openTrace(b.text(), { file: 'f', maxIssues: 50 });
    expect(r.ok).toBe(true);
    expect(r.issues).toHaveLength(51);
    expect(r.issues[50]).toMatchObject({ code: 'more-issues' });
    expect(r.issues[50].message).toMatch(/^450 more problem/);
  });
  it('__proto__ keys stay data and change no prototype', () => {
    const b = small();
    const text = b.text().replace('"metadata": {}', '"metadata": {"__proto__": {"polluted": true}}');
    const r = openTrace(text, { file: 'f' });
    expect(r.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    if (r.ok) expect(buildGraph(r.graph.doc).vars).toHaveLength(2);
  });
});
