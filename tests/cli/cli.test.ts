import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { SMARTCOMMENT_DIR, smartcommentFiles } from '../helpers/shared-data.ts';

const run = (...argv: string[]) => runCli(argv);

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-cli-'));
const [first] = smartcommentFiles();

describe('memtrace validate', () => {
  it('exits 0 on the real files, with progress on stderr and clean JSON on stdout', async () => {
    const r = await run('validate', SMARTCOMMENT_DIR, '--json');
    expect(r.code).toBe(0);
    const reports = JSON.parse(r.stdout);
    expect(reports).toHaveLength(6);
    expect(reports.every((x: { ok: boolean; issues: unknown[] }) => x.ok && x.issues.length === 0)).toBe(
      true,
    );
    expect(r.stderr).toMatch(/\[6\/6\]/);
  });
  it('exits 1 naming the file and line:column of a syntax error, and still reports the other files', async () => {
    const bad = join(tmp, 'broken.json');
    writeFileSync(bad, '{\n  "data": {\n    "nodes": [1,,2]\n  }\n}');
    const r = await run('validate', bad, first);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${bad}:3:17: error: invalid JSON`);
    expect(r.stdout).toMatch(/^ok +.*conv-26-fault-0\.json$/m);
  });
  it('exits 1 naming the record path of a schema error', async () => {
    const doc = JSON.parse(readFileSync(first, 'utf8'));
    doc.data.edges[12].op_id = null;
    const bad = join(tmp, 'schema.json');
    writeFileSync(bad, JSON.stringify(doc));
    const r = await run('validate', bad);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${bad}: data.edges[12].op_id: error: op_id is null; expected a string`);
  });
  it('exits 0 with warnings for a dangling edge', async () => {
    const doc = JSON.parse(readFileSync(first, 'utf8'));
    doc.data.edges[3].target_full_node_id = 'ghost@1';
    const warn = join(tmp, 'dangling.json');
    writeFileSync(warn, JSON.stringify(doc));
    const r = await run('validate', warn);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('data.edges[3].target_full_node_id: warning:');
  });
  it('exits 1 on a missing path', async () => {
    const r = await run('validate', join(tmp, 'nope.json'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nope.json: no such file or folder');
  });
});

describe('memtrace stats', () => {
  it('prints the contract JSON', async () => {
    const r = await run('stats', first, '--json');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(Object.keys(s)).toEqual([
      'sessions',
      'nodes',
      'operations',
      'edges',
      'annotations',
      'messages',
      'failed_questions',
      'nodes_by_category',
      'operations_by_category',
      'warnings',
    ]);
    expect(s).toMatchObject({
      sessions: 5,
      nodes: 327,
      operations: 200,
      edges: 480,
      annotations: 16,
      messages: 76,
      failed_questions: 16,
    });
    expect(s.operations_by_category).toEqual({
      extraction: 76,
      update: 76,
      evaluation: 16,
      generation: 16,
      retrieval: 16,
    });
  });
  it('exits 1 on an invalid file', async () => {
    const bad = join(tmp, 'top.json');
    writeFileSync(bad, '[]');
    const r = await run('stats', bad, '--json');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${bad}: error: the top level is a list`);
  });
});

describe('memtrace cases', () => {
  it('lists the failed questions of a folder with their labels', async () => {
    const r = await run('cases', SMARTCOMMENT_DIR, '--json');
    expect(r.code).toBe(0);
    const cases = JSON.parse(r.stdout);
    expect(cases.filter((c: { error_type: string | null }) => c.error_type)).toHaveLength(94);
    const injected = cases.filter((c: { label_source: string }) => c.label_source === 'fault-injection');
    expect(injected.map((c: { error_type: string }) => c.error_type).sort()).toEqual([
      'DeletionError',
      'ExtractionError',
      'ExtractionError',
      'ResponseError',
      'RetrievalError',
      'UpdateError',
    ]);
    expect(Object.keys(cases[0])).toEqual([
      'file',
      'system',
      'graph_id',
      'query_id',
      'question',
      'golden_answers',
      'prediction',
      'judge_score',
      'judge_response',
      'judge_op_id',
      'failed',
      'evidence_ids',
      'error_type',
      'op_id',
      'label_source',
      'path',
      'path_names',
      'answer_rule',
    ]);
    // The path ends with the judge and holds the labelled op (labels here are exact).
    for (const c of cases as { op_id: string | null; judge_op_id: string; path: string[] }[]) {
      expect(c.path.at(-1)).toBe(c.judge_op_id);
      if (c.op_id) expect(c.path).toContain(c.op_id);
    }
  });
});

describe('memtrace export', () => {
  it('writes smartcomment JSON deep-equal to the original', async () => {
    const out = join(tmp, 'out.json');
    const r = await run('export', first, '--format', 'smartcomment', '-o', out);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(JSON.parse(readFileSync(first, 'utf8')));
  });
  it('refuses an unknown format', async () => {
    const r = await run('export', first, '--format', 'csv', '-o', join(tmp, 'x'));
    expect(r.code).toBe(2); // a usage error
    expect(r.stderr).toContain('--format must be one of smartcomment, otlp, openinference (got "csv")');
  });
});

describe('usage', () => {
  it('an unknown command or flag exits 2', async () => {
    expect((await run('frobnicate')).code).toBe(2);
    const r = await run('stats', first, '--jsn');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--jsn'");
  });
  it('the installed bin runs from the checkout', () => {
    const root = resolve(import.meta.dirname, '../..');
    const out = execFileSync(process.execPath, [join(root, 'bin/memtrace.mjs'), 'stats', first, '--json'], {
      encoding: 'utf8',
    });
    expect(JSON.parse(out).nodes).toBe(327);
  });
});
