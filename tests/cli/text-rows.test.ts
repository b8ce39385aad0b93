/**
 * `memtrace cases` and `memtrace attribute` print one case per line as tab-separated fields:
 * the separators are real tabs, while a tab, line break or other control character inside a
 * field (trace text) is still written as `\uXXXX`, so every row splits into the same fields.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

const DEMO = 'public/demo/demo-trace.json';
const demo = JSON.parse(readFileSync(DEMO, 'utf8'));
const annotations = demo.data.annotations as {
  query_id: string;
  final_error_type: string;
  final_op_id: string;
}[];

/** The rows of a text output, each split at tabs. */
const rows = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split('\t'));

describe('tab-separated text output', () => {
  it('cases on the demo trace: four tab-separated fields per row, the labels of the file', async () => {
    const r = await runCli(['cases', DEMO]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('\\u0009');
    const got = rows(r.stdout);
    // Every annotated question of the file is listed with its label (and nothing has more fields).
    for (const row of got) expect(row).toHaveLength(4);
    for (const a of annotations)
      expect(got.find((row) => row[0] === a.query_id)?.slice(1, 3)).toEqual([
        a.final_error_type,
        a.final_op_id,
      ]);
  });

  it('a tab, line break or ESC inside a question stays escaped inside its field', async () => {
    const b = new DocBuilder('graph-tabs');
    const m = b.variable('conv:D1:1', "'We met in May'", { category: 'message' });
    const question = 'When\tdid we\nmeet?\u001b[31m';
    b.judged('q1', question, 'never', ['May'], 0, [m]);
    const file = join(mkdtempSync(join(tmpdir(), 'memtrace-rows-')), 'tabs.json');
    writeFileSync(file, JSON.stringify(b.doc));
    const r = await runCli(['cases', file]);
    expect(r.code).toBe(0);
    const got = rows(r.stdout);
    expect(got).toHaveLength(1);
    expect(got[0]).toHaveLength(4);
    // cases folds white space in the question to one space; the ESC stays visible.
    expect(got[0][3]).toBe('When did we meet?\\u001b[31m');
    expect(got[0].slice(1, 3)).toEqual(['-', '-']);
  });

  it('attribute (text) on one demo case: four tab-separated fields', async () => {
    const [a] = annotations;
    const r = await runCli(['attribute', DEMO, '--case', a.query_id, '--method', 'evidence']);
    expect(r.code).toBe(0);
    const got = rows(r.stdout);
    expect(got).toHaveLength(1);
    expect(got[0]).toHaveLength(4);
    expect(got[0][0]).toBe(a.query_id);
    expect(got[0][3]).not.toContain('\t');
  }, 60_000);
});
