/**
 * `memtrace serve` as a real process on a free port, fed by the real OpenTelemetry JS
 * exporters over HTTP (protobuf and JSON), and by raw sockets for what exporters never send:
 * a 1 GiB body, an endless stream, a gzip bomb, wrong types, bad protobuf, bad spans, too
 * many requests at once, a Host name from elsewhere. The files it writes are read back with
 * the project's importer and the CLI.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSmartcomment, formatIssue, parseTraceText } from '../../src/core/trace/index.ts';
import { seededIds, steppingClock, Tracer } from '../../src/sdk/index.ts';
import { otlpHttpSink } from '../../src/sdk/otel-http.ts';
import { createSystem, runSystem } from '../../src/systems/index.ts';
import { demoConversation } from '../e2e/project-data.ts';
import { runCli } from '../helpers/cli.ts';
import { exportTurn, TEXTS } from './agent-spans.ts';
import { type ServeProcess, startServe, streamBody } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-serve-'));
const DIR = join(tmp, 'traces');
const APP = join(tmp, 'app');
mkdirSync(APP);
writeFileSync(
  join(APP, 'index.html'),
  '<!doctype html><html><head><title>t</title></head><body></body></html>',
);
const MiB = 2 ** 20;
let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe(['--dir', DIR, '--app', APP, '--max-body', '1MiB']);
});
afterAll(async () => {
  expect(await serve.stop()).toBe(0);
  rmSync(tmp, { recursive: true, force: true });
});

const post = (body: Uint8Array | string, headers: Record<string, string>) =>
  fetch(`${serve.base}/v1/traces`, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers,
  });

function importFile(file: string) {
  const r = parseTraceText(readFileSync(file, 'utf8'), { file });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r;
}

/** What the turn must become after import, from the texts it sent (not from the importer). */
function expectTurn(file: string) {
  const r = importFile(file);
  const names = r.doc.data.operations.map((o) => o.op_name);
  expect(names).toEqual(expect.arrayContaining(['chat extract', 'chat answer']));
  expect(names.some((n) => n?.startsWith('create_memory'))).toBe(true);
  expect(names.some((n) => n?.startsWith('search_memory'))).toBe(true);
  const values = r.doc.data.nodes.map((n) => n.value);
  for (const text of [TEXTS.user, TEXTS.fact, TEXTS.answer]) expect(values.join('\n')).toContain(text);
  return r;
}

describe('real OpenTelemetry JS exporters over HTTP', () => {
  it('protobuf (exporter-trace-otlp-proto, one batch): the trace is in DIR/<trace id>.jsonl and imports with its ops and text', async () => {
    const traceId = await exportTurn(new ProtoExporter({ url: `${serve.base}/v1/traces` }), { batch: true });
    const file = join(DIR, `${traceId}.jsonl`);
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(1);
    const r = expectTurn(file);
    expect(r.summary?.otel.spans).toBe(5);
    const cli = await runCli(['validate', file]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^ok /);
  });

  it('JSON (exporter-trace-otlp-http) through OTEL_EXPORTER_OTLP_ENDPOINT, a request per span: the file grows line by line', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = serve.base;
    let traceId: string;
    try {
      traceId = await exportTurn(new HttpJsonExporter(), { batch: false, service: 'json-agent' });
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    }
    const file = join(DIR, `${traceId}.jsonl`);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(JSON.parse(line).resourceSpans[0].scopeSpans[0].spans).toHaveLength(1);
    expectTurn(file);
    const list = (await (await fetch(`${serve.base}/api/received/`)).json()) as {
      traces: { traceId: string; spans: number; requests: number; service: string; root: string }[];
    };
    expect(list.traces.find((t) => t.traceId === traceId)).toMatchObject({
      spans: 5,
      requests: 5,
      service: 'json-agent',
      root: 'memory-agent turn',
    });
    const served = await fetch(`${serve.base}/api/received/${traceId}.jsonl`);
    expect(await served.text()).toBe(readFileSync(file, 'utf8'));
  });

  it('the event stream sends the list, then each trace that grew', async () => {
    const controller = new AbortController();
    const res = await fetch(`${serve.base}/api/received/events`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events: { event?: string; data: string }[] = [];
    const parser = createParser({ onEvent: (e) => events.push(e) });
    const reader = res.body!.getReader();
    const until = async (ok: () => boolean) => {
      while (!ok()) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the event stream ended');
        parser.feed(new TextDecoder().decode(value));
      }
    };
    await until(() => events.length > 0);
    expect(events[0].event).toBe('traces');
    const before = JSON.parse(events[0].data) as unknown[];
    const traceId = await exportTurn(new ProtoExporter({ url: `${serve.base}/v1/traces` }), { batch: true });
    await until(() => events.some((e) => e.event === 'trace' && JSON.parse(e.data).traceId === traceId));
    const grown = JSON.parse(
      events.find((e) => e.event === 'trace' && JSON.parse(e.data).traceId === traceId)!.data,
    );
    expect(grown).toMatchObject({ traceId, spans: 5, file: `${traceId}.jsonl` });
    expect(before.some((t) => (t as { traceId: string }).traceId === traceId)).toBe(false);
    controller.abort();
  });

  it('serves the app with the marker that tells the page a receiver is there', async () => {
    const html = await (await fetch(`${serve.base}/`)).text();
    expect(html).toContain('<meta name="memtrace-serve" content="api/received/" />');
    expect((await fetch(`${serve.base}/../../etc/passwd`)).status).toBe(404);
    expect((await fetch(`${serve.base}/%2e%2e/%2e%2e/etc/passwd`)).status).toBe(404);
    expect((await fetch(`${serve.base}/%E0%A4%A`)).status).toBe(404); // a malformed escape
  });
});

describe('the project SDK sends a run live', () => {
  it('otlpHttpSink: a reference system run arrives in DIR and imports as the same document, byte for byte', async () => {
    const run = async (sink?: ReturnType<typeof otlpHttpSink>) => {
      const tracer = new Tracer({
        clock: steppingClock(Date.UTC(2024, 4, 1), 3),
        ids: seededIds(11),
        sink,
        filename: 'memtrace-rag',
        metadata: { system: 'rag', dataset: 'locomo', conversation: 'demo-1', mode: 'offline' },
      });
      await runSystem(createSystem('rag'), demoConversation(), { tracer });
      await tracer.finish();
      return tracer;
    };
    const expected = exportSmartcomment((await run()).document());
    const before = new Set(readdirSync(DIR));
    await run(
      otlpHttpSink(`${serve.base}/v1/traces`, { flavour: 'genai', exact: true, serviceName: 'memtrace-rag' }),
    );
    const added = readdirSync(DIR).filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    const r = importFile(join(DIR, added[0]));
    expect(exportSmartcomment(r.doc)).toBe(expected);
  });
});

describe('the OTLP/HTTP replies for bad requests', () => {
  const good = (traceId: string, spanId: string) => ({ traceId, spanId, name: 'ok' });
  const jsonBody = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });

  it('wrong content type: 415; wrong method: 405 with Allow; unknown encoding: 415', async () => {
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    const get = await fetch(`${serve.base}/v1/traces`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const br = await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' });
    expect(br.status).toBe(415);
    expect(((await br.json()) as { message: string }).message).toMatch(/Content-Encoding "br"/);
  });

  it('bad protobuf: 400 with a google.rpc.Status in protobuf; bad JSON: 400 in JSON', async () => {
    // Field 1 (resource_spans), length-delimited, claims 2^28 bytes of which 1 follows.
    const res = await post(Uint8Array.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x01, 0x01]), {
      'content-type': 'application/x-protobuf',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const body = new Uint8Array(await res.arrayBuffer());
    expect(body[0]).toBe(0x12); // Status.message, field 2
    expect(new TextDecoder().decode(body.subarray(2))).toMatch(/^not a protobuf ExportTraceServiceRequest/);
    const bad = await post('{"resourceSpans": [', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/^invalid JSON/);
  });

  it('some invalid spans: 200 with partial_success (rejected count and why); only the valid ones are written', async () => {
    const T = 'c0ffee'.padEnd(32, '1');
    const spans = [
      good(T, 'a'.repeat(16)),
      good('0'.repeat(32), 'b'.repeat(16)),
      good(T, 'short'),
      good(T, 'c'.repeat(16)),
    ];
    const res = await post(jsonBody(spans), { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(Number(reply.partialSuccess.rejectedSpans)).toBe(2);
    expect(reply.partialSuccess.errorMessage).toMatch(/spans\[1\]: traceId .* not a valid 16-byte id/);
    expect(reply.partialSuccess.errorMessage).toMatch(/spans\[2\]: spanId "short"/);
    const written = JSON.parse(readFileSync(join(DIR, `${T}.jsonl`), 'utf8'));
    expect(written.resourceSpans[0].scopeSpans[0].spans.map((s: { spanId: string }) => s.spanId)).toEqual([
      'a'.repeat(16),
      'c'.repeat(16),
    ]);
  });

  it('partial success in protobuf, read by the exporter’s own response decoder', async () => {
    // A span with an all-zero trace id, encoded by protobufjs field by field: Span{trace_id=16×0, span_id=8×1}.
    const span = Buffer.concat([
      Buffer.from([0x0a, 16]),
      Buffer.alloc(16),
      Buffer.from([0x12, 8]),
      Buffer.alloc(8, 1),
    ]);
    const scope = Buffer.concat([Buffer.from([0x12, span.length]), span]);
    const resource = Buffer.concat([Buffer.from([0x12, scope.length]), scope]);
    const request = Buffer.concat([Buffer.from([0x0a, resource.length]), resource]);
    const res = await post(request, { 'content-type': 'application/x-protobuf' });
    expect(res.status).toBe(200);
    const reply = ProtobufTraceSerializer.deserializeResponse(new Uint8Array(await res.arrayBuffer()));
    expect(Number(reply.partialSuccess?.rejectedSpans)).toBe(1);
    expect(reply.partialSuccess?.errorMessage).toMatch(/traceId .* is not a valid 16-byte id/);
  });

  it('a Host name that is not loopback (DNS rebinding) is refused: 403, for the list and for exports', async () => {
    const { request } = await import('node:http');
    const statusFor = (path: string, method: string) =>
      new Promise<number>((ok, fail) => {
        const req = request(
          { host: '127.0.0.1', port: serve.port, path, method, headers: { host: 'evil.example' } },
          (res) => {
            res.resume();
            ok(res.statusCode ?? 0);
          },
        );
        req.on('error', fail);
        req.end(method === 'POST' ? '{}' : undefined);
      });
    expect(await statusFor('/api/received/', 'GET')).toBe(403);
    expect(await statusFor('/v1/traces', 'POST')).toBe(403);
  });
});

describe('bodies over the cap are refused without reading them', () => {
  const zeros = Buffer.alloc(64 * 1024);

  it('a declared 1 GiB body: 413 before the body is read; the client got far less than 1 GiB into the socket', async () => {
    const r = await streamBody(
      serve.port,
      { 'content-type': 'application/x-protobuf', 'content-length': String(2 ** 30) },
      () => zeros,
      2 ** 30,
    );
    expect(r.status).toBe(413);
    expect(r.reply).toMatch(/the request body is 1 GiB; this receiver takes at most 1 MiB/);
    expect(r.bytesSent).toBeLessThan(64 * MiB);
  });

  it('an endless chunked body: 413 once the cap is passed; the stream was stopped near the cap', async () => {
    const r = await streamBody(serve.port, { 'content-type': 'application/json' }, () => zeros, 2 ** 30);
    expect(r.status).toBe(413);
    expect(r.reply).toMatch(/the request body is over 1 MiB \(/);
    expect(r.bytesSent).toBeLessThan(64 * MiB);
  });

  it('a gzip bomb (an endless gzip stream of zeros, ~1000:1): 413 once 1 MiB is inflated', async () => {
    // Each member inflates to 8 MiB from ~8 kB; concatenated gzip members are one valid gzip stream.
    const member = gzipSync(Buffer.alloc(8 * MiB), { level: 9 });
    let inflatedSent = 0;
    const r = await streamBody(
      serve.port,
      { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
      () => {
        inflatedSent += 8 * MiB;
        return member;
      },
      2 ** 30,
    );
    expect(r.status).toBe(413);
    // The inflated count tripped (the compressed count would say "over 1 MiB (" only after ~1 GiB inflated).
    expect(r.reply).toMatch(/over 1 MiB once inflated/);
    // Refused and cut off while the endless stream was still coming: a bounded amount was taken.
    expect(r.bytesSent).toBeLessThan(64 * MiB);
    expect(inflatedSent).toBeGreaterThan(1 * MiB);
  });
});

describe('overload and crashes', () => {
  it('more uploads at once than --max-uploads: 503 with Retry-After, and the held ones still succeed', async () => {
    const busy = await startServe(['--dir', join(tmp, 'busy'), '--app', APP, '--max-uploads', '2']);
    try {
      // Two requests admitted (100 Continue received) whose bodies are held back.
      const { connect } = await import('node:net');
      const held = await Promise.all(
        [0, 1].map(
          () =>
            new Promise<import('node:net').Socket>((ok) => {
              const s = connect(busy.port, '127.0.0.1', () =>
                s.write(
                  `POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 2\r\nexpect: 100-continue\r\n\r\n`,
                ),
              );
              s.once('data', (d) => {
                expect(d.toString()).toMatch(/^HTTP\/1\.1 100 Continue/);
                ok(s);
              });
            }),
        ),
      );
      const third = await fetch(`${busy.base}/v1/traces`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('1');
      const replies = await Promise.all(
        held.map(
          (s) =>
            new Promise<string>((ok) => {
              s.once('data', (d) => ok(d.toString()));
              s.write('{}');
            }),
        ),
      );
      for (const r of replies) expect(r).toMatch(/^HTTP\/1\.1 200 /);
      for (const s of held) s.destroy();
    } finally {
      expect(await busy.stop()).toBe(0);
    }
  });

  it('a line cut off by a crash is removed when the folder is opened again; the file then imports', async () => {
    const dir = join(tmp, 'crashed');
    mkdirSync(dir);
    const traceId = await exportTurn(new ProtoExporter({ url: `${serve.base}/v1/traces` }), { batch: true });
    const whole = readFileSync(join(DIR, `${traceId}.jsonl`));
    const file = join(dir, `${traceId}.jsonl`);
    writeFileSync(file, Buffer.concat([whole, whole.subarray(0, 100)])); // a second line, half written
    // Before the repair the cut line is only skipped with a warning; the receiver removes it.
    const before = parseTraceText(readFileSync(file, 'utf8'), { file });
    expect(before.issues.map((i) => i.code)).toContain('jsonl-incomplete-line');
    const again = await startServe(['--dir', dir, '--app', APP]);
    try {
      expect(again.stderr()).toContain(`${file}: removed an incomplete last line (100 bytes)`);
      expect(readFileSync(file)).toEqual(whole);
      expectTurn(file);
      const list = (await (await fetch(`${again.base}/api/received/`)).json()) as {
        traces: { traceId: string }[];
      };
      expect(list.traces.map((t) => t.traceId)).toEqual([traceId]);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });

  it('a second receiver on the same folder is refused while the first runs', async () => {
    const r = await runCli(['serve', '--port', '0', '--dir', DIR, '--app', APP]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/another memtrace serve \(pid \d+\) is writing there/);
  });

  it('concurrent exports into one trace (as many as --max-concurrent): every line is whole and every span is there', async () => {
    const T = 'feed'.repeat(8);
    const bodies = Array.from({ length: 8 }, (_, i) =>
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: Array.from({ length: 50 }, (_, k) => ({
                  traceId: T,
                  spanId: (i * 100 + k + 1).toString(16).padStart(16, '0'),
                  name: `s${i}-${k}`,
                  attributes: [{ key: 'pad', value: { stringValue: 'x'.repeat(2000) } }],
                })),
              },
            ],
          },
        ],
      }),
    );
    const replies = await Promise.all(bodies.map((b) => post(b, { 'content-type': 'application/json' })));
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    const lines = readFileSync(join(DIR, `${T}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(8);
    const ids = lines.flatMap((l) =>
      JSON.parse(l).resourceSpans[0].scopeSpans[0].spans.map((s: { spanId: string }) => s.spanId),
    );
    expect(new Set(ids).size).toBe(400);
  });
});
