/**
 * "Run a system" in LLM mode (workers/systems-service.ts) in Node: the reference Mem0 over a
 * real LoCoMo conversation with the page's chat model behind a model port, answered over
 * real HTTP by the prompt-sensitive scripted model (a test double); every call the server
 * answered is counted in the result, and the stored trace says which model ran.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { modelInfo, modelPort } from '../../src/app/attribution/model-port.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { OpenAICompatibleChatModel } from '../../src/core/llm/index.ts';
import { getOriginal, listTraces, type MemtraceDb, openDb } from '../../src/db/index.ts';
import { ImportService } from '../../workers/import-service.ts';
import { SystemsService } from '../../workers/systems-service.ts';
import { type ScriptedLlmServer, startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';
import { promptSensitiveModel } from '../optimize/prompt-sensitive-model.ts';

const file = readFileSync(new URL('../../../shared/data/locomo/v2/26.json', import.meta.url));
const source = { blob: new Blob([new Uint8Array(file)], { type: 'application/json' }), name: '26.json' };
let db: MemtraceDb;
let server: ScriptedLlmServer;
afterEach(async () => {
  await db.delete();
  await server?.close();
});

describe('systems service, LLM mode', () => {
  it('runs Mem0 with the page model through the port, counts every call and stores an llm trace', async () => {
    db = openDb(`systems-llm-${process.pid}`);
    server = await startScriptedLlmServer(promptSensitiveModel({ rewrite: (v) => v }));
    const model = new OpenAICompatibleChatModel({
      baseUrl: server.base,
      model: 'prompt-sensitive-test-double',
      apiKey: 'sk-test-run-secret',
    });
    const svc = new SystemsService(new ImportService(db));
    const request = {
      source,
      conversationId: 'conv-26',
      system: 'mem0' as const,
      maxSessions: 1,
      mode: 'llm' as const,
    };
    const missing = await svc.run(request, () => {});
    expect(missing.status).toBe('failed');
    expect(missing.message).toMatch(/needs a model/);
    const r = await svc.run(request, () => {}, modelInfo(model), modelPort(model));
    expect(r).toMatchObject({ status: 'done', mode: 'llm', model: 'prompt-sensitive-test-double' });
    expect(r.file).toMatch(/-llm\.json$/);
    expect(r.llmCalls).toBe(server.calls.length);
    expect(r.inputTokens).toBe(server.calls.reduce((n, c) => n + c.usage.input, 0));
    expect(r.outputTokens).toBe(server.calls.reduce((n, c) => n + c.usage.output, 0));
    // Extraction, decisions, answers and the judge all went to the model.
    const roles = new Set(server.calls.map((c) => c.request.messages[0].content.slice(0, 24)));
    expect(roles.size).toBeGreaterThanOrEqual(3);
    const [meta] = await listTraces(db);
    const text = await (await getOriginal(db, meta.id))!.text();
    expect(text).not.toContain('sk-test-run-secret');
    const o = openTrace(text, { file: r.file! });
    if (!o.ok) throw new Error('stored trace does not open');
    expect(o.graph.doc.metadata).toMatchObject({ mode: 'llm', llm_model: 'prompt-sensitive-test-double' });
    const judges = o.graph.ops.filter((x) => x.op_name === 'llm-judge');
    expect(judges.length).toBe(r.questions);
    expect(
      judges.every((j) => (j.metadata as { judge?: string }).judge === 'prompt-sensitive-test-double'),
    ).toBe(true);
  });
});
