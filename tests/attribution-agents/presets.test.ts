/**
 * The agents' budget presets: `paper` (default) holds the paper's released values (272k-token
 * compression threshold, 1M summarisation cap, 128k pages, 32k windows, OBS ties by op id);
 * `window-scaled` derives them from the model's window. Every result names its preset.
 */
import { describe, expect, it } from 'vitest';
import { attributeObs, budgetsOf, obsLogOf } from '../../src/core/attribution/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { ScriptedChatModel } from '../../src/core/llm/index.ts';
import { runCli } from '../helpers/cli.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';
import { action, mem0Fixture } from './fixtures.ts';

const small = new ScriptedChatModel([], { contextWindow: 32_000 });

describe('agent presets', () => {
  it('the default is the paper’s values, whatever the model’s window', () => {
    expect(budgetsOf(small)).toMatchObject({
      preset: 'paper',
      maxSteps: 200,
      temperature: 1,
      compressAt: 272_000,
      compressCap: 1_000_000,
      pageChars: 128_000,
      windowChars: 32_000,
      obsTies: 'op_id',
    });
  });

  it('window-scaled fits the window: 80 % to compress, 90 % to summarise, views ≤ 30 %, file-order ties', () => {
    expect(budgetsOf(small, { preset: 'window-scaled' })).toMatchObject({
      preset: 'window-scaled',
      compressAt: 25_600,
      compressCap: 28_800,
      pageChars: 32_000 * 4 * 0.3,
      windowChars: 32_000,
      obsTies: 'file',
    });
    // A field given explicitly overrides the preset.
    expect(budgetsOf(small, { preset: 'window-scaled', compressAt: 1000 }).compressAt).toBe(1000);
  });

  it('OBS orders blocks of the same created_at by op id (paper) or by file order (window-scaled)', () => {
    const b = new DocBuilder();
    const x = b.variable('x', "'x'");
    const y = b.variable('y', "'y'");
    b.op('written-first', 'step', [x], [y], { id: 'op-b' });
    b.op('written-second', 'step', [y], [x], { id: 'op-a', sameTime: true });
    const g = buildGraph(b.doc);
    const names = (ties: 'op_id' | 'file') =>
      [...obsLogOf(g, ties).text.matchAll(/Operation block \d+: (\S+)/g)].map((m) => m[1]);
    expect(names('op_id')).toEqual(['written-second', 'written-first']);
    expect(names('file')).toEqual(['written-first', 'written-second']);
  });

  it('every agent result says which preset ran', async () => {
    const f = mem0Fixture();
    const answer = () =>
      action('final_answer', {
        error_type: 'RetrievalError',
        op_id: f.ops.retrieve,
        reason: 'not retrieved',
      });
    const run = (agent = {}) =>
      attributeObs(
        { graph: f.g, case: f.c, system: 'mem0' },
        { model: new ScriptedChatModel([answer]), agent },
      );
    expect((await run()).preset).toBe('paper');
    expect((await run({ preset: 'window-scaled' })).preset).toBe('window-scaled');
  });

  it('the CLI takes --preset for the agents and refuses it (and --prior) for the evidence method', async () => {
    const [file] = smartcommentFiles();
    for (const flag of [['--preset', 'paper'], ['--prior']]) {
      const r = await runCli(['attribute', file, '--method', 'evidence', ...flag]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/only apply to the LLM methods/);
    }
    const bad = await runCli([
      'attribute',
      file,
      '--method',
      'obs',
      '--preset',
      'huge',
      '--provider',
      'openai',
      '--model',
      'm',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--preset must be one of paper, window-scaled/);
  });
});
