import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { SMARTCOMMENT_DIR, smartcommentFiles } from '../helpers/shared-data.ts';

const run = (...argv: string[]) => runCli(argv);

const TYPES = ['ExtractionError', 'UpdateError', 'DeletionError', 'RetrievalError', 'ResponseError'];

/** A file's MemTraceBench annotations, straight from its JSON. */
function rawAnnotations(
  file: string,
): { query_id: string; final_error_type: string; final_op_id: string | null }[] {
  return JSON.parse(readFileSync(file, 'utf8')).data.annotations ?? [];
}

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
    // The attribution itself matches the file's own label, read from the raw JSON.
    const label = rawAnnotations(file).find((x) => x.query_id === 'query:conv-26-qa-11@1')!;
    expect(a).toMatchObject({
      query_id: 'query:conv-26-qa-11@1',
      method: 'evidence',
      error_type: label.final_error_type,
      op_id: label.final_op_id,
      label_type: label.final_error_type,
      label_op_id: label.final_op_id,
    });
    expect(Object.keys(a)).toEqual(
      expect.arrayContaining(['query_id', 'error_type', 'op_id', 'reason', 'path', 'candidates', 'cost']),
    );
  });
  it('without --case attributes every failed question of the file', async () => {
    const file = smartcommentFiles()[0];
    const r = await run('attribute', file, '--json');
    const out: { query_id: string; label_type: string | null }[] = JSON.parse(r.stdout);
    // Every annotated question of the raw file is attributed, with its label alongside.
    const raw = rawAnnotations(file);
    expect(raw.length).toBeGreaterThan(0);
    for (const ann of raw)
      expect(out.find((x) => x.query_id === ann.query_id)?.label_type).toBe(ann.final_error_type);
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
    // Cases = the labels of the five types in the raw files (read here, not through the CLI's code).
    const labelled = smartcommentFiles()
      .flatMap(rawAnnotations)
      .filter((x) => TYPES.includes(x.final_error_type)).length;
    expect(labelled).toBeGreaterThan(0);
    expect(s.total_cases).toBe(labelled);
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
    expect(confused.reduce((a, b) => a + b, 0)).toBe(labelled);
  });
});
