/**
 * Issue 22 in the span importers: nesting thousands of levels deep in every span format is one
 * clear error naming the file and the place (never a stack overflow), and `validate` goes on to
 * the next file; a smartcomment file whose `data` has keys named like Object members (or no
 * lists at all) survives export to OTLP and re-import.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/core/graph/index.ts';
import { parseTraceText, type TraceDocument } from '../../src/core/trace/index.ts';
import { otlpJson } from '../../src/sdk/otel.ts';
import { runCli } from '../helpers/cli.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const DEPTH = 3333;
/** JSON text nested `n` levels (written as text: JSON.stringify itself overflows on such values). */
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const deepArrayValue = (n: number) =>
  `${'{"arrayValue":{"values":['.repeat(n)}{"stringValue":"x"}${']}}'.repeat(n)}`;
const deepKvlist = (n: number) =>
  `${'{"kvlistValue":{"values":[{"key":"k","value":'.repeat(n)}{"stringValue":"x"}${'}]}}'.repeat(n)}`;

const otlp = (attrValue: string) =>
  `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"chat","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"x","value":${attrValue}}]}]}]}]}`;

const CASES: [string, string, string][] = [
  [
    'OTLP arrayValue',
    otlp(deepArrayValue(DEPTH)),
    'resourceSpans[0].scopeSpans[0].spans[0].attributes[1].value',
  ],
  [
    'OTLP kvlistValue',
    otlp(deepKvlist(DEPTH)),
    'resourceSpans[0].scopeSpans[0].spans[0].attributes[1].value',
  ],
  [
    'Phoenix attributes',
    `[{"name":"s","context":{"trace_id":"t","span_id":"s1"},"span_kind":"LLM","attributes":${deepObject(DEPTH)}}]`,
    '[0].attributes.a',
  ],
  [
    'Langfuse input',
    `{"id":"t1","observations":[{"id":"o1","type":"GENERATION","input":${deepObject(DEPTH)}}]}`,
    'observations[0].input.a',
  ],
  [
    'Langfuse metadata',
    `{"trace":{"id":"t1"},"observations":[{"id":"o1","type":"SPAN","metadata":${deepObject(DEPTH)}}]}`,
    'observations[0].metadata.a',
  ],
  [
    'SDK span attributes',
    `[{"name":"s","spanContext":{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331"},"attributes":{"x":${deepObject(DEPTH)}}}]`,
    '[0].attributes.x.a',
  ],
  [
    'a JSON Lines line',
    `${otlp('{"stringValue":"ok"}')}\n${otlp(deepArrayValue(DEPTH))}\n`,
    'line 2: resourceSpans[0].scopeSpans[0].spans[0].attributes[1].value',
  ],
];

describe('deep nesting in span files', () => {
  for (const [what, text, place] of CASES)
    it(`${what}: one error naming the place, never a stack overflow`, () => {
      const r = openTrace(text, { file: 'deep.json' });
      expect(r.ok).toBe(false);
      expect(r.issues).toHaveLength(1);
      const [issue] = r.issues;
      expect(issue).toMatchObject({ severity: 'error', code: 'too-deep', file: 'deep.json' });
      expect(issue.path?.startsWith(place)).toBe(true);
      expect(issue.path?.endsWith('…')).toBe(true); // cut short, one line
      expect(issue.message).toBe(
        'the value nests more than 256 levels deep; such a file cannot be shown or exported',
      );
    });

  it('JSON text nested deep inside a content attribute stays text (no stack overflow, the span loads)', () => {
    const deepMessages = JSON.stringify(`[${deepObject(DEPTH)}]`);
    const text = otlp('{"stringValue":"x"}').replace(
      '{"key":"x","value":{"stringValue":"x"}}',
      `{"key":"gen_ai.input.messages","value":{"stringValue":${deepMessages}}}`,
    );
    const r = openTrace(text, { file: 'deep-string.json' });
    expect(r.ok).toBe(true);
    if (r.ok)
      expect(r.graph.doc.data.nodes.some((n) => String(n.value).startsWith('[{"a":{"a":'))).toBe(true);
  });

  it('nesting within the limit still loads', () => {
    expect(openTrace(otlp(deepArrayValue(60)), { file: 'ok.json' }).ok).toBe(true);
  });

  it('memtrace validate reports the deep file and goes on to the next one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-deep-'));
    const bad = join(dir, 'a-deep.json');
    const good = join(dir, 'b-good.json');
    writeFileSync(bad, CASES[0][1]);
    writeFileSync(good, otlp('{"stringValue":"fine"}'));
    const r = await runCli(['validate', bad, good]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`FAILED  ${bad}`);
    expect(r.stdout).toContain(`ok      ${good}`);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/RangeError|Maximum call stack|unexpected error/);
  });
});

describe('round trip of data keys named like Object members', () => {
  const original = () =>
    JSON.parse(readFileSync(join(SMARTCOMMENT_DIR, 'conv-26-rag-0.json'), 'utf8')) as TraceDocument;

  for (const key of ['constructor', 'toString', '__proto__', '__defineGetter__'])
    it(`data.${key} exports to OTLP and re-imports with the key as data`, async () => {
      const text = JSON.stringify(original()).replace('"data":{', `"data":{"${key}":[{"x":1}],`);
      const first = parseTraceText(text, { file: 'in.json' });
      expect(first.ok).toBe(true);
      if (!first.ok) return;
      const bytes = await otlpJson(first.doc, { flavour: 'genai', exact: true });
      const again = parseTraceText(new TextDecoder().decode(bytes), { file: 'out.otlp.json' });
      expect(again.issues.filter((i) => i.severity === 'error')).toEqual([]);
      expect(again.ok).toBe(true);
      if (!again.ok) return;
      expect(Object.hasOwn(again.doc.data, key)).toBe(true);
      expect((again.doc.data as Record<string, unknown>)[key]).toEqual([{ x: 1 }]);
      expect(again.doc.data.nodes).toHaveLength(first.doc.data.nodes.length);
    });

  it('"data": {} exports and re-imports (the lists it lacks are warnings, as in the original)', async () => {
    const text = JSON.stringify({ ...original(), data: {} });
    const first = parseTraceText(text, { file: 'in.json' });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const bytes = await otlpJson(first.doc, { flavour: 'genai', exact: true });
    const again = parseTraceText(new TextDecoder().decode(bytes), { file: 'out.otlp.json' });
    expect(again.ok).toBe(true);
    expect(again.issues.map((i) => i.code)).toEqual(first.issues.map((i) => i.code));
  });
});

describe('kinds and types named like Object members', () => {
  it('are plain unknown kinds: no crash, no category taken from Object.prototype', () => {
    const spans = ['constructor', '__proto__', 'toString', 'hasOwnProperty'].map((name, i) => ({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: `b7ad6b716920333${i}`,
      name,
      attributes: [
        { key: i % 2 ? 'openinference.span.kind' : 'gen_ai.operation.name', value: { stringValue: name } },
        {
          key: 'input.value',
          value: { stringValue: JSON.stringify([{ type: name, content: `question ${name}` }]) },
        },
      ],
    }));
    const r = parseTraceText(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }), {
      file: 'k.json',
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.doc.data.operations.map((o) => typeof o.category)).toEqual([
      'string',
      'string',
      'string',
      'string',
    ]);
    expect(r.doc.data.operations.map((o) => o.category)).toEqual([
      'operation',
      'operation',
      'operation',
      'operation',
    ]);
    const lf = parseTraceText(
      JSON.stringify({ id: 't', observations: [{ id: 'o', type: 'constructor', input: 'What is it?' }] }),
      { file: 'lf.json' },
    );
    // An observation type Langfuse does not define is an unknown kind, as above.
    expect(lf.ok && lf.doc.data.operations.map((o) => o.category)).toEqual(['operation']);
  });
});
