/**
 * The span tree's rows (core/spans): parents, sibling order by start time, orphans, refused
 * cycles, and the spans read back from a graph an OTLP import made. Expectations are written
 * out by hand from the small inputs.
 */
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/core/graph/index.ts';
import {
  buildSpanTable,
  CYCLE,
  cell,
  findCell,
  ORPHAN,
  type PackedStrings,
  packStrings,
  type SpanInput,
  STATUS,
  spanInputs,
} from '../../src/core/spans/index.ts';

/** A packed column as a list. */
const list = (p: PackedStrings) => Array.from({ length: p.at.length - 1 }, (_, i) => cell(p, i));

/** A span with defaults; `start` / `end` in ms (turned to ns). */
function sp(
  spanId: string,
  parent: string | null,
  start: number | null,
  end: number | null = null,
): SpanInput {
  return {
    traceId: 't',
    spanId,
    parentSpanId: parent,
    name: `name-${spanId}`,
    kind: '',
    start: start === null ? null : BigInt(start) * 1_000_000n + 1_700_000_000_000_000_000n,
    end: end === null ? null : BigInt(end) * 1_000_000n + 1_700_000_000_000_000_000n,
    status: STATUS.unset,
    error: '',
    model: '',
    tokensIn: null,
    tokensOut: null,
    opId: `op-${spanId}`,
  };
}

describe('buildSpanTable', () => {
  it('puts children under their parent, ordered by start time, untimed last', () => {
    const t = buildSpanTable([
      sp('B', 'R', 20, 30),
      sp('R', null, 0, 100),
      sp('C', 'R', null),
      sp('A1', 'A', 12, 14),
      sp('A', 'R', 10, 15),
    ]);
    expect(list(t.spanId)).toEqual(['R', 'A', 'A1', 'B', 'C']);
    expect([...t.depth]).toEqual([0, 1, 2, 1, 1]);
    expect([...t.parent]).toEqual([-1, 0, 1, 0, 0]);
    expect([...t.end]).toEqual([5, 3, 3, 4, 5]);
    expect([...t.pos]).toEqual([1, 1, 1, 2, 3]);
    expect([...t.size]).toEqual([1, 3, 1, 3, 3]);
    expect([...t.startMs.slice(0, 4)]).toEqual([0, 10, 12, 20]);
    expect(Number.isNaN(t.startMs[4])).toBe(true);
    expect([...t.durMs.slice(0, 4)]).toEqual([100, 5, 2, 10]);
    expect(t.totalMs).toBe(100);
    expect(list(t.opId)).toEqual(['op-R', 'op-A', 'op-A1', 'op-B', 'op-C']);
    expect([...t.flags]).toEqual([0, 0, 0, 0, 0]);
  });

  it('breaks equal start times by file order', () => {
    const t = buildSpanTable([sp('R', null, 0), sp('y', 'R', 5), sp('x', 'R', 5), sp('w', 'R', 5)]);
    expect(list(t.spanId)).toEqual(['R', 'y', 'x', 'w']);
  });

  it('makes a span whose parent is not in the file a root marked orphan', () => {
    const t = buildSpanTable([sp('R', null, 10), sp('O', 'gone', 5), sp('K', 'O', 6)]);
    expect(list(t.spanId)).toEqual(['O', 'K', 'R']);
    expect([...t.flags]).toEqual([ORPHAN, 0, 0]);
    expect([...t.depth]).toEqual([0, 1, 0]);
  });

  it('refuses parent links that close a cycle: the earliest span of the cycle becomes a root', () => {
    // P's parent is Q and Q's parent is P; S is its own parent; K hangs under Q.
    const t = buildSpanTable([sp('P', 'Q', 3), sp('Q', 'P', 1), sp('K', 'Q', 4), sp('S', 'S', 0)]);
    expect(list(t.spanId)).toEqual(['S', 'Q', 'P', 'K']);
    expect([...t.depth]).toEqual([0, 0, 1, 1]);
    expect([...t.flags]).toEqual([CYCLE, CYCLE, 0, 0]);
    expect([...t.parent]).toEqual([-1, -1, 1, 1]);
  });

  it('keys spans by trace: the same span id in two traces is two spans', () => {
    const a = { ...sp('root', null, 0), traceId: 'a' };
    const b = { ...sp('root', null, 1), traceId: 'b' };
    const kb = { ...sp('kid', 'root', 2), traceId: 'b' };
    const t = buildSpanTable([a, b, kb]);
    expect(list(t.spanId)).toEqual(['root', 'root', 'kid']);
    expect([...t.parent]).toEqual([-1, -1, 1]);
  });

  it('is empty for no spans', () => {
    const t = buildSpanTable([]);
    expect(t.count).toBe(0);
    expect(t.totalMs).toBe(0);
  });
});

/** An OTLP/JSON request: a container root (no content) holding an LLM call that failed and a retriever. */
const OTLP = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
      scopeSpans: [
        {
          spans: [
            {
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: 'aaaaaaaaaaaaaaa1',
              name: 'agent turn',
              startTimeUnixNano: '1700000000000000000',
              endTimeUnixNano: '1700000000900000000',
            },
            {
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: 'aaaaaaaaaaaaaaa3',
              parentSpanId: 'aaaaaaaaaaaaaaa1',
              name: 'chat gpt-4o',
              startTimeUnixNano: '1700000000300000000',
              endTimeUnixNano: '1700000000800000000',
              status: { code: 2, message: 'rate limited' },
              attributes: [
                { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
                { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
                { key: 'gen_ai.usage.input_tokens', value: { intValue: '42' } },
                { key: 'gen_ai.usage.output_tokens', value: { intValue: 7 } },
                {
                  key: 'gen_ai.input.messages',
                  value: {
                    stringValue: '[{"role":"user","parts":[{"type":"text","content":"Where is Ann?"}]}]',
                  },
                },
              ],
            },
            {
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: 'aaaaaaaaaaaaaaa2',
              parentSpanId: 'aaaaaaaaaaaaaaa1',
              name: 'retrieve',
              startTimeUnixNano: '1700000000100000000',
              endTimeUnixNano: '1700000000200000000',
              attributes: [
                { key: 'openinference.span.kind', value: { stringValue: 'RETRIEVER' } },
                { key: 'input.value', value: { stringValue: 'Ann lives in Oslo' } },
              ],
            },
          ],
        },
      ],
    },
  ],
};

describe('spanInputs (spans read back from an imported graph)', () => {
  it('keeps the tree, times, status, model and tokens, and the container span that made no op', () => {
    const opened = openTrace(JSON.stringify(OTLP), { file: 'otlp.json' });
    if (!opened.ok) throw new Error(opened.issues[0]?.message);
    const t = buildSpanTable(spanInputs(opened.graph));
    expect(list(t.name)).toEqual(['agent turn', 'retrieve', 'chat gpt-4o']);
    expect([...t.depth]).toEqual([0, 1, 1]);
    expect(list(t.opId)).toEqual(['', 'op-aaaaaaaaaaaaaaa2', 'op-aaaaaaaaaaaaaaa3']);
    expect([...t.startMs]).toEqual([0, 100, 300]);
    expect([...t.durMs]).toEqual([900, 100, 500]);
    expect([...t.status]).toEqual([STATUS.unset, STATUS.unset, STATUS.error]);
    expect(cell(t.error, 2)).toBe('rate limited');
    expect(cell(t.model, 2)).toBe('gpt-4o');
    expect([t.tokensIn[2], t.tokensOut[2]]).toEqual([42, 7]);
    expect(list(t.kind).slice(1)).toEqual(['RETRIEVER', 'chat']);
  });

  it('is empty for a trace of no spans', () => {
    const doc = {
      name: 'x',
      version: 1,
      graph_id: 'g',
      data: { sessions: [], nodes: [], operations: [], edges: [] },
    };
    const opened = openTrace(JSON.stringify(doc), { file: 'g.json' });
    if (!opened.ok) throw new Error(opened.issues[0]?.message);
    expect(spanInputs(opened.graph)).toEqual([]);
  });
});

describe('packed string columns', () => {
  it('give back each string, empty ones and non-ASCII too, and find one', () => {
    const p = packStrings(['chat', '', 'récupérer ✓', 'chat']);
    expect([0, 1, 2, 3].map((i) => cell(p, i))).toEqual(['chat', '', 'récupérer ✓', 'chat']);
    expect(findCell(p, 'chat')).toBe(0);
    expect(findCell(p, 'récupérer ✓')).toBe(2);
    expect(findCell(p, 'cha')).toBe(-1);
    expect(findCell(p, '')).toBe(1);
  });
});
