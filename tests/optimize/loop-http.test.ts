/**
 * The closed loop against a prompt-sensitive scripted model (a test double, see
 * prompt-sensitive-model.ts) over real HTTP on 127.0.0.1, on real LoCoMo conversations
 * with the reference Mem0 in LLM mode: a helpful rewrite is accepted, an overfitting one
 * is rejected on the held-out set, an interrupted run resumes where it stopped, and a
 * token cap stops the run before the call that would exceed it. Call and token counts
 * are checked against what the server saw.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { OpenAICompatibleChatModel, ScriptedChatModel } from '../../src/core/llm/index.ts';
import { loadLocomo } from '../../src/systems/index.ts';
import {
  type OptimizeOptions,
  type OptimizeState,
  type OptimizeStore,
  optimizePrompts,
  referenceTarget,
} from '../../src/systems/optimize/index.ts';
import { type ScriptedLlmServer, startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { promptSensitiveModel } from './prompt-sensitive-model.ts';

const LOCOMO = join(SHARED_DATA, 'locomo/locomo-dev.json');
const convs = loadLocomo(JSON.parse(readFileSync(LOCOMO, 'utf8')));
const [train, heldOut] = [convs[0], convs[1]];
let server: ScriptedLlmServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(marker: 'RULE-A' | 'RULE-B') {
  server = await startScriptedLlmServer(
    promptSensitiveModel({ rewrite: (v) => `${v}\n${marker}`, favoured: train.speakers }),
  );
  return new OpenAICompatibleChatModel({ baseUrl: server.base, model: 'prompt-sensitive-test-double' });
}

function memoryStore(): OptimizeStore & { saved: OptimizeState | null; saves: number } {
  const s = {
    saved: null as OptimizeState | null,
    saves: 0,
    load: async () => (s.saved ? structuredClone(s.saved) : null),
    save: async (x: OptimizeState) => {
      s.saved = structuredClone(x);
      s.saves++;
    },
  };
  return s;
}

const options = (m: OpenAICompatibleChatModel, extra: Partial<OptimizeOptions> = {}): OptimizeOptions => ({
  train: [train],
  heldOut: [heldOut],
  rounds: 1,
  maxSessions: 2,
  trainQuestions: 8,
  heldOutQuestions: 8,
  prompts: ['fact-extraction-system-prompt'],
  models: { qa: m, judge: m, optimizer: m },
  ...extra,
});

const totalCalls = (s: OptimizeState) =>
  Object.values(s.baseline_cost).reduce((n, c) => n + c.calls, 0) +
  s.rounds.reduce((n, r) => n + Object.values(r.cost).reduce((k, c) => k + c.calls, 0), 0);
const totalTokens = (s: OptimizeState) =>
  [s.baseline_cost, ...s.rounds.map((r) => r.cost)]
    .flatMap((c) => Object.values(c))
    .reduce((n, c) => n + c.inputTokens + c.outputTokens, 0);

describe('optimizePrompts with a prompt-sensitive scripted model over HTTP', () => {
  it('accepts a rewrite that helps: training rises, held-out holds; every call and token counted', async () => {
    const m = await serve('RULE-A');
    const store = memoryStore();
    const s = await optimizePrompts(referenceTarget('mem0'), options(m), store);
    expect(s.status).toBe('done');
    const [r] = s.rounds;
    expect(r.decision).toBe('accepted');
    expect(r.train_after!.score).toBeGreaterThan(r.train_before.score);
    expect(r.held_out_after!.score).toBeGreaterThanOrEqual(r.held_out_before.score);
    expect(r.reason).toMatch(/^accepted: training .* → .*, held-out .* → /);
    // Only the allowed prompt changed, with its diff; the failures behind other prompts are counted.
    expect(r.changes.map((c) => c.prompt)).toEqual(['fact-extraction-system-prompt']);
    expect(r.changes[0].diff).toContain('+ RULE-A');
    expect(s.prompts['fact-extraction-system-prompt']).toMatch(/RULE-A$/);
    expect(s.prompts['question-answering-prompt']).not.toMatch(/RULE/);
    expect(
      r.attributions.some(
        (a) => a.error_type === 'ExtractionError' && a.prompt === 'fact-extraction-system-prompt',
      ),
    ).toBe(true);
    expect(r.not_optimisable + r.not_allowed + r.changes[0].failures).toBe(r.failures);
    // Paired per question: the fixed questions are the flipped ones, all from wrong to right here.
    expect(r.paired.train).toHaveLength(r.train_before.total);
    expect(r.flipped.train.length).toBeGreaterThan(0);
    expect(
      r.flipped.train.filter((f) => f.after).length - r.flipped.train.filter((f) => !f.after).length,
    ).toBe(r.train_after!.correct - r.train_before.correct);
    // Every call the server answered is in the cost, with the tokens it reported.
    expect(totalCalls(s)).toBe(server!.calls.length);
    expect(totalTokens(s)).toBe(server!.calls.reduce((n, c) => n + c.usage.input + c.usage.output, 0));
    expect(s.tokens_used).toBe(totalTokens(s));
    expect(r.cost.optimizer.calls).toBe(r.changes[0].failures + (r.changes[0].failures > 1 ? 1 : 0) + 1);
  });

  it('an attribution agent that gives no verdict leaves those failures not optimisable; the round goes on', async () => {
    const m = await serve('RULE-A');
    // The attribution model is a scripted test double that never answers with an action.
    const junk = new ScriptedChatModel(['I would rather not say.'], { loop: true });
    const progress: string[] = [];
    const s = await optimizePrompts(
      referenceTarget('mem0'),
      { ...options(m), method: 'obs', models: { qa: m, judge: m, optimizer: m, attribution: junk } },
      memoryStore(),
      { onProgress: (line) => progress.push(line) },
    );
    const [r] = s.rounds;
    expect(r.failures).toBeGreaterThan(0);
    expect(r.not_optimisable).toBe(r.failures);
    expect(r.attributions).toHaveLength(r.failures);
    for (const a of r.attributions) {
      expect(a).toMatchObject({ error_type: null, op_id: null, prompt: null });
      expect(a.reason).toMatch(/^failed: the model gave no valid action 3 times in a row/);
    }
    expect(progress.some((l) => /not attributed \(no-valid-action: /.test(l))).toBe(true);
    expect(r.changes).toEqual([]);
  });

  it('rejects a rewrite that overfits the training speakers: the held-out score drops, the prompts stay', async () => {
    const m = await serve('RULE-B');
    const s = await optimizePrompts(referenceTarget('mem0'), options(m), memoryStore());
    const [r] = s.rounds;
    expect(r.decision).toBe('rejected');
    expect(r.reason).toMatch(/^rejected: the held-out score dropped/);
    expect(r.held_out_after!.score).toBeLessThan(r.held_out_before.score);
    expect(r.flipped.held_out.every((f) => f.before && !f.after)).toBe(true);
    expect(s.prompts['fact-extraction-system-prompt']).not.toMatch(/RULE-B/);
    expect(r.prompts_after).toEqual(r.prompts_before);
  });

  it('resumes an interrupted run after its last saved round, without redoing it', async () => {
    const m = await serve('RULE-A');
    const store = memoryStore();
    const stop = new AbortController();
    const first = await optimizePrompts(
      referenceTarget('mem0'),
      options(m, { rounds: 2, signal: stop.signal }),
      store,
      {
        onRound: () => stop.abort(),
      },
    );
    expect(first.status).toBe('cancelled');
    expect(store.saved!.rounds).toHaveLength(1);
    const round1 = structuredClone(store.saved!.rounds[0]);
    const callsBefore = server!.calls.length;
    const resumed = await optimizePrompts(referenceTarget('mem0'), options(m, { rounds: 2 }), store);
    expect(resumed.status).toBe('done');
    expect(resumed.rounds.map((r) => r.round)).toEqual([1, 2]);
    expect(resumed.rounds[0]).toEqual(round1);
    // No new held-out baseline: the resumed calls are round 2's own.
    const round2Calls = Object.values(resumed.rounds[1].cost).reduce((n, c) => n + c.calls, 0);
    expect(server!.calls.length - callsBefore).toBe(round2Calls);
    expect(resumed.rounds[1].prompts_before).toEqual(round1.prompts_after);
  });

  it('stops at the token cap before the call that would start past it', async () => {
    const m = await serve('RULE-A');
    const cap = 5000;
    const s = await optimizePrompts(
      referenceTarget('mem0'),
      options(m, { budget: { maxTokens: cap } }),
      memoryStore(),
    );
    expect(s.status).toBe('budget');
    expect(s.message).toContain(`of ${cap} tokens`);
    const served = server!.calls.map((c) => c.usage.input + c.usage.output);
    const sum = served.reduce((a, b) => a + b, 0);
    expect(sum).toBeGreaterThanOrEqual(cap);
    expect(sum - served[served.length - 1]).toBeLessThan(cap);
    expect(s.tokens_used).toBe(sum);
    expect(s.rounds).toHaveLength(0);
  });
});

describe('memtrace optimize', () => {
  it('saves every round and the paper update_results.json; --resume is required to continue a saved run', async () => {
    await serve('RULE-A');
    const out = mkdtempSync(join(tmpdir(), 'memtrace-optimize-'));
    const argv = [
      'optimize',
      '--system',
      'mem0',
      '--dataset',
      'locomo',
      '--data',
      LOCOMO,
      '--train',
      train.id,
      '--held-out',
      heldOut.id,
      '--rounds',
      '1',
      '--sessions',
      '2',
      '--train-questions',
      '8',
      '--held-out-questions',
      '8',
      '--prompts',
      'fact-extraction-system-prompt',
      '--provider',
      'openai',
      '--base-url',
      server!.base,
      '--model',
      'prompt-sensitive-test-double',
      '-o',
      out,
    ];
    let stderr = '';
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) }, env: {} };
    expect(await main(argv, io)).toBe(0);
    expect(stderr).toMatch(/round 1 \(conv-26\): accepted/);
    const upd = JSON.parse(readFileSync(join(out, 'update_results.json'), 'utf8'));
    expect(Object.keys(upd)).toEqual(['fact-extraction-system-prompt@1']);
    expect(upd['fact-extraction-system-prompt@1']).toMatch(/RULE-A$/);
    expect(existsSync(join(out, 'iteration_1/round.json'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'iteration_1/update_results.json'), 'utf8'))).toEqual(upd);
    const served = server!.calls.length;
    expect(await main(argv, io)).toBe(1);
    expect(stderr).toContain('pass --resume');
    // Resumed with more rounds: round 1 is not redone, and cached calls cost nothing.
    expect(await main([...argv.map((a) => (a === '1' ? '2' : a)), '--resume'], io)).toBe(0);
    const state = JSON.parse(readFileSync(join(out, 'state.json'), 'utf8')) as OptimizeState;
    expect(state.rounds).toHaveLength(2);
    const round2 = Object.values(state.rounds[1].cost);
    // `calls` counts requests that reached the server (cache hits are counted apart, in `cached`).
    expect(server!.calls.length - served).toBe(round2.reduce((n, c) => n + c.calls, 0));
  });
});
