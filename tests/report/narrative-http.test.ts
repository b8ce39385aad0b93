/**
 * The report narrative against a scripted report writer over real HTTP (127.0.0.1): cases
 * go in batches of 4, in order; each call holds the report of the previous one; citations
 * of cases the model was not shown are dropped; every call's tokens are counted as the
 * server reported them; a cached rerun costs nothing. Cases are real failed questions of
 * the shared smartcomment files, attributed by evidence-flow.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { evidenceFlowEngine } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { cached, MemoryCacheStore, OpenAICompatibleChatModel } from '../../src/core/llm/index.ts';
import {
  type NarrativeCase,
  narrativeCase,
  reportCase,
  writeNarrative,
} from '../../src/core/report/index.ts';
import { type ScriptedLlmServer, startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

let server: ScriptedLlmServer;
let cases: NarrativeCase[];

/** The scripted writer: appends a sentence naming the cases it was shown, plus one case it was not. */
function writer(r: { messages: { role: string; content: string }[] }) {
  const user = r.messages.find((m) => m.role === 'user')?.content ?? '';
  const shown = [...user.matchAll(/### Failed case (C\d+)/g)].map((m) => m[1]);
  const current = /## Current report\n\n([\s\S]*?)\n\n## Failed cases/.exec(user)?.[1] ?? '';
  const previous = current.startsWith('(There is no report yet') ? '' : `${current}\n\n`;
  const report = `${previous}Cases ${shown[0]} to ${shown[shown.length - 1]} show a pattern [${shown[0]}, C999] and more [C998].`;
  return JSON.stringify({ rationale: `saw ${shown.join(' ')}`, report });
}

beforeAll(async () => {
  server = await startScriptedLlmServer(writer);
  const file = smartcommentFiles().find((f) => f.endsWith('conv-26-rag-0.json'))!;
  const r = openTrace(readFileSync(file, 'utf8'), { file });
  if (!r.ok) throw new Error('shared file did not open');
  cases = [];
  for (const c of listCases(r.graph)
    .filter((x) => x.failed)
    .slice(0, 10)) {
    const a = await evidenceFlowEngine({ graph: r.graph, case: c }, {});
    cases.push(narrativeCase(r.graph, c, reportCase(r.graph, c, a, { file })));
  }
});
afterAll(() => server.close());

const model = () => new OpenAICompatibleChatModel({ baseUrl: server.base, model: 'scripted-report-writer' });

describe('writeNarrative over HTTP', () => {
  it('batches of 4 in order, each refining the last report; unknown citations dropped; tokens as served', async () => {
    expect(cases).toHaveLength(10);
    const before = server.calls.length;
    const n = await writeNarrative(cases, { model: model() });
    const calls = server.calls.slice(before);
    expect(calls).toHaveLength(3);
    const shownPerCall = calls.map((c) =>
      [
        ...(c.request.messages.find((m) => m.role === 'user')?.content ?? '').matchAll(
          /### Failed case (C\d+)/g,
        ),
      ].map((m) => m[1]),
    );
    expect(shownPerCall).toEqual([
      ['C1', 'C2', 'C3', 'C4'],
      ['C5', 'C6', 'C7', 'C8'],
      ['C9', 'C10'],
    ]);
    // Each call after the first holds the (checked) report the previous call produced.
    const second = calls[1].request.messages.find((m) => m.role === 'user')!.content;
    expect(second).toContain('Cases C1 to C4 show a pattern [C1] and more.');
    expect(calls[0].request.messages.find((m) => m.role === 'user')!.content).toContain(
      'There is no report yet',
    );
    expect(calls[2].request.messages.find((m) => m.role === 'user')!.content).toContain(
      'these are the last failed cases',
    );
    // The faulty op's graph and the evidence go to the model.
    expect(calls[0].request.messages[1].content).toContain('Faulty operation');
    expect(calls[0].request.messages[1].content).toContain(cases[0].op_id ?? '(no decisive');
    expect(n.text.split('\n\n')).toEqual([
      'Cases C1 to C4 show a pattern [C1] and more.',
      'Cases C5 to C8 show a pattern [C5] and more.',
      'Cases C9 to C10 show a pattern [C9] and more.',
    ]);
    expect(n.dropped_citations).toEqual(['C999', 'C998']);
    expect(n.citations).toEqual([
      { ref: 'C1', case_id: cases[0].case_id },
      { ref: 'C5', case_id: cases[4].case_id },
      { ref: 'C9', case_id: cases[8].case_id },
    ]);
    expect(n.batches).toBe(3);
    expect(n.cost.calls).toBe(3);
    expect(n.cost.cached).toBe(0);
    expect(n.cost.inputTokens).toBe(calls.reduce((s, c) => s + c.usage.input, 0));
    expect(n.cost.outputTokens).toBe(calls.reduce((s, c) => s + c.usage.output, 0));
    expect(n.cost.estimated).toBe(false);
  });

  it('a cached rerun makes no request and counts its calls as cached, free', async () => {
    const store = new MemoryCacheStore();
    const first = await writeNarrative(cases, { model: cached(model(), store) });
    const before = server.calls.length;
    const again = await writeNarrative(cases, { model: cached(model(), store) });
    expect(server.calls.length).toBe(before);
    expect(again.text).toBe(first.text);
    expect(again.cost).toMatchObject({ calls: 0, cached: 3, inputTokens: 0, outputTokens: 0 });
  });

  it('a reply that is not the report JSON is repaired, and the repair call is counted', async () => {
    let broken = true;
    server.setScript((r) => {
      if (broken) {
        broken = false;
        return 'Sure! Here is the report.';
      }
      return writer(r);
    });
    try {
      const before = server.calls.length;
      const n = await writeNarrative(cases.slice(0, 4), { model: model() });
      expect(server.calls.length - before).toBe(2);
      expect(n.cost.calls).toBe(2);
      expect(n.cost.inputTokens).toBe(server.calls.slice(before).reduce((s, c) => s + c.usage.input, 0));
    } finally {
      server.setScript(writer);
    }
  });
});

describe('memtrace report with provider flags', () => {
  it('writes the narrative into the JSON report and the paper file, and prints the cost', async () => {
    const io = () => {
      const o = { stdout: '', stderr: '' };
      return {
        o,
        io: {
          stdout: { write: (s: string) => (o.stdout += s) },
          stderr: { write: (s: string) => (o.stderr += s) },
          env: { TEST_KEY: 'sk-test-secret-report' },
        },
      };
    };
    const file = smartcommentFiles().find((f) => f.endsWith('conv-26-rag-0.json'))!;
    const flags = [
      '--provider',
      'openai',
      '--base-url',
      server.base,
      '--model',
      'scripted-report-writer',
      '--api-key-env',
      'TEST_KEY',
    ];
    const a = io();
    const before = server.calls.length;
    expect(await main(['report', file, '--format', 'json', ...flags], a.io)).toBe(0);
    const r = JSON.parse(a.o.stdout);
    const served = server.calls.slice(before);
    expect(r.cases).toBe(15);
    expect(served).toHaveLength(Math.ceil(15 / 4));
    expect(r.narrative.cost.calls).toBe(served.length);
    expect(r.narrative.cost.inputTokens).toBe(served.reduce((s, c) => s + c.usage.input, 0));
    expect(a.o.stderr).toContain(`narrative: ${served.length} call(s)`);
    expect(a.o.stdout + a.o.stderr).not.toContain('sk-test-secret-report');
    expect(served[0].request.body).toMatchObject({ model: 'scripted-report-writer' });
    const p = io();
    expect(await main(['report', file, '--format', 'paper', ...flags], p.io)).toBe(0);
    expect(Object.keys(JSON.parse(p.o.stdout))).toEqual(['report']);
    expect(JSON.parse(p.o.stdout).report).toBe(r.narrative.text);
  });
});
