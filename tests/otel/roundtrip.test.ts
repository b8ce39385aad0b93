/**
 * OTLP/JSON written by the OpenTelemetry SDK (`otlpJson`, `memtrace export|run --format otlp`)
 * and read back: exact with the memtrace records (same document, stats, attributions), and
 * the same failed questions from the GenAI attributes alone.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { depsFor } from '../../src/cli/attribution-setup.ts';
import { evidenceFlowEngine } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { exportSmartcomment, parseTraceText, type TraceDocument } from '../../src/core/trace/index.ts';
import { otlpJson } from '../../src/sdk/otel.ts';
import { runCli } from '../helpers/cli.ts';
import { SHARED_DATA, SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const FILE = join(SMARTCOMMENT_DIR, 'conv-26-fault-1.json');
const original = parseTraceText(readFileSync(FILE, 'utf8'), { file: FILE });
if (!original.ok) throw new Error('shared file does not load');

function reimport(bytes: Uint8Array, file = 'out.otlp.json') {
  const r = parseTraceText(new TextDecoder().decode(bytes), { file });
  if (!r.ok) throw new Error(JSON.stringify(r.issues.slice(0, 3)));
  return r;
}

async function attributions(doc: TraceDocument) {
  const g = buildGraph(doc);
  const deps = await depsFor(g, {});
  const out: [string, string | null, string | null][] = [];
  for (const c of listCases(g).filter((x) => x.label)) {
    const a = await evidenceFlowEngine({ graph: g, case: c, system: 'mem0' }, deps);
    out.push([c.queryId, a.error_type, a.op_id]);
  }
  return out;
}

const cli = (...argv: string[]) => runCli(argv);

describe('OTLP export with the memtrace records', () => {
  it.each(['genai', 'openinference'] as const)(
    '%s: re-import gives the same document, byte for byte as smartcomment',
    async (flavour) => {
      const bytes = await otlpJson(original.doc, { flavour, exact: true });
      const text = new TextDecoder().decode(bytes);
      expect(JSON.parse(text).resourceSpans[0].scopeSpans[0].spans.length).toBe(
        1 + original.doc.data.sessions.length + original.doc.data.operations.length,
      );
      const back = reimport(bytes);
      expect(back.summary?.otel.mapping).toBe('memtrace');
      expect(exportSmartcomment(back.doc)).toBe(exportSmartcomment(original.doc));
    },
  );
  it('gives the same evidence-flow attributions, op ids included', async () => {
    const back = reimport(await otlpJson(original.doc, { flavour: 'genai', exact: true }));
    const before = await attributions(original.doc);
    expect(before.length).toBeGreaterThan(10);
    expect(await attributions(back.doc)).toEqual(before);
  });
  it('memtrace export --format otlp, then stats: the same counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-otel-'));
    const out = join(dir, 'x.otlp.json');
    expect((await cli('export', FILE, '--format', 'otlp', '-o', out)).code).toBe(0);
    const a = await cli('stats', FILE, '--json');
    const b = await cli('stats', out, '--json');
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual(JSON.parse(a.stdout));
    expect((await cli('export', FILE, '--format', 'zipkin', '-o', out)).code).toBe(2);
  });
});

describe('GenAI attributes only (--standard-only): what another backend would hold', () => {
  it('keeps the memory units as record chains and every failed question', async () => {
    const back = reimport(await otlpJson(original.doc, { flavour: 'genai', exact: false }));
    expect(back.summary?.otel.mapping).toBe('inferred');
    const key = (c: { question: string; prediction: string | null }) => `${c.question}\u0000${c.prediction}`;
    const failed = (doc: TraceDocument) =>
      listCases(buildGraph(doc))
        .filter((c) => c.failed)
        .map(key)
        .sort();
    expect(failed(back.doc)).toEqual(failed(original.doc));
    // The memory-store chain of the shared file: one record version per version an op wrote.
    const chain = original.doc.data.nodes.find((n) => n.version > 1)!;
    const written = new Set(original.doc.data.edges.map((e) => e.target_full_node_id));
    const expected = original.doc.data.nodes.filter(
      (n) => n.name === chain.name && written.has(n.full_node_id ?? ''),
    ).length;
    expect(expected).toBeGreaterThan(10);
    expect(back.doc.data.nodes.filter((n) => n.name === (chain.full_name ?? chain.name)).length).toBe(
      expected,
    );
  });
});

describe('memtrace run --format otlp', () => {
  it('writes the same run as OTLP/JSON through the SDK (same stats as the smartcomment run)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memtrace-otel-run-'));
    const args = [
      'run',
      '--system',
      'mem0',
      '--dataset',
      'locomo',
      '--data',
      join(SHARED_DATA, 'locomo/locomo-dev.json'),
      '--conversation',
      'conv-26',
      '--sessions',
      '2',
      '--offline',
    ];
    expect((await cli(...args, '-o', join(dir, 'a.json'))).code).toBe(0);
    expect((await cli(...args, '--format', 'otlp', '-o', join(dir, 'b.json'))).code).toBe(0);
    expect(
      (await cli(...args, '--format', 'openinference', '--standard-only', '-o', join(dir, 'c.json'))).code,
    ).toBe(0);
    const b = JSON.parse(readFileSync(join(dir, 'b.json'), 'utf8'));
    const names = b.resourceSpans[0].scopeSpans[0].spans.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining(['create_memory', 'search_memory', 'llm-judge']));
    const stats = async (f: string) => JSON.parse((await cli('stats', join(dir, f), '--json')).stdout);
    expect(await stats('b.json')).toEqual(await stats('a.json'));
    const c = await stats('c.json');
    expect(c.failed_questions).toBe((await stats('a.json')).failed_questions);
  });
});
