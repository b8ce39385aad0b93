/**
 * Trace content is text: values, names, ids and labels holding <script>, <img onerror>
 * and javascript: links render as text and run nothing, on every view that shows them.
 */
import { describe, expect, it } from 'vitest';
import { parseTraceText } from '../../src/core/trace/index.ts';
import { appPerFile } from './app-per-file.ts';

const SCRIPT = '<script>window.__pwned = "script"</script>';
const IMG = '<img src=x onerror="window.__pwned = \'img\'">';
const JS = 'javascript:window.__pwned="link"';

function rec(extra: Record<string, unknown>) {
  return {
    created_at: '2025-01-01 00:00:00.000',
    filename: 'evil.py',
    lineno: 1,
    metadata: {},
    graph_id: 'graph-evil',
    user_id: 'u',
    project_id: IMG,
    session_id: 's1',
    ...extra,
  };
}
function node(name: string, cls: string | null, value: string, category = 'variable') {
  return rec({ name, version: 1, class_name: cls, value, comment: SCRIPT, category });
}
const id = (name: string, cls: string | null) => `${cls ? `${cls}:` : ''}${name}@1`;

const nodes = [
  node(`msg-${IMG}`, null, `'I said ${SCRIPT} and ${IMG} and ${JS} today'`, 'message'),
  node('q1', 'query', `'${SCRIPT} what did I say?'`, 'message & query'),
  node('p1', 'prediction', `'${JS}'`),
  node('g1', 'golden_answers', `['${IMG}']`),
  node('r1', 'judge_response', "'WRONG'"),
  node('s1', 'judge_score', '0'),
];
const answerOp = rec({ op_id: 'op-answer', op_name: `answer ${SCRIPT}`, comment: IMG, category: JS });
const judgeOp = rec({ op_id: 'op-judge', op_name: 'llm-judge', comment: null, category: 'evaluation' });
let e = 0;
const edge = (op: string, s: string, t: string) =>
  rec({
    edge_id: `e${e++}`,
    op_id: op,
    category: 'x',
    source_full_node_id: s,
    target_full_node_id: t,
    comment: JS,
  });
const doc = {
  graph_id: 'graph-evil',
  user_id: 'u',
  project_id: IMG,
  storage_path: null,
  strict: true,
  driver_type: 'in_memory',
  created_at: '2025-01-01 00:00:00.000',
  metadata: { system: SCRIPT },
  data: {
    sessions: [rec({ session_id: 's1', session_name: SCRIPT, comment: null, category: 'session' })],
    nodes,
    operations: [answerOp, judgeOp],
    edges: [
      edge('op-answer', id(`msg-${IMG}`, null), id('p1', 'prediction')),
      edge('op-answer', id('q1', 'query'), id('p1', 'prediction')),
      ...['query', 'prediction', 'golden_answers'].flatMap((c) => [
        edge(
          'op-judge',
          id(c === 'query' ? 'q1' : c === 'prediction' ? 'p1' : 'g1', c),
          id('r1', 'judge_response'),
        ),
        edge(
          'op-judge',
          id(c === 'query' ? 'q1' : c === 'prediction' ? 'p1' : 'g1', c),
          id('s1', 'judge_score'),
        ),
      ]),
    ],
    annotations: [
      {
        query_id: id('q1', 'query'),
        final_error_type: `${SCRIPT}Error`,
        final_op_id: 'op-answer',
        reason: IMG,
        label_source: JS,
      },
    ],
  },
};
const text = JSON.stringify(doc);

const s = appPerFile();

async function assertInert(view: string) {
  const r = await s.page.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: string }).__pwned ?? null,
    imgs: document.querySelectorAll('img').length,
    handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,
    evilScripts: Array.from(document.scripts).filter((x) => x.textContent?.includes('__pwned')).length,
    jsLinks: Array.from(document.querySelectorAll('a')).filter((a) =>
      /^\s*javascript:/i.test(a.getAttribute('href') ?? ''),
    ).length,
    body: document.body.textContent ?? '',
  }));
  expect({
    view,
    pwned: r.pwned,
    imgs: r.imgs,
    handlers: r.handlers,
    scripts: r.evilScripts,
    links: r.jsLinks,
  }).toEqual({
    view,
    pwned: null,
    imgs: 0,
    handlers: 0,
    scripts: 0,
    links: 0,
  });
  return r.body;
}

describe('hostile trace content renders as text', () => {
  it('the fixture is a valid trace with one failed, labelled question', () => {
    const parsed = parseTraceText(text, { file: 'evil.json' });
    expect(parsed.ok).toBe(true);
  });

  it('trace list, case list, case workspace, op page, variable page and search show the payloads as text', async () => {
    const { page, url } = s;
    await page.setInputFiles('[data-testid=file-input]', {
      name: `evil-${'<img src=x onerror=1>'}.json`,
      mimeType: 'application/json',
      buffer: Buffer.from(text),
    });
    await page.getByTestId('trace-row').first().waitFor();
    expect(await assertInert('traces')).toContain('onerror');

    await page.goto(`${url}#/cases`);
    await page.getByTestId('case-row').first().waitFor();
    expect(await assertInert('cases')).toContain(`${SCRIPT}Error`);

    await page.getByTestId('case-row').first().locator('a').first().click();
    await page.getByTestId('op-inspector').waitFor();
    await page.getByTestId('var-block').first().waitFor();
    const ws = await assertInert('case');
    expect(ws).toContain(SCRIPT);
    expect(ws).toContain(IMG);
    expect(ws).toContain(JS);

    await page.goto(`${url}#/t/graph-evil/op/op-answer`);
    await page.getByTestId('op-inputs').waitFor();
    expect(await assertInert('op')).toContain(`answer ${SCRIPT}`);

    await page.goto(`${url}#/t/graph-evil/var/${encodeURIComponent(id(`msg-${IMG}`, null))}`);
    await page.getByTestId('version-history').waitFor();
    expect(await assertInert('variable')).toContain(IMG);

    await page.goto(`${url}#/search?trace=graph-evil&q=${encodeURIComponent('script')}`);
    await page.getByTestId('search-hit').first().waitFor();
    expect(await assertInert('search')).toContain(SCRIPT);
    await page.goto(`${url}#/search?trace=graph-evil&regex=1&q=${encodeURIComponent('javascript:')}`);
    // The hits of the previous query stay until the new search answers: wait for one of this one's.
    await page.getByTestId('search-hit').filter({ hasText: 'javascript:' }).first().waitFor();
    expect(await assertInert('regex search')).toContain(JS);
    expect(s.errors).toEqual([]);
  });
});
