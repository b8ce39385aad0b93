/**
 * The LLM agent panel of the case workspace in Debian's Chromium, against a scripted
 * test server (a real OpenAI-compatible HTTP server on 127.0.0.1 answering with a fixed
 * policy: grep, view the answer op, answer with the labelled op of a real file). A run
 * shows its steps and tokens live, survives a reload mid-run as "interrupted", resumes
 * from its checkpoint to the expected op with the tokens of both segments, and its
 * accepted result is stored as a label that shows after a reload; a second run is
 * cancelled and stays cancelled; the API key typed in the settings is in no IndexedDB store.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProvider, DATA, openApp, type Session } from './harness.ts';
import { type ScriptedAgentServer, startScriptedAgentServer } from './scripted-agent-server.ts';

const FILE = join(DATA, 'conv-26-rag-0.json');
const TRACE = (JSON.parse(readFileSync(FILE, 'utf8')) as { graph_id: string }).graph_id;
const QUERY = 'query:conv-26-qa-0@1';
const ANSWER_OP = 'op-4abf891a8592422bba81e87231f76035'; // rag.answer, the labelled op of this case
const KEY = 'sk-workbench-test-3f9c1d7e55aa';

let s: Session;
let server: ScriptedAgentServer;

beforeAll(async () => {
  [s, server] = await Promise.all([
    openApp(),
    startScriptedAgentServer([
      { name: 'grep', args: { pattern: 'support group' } },
      { name: 'view_op', args: { op_id: ANSWER_OP } },
      {
        name: 'final_answer',
        args: {
          error_type: 'ResponseError',
          op_id: ANSWER_OP,
          reason: 'The retrieved context had the date; the answer op ignored it.',
        },
      },
    ]),
  ]);
}, 240_000);
afterAll(async () => {
  await s?.close();
  await server?.close();
});

const caseUrl = () => `${s.url}#/t/${encodeURIComponent(TRACE)}/case/${encodeURIComponent(QUERY)}`;
const panel = () => s.page.getByTestId('agent-run');
const status = () => panel().getByTestId('agent-status');
const waitStatus = (st: string, timeout = 30_000) =>
  s.page.locator(`[data-testid=agent-status][data-status=${st}]`).waitFor({ timeout });
const shown = async (testid: string) => (await panel().getByTestId(testid).innerText()).trim();

describe('LLM agent runs in the case workspace', () => {
  it('imports a real file and sets up the scripted server as a provider with a remembered key', async () => {
    const { page } = s;
    await page.getByTestId('empty-state').waitFor();
    await page.setInputFiles('[data-testid=file-input]', [FILE]);
    await page.getByTestId('trace-row').first().waitFor({ timeout: 60_000 });

    await addProvider(s, { base: server.base, model: 'scripted-policy', key: KEY });
    await page.getByTestId('settings').getByLabel('Remember on this device').check();
    await page.waitForFunction(() =>
      Object.keys(localStorage).some((k) => k.startsWith('memtrace.llm.key.')),
    );
  });

  it('starts an OBS run and shows its steps and tokens live; a reload leaves it interrupted', async () => {
    const { page } = s;
    await page.goto(caseUrl());
    await panel().getByTestId('agent-start').waitFor();
    await panel().getByTestId('agent-method').selectOption('obs');
    await panel().getByTestId('agent-max-steps').fill('20');
    server.hold(1); // the second model call waits: the run is mid-way
    await panel().getByTestId('agent-start').click();
    await server.held();
    await waitStatus('live');
    await page.locator('[data-testid=agent-status][data-saved-step="1"]').waitFor();
    expect(await shown('agent-step')).toBe('1');
    expect(await shown('agent-tokens-in')).toBe(String(server.usageAt(0).input));
    expect(await shown('agent-tokens-out')).toBe(String(server.usageAt(0).output));
    expect(await panel().getByTestId('agent-step-note').first().innerText()).toMatch(/^grep /);
    expect(await shown('agent-elapsed')).toMatch(/^\d+\.\d s$/);
    await expect(panel().getByTestId('agent-cancel').isEnabled()).resolves.toBe(true);

    await page.reload();
    await waitStatus('interrupted');
    expect(await shown('agent-step')).toBe('1');
    expect(await shown('agent-tokens-in')).toBe(String(server.usageAt(0).input));
    expect(await panel().getByTestId('agent-step-note').count()).toBe(1);
  });

  it('Resume continues from the checkpoint to the labelled op, counting the tokens of both segments', async () => {
    const before = server.received.length;
    await panel().getByTestId('agent-resume').click();
    await waitStatus('done');
    expect(await panel().getByTestId('agent-result-type').innerText()).toBe('ResponseError');
    expect(await panel().getByTestId('agent-result-op').getAttribute('data-op')).toBe(ANSWER_OP);
    expect(await shown('agent-result-reason')).toContain('ignored it');
    const want = [0, 1, 2].map((t) => server.usageAt(t));
    expect(await shown('agent-tokens-in')).toBe(String(want.reduce((n, u) => n + u.input, 0)));
    expect(await shown('agent-tokens-out')).toBe(String(want.reduce((n, u) => n + u.output, 0)));
    expect(await shown('agent-step')).toBe('3');
    // the resumed segment asked only for the steps after the checkpoint
    expect(server.received.slice(before).map((r) => r.turn)).toEqual([1, 2]);
    // the held call was sent once before the reload and answered never
    expect(server.received.filter((r) => !r.answered).map((r) => r.turn)).toEqual([1]);
    // the history the resumed call carried is the checkpoint's: grep result included
    const resumed = server.received[before].body;
    expect(resumed.messages.find((m: { role: string }) => m.role === 'tool').content).toMatch(/^\[grep /);
    // every request carried the key from the settings
    for (const r of server.received) expect(r.authorization).toBe(`Bearer ${KEY}`);
  });

  it("Accept stores the result as an agent label record beside the file's, shown after a reload", async () => {
    const { page } = s;
    await panel().getByTestId('agent-accept').click();
    const a = page.locator('[data-testid=label-record][data-source=agent]');
    await a.waitFor();
    await page.reload();
    await waitStatus('done');
    await a.waitFor();
    expect(await a.count()).toBe(1);
    expect(await a.getAttribute('data-op')).toBe(ANSWER_OP);
    expect(await a.getAttribute('data-type')).toBe('ResponseError');
    expect(await a.innerText()).toContain('accepted');
    expect(await a.innerText()).toContain('obs');
    // the file's own label is untouched
    expect(await page.locator('[data-testid=label-record][data-origin=file]').count()).toBe(1);
    expect(await page.getByTestId('case-panel').innerText()).not.toContain('workbench-agent');
    const rows = await page.evaluate(async () => {
      const db: IDBDatabase = await new Promise((res, rej) => {
        const r = indexedDB.open('memtrace-workbench');
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      const all: unknown[] = await new Promise((res) => {
        const r = db.transaction('labels').objectStore('labels').getAll();
        r.onsuccess = () => res(r.result);
      });
      db.close();
      return all.filter((x) => (x as { origin: string }).origin === 'workbench') as Record<string, unknown>[];
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      queryId: QUERY,
      errorType: 'ResponseError',
      opId: ANSWER_OP,
      source: 'agent',
      decision: 'accepted',
      method: 'obs',
    });
    expect(Array.isArray((rows[0].context as { golden_answers: unknown }).golden_answers)).toBe(true);
  });

  it('a second run is cancelled mid-way and stays cancelled after a reload', async () => {
    const { page } = s;
    server.hold(1);
    await panel().getByTestId('agent-start').click();
    await server.held();
    await page.locator('[data-testid=agent-status][data-status=live][data-saved-step="1"]').waitFor();
    const run = await status().getAttribute('data-run');
    await panel().getByTestId('agent-cancel').click();
    await waitStatus('cancelled');
    expect(await status().getAttribute('data-run')).toBe(run);
    await page.reload();
    await waitStatus('cancelled');
    expect(await status().getAttribute('data-run')).toBe(run);
    expect(await panel().getByTestId('agent-resume').count()).toBe(0);
    // the finished run is listed below, still done
    expect(await panel().locator('[data-testid=agent-earlier-run][data-status=done]').count()).toBe(1);
  });

  it('the API key is in no IndexedDB store; the runs describe the model without it', async () => {
    const { page } = s;
    const dump = await page.evaluate(async () => {
      const out: Record<string, string> = {};
      const dbs = await indexedDB.databases();
      for (const info of dbs) {
        if (!info.name) continue;
        const db: IDBDatabase = await new Promise((res, rej) => {
          const r = indexedDB.open(info.name as string);
          r.onsuccess = () => res(r.result);
          r.onerror = () => rej(r.error);
        });
        for (const store of Array.from(db.objectStoreNames)) {
          const rows: unknown[] = await new Promise((res, rej) => {
            const r = db.transaction(store).objectStore(store).getAll();
            r.onsuccess = () => res(r.result);
            r.onerror = () => rej(r.error);
          });
          const texts: string[] = [];
          for (const row of rows) {
            const blobs: Blob[] = [];
            texts.push(
              JSON.stringify(row, (_k, v) => {
                if (v instanceof Blob) {
                  blobs.push(v);
                  return '[blob]';
                }
                return v;
              }),
            );
            for (const b of blobs) texts.push(await b.text());
          }
          out[`${info.name}/${store}`] = texts.join('\n');
        }
        db.close();
      }
      return out;
    });
    expect(Object.keys(dump)).toEqual(expect.arrayContaining(['memtrace-workbench/runs']));
    for (const [store, text] of Object.entries(dump)) {
      expect(text.includes(KEY), store).toBe(false);
      expect(text.includes(KEY.slice(3, 20)), store).toBe(false);
    }
    const runs = dump['memtrace-workbench/runs'];
    expect(runs).toContain('"kind":"agent"');
    expect(runs).toContain('"model":"scripted-policy"');
    expect(s.errors).toEqual([]);
  });
});
