import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraceText, parseValue } from '../../src/core/trace/index.ts';
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
      'per_user_store/conv-30-base.json',
      'session_summary/conv-30-base.json',
      'vector_store/conv-30-base.json',
    ]);
    expect(summary.judgeRule).toBe('offline');
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
  }, 240_000); // two benchmark runs over four shapes: minutes on a shared machine

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

  it("--judge-rule judges every run by that rule and names it in the judge op's metadata", async () => {
    const bad = await run('make-bench', '--kind', 'llm-memories', '--judge-rule', 'nope', '--out', tmp);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--judge-rule must be one of offline, containment, token-f1, half-words (got "',
    );
    const out = join(tmp, 'f1');
    const r = await run(
      'run',
      '--system',
      'per-user-store',
      '--data',
      join(DATA, 'locomo/locomo-dev.json'),
      '--conversation',
      'conv-30',
      '--sessions',
      '2',
      '--memories',
      'recorded',
      '--judge-rule',
      'token-f1',
      '-o',
      out,
    );
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    const judges = doc.data.operations.filter((o: { op_name: string }) => o.op_name === 'llm-judge');
    expect(judges.length).toBeGreaterThan(0);
    for (const j of judges)
      expect(j.metadata).toMatchObject({ judge: 'offline-token-f1', judge_rule: 'token-f1' });
    // Each verdict is token F1 ≥ 0.5 of the prediction against a golden answer, computed here.
    const value = (id: string) =>
      doc.data.nodes.find((n: { full_node_id: string }) => n.full_node_id === id)?.value;
    const tokens = (t: string) =>
      t
        .toLowerCase()
        .replace(/[^a-z0-9\s]/g, ' ')
        .replace(/\b(a|an|the|and)\b/g, ' ')
        .split(/\s+/)
        .filter(Boolean);
    const f1 = (p: string, g: string) => {
      const pt = tokens(p);
      const left = tokens(g);
      let same = 0;
      for (const t of pt) {
        const i = left.indexOf(t);
        if (i >= 0) {
          same++;
          left.splice(i, 1);
        }
      }
      return same === 0 ? 0 : (2 * same) / (pt.length + tokens(g).length);
    };
    for (const j of judges) {
      const edges = doc.data.edges.filter((e: { op_id: string }) => e.op_id === j.op_id);
      const vars = edges.map((e: { source_full_node_id: string }) => e.source_full_node_id);
      const pred = vars.find((v: string) => v.includes('pred-'));
      const gold = vars.find((v: string) => v.includes('gold-'));
      const score = edges.find((e: { target_full_node_id: string }) =>
        e.target_full_node_id.includes('score-'),
      );
      const golds = parseValue(value(gold)) as string[];
      const predicted = parseValue(value(pred)) as string;
      const expected = golds.some((g) => f1(predicted, g) >= 0.5);
      expect(Number(parseValue(value(score.target_full_node_id))), predicted).toBe(expected ? 1 : 0);
    }
  });

  it('rejects a missing --kind as a usage error', async () => {
    expect((await run('make-bench', '--out', tmp)).code).toBe(2);
  });
});
