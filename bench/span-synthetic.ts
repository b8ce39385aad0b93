/**
 * A synthetic OTLP/JSON trace of `spans` spans, shaped like an agent's memory app as the
 * OpenTelemetry GenAI and OpenInference conventions record it: a session span holding turns
 * (container spans, no content), each turn a retrieval (RETRIEVER, query in, documents out)
 * and a chat call (model, tokens, messages in and out; every 50th fails with status ERROR),
 * every third turn a tool call holding an HTTP span. Seeded, so every run writes the same
 * bytes. Made-up words only. Used by bench/span-view.ts (written to a temp file, never committed).
 */
import { seededRandom } from '../src/core/random.ts';

const WORDS =
  'memory garden river lantern orbit velvet cactus harbor meadow pixel quartz saddle timber violet walnut yonder amber basil copper dune'.split(
    ' ',
  );

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const int = (key: string, v: number) => ({ key, value: { intValue: String(v) } });

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: object }[];
  status?: { code: number; message?: string };
}

/** The OTLP/JSON text (one `resourceSpans` request) of `spans` spans (at least 2). */
export function syntheticSpansText(spans: number, seed = 7): string {
  const rnd = seededRandom(seed);
  const word = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const phrase = (n: number) => Array.from({ length: n }, word).join(' ');
  const traceId = hex(seed, 32);
  const out: Span[] = [];
  let next = 1;
  const T0 = 1_764_000_000_000_000_000n;
  const add = (parent: string | undefined, name: string, kind: number, startMs: number, durMs: number) => {
    const s: Span = {
      traceId,
      spanId: hex(next++, 16),
      ...(parent ? { parentSpanId: parent } : {}),
      name,
      kind,
      startTimeUnixNano: String(T0 + BigInt(Math.round(startMs * 1e6))),
      endTimeUnixNano: String(T0 + BigInt(Math.round((startMs + durMs) * 1e6))),
      attributes: [],
    };
    out.push(s);
    return s;
  };
  const root = add(undefined, 'memory-agent session', 1, 0, 0);
  let t = 1;
  for (let turn = 0; out.length < spans; turn++) {
    const start = t;
    const turnSpan = add(root.spanId, `turn ${turn}`, 1, start, 0);
    const query = `turn ${turn}: where did the ${phrase(3)} go?`;
    if (out.length < spans) {
      const r = add(turnSpan.spanId, 'retrieve', 1, t, 5 + rnd() * 40);
      r.attributes.push(
        str('openinference.span.kind', 'RETRIEVER'),
        str('input.value', query),
        str('output.value', JSON.stringify([`note ${turn}a: ${phrase(8)}`, `note ${turn}b: ${phrase(8)}`])),
      );
      t += 50;
    }
    if (out.length < spans) {
      const dur = 200 + rnd() * 1500;
      const c = add(turnSpan.spanId, 'chat gpt-4o-mini', 3, t, dur);
      const msgs = [{ role: 'user', parts: [{ type: 'text', content: query }] }];
      const answer = [
        { role: 'assistant', parts: [{ type: 'text', content: `turn ${turn}: ${phrase(12)}` }] },
      ];
      c.attributes.push(
        str('gen_ai.operation.name', 'chat'),
        str('gen_ai.request.model', 'gpt-4o-mini'),
        int('gen_ai.usage.input_tokens', 200 + Math.floor(rnd() * 3000)),
        int('gen_ai.usage.output_tokens', 10 + Math.floor(rnd() * 400)),
        str('gen_ai.input.messages', JSON.stringify(msgs)),
        str('gen_ai.output.messages', JSON.stringify(answer)),
      );
      if (turn % 50 === 49) c.status = { code: 2, message: 'rate limited (429)' };
      t += dur + 5;
    }
    if (turn % 3 === 2 && out.length < spans) {
      const tool = add(turnSpan.spanId, 'execute_tool lookup', 1, t, 30);
      tool.attributes.push(
        str('gen_ai.operation.name', 'execute_tool'),
        str('gen_ai.tool.name', 'lookup'),
        str('gen_ai.tool.call.arguments', JSON.stringify({ q: phrase(2) })),
        str('gen_ai.tool.call.result', `found ${phrase(4)} (${turn})`),
      );
      if (out.length < spans) add(tool.spanId, 'GET /lookup', 3, t + 2, 25);
      t += 35;
    }
    turnSpan.endTimeUnixNano = String(T0 + BigInt(Math.round(t * 1e6)));
    t += 20 + rnd() * 200;
  }
  root.endTimeUnixNano = String(T0 + BigInt(Math.round(t * 1e6)));
  const resource = { attributes: [str('service.name', 'synthetic-memory-agent')] };
  return JSON.stringify({
    resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'bench' }, spans: out }] }],
  });
}
