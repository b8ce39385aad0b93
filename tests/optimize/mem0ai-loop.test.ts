/**
 * The closed loop over the real mem0ai 2.4 `Memory` (its SQLite vector store in memory, the
 * model-free hashed n-gram embedder) traced by the SDK wrapper, against the prompt-sensitive
 * scripted model (a test double, see prompt-sensitive-model.ts) over real HTTP on 127.0.0.1,
 * on real LoCoMo conversations: the prompt is mem0ai's `customPrompt`, and a rewrite that
 * helps is accepted — in process and through `memtrace optimize --system mem0ai`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import { buildGraph, consumersOf, versionsOf } from '../../src/core/graph/index.ts';
import { OpenAICompatibleChatModel } from '../../src/core/llm/index.ts';
import { loadLocomo } from '../../src/systems/index.ts';
import type { OptimizeState } from '../../src/systems/optimize/index.ts';
import { stubMem0aiPeers } from '../helpers/mem0ai-peers.ts';
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
beforeAll(() => stubMem0aiPeers());

async function serve() {
  server = await startScriptedLlmServer(promptSensitiveModel({ rewrite: (v) => `${v}\nRULE-A` }));
  return new OpenAICompatibleChatModel({ baseUrl: server.base, model: 'prompt-sensitive-test-double' });
}

const memoryStore = () => {
  let saved: OptimizeState | null = null;
  return {
    load: async () => saved,
    save: async (s: OptimizeState) => {
      saved = structuredClone(s);
    },
  };
};

describe('optimizePrompts over the mem0ai wrapper', () => {
  it('runs mem0ai with its customPrompt, traces it, and accepts a rewrite of it that helps', async () => {
    const m = await serve();
    const { mem0aiTarget } = await import('../../src/systems/optimize/mem0ai-target.node.ts');
    const { optimizePrompts, sampleQuestions } = await import('../../src/systems/optimize/index.ts');
    const target = mem0aiTarget();
    expect(Object.keys(target.prompts)).toEqual(['fact-extraction-system-prompt']);

    // One run first: mem0ai's calls reach the server with the registry's prompt as the system message.
    const turns = train.sessions[0].turns;
    const run = await target.run(train, {
      prompts: target.prompts,
      qa: m,
      judge: m,
      questionIds: sampleQuestions(train, 3, 1, 1).map((q) => q.id),
      maxSessions: 1,
    });
    const sent = server!.calls.map((c) => c.request.messages);
    const extraction = sent.filter(
      (ms) => ms[0].role === 'system' && ms[0].content === target.prompts['fact-extraction-system-prompt'],
    );
    expect(extraction.map((ms) => ms[1].content)).toEqual(
      turns.map((t) => `Input:\n${t.speaker}: ${t.text}`),
    );
    // mem0ai's own update prompt, once per added message.
    expect(sent.filter((ms) => ms[0].content.startsWith('You are a smart memory manager'))).toHaveLength(
      turns.length,
    );
    // The trace: each data set message feeds mem0ai's extraction; the questions are answered from its search.
    const g = buildGraph(run.doc);
    for (const t of turns) {
      const [v] = versionsOf(g, `${train.id}:${t.id}`);
      expect(consumersOf(g, v).map((op) => g.opName[op])).toEqual(['fact-extraction']);
    }
    const cases = listCases(g);
    expect(cases).toHaveLength(3);
    for (const c of cases) {
      const q = g.varIndex.get(c.queryId)!;
      expect(consumersOf(g, q).map((op) => g.opName[op])).toContain('memory-search');
    }
    expect(run.answers).toHaveLength(3);
    // The answers see the memories mem0ai's search returned, with the date each was said on.
    const answering = sent.filter((ms) => ms[0].content === 'You answer questions from memories.');
    expect(answering).toHaveLength(3);
    const memories = answering[0][1].content.split('Memories:\n')[1].split('\n\nQuestion:')[0].split('\n');
    expect(memories.length).toBeGreaterThan(0);
    for (const line of memories) expect(line.startsWith(`${train.sessions[0].dateTime}: `)).toBe(true);
    expect(run.doc.metadata).toMatchObject({ memory_system: 'mem0ai' });

    // The loop: the failures behind mem0ai's customPrompt make a rewrite; it helps, so it is kept.
    const s = await optimizePrompts(
      target,
      {
        train: [train],
        heldOut: [heldOut],
        rounds: 1,
        maxSessions: 2,
        trainQuestions: 8,
        heldOutQuestions: 8,
        models: { qa: m, judge: m, optimizer: m },
      },
      memoryStore(),
    );
    expect(s.status).toBe('done');
    const [r] = s.rounds;
    expect(r.decision).toBe('accepted');
    expect(r.train_after!.score).toBeGreaterThan(r.train_before.score);
    expect(r.held_out_after!.score).toBeGreaterThanOrEqual(r.held_out_before.score);
    expect(r.changes.map((c) => c.prompt)).toEqual(['fact-extraction-system-prompt']);
    expect(r.changes[0].diff).toContain('+ RULE-A');
    expect(s.prompts['fact-extraction-system-prompt']).toMatch(/RULE-A$/);
    expect(
      r.attributions.some(
        (a) => a.error_type === 'ExtractionError' && a.prompt === 'fact-extraction-system-prompt',
      ),
    ).toBe(true);
    // mem0ai's update prompt has no config field: failures behind it are counted, not rewritten.
    expect(r.not_optimisable + r.not_allowed + r.changes[0].failures).toBe(r.failures);
  });

  it('memtrace optimize --system mem0ai, as a real process: mem0ai loads without the vendor SDKs it never calls', async () => {
    await serve();
    const out = mkdtempSync(join(tmpdir(), 'memtrace-optimize-mem0ai-'));
    // bin/memtrace.mjs runs the CLI bundle in plain Node: no vitest stubs; the target's resolve hook stands in for the missing peers.
    const { stderr } = await promisify(execFile)(process.execPath, [
      resolve('bin/memtrace.mjs'),
      'optimize',
      ...['--system', 'mem0ai', '--dataset', 'locomo', '--data', LOCOMO],
      ...['--train', train.id, '--held-out', heldOut.id, '--rounds', '1', '--sessions', '2'],
      ...['--train-questions', '8', '--held-out-questions', '8'],
      ...[
        '--provider',
        'openai',
        '--base-url',
        server!.base,
        '--model',
        'prompt-sensitive-test-double',
        '-o',
        out,
      ],
    ]);
    expect(stderr).toMatch(/round 1 \(conv-26\): accepted/);
    const upd = JSON.parse(readFileSync(join(out, 'update_results.json'), 'utf8'));
    expect(Object.keys(upd)).toEqual(['fact-extraction-system-prompt@1']);
    expect(upd['fact-extraction-system-prompt@1']).toMatch(/RULE-A$/);
    const state = JSON.parse(readFileSync(join(out, 'state.json'), 'utf8')) as OptimizeState;
    expect(state.target).toBe('mem0ai');
    // Every call the server answered is in the saved costs.
    const calls = [state.baseline_cost, ...state.rounds.map((r) => r.cost)]
      .flatMap((c) => Object.values(c))
      .reduce((n, c) => n + c.calls, 0);
    expect(calls).toBe(server!.calls.length);
  });
});
