/**
 * The streaming reader (`parseTraceChunks`): the document it builds from chunks of any size is
 * the one `JSON.parse` gives for the whole text, and it gives up (null) on every file whose
 * problem the whole-text reader must word with its place.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTraceChunks, parseTraceText } from '../../src/core/trace/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

const utf8 = new TextEncoder();

async function* pieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

function read(input: string | Uint8Array, size: number) {
  const bytes = typeof input === 'string' ? utf8.encode(input) : input;
  return parseTraceChunks(pieces(bytes, size), { file: 'f.json' });
}

/** A small valid trace whose values hold what a scanner can trip on. */
function trickyText(): string {
  const b = new DocBuilder('graph-tricky');
  const values = [
    'quote " inside',
    'backslash at the end \\',
    'two backslashes then a quote \\\\"',
    'brackets } ] { [ and a comma , : in text',
    'é 漢字 😀 multi-byte',
    'control \u0001 \n \t characters',
    '',
  ];
  const ids = values.map((v, i) => b.variable(`v${i}`, v));
  b.op('read', 'retrieval', ids.slice(0, 3), ids.slice(3));
  b.doc.data.nodes[0].metadata = { nested: [1, { deep: [true, false, null, -1.5e3] }], empty: {} };
  return JSON.stringify(b.doc, null, 1);
}

describe('streaming import', () => {
  it('builds the document JSON.parse gives, key order included, from chunks of 1 to 4096 bytes', async () => {
    const text = trickyText();
    const expected = JSON.stringify(JSON.parse(text));
    for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
      const r = await read(text, size);
      expect(r?.ok, `chunks of ${size}`).toBe(true);
      if (r?.ok) expect(JSON.stringify(r.doc), `chunks of ${size}`).toBe(expected);
    }
  });

  it('reads the real traces as JSON.parse does, with the same warnings', async () => {
    for (const file of smartcommentFiles().slice(0, 3)) {
      const bytes = readFileSync(file);
      const whole = JSON.parse(bytes.toString('utf8'));
      const warnings = parseTraceText(bytes.toString('utf8'), { file: 'f.json' }).issues;
      for (const size of [997, 65536]) {
        const r = await read(bytes, size);
        expect(r?.ok, file).toBe(true);
        if (r?.ok) expect(JSON.stringify(r.doc)).toBe(JSON.stringify(whole));
        expect(r?.issues).toEqual(warnings);
      }
    }
  });

  it('keeps scalars, nested values and unknown lists of the top level and of data', async () => {
    const doc = JSON.parse(trickyText());
    doc.count = -12.5e-3;
    doc.flags = [true, false, null];
    doc.data.extra = [{ a: [1, [2, [3]]] }, 'x', 4];
    doc.data.note = 'not a list';
    const text = JSON.stringify(doc, null, 2);
    const r = await read(text, 3);
    expect(r?.ok).toBe(true);
    if (r?.ok) expect(JSON.stringify(r.doc)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('records that repeat strings (shared between them as read) keep their own values, "__proto__" fields as data', async () => {
    const doc = JSON.parse(trickyText());
    const long = 'w'.repeat(300);
    for (const [i, n] of doc.data.nodes.entries()) {
      n.comment = i % 2 ? 'same comment' : long;
      n.metadata = { source: 'same source', ['__proto__']: i % 2 ? 'odd' : 'even', at: { file: 'f.py' } };
    }
    const text = JSON.stringify(doc);
    const r = await read(text, 5);
    expect(r?.ok).toBe(true);
    if (!r?.ok) return;
    expect(JSON.stringify(r.doc)).toBe(JSON.stringify(JSON.parse(text)));
    const meta = r.doc.data.nodes.map((n) => n.metadata as Record<string, unknown>);
    expect(meta.map((m) => Object.getOwnPropertyDescriptor(m, '__proto__')?.value)).toEqual(
      meta.map((_, i) => (i % 2 ? 'odd' : 'even')),
    );
    expect(meta.every((m) => Object.getPrototypeOf(m) === Object.prototype)).toBe(true);
  });

  it('gives up on what the whole-text reader must word with its place', async () => {
    const good = trickyText();
    const bad: [string, string | Uint8Array][] = [
      ['broken JSON', '{"graph_id": "x", "data": {\n  "nodes": [,]}}'],
      ['a record cut short', good.slice(0, good.length / 2)],
      ['the file cut inside a scalar', '{"graph_id": "x", "n": 12'],
      ['text after the object', `${good} x`],
      ['two JSON lines', `${JSON.stringify({ a: 1 })}\n${JSON.stringify({ a: 2 })}`],
      ['a list at the top', '[{"graph_id": "x"}]'],
      ['an empty file', ''],
      ['a key twice at the top', good.replace('{', '{"graph_id": "other",')],
      ['a key twice in data', good.replace('"data": {', '"data": {"nodes": [],')],
      ['__proto__ at the top', good.replace('{', '{"__proto__": {"polluted": true},')],
      ['a missing colon', '{"graph_id" "x"}'],
      ['a missing comma', '{"graph_id": "x" "data": {}}'],
      ['a value missing', '{"graph_id": }'],
    ];
    const bytes = utf8.encode(good);
    const at = bytes.indexOf(0x61, 200);
    bytes[at] = 0xff;
    bad.push(['a byte that is not UTF-8', bytes]);
    for (const [what, input] of bad) expect(await read(input, 7), what).toBeNull();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports problems of the parsed document as the whole-text reader does', async () => {
    const doc = JSON.parse(trickyText());
    let deep: unknown = 'bottom';
    for (let i = 0; i < 300; i++) deep = [deep];
    doc.data.nodes[1].metadata = { deep };
    delete doc.data.operations[0].op_id;
    const r = await read(JSON.stringify(doc), 64);
    expect(r?.ok).toBe(false);
    const codes = r?.issues.filter((i) => i.severity === 'error').map((i) => [i.code, i.path]);
    expect(codes).toContainEqual(['too-deep', expect.stringMatching(/^data\.nodes\[1\]\.metadata/)]);
    expect(codes).toContainEqual([expect.any(String), 'data.operations[0].op_id']);
    expect(r?.issues.every((i) => i.file === 'f.json')).toBe(true);
  });
});
