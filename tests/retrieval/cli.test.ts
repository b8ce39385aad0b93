import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTinyModel, TINY_NAME } from '../../scripts/make-tiny-model.ts';
import { runCli } from '../helpers/cli.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-search-'));
const cache = join(tmp, 'cache');
const REAL = join(SMARTCOMMENT_DIR, 'conv-26-fault-3.json');

const run = (...argv: string[]) => runCli(argv, { MEMTRACE_CACHE_DIR: cache });

const Q = 'When did Caroline go to the LGBTQ support group?\n7 May 2023';

describe('memtrace search', () => {
  beforeAll(async () => {
    await makeTinyModel(join(tmp, TINY_NAME));
  });

  it('BM25 on a real file: [{full_node_id, score, rank}] best first', async () => {
    const r = await run('search', REAL, '--query', Q, '--k', '5', '--json');
    expect(r.code).toBe(0);
    const hits = JSON.parse(r.stdout);
    expect(hits).toHaveLength(5);
    expect(Object.keys(hits[0])).toEqual(['full_node_id', 'score', 'rank']);
    expect(hits.map((h: { rank: number }) => h.rank)).toEqual([1, 2, 3, 4, 5]);
    for (let i = 1; i < 5; i++) expect(hits[i].score).toBeLessThanOrEqual(hits[i - 1].score);
    expect(hits[0].full_node_id).toBe('conv-26:D1:3@1'); // the question's gold evidence
    expect(r.stderr).toBe('');
  });

  it('dense and hybrid without --model-dir use the fallback and say so on stderr', async () => {
    const dense = await run('search', REAL, '-q', Q, '--method', 'dense', '--json');
    expect(dense.code).toBe(0);
    expect(dense.stderr).toMatch(/fallback \(hashed n-grams, not a neural model\)/);
    expect(JSON.parse(dense.stdout)).toHaveLength(10);
    const hybrid = await run(
      'search',
      REAL,
      '-q',
      Q,
      '--method',
      'hybrid',
      '--k',
      '8',
      '--docs',
      'all',
      '--json',
    );
    expect(hybrid.code).toBe(0);
    const hits = JSON.parse(hybrid.stdout);
    expect(hits).toHaveLength(8);
    expect(hits[0]).toHaveProperty('bm25_rank');
    expect(hits[0].score).toBeCloseTo(
      (hits[0].bm25_rank ? 1 / (60 + hits[0].bm25_rank) : 0) +
        (hits[0].dense_rank ? 1 / (60 + hits[0].dense_rank) : 0),
      12,
    );
  });

  it('loads a real transformers.js model folder with --model-dir (the tiny model)', async () => {
    const r = await run(
      'search',
      REAL,
      '-q',
      Q,
      '--method',
      'dense',
      '--k',
      '3',
      '--model-dir',
      join(tmp, TINY_NAME),
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${TINY_NAME} (fp32, mean pooling, normalised, cpu)`);
    expect(JSON.parse(r.stdout)).toHaveLength(3);
    const bad = await run('search', REAL, '-q', Q, '--method', 'dense', '--model-dir', join(tmp, 'nope'));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/cannot load the model/);
  });

  it('caches the index and rebuilds it when the trace changes', async () => {
    const file = join(tmp, 'trace.json');
    writeFileSync(file, readFileSync(REAL));
    const a = await run('search', file, '-q', 'LGBTQ support group', '--k', '3', '--json');
    const cached = readdirSync(cache).filter((f) => f.endsWith('.mtrx'));
    expect(cached.length).toBeGreaterThan(0);
    const b = await run('search', file, '-q', 'LGBTQ support group', '--k', '3', '--json');
    expect(b.stdout).toBe(a.stdout);
    expect(JSON.parse(a.stdout)[0].full_node_id).toBe('conv-26:D1:3@1');

    const doc = JSON.parse(readFileSync(REAL, 'utf8'));
    const node = doc.data.nodes.find((n: { name: string }) => n.name === 'conv-26:D1:3');
    node.value = `'${JSON.stringify({ content: 'We baked bread.', name: 'Caroline' })}'`;
    writeFileSync(file, JSON.stringify(doc));
    const c = await run('search', file, '-q', 'LGBTQ support group', '--k', '3', '--json');
    expect(c.code).toBe(0);
    expect(JSON.parse(c.stdout).map((h: { full_node_id: string }) => h.full_node_id)).not.toContain(
      'conv-26:D1:3@1',
    );
  });

  it('rejects bad usage with exit code 2', async () => {
    expect((await run('search', REAL)).code).toBe(2);
    expect((await run('search', REAL, '-q', 'x', '--method', 'sparse')).code).toBe(2);
    expect((await run('search', REAL, '-q', 'x', '--k', '0')).code).toBe(2);
    expect((await run('search', REAL, '-q', 'x', '--docs', 'some')).code).toBe(2);
  });
});
