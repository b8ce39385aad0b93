import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { SMARTCOMMENT_DIR, smartcommentFiles } from '../helpers/shared-data.ts';

const run = (...argv: string[]) => runCli(argv);

describe('memtrace attribute', () => {
  it('attributes one case by query id, with the label alongside', async () => {
    const file = smartcommentFiles().find((f) => f.endsWith('conv-26-fault-2.json'))!;
    const r = await run(
      'attribute',
      file,
      '--case',
      'query:conv-26-qa-11@1',
      '--method',
      'evidence',
      '--json',
    );
    expect(r.code).toBe(0);
    const [a] = JSON.parse(r.stdout);
    expect(a).toMatchObject({
      query_id: 'query:conv-26-qa-11@1',
      method: 'evidence',
      label_type: 'DeletionError',
    });
    expect(Object.keys(a)).toEqual(
      expect.arrayContaining(['query_id', 'error_type', 'op_id', 'reason', 'path', 'candidates', 'cost']),
    );
  });
  it('without --case attributes every failed question of the file', async () => {
    const file = smartcommentFiles()[0];
    const r = await run('attribute', file, '--json');
    expect(JSON.parse(r.stdout)).toHaveLength(16);
  });
  it('an unknown case id exits 1 naming it; an LLM method without a provider exits 2', async () => {
    const file = smartcommentFiles()[0];
    expect((await run('attribute', file, '--case', 'nope@1')).stderr).toContain(
      'no failed question with query id "nope@1"',
    );
    const r = await run('attribute', file, '--method', 'memtrace');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/provider/);
  });
});

describe('memtrace bench', () => {
  it('scores the evidence-flow attributor on the real labelled files with the contract fields', async () => {
    const r = await run('bench', SMARTCOMMENT_DIR, '--method', 'evidence', '--json');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    for (const key of [
      'total_cases',
      'error_type_accuracy',
      'op_id_accuracy',
      'macro_error_type_accuracy',
      'macro_op_id_accuracy',
      'by_system',
      'by_error_type',
      'confusion',
      'avg_input_tokens',
      'avg_output_tokens',
      'avg_seconds',
    ])
      expect(s).toHaveProperty(key);
    expect(s.total_cases).toBe(94);
    expect(Object.keys(s.by_error_type).sort()).toEqual([
      'DeletionError',
      'ExtractionError',
      'ResponseError',
      'RetrievalError',
      'UpdateError',
    ]);
    const confused = Object.values(s.confusion as Record<string, Record<string, number>>).flatMap((row) =>
      Object.values(row),
    );
    expect(confused.reduce((a, b) => a + b, 0)).toBe(94);
  });
});
