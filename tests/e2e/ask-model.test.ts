/**
 * "Ask the model" on an uncertain verdict, in Debian's Chromium, against a scripted test server
 * (tests/helpers/scripted-llm-server.ts: a real OpenAI-compatible HTTP server on 127.0.0.1 whose
 * replies a script computes; no model is involved, so no real model is measured here). The trace
 * is a real Mem0 failure labelled by people (memeval-dev q023) whose rules-only verdict is a lost
 * memory, a way of deciding the calibration table rates below one in two (uncertain). Without a
 * provider the panel says what to set up; with one, the engine worker asks the model about each
 * stage (context, store, memories), STAGE_VOTES votes each; the pick the script implies is shown
 * first — "YES" to every vote: the context states the answer, so the answer op; "NO": no stage
 * does, so the rules' own verdict stands — with the calls the server received. A
 * held call is cancelled. The API key is never shown (not even in an error that echoes it), logged
 * or stored.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGE_VOTES } from '../../src/core/attribution/index.ts';
import {
  type ScriptedLlmServer,
  type ScriptedRequest,
  startScriptedLlmServer,
} from '../helpers/scripted-llm-server.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { addProvider, openApp, type Session } from './harness.ts';

const FILE = join(SHARED_DATA, 'memeval-dev', 'memeval-mem0-c1-q023.json');
interface FileOp {
  op_id: string;
  op_name: string;
}
const doc = JSON.parse(readFileSync(FILE, 'utf8')) as {
  graph_id: string;
  data: { operations: FileOp[]; annotations: { query_id: string; golden_answers: string[] }[] };
};
const TRACE = doc.graph_id;
const QUERY = doc.data.annotations[0].query_id;
// The file's own ops, by name: the op that answered and the search that brought its context.
const opNamed = (name: string) => doc.data.operations.filter((o) => o.op_name === name).map((o) => o.op_id);
const [ANSWER_OP] = opNamed('answer');
const KEY = 'sk-askmodel-test-8c2e4b19d0f7';

let s: Session;
let server: ScriptedLlmServer;
/** Every request the server received (held ones too), in order. */
const received: ScriptedRequest[] = [];
let reply = 'NO';
/** The rules' own verdict as the page shows it (read before the model is asked). */
let rulesType = '';
let rulesOp: string | null = null;
let hold = false;
/** The endpoint refuses, echoing the request's Authorization header (as a careless proxy might). */
let refuse = false;
const consoleLines: string[] = [];

beforeAll(async () => {
  [s, server] = await Promise.all([
    openApp(),
    startScriptedLlmServer((r) => {
      received.push(r);
      if (hold) return new Promise<never>(() => {}); // answered never: the client goes away
      if (refuse) return { text: `refused: ${r.headers.authorization}`, status: 400 };
      return reply;
    }),
  ]);
  s.page.on('console', (m) => consoleLines.push(m.text()));
}, 240_000);
afterAll(async () => {
  await s?.close();
  await server?.close();
});

const caseUrl = () => `${s.url}#/t/${encodeURIComponent(TRACE)}/case/${encodeURIComponent(QUERY)}`;
const panel = () => s.page.getByTestId('ask-model');
const waitStatus = (st: string, timeout = 60_000) =>
  s.page.locator(`[data-testid=ask-model][data-status=${st}]`).waitFor({ timeout });

/** Asks, waits for the result and returns what the panel shows of it. */
async function askAndRead() {
  await panel().getByTestId('ask-model-start').click();
  await waitStatus('done');
  const result = panel().getByTestId('ask-model-result');
  return {
    type: (await result.getByTestId('ask-model-type').innerText()).trim(),
    op: await result.getByTestId('ask-model-op').getAttribute('data-op'),
    calls: Number((await result.getByTestId('ask-model-calls').innerText()).trim()),
    rules: await result.getByTestId('ask-model-rules').innerText(),
    usage: await result.getByTestId('llm-usage').innerText(),
    text: await result.innerText(),
  };
}

describe('Ask the model on an uncertain verdict (scripted server; no real model measured)', () => {
  it('imports the file; with no provider, the uncertain verdict says what to set up', async () => {
    expect(doc.data.annotations[0].golden_answers.some((a) => a.trim() !== '')).toBe(true);
    const { page } = s;
    await page.getByTestId('empty-state').waitFor();
    await page.setInputFiles('[data-testid=file-input]', [FILE]);
    await page.getByTestId('trace-row').first().waitFor({ timeout: 60_000 });
    await page.goto(caseUrl());
    await page.getByTestId('attribution-uncertain').waitFor({ timeout: 120_000 });
    const missing = panel().getByTestId('ask-model-missing');
    expect(await missing.innerText()).toContain('add an API profile');
    expect(await missing.getByRole('link').getAttribute('href')).toBe('#/settings');
    expect(await panel().getByTestId('ask-model-start').count()).toBe(0);
  });

  it('script "NO" to every vote: no stage states the answer, so the rules’ own verdict stands, with the calls the server received', async () => {
    await addProvider(s, { base: server.base, model: 'scripted-judge', key: KEY });
    await s.page.goto(caseUrl());
    await s.page.getByTestId('attribution-uncertain').waitFor({ timeout: 120_000 });
    rulesType = (await s.page.getByTestId('attribution-type').first().innerText()).trim();
    expect(['UpdateError', 'DeletionError']).toContain(rulesType);
    reply = 'NO';
    const before = received.length;
    const shown = await askAndRead();
    const asked = received.slice(before);
    // Each stage with text (context, store, memories) is asked STAGE_VOTES times, each its own request.
    expect(asked.length % STAGE_VOTES).toBe(0);
    expect(asked.length / STAGE_VOTES).toBeGreaterThanOrEqual(1);
    expect(asked.length / STAGE_VOTES).toBeLessThanOrEqual(3);
    for (const r of asked) expect(r.messages[0].content).not.toContain('never answered the question');
    expect(rulesType).toContain(shown.type);
    expect(shown.op).not.toBe(ANSWER_OP);
    rulesOp = shown.op;
    expect(shown.calls).toBe(asked.length);
    expect(shown.rules).toContain('stage-judge');
    expect(shown.rules).toContain('memory-lost');
    expect(shown.text).toContain('model-judged · uncertain');
    expect(shown.text).toContain('not calibrated');
    // The usage line counts this ask's requests and the tokens the server reported for them.
    const served = server.calls.slice(-asked.length);
    const tokensIn = served.reduce((n, c) => n + c.usage.input, 0);
    expect(shown.usage).toContain(`${asked.length} requests to the endpoint`);
    expect(shown.usage).toContain(`${tokensIn.toLocaleString('en-US')} in`);
    // The stored verdict is still the rules' own (the model's pick is shown beside it, not stored).
    expect(await s.page.getByTestId('attribution-type').first().innerText()).toContain(rulesType);
    for (const r of asked) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('script "YES" to every vote: the context states the answer, so the answer op; it can be labelled', async () => {
    reply = 'YES';
    const before = received.length;
    const shown = await askAndRead();
    expect(shown.type).toBe('ResponseError');
    expect(shown.op).toBe(ANSWER_OP);
    expect(shown.calls).toBe(received.length - before);
    // The person may label the model's pick: a record of its own beside the file's label.
    await panel().getByTestId('ask-model-candidate-0').click();
    const record = s.page.locator(`[data-testid=label-record][data-op="${ANSWER_OP}"]`);
    await record.waitFor();
    expect(await record.getAttribute('data-type')).toBe('ResponseError');
  });

  it('a held call shows progress and is cancelled; an error echoing the key is shown without it; the key appears nowhere on the page, log or storage', async () => {
    hold = true;
    const before = received.length;
    await panel().getByTestId('ask-model-start').click();
    await panel().getByTestId('ask-model-progress').waitFor();
    while (received.length === before) await new Promise((r) => setTimeout(r, 50));
    expect(await panel().getByTestId('ask-model-progress').innerText()).toContain('0 calls answered');
    await panel().getByTestId('ask-model-cancel').click();
    await waitStatus('cancelled', 30_000);
    expect(await panel().getByTestId('ask-model-cancelled').isVisible()).toBe(true);
    // Asking again works after a cancel.
    hold = false;
    reply = 'NO';
    const again = await askAndRead();
    expect(again.op).toBe(rulesOp);
    // An endpoint error that echoes the key is shown without it.
    refuse = true;
    await panel().getByTestId('ask-model-start').click();
    await waitStatus('failed');
    const error = await panel().getByTestId('ask-model-error').innerText();
    expect(error).toContain('refused');
    expect(error).not.toContain(KEY);
    refuse = false;

    expect(await s.page.content()).not.toContain(KEY);
    expect(consoleLines.join('\n')).not.toContain(KEY);
    const stored = await s.page.evaluate(async () => {
      const db: IDBDatabase = await new Promise((res, rej) => {
        const r = indexedDB.open('memtrace-workbench');
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      const out: string[] = [];
      for (const name of Array.from(db.objectStoreNames)) {
        const rows: unknown[] = await new Promise((res) => {
          const r = db.transaction(name).objectStore(name).getAll();
          r.onsuccess = () => res(r.result);
        });
        out.push(JSON.stringify(rows));
      }
      return out.join('\n');
    });
    expect(stored).not.toContain(KEY);
    expect(s.errors).toEqual([]);
  });
});
