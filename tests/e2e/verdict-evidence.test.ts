/**
 * The verdict with its evidence (issue 24, item 1): the attribution panel quotes the last text
 * that still held the answer — its variable, version and the op that wrote it, the matched
 * words marked — and what came after it, the confidence, the runner-up ops by name, the test
 * it judged with and a support curve over the ops of the evidence's way; a case the trace
 * cannot attribute says so and why. On a real smartcomment file (conv-26-fault-0) and a
 * project-generated Mem0 run of LoCoMo conv-26 (a question whose answer must be inferred).
 * Every expectation is read from the raw files in Node: the quoted text is in the named
 * variable's value, the named op has an edge into it, marked words are the question's or the
 * answer's, the ops are the file's, by name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { DATA, importTraces, openApp, type Session } from './harness.ts';
import { writeConv26Run } from './long-context-trace.ts';
import { tempDir } from './project-data.ts';

interface RawDoc {
  graph_id: string;
  data: {
    nodes: { name: string; class_name: string | null; version: number; value: string }[];
    edges: { op_id: string; target_full_node_id: string }[];
    operations: { op_id: string; op_name: string }[];
    annotations: {
      query_id: string;
      query: string;
      golden_answers: string[];
      source_evidence_ids: string[];
    }[];
  };
}

const FAULT = join(DATA, 'conv-26-fault-0.json');
const raw = JSON.parse(readFileSync(FAULT, 'utf8')) as RawDoc;
/** A failed question of the file (a retrieval fault: the store held the answer, the context lost it). */
const QUESTION = raw.data.annotations.find((a) => a.query === "What is Caroline's identity?")!;
const opName = new Map(raw.data.operations.map((o) => [o.op_id, o.op_name]));
const fullName = (n: RawDoc['data']['nodes'][number]) =>
  n.class_name ? `${n.class_name}:${n.name}` : n.name;
/** Letters and digits only, lower-cased: a quoted unit and the stored value (a Python repr) compare alike. */
const bare = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const caseLink = (traceId: string, queryId: string) =>
  `#/t/${encodeURIComponent(traceId)}/case/${encodeURIComponent(queryId)}`;

/** Sessions of LoCoMo conv-26 the project's Mem0-style system runs on. */
const SESSIONS = 8;
const tmp = tempDir();
let s: Session;
let mem0: RawDoc;

beforeAll(async () => {
  const run = await writeConv26Run(tmp.dir, 'mem0', SESSIONS);
  mem0 = JSON.parse(readFileSync(run.path, 'utf8')) as RawDoc;
  s = await openApp();
  await importTraces(s.page, [FAULT, run.path], 2, 120_000);
}, 300_000);
afterAll(async () => {
  await s?.close();
  tmp.remove();
});

describe('the verdict with its evidence (item 1)', () => {
  it('quotes the text that held the answer with its variable, version and op, marks the matched words, and what came after it', async () => {
    const { page, url } = s;
    await page.goto(url + caseLink(raw.graph_id, QUESTION.query_id));
    const panel = page.getByTestId('attribution');
    const held = panel.getByTestId('verdict-held');
    await held.waitFor({ timeout: 120_000 });

    // The variable and version named hold the quoted text.
    const variable = (await held.getByTestId('verdict-held-variable').innerText()).trim();
    const version = Number((await held.getByTestId('verdict-held-version').innerText()).replace(/^v/, ''));
    const node = raw.data.nodes.find((n) => fullName(n) === variable && n.version === version);
    expect(node, `${variable} v${version} is a variable of the file`).toBeTruthy();
    const quoted = (await held.locator('pre').innerText()).replace(/…$/, '');
    expect(quoted.length).toBeGreaterThan(10);
    expect(bare(node!.value)).toContain(bare(quoted));

    // The op named as its writer is the file's op with an edge into that version, shown by name.
    const writer = held.getByTestId('verdict-held-op');
    const writerId = (await writer.getAttribute('data-op-id'))!;
    expect(
      raw.data.edges.some((e) => e.op_id === writerId && e.target_full_node_id === `${variable}@${version}`),
    ).toBe(true);
    await expect.poll(() => writer.innerText()).toContain(opName.get(writerId)!);

    // Marked words are words of the question or the golden answer (same word, or the same stem).
    const marks = (await held.locator('pre mark').allInnerTexts()).map((m) => m.toLowerCase());
    expect(marks.length).toBeGreaterThan(0);
    const asked = words(`${QUESTION.query} ${QUESTION.golden_answers.join(' ')}`);
    for (const m of marks)
      expect(
        asked.some((w) => w.slice(0, 5) === m.slice(0, 5)),
        `marked "${m}" is a word of the question or answer`,
      ).toBe(true);

    // What came after it: another quoted text, its op named.
    const after = panel.getByTestId('verdict-after');
    expect((await after.locator('pre').innerText()).trim().length).toBeGreaterThan(0);
    const afterOp = (await after.getByTestId('verdict-after-op').getAttribute('data-op-id'))!;
    expect(opName.has(afterOp)).toBe(true);
    expect(await after.innerText()).toMatch(/answer/);
  }, 180_000);

  it("shows the confidence, the runner-up ops by name, the test and a support curve over the file's ops", async () => {
    const { page } = s;
    const panel = page.getByTestId('attribution');
    expect(await panel.getByTestId('verdict-confidence').innerText()).toMatch(/^\d{1,3} %$/);
    const verdictOp = (await panel.getByTestId('attribution-op').getAttribute('data-op-id'))!;
    expect(opName.has(verdictOp)).toBe(true);

    const runners = panel.getByTestId('verdict-runner-up');
    expect(await runners.count()).toBeGreaterThan(0);
    for (const r of await runners.all()) {
      const id = (await r.getByTestId('op-ref').getAttribute('data-op-id'))!;
      expect(id).not.toBe(verdictOp);
      await expect.poll(() => r.innerText()).toContain(opName.get(id)!);
      expect(await r.innerText()).toMatch(
        /(Extraction|Update|Deletion|Retrieval|Response)Error[\s\S]*score \d\.\d\d/,
      );
    }

    expect(await panel.getByTestId('verdict-rule').innerText()).toMatch(
      /^Test A text holds the answer when it has .+/,
    );

    const steps = panel.getByTestId('support-curve').getByTestId('support-step');
    const ids = await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-op-id')!));
    expect(ids.length).toBeGreaterThan(1);
    for (const id of ids) expect(opName.has(id)).toBe(true);
    expect(ids).toContain(verdictOp);
  }, 60_000);

  it('says why a case whose answer the evidence does not state is not attributable', async () => {
    const { page, url } = s;
    // qa-107 of LoCoMo conv-26: its one evidence message (session 7, in the run) does not state
    // the golden answer, which has to be inferred from it (read from LoCoMo's own data).
    const locomo = JSON.parse(readFileSync(join(SHARED_DATA, 'locomo/locomo-dev.json'), 'utf8'))[0];
    const qa = locomo.qa[107] as { question: string; answer: string; evidence: string[] };
    const turns = Object.entries(locomo.conversation as Record<string, unknown>)
      .filter(([k]) => /^session_\d+$/.test(k))
      .flatMap(([, t]) => t as { dia_id: string; text: string }[]);
    expect(qa.evidence).toHaveLength(1);
    const turn = turns.find((t) => t.dia_id === qa.evidence[0])!;
    expect(Number(turn.dia_id.match(/^D(\d+):/)![1])).toBeLessThanOrEqual(SESSIONS);
    expect(bare(turn.text)).not.toContain(bare(qa.answer));
    const query = mem0.data.nodes.find((n) => n.class_name === 'query' && n.name === 'conv-26-qa-107')!;
    expect(query.value).toContain(qa.question);
    await page.goto(url + caseLink(mem0.graph_id, 'query:conv-26-qa-107@1'));
    const panel = page.getByTestId('attribution');
    const why = panel.getByTestId('not-attributable');
    await why.waitFor({ timeout: 120_000 });
    const text = await why.innerText();
    expect(text).toMatch(/^Not attributable: /);
    expect(text).toContain(`conv-26:${turn.dia_id}`);
    expect(text).toMatch(/inferred/);
    expect(await panel.getByTestId('attribution-type').innerText()).toBe('not attributable');
    expect(await panel.getByTestId('attribution-op').count()).toBe(0);
  }, 180_000);
});
