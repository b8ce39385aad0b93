/**
 * `memtrace serve` under what real senders do to a receiver (issue 32, "a receiver that
 * holds"), each against a real process on loopback: one request with spans of 1,500 traces
 * under a low `ulimit -n`; a write that fails part-way (no span stored twice on the retry);
 * attribute values nested 1,000 and 100,000 deep; stalled uploads beside a real export; and
 * many traces listed a page at a time.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { DEEP_TRACE, deepJson, deepProtobuf } from '../receiver/deep-bodies.ts';
import { type ServeProcess, startServe } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-serve-holds-'));
const APP = join(tmp, 'app');
mkdirSync(APP);
writeFileSync(join(APP, 'index.html'), '<!doctype html><title>t</title>');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const traceId = (n: number) => `f${(n + 1).toString(16).padStart(31, '0')}`;
const spanId = (n: number) => (n + 1).toString(16).padStart(16, '0');

/** An OTLP/JSON request: `spansPerTrace` spans for each trace number in `traces`, interleaved. */
function request(traces: number[], spansPerTrace: number): string {
  const spans = [];
  for (let k = 0; k < spansPerTrace; k++)
    for (const t of traces)
      spans.push({ traceId: traceId(t), spanId: spanId(t * spansPerTrace + k), name: `t${t} s${k}` });
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ scope: { name: 'holds' }, spans }] }] });
}

const post = (serve: ServeProcess, body: string | Uint8Array, type = 'application/json') =>
  fetch(`${serve.base}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': type },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });

/** Every span id in the folder's trace files, with how many times it is stored. */
function storedSpans(dir: string): Map<string, number> {
  const seen = new Map<string, number>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.jsonl') && statSync(join(dir, n)).isFile()))
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
      for (const rs of JSON.parse(line).resourceSpans)
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans) seen.set(s.spanId, (seen.get(s.spanId) ?? 0) + 1);
  return seen;
}

async function withServe<T>(args: string[], run: (s: ServeProcess) => Promise<T>, openFiles?: number) {
  const serve = await startServe(['--app', APP, ...args], { openFiles });
  try {
    return await run(serve);
  } finally {
    expect(await serve.stop()).toBe(0);
  }
}

describe('open files stay bounded', () => {
  for (const limit of [1024, 256])
    it(`one request with spans of 1,500 traces under ulimit -n ${limit}: 200, 1,500 files, every span stored once`, async () => {
      const dir = join(tmp, `fd-${limit}`);
      const traces = Array.from({ length: 1500 }, (_, i) => i);
      await withServe(
        ['--dir', dir],
        async (serve) => {
          const res = await post(serve, request(traces, 2));
          expect(res.status, await res.clone().text()).toBe(200);
        },
        limit,
      );
      expect(readdirSync(dir).filter((n) => n.endsWith('.jsonl'))).toHaveLength(1500);
      const seen = storedSpans(dir);
      expect(seen.size).toBe(3000);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
    });

  it('a request whose write fails part-way stores none of its spans (503); the retry stores each once', async () => {
    const dir = join(tmp, 'all-or-nothing');
    await withServe(['--dir', dir], async (serve) => {
      expect((await post(serve, request([0], 1))).status).toBe(200); // trace 0 has a line already
      // Trace 2's file cannot be written: a folder stands where it would be.
      mkdirSync(join(dir, `${traceId(2)}.jsonl`));
      const body = request([0, 1, 2, 3], 3);
      const failed = await post(serve, body);
      expect(failed.status).toBe(503);
      expect(failed.headers.get('retry-after')).toBeTruthy();
      const afterFailure = storedSpans(dir);
      expect([...afterFailure.keys()]).toEqual([spanId(0)]); // only the first request's span
      rmSync(join(dir, `${traceId(2)}.jsonl`), { recursive: true });
      expect((await post(serve, body)).status).toBe(200);
      const list = (await (await fetch(`${serve.base}/api/received/`)).json()) as {
        traces: { traceId: string; spans: number; requests: number }[];
      };
      const zero = list.traces.find((t) => t.traceId === traceId(0));
      expect(zero).toMatchObject({ spans: 4, requests: 2 });
    });
    const seen = storedSpans(dir);
    expect(seen.size).toBe(12); // 4 traces × 3 spans (span 0 of trace 0 is in both requests)
    expect(seen.get(spanId(0))).toBe(2);
    expect([...seen].filter(([id]) => id !== spanId(0)).every(([, n]) => n === 1)).toBe(true);
  });
});

describe('nesting is checked on receipt', () => {
  it('an attribute nested 1,000 and 100,000 deep: 400 naming the span and attribute, nothing stored; a shallow one is stored and imports', async () => {
    const dir = join(tmp, 'deep');
    await withServe(['--dir', dir, '--max-body', '64MiB'], async (serve) => {
      for (const levels of [1_000, 100_000]) {
        const pb = await post(serve, deepProtobuf(levels), 'application/x-protobuf');
        expect(pb.status).toBe(400);
        const pbMessage = Buffer.from(await pb.arrayBuffer())
          .subarray(2)
          .toString(); // google.rpc.Status.message
        expect(pbMessage).toMatch(
          /spans\[0\]\.attributes\[0\]\.value.*\(span "0d0d0d0d0d0d0d0d" "root", attribute "deep"\): the value nests more than \d+ levels deep/,
        );
        const js = await post(serve, deepJson(levels));
        expect(js.status).toBe(400);
        expect(((await js.json()) as { message: string }).message).toMatch(
          /attribute "deep"\): the value nests more than/,
        );
      }
      expect(readdirSync(dir).filter((n) => n.endsWith('.jsonl'))).toEqual([]);
      expect((await post(serve, deepProtobuf(20), 'application/x-protobuf')).status).toBe(200);
    });
    const validated = await runCli(['validate', join(dir, `${DEEP_TRACE}.jsonl`)]);
    expect(validated.code, validated.stderr).toBe(0);
  });
});

/** A POST that sends its headers and part of its body, then nothing: resolves once the server took it (100 Continue). */
function stalledUpload(port: number): Promise<{ socket: Socket; reply: Promise<string> }> {
  return new Promise((ok, fail) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(
        'POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
          'content-length: 1000\r\nexpect: 100-continue\r\n\r\n',
      ),
    );
    let text = '';
    const reply = new Promise<string>((done) => {
      socket.on('close', () => done(text));
      socket.on('error', () => done(text));
    });
    socket.on('data', (d) => {
      const first = text === '';
      text += d.toString();
      if (first && /^HTTP\/1\.1 100 /.test(text)) {
        socket.write('{"resourceSpans": ['); // part of the body, then the client stalls
        ok({ socket, reply });
      } else if (first) fail(new Error(`not admitted: ${text}`));
    });
  });
}

describe('slow clients', () => {
  it('8 stalled uploads (as many as --max-concurrent) do not turn other exports away; each stalled one gets 408', async () => {
    const dir = join(tmp, 'stalled');
    await withServe(['--dir', dir, '--max-concurrent', '8', '--body-timeout', '1'], async (serve) => {
      const stalled = await Promise.all(Array.from({ length: 8 }, () => stalledUpload(serve.port)));
      const res = await post(serve, request([7], 3));
      expect(res.status, await res.clone().text()).toBe(200);
      const replies = await Promise.all(stalled.map((s) => s.reply));
      for (const r of replies) expect(r).toMatch(/HTTP\/1\.1 408 [\s\S]*upload stalled/);
    });
    expect([...storedSpans(dir).keys()]).toHaveLength(3);
  });
});

describe('many traces', () => {
  it('5,000 trace ids: the list comes a page at a time (newest first, each trace once), the event stream sends a page and the count', async () => {
    const dir = join(tmp, 'many');
    const batches = Array.from({ length: 5 }, (_, b) => Array.from({ length: 1000 }, (_, i) => b * 1000 + i));
    await withServe(['--dir', dir], async (serve) => {
      for (const traces of batches) expect((await post(serve, request(traces, 1))).status).toBe(200);
      const get = async (query: string) => {
        const res = await fetch(`${serve.base}/api/received/${query}`);
        expect(res.status).toBe(200);
        return (await res.json()) as {
          traces: { traceId: string }[];
          total: number;
          offset: number;
          limit: number;
        };
      };
      const first = await get('');
      expect(first).toMatchObject({ total: 5000, offset: 0, limit: 1000 });
      expect(first.traces).toHaveLength(1000);
      // Newest first: the last request's traces lead.
      expect(new Set(first.traces.map((t) => t.traceId))).toEqual(new Set(batches[4].map(traceId)));
      const seen: string[] = [];
      for (let offset = 0; offset < 5000; offset += 700) {
        const page = await get(`?offset=${offset}&limit=700`);
        expect(page.traces.length).toBe(Math.min(700, 5000 - offset));
        seen.push(...page.traces.map((t) => t.traceId));
      }
      expect(seen).toHaveLength(5000);
      expect(new Set(seen)).toEqual(new Set(batches.flat().map(traceId)));
      expect((await get('?offset=5000&limit=10')).traces).toEqual([]);
      expect((await fetch(`${serve.base}/api/received/?limit=100000`)).status).toBe(400);
      expect((await fetch(`${serve.base}/api/received/?offset=-1`)).status).toBe(400);

      const controller = new AbortController();
      const stream = await fetch(`${serve.base}/api/received/events`, { signal: controller.signal });
      const reader = stream.body!.getReader();
      let text = '';
      while (!/event: count\ndata: .*\n\n/.test(text))
        text += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      const page = JSON.parse(/event: traces\ndata: (.*)\n/.exec(text)![1]) as unknown[];
      expect(page.length).toBeGreaterThan(0);
      expect(page.length).toBeLessThanOrEqual(100);
      expect(JSON.parse(/event: count\ndata: (.*)\n/.exec(text)![1])).toEqual({ total: 5000 });
    });
  });
});
