/**
 * `memtrace judge`: the carrying test learned from a trace's verdicts, and the verdicts it
 * contradicts. The trace is built here with a known judge (half of the answer's words) and one
 * verdict that judge could not have given; that verdict is the one listed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

const py = (s: string) => `'${s.replace(/'/g, "\\'")}'`;

function judged(b: DocBuilder, id: string, q: string, prediction: string, golden: string, ok: boolean) {
  const query = b.variable(`q-${id}`, py(q), { className: 'query', category: 'message & query' });
  const pred = b.variable(`p-${id}`, py(prediction), { className: 'prediction', category: 'answer' });
  const gold = b.variable(`g-${id}`, `[${py(golden)}]`, { className: 'golden_answers', category: 'golden' });
  const score = b.variable(`s-${id}`, ok ? '1.0' : '0.0', { className: 'judge_score', category: 'judge' });
  b.op('llm-judge', 'evaluation', [query, pred, gold], [score]);
}

describe('memtrace judge', () => {
  it('names the fitted rule, how many verdicts it reproduces, and the one verdict it contradicts', async () => {
    const b = new DocBuilder();
    const items: [string, string, string][] = [
      ['What does Tom grow?', 'tomatoes and peppers', 'peppers'],
      ['Where did Ana travel?', 'Lisbon and Porto', 'Porto'],
      ['What does Mia play?', 'violin and cello', 'violin'],
      ['What did Ben buy?', 'honey and bread', 'honey'],
      ['What does Lea follow?', 'rugby and sailing', 'sailing'],
      ['What pets does Raj have?', 'parrot and hamster', 'parrot'],
    ];
    items.forEach(([q, golden, half], i) => {
      judged(b, `half-${i}`, q, `${half}.`, golden, true);
      judged(b, `none-${i}`, q, 'I do not know.', golden, false);
    });
    // Every word of the golden answer, yet judged wrong: no words rule of this judge says so.
    judged(b, 'odd', 'What does Tom cook?', 'pasta and soup', 'pasta and soup', false);
    const dir = mkdtempSync(join(tmpdir(), 'judge-'));
    const file = join(dir, 'trace.json');
    writeFileSync(file, b.text());
    const r = await runCli(['judge', file, '--match', 'normalised', '--json']);
    expect(r.code).toBe(0);
    const [j] = JSON.parse(r.stdout);
    expect(j.rule).toMatchObject({ source: 'fitted', passed: 6, failed: 7 });
    expect(j.rule.agreement).toBeCloseTo(12 / 13, 6);
    expect(j.disagreements).toEqual([
      {
        query_id: expect.stringContaining('q-odd'),
        question: 'What does Tom cook?',
        golden_answers: ['pasta and soup'],
        prediction: 'pasta and soup',
        judged: 'wrong',
      },
    ]);
  });

  it('exits 1 naming a file that does not load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'judge-'));
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{"graph_id": ');
    const r = await runCli(['judge', file, '--match', 'normalised']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
  });
});
