import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraceText } from '../../src/core/trace/import.ts';
import { runCli } from '../helpers/cli.ts';

const DATA = join(import.meta.dirname, '../../../shared/data');

const run = (...argv: string[]) => runCli(argv);

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-make-bench-'));

describe('memtrace make-bench --kind llm-memories', () => {
  it('writes graphs, summary.json and manifest.json from a LoCoMo file; the exit code says whether the minimum is met', async () => {
    // conv-30's first 3 sessions (a file of the canonical layout, made here from the shared one).
    const [sample] = JSON.parse(readFileSync(join(DATA, 'locomo/locomo-dev.json'), 'utf8')).filter(
      (s: { sample_id: string }) => s.sample_id === 'conv-30',
    );
    for (const k of Object.keys(sample.conversation))
      if (/^session_(\d+)/.test(k) && Number(/^session_(\d+)/.exec(k)?.[1]) > 3)
        delete sample.conversation[k];
    const file = join(tmp, 'locomo-small.json');
    writeFileSync(file, JSON.stringify([sample]));
    const out = join(tmp, 'bench');
    const r = await run(
      'make-bench',
      '--kind',
      'llm-memories',
      '--locomo',
      file,
      '--out',
      out,
      '--min-per-type',
      '0',
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).cases).toBe(summary.cases);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.heldout).toEqual([]);
    expect(manifest.dev.sort()).toEqual([
      'fact_store/conv-30-base.json',
      'session_summary/conv-30-base.json',
      'vector_store/conv-30-base.json',
    ]);
    for (const f of manifest.dev) {
      const parsed = parseTraceText(readFileSync(join(out, f), 'utf8'), { file: f });
      expect(parsed.issues).toEqual([]);
    }
    // Without injected faults three small graphs cannot hold 40 cases of every type: exit 1, said so.
    const strict = await run(
      'make-bench',
      '--kind',
      'llm-memories',
      '--locomo',
      file,
      '--out',
      join(tmp, 'b2'),
    );
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/NOT every type has ≥ 40/);
  });

  it('names the file of a broken data set, without a stack trace', async () => {
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, '[{"sample_id": ');
    const r = await run('make-bench', '--kind', 'llm-memories', '--locomo', bad, '--out', join(tmp, 'x'));
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${bad}: not JSON`);
    expect(existsSync(join(tmp, 'x'))).toBe(false);
  });

  it('names a file of the wrong data set in one line', async () => {
    const wrong = join(DATA, 'realmem/Kenta_Tanaka_dialogues_256k.json');
    const r = await run('make-bench', '--kind', 'llm-memories', '--locomo', wrong, '--out', join(tmp, 'y'));
    expect(r.code).toBe(1);
    // One line naming the file and saying it is not LoCoMo (the loader's first mismatching path).
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      new RegExp(`^memtrace make-bench: ${wrong.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a LoCoMo file`),
    );
    const locomo = join(DATA, 'locomo/locomo-dev.json');
    const r2 = await run(
      'make-bench',
      '--kind',
      'llm-memories',
      '--realmem',
      locomo,
      '--out',
      join(tmp, 'y'),
    );
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(new RegExp(`^memtrace make-bench: ${locomo}: not a RealMem file`));
  });

  it('rejects a missing --kind as a usage error', async () => {
    expect((await run('make-bench', '--out', tmp)).code).toBe(2);
  });
});
