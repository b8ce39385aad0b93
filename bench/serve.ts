/**
 * `memtrace serve` under load: a real server process (free port, temporary folder) receives
 * batches of 10,000 spans made by the real OpenTelemetry JS SDK and serialised by
 * `@opentelemetry/otlp-transformer` (protobuf, as the proto exporter sends; JSON for
 * comparison), posted back to back (1 client, then 4 at once). Each batch holds 10 traces of
 * 1,000 spans with GenAI-sized attributes, so each request appends a line to 10 files.
 * Reports spans received per second (until the last reply: decoded, split, on disk) and the
 * server's memory (RSS now and peak from /proc, heap from the server's own list endpoint).
 * `npx tsx bench/serve.ts [--batches 20]` writes the "Live OTLP receiver" section of RESULTS.md.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { ReceivedList } from '../src/core/receiver/index.ts';
import { startServe } from '../tests/serve/helpers.ts';
import { machineFacts, median, writeResultsSection } from './stats-util.ts';

const { values } = parseArgs({ options: { batches: { type: 'string', default: '20' } } });
const BATCHES = Number(values.batches);
const SPANS = 10_000;
const TRACES = 10;

/** Distinct batches (new trace ids each), made by the SDK once; the load cycles through them. */
async function makeBatches(n: number) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'bench-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('bench');
  const out: { proto: Uint8Array; json: Uint8Array }[] = [];
  for (let b = 0; b < n; b++) {
    exporter.reset();
    for (let t = 0; t < TRACES; t++) {
      const root = tracer.startSpan('memory-agent turn', {}, ROOT_CONTEXT);
      const ctx = trace.setSpan(context.active(), root);
      for (let i = 1; i < SPANS / TRACES; i++)
        tracer
          .startSpan(
            i % 2 ? 'chat' : 'search_memory',
            {
              attributes: {
                'gen_ai.operation.name': i % 2 ? 'chat' : 'search_memory',
                'gen_ai.request.model': 'bench-model',
                'gen_ai.input.messages': JSON.stringify([
                  {
                    role: 'user',
                    parts: [
                      {
                        type: 'text',
                        content: `Turn ${i} of batch ${b}: what did I say about the garden on day ${i % 31}?`,
                      },
                    ],
                  },
                ]),
                'gen_ai.usage.input_tokens': 120 + (i % 50),
              },
            },
            ctx,
          )
          .end();
      root.end();
    }
    const spans = exporter.getFinishedSpans();
    out.push({
      proto: ProtobufTraceSerializer.serializeRequest(spans)!,
      json: JsonTraceSerializer.serializeRequest(spans)!,
    });
  }
  await provider.shutdown();
  return out;
}

function procMemory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) =>
    Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** CPU seconds the process used so far (user + system, from /proc; clock ticks of 1/100 s). */
function procCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14, 15 of stat)
}

const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`;

async function run(
  kind: 'proto' | 'json',
  clients: number,
  batches: { proto: Uint8Array; json: Uint8Array }[],
) {
  const dir = await mkdtemp(join(tmpdir(), 'memtrace-bench-serve-'));
  // A stand-in page: the bench measures the receiver, not the app (which would be built otherwise).
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>bench</title>');
  const serve = await startServe(['--dir', join(dir, 'traces'), '--app', dir, '--max-body', '64MiB']);
  const pid = serve.child.pid!;
  const before = procMemory(pid);
  const cpuBefore = procCpuSeconds(pid);
  const type = kind === 'proto' ? 'application/x-protobuf' : 'application/json';
  let next = 0;
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < BATCHES; i = next++) {
        const t = performance.now();
        const res = await fetch(`${serve.base}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': type },
          body: new Uint8Array(batches[i % batches.length][kind]),
        });
        if (res.status !== 200) throw new Error(`batch ${i}: HTTP ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const list = (await (await fetch(`${serve.base}/api/received/`)).json()) as ReceivedList;
  const after = procMemory(pid);
  const cpuSeconds = procCpuSeconds(pid) - cpuBefore;
  const received = list.traces.reduce((n, t) => n + t.spans, 0);
  if (received !== BATCHES * SPANS) throw new Error(`received ${received} spans, sent ${BATCHES * SPANS}`);
  const files = readdirSync(join(dir, 'traces')).filter((f) => f.endsWith('.jsonl'));
  const disk = files.reduce((n, f) => n + statSync(join(dir, 'traces', f)).size, 0);
  await serve.stop();
  rmSync(dir, { recursive: true, force: true });
  return {
    kind,
    clients,
    spansPerSecond: received / seconds,
    spansPerCpuSecond: received / cpuSeconds,
    requestBytes: batches[0][kind].length,
    medianMs: median(latencies),
    rssBefore: before.rss,
    rssAfter: after.rss,
    peakRss: after.peak,
    heapUsed: list.memory.heapUsed,
    disk,
    files: files.length,
  };
}

/** Trace ids of the many-traces run: 70 requests of 1,000 traces with one span each. */
const MANY = { requests: 70, traces: 1000 };

/** Many small traces (each its own file): the server's memory after them, and the size of the list's default page. */
async function runMany() {
  const dir = await mkdtemp(join(tmpdir(), 'memtrace-bench-many-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>bench</title>');
  const serve = await startServe(['--dir', join(dir, 'traces'), '--app', dir]);
  const before = procMemory(serve.child.pid!);
  for (let b = 0; b < MANY.requests; b++) {
    const spans = Array.from({ length: MANY.traces }, (_, i) => {
      const n = b * MANY.traces + i + 1;
      return {
        traceId: `b${n.toString(16).padStart(31, '0')}`,
        spanId: n.toString(16).padStart(16, '0'),
        name: 'turn',
      };
    });
    const res = await fetch(`${serve.base}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }),
    });
    if (res.status !== 200)
      throw new Error(`many traces, request ${b}: HTTP ${res.status} ${await res.text()}`);
  }
  const listText = await (await fetch(`${serve.base}/api/received/`)).text();
  const list = JSON.parse(listText) as ReceivedList;
  const after = procMemory(serve.child.pid!);
  await serve.stop();
  rmSync(dir, { recursive: true, force: true });
  return {
    total: list.total,
    listBytes: listText.length,
    shown: list.traces.length,
    before,
    after,
    heap: list.memory.heapUsed,
  };
}

/** Issue 32's goal, ≥ 50k spans/s protobuf, said against the best protobuf row. */
function goalLine(rows: Awaited<ReturnType<typeof run>>[]): string {
  const proto = rows.filter((r) => r.kind === 'proto');
  const best = Math.max(...proto.map((r) => r.spansPerSecond));
  const cpu = Math.max(...proto.map((r) => r.spansPerCpuSecond));
  const n = (x: number) => Math.round(x).toLocaleString('en');
  return `Goal: ≥ 50,000 spans/s protobuf: ${n(best)} spans/s (${best >= 50_000 ? 'met' : 'not met'} at this load); ${n(cpu)} spans per CPU-second of the server.`;
}

const facts = machineFacts();
console.error(`making ${Math.min(BATCHES, 5)} batches of ${SPANS} spans with the OpenTelemetry SDK…`);
const batches = await makeBatches(Math.min(BATCHES, 5));
const rows = [];
for (const [kind, clients] of [
  ['proto', 1],
  ['proto', 4],
  ['json', 1],
] as const) {
  const r = await run(kind, clients, batches);
  console.log(
    `${kind} ×${clients}: ${Math.round(r.spansPerSecond)} spans/s (${Math.round(r.spansPerCpuSecond)} per CPU-second of the server), median ${r.medianMs.toFixed(0)} ms per ${SPANS}-span request, ` +
      `RSS ${mb(r.rssBefore)} → ${mb(r.rssAfter)} (peak ${mb(r.peakRss)}), heap ${mb(r.heapUsed)}`,
  );
  rows.push(r);
}
const many = await runMany();
console.log(
  `${many.total} traces: RSS ${mb(many.before.rss)} → ${mb(many.after.rss)} (peak ${mb(many.after.peak)}), heap ${mb(many.heap)}, list page ${many.listBytes} bytes`,
);
const loadEnd = loadavg()[0].toFixed(1);
writeResultsSection(
  'Live OTLP receiver (memtrace serve)',
  [
    `\`npx tsx bench/serve.ts --batches ${BATCHES}\`: a real \`memtrace serve\` process receives ${BATCHES} requests of ${SPANS.toLocaleString('en')} spans`,
    `(${TRACES} traces × ${SPANS / TRACES} spans each, GenAI attributes; made by the OpenTelemetry JS SDK 2.12.1 and serialised by`,
    'otlp-transformer 0.223.1), posted back to back; a request counts once its reply came (decoded, split by trace, appended to',
    `DIR/<trace id>.jsonl). Memory: the server's RSS before the load → after it (peak = VmHWM) and its V8 heap after the load.`,
    'Spans per CPU-second: spans received over the CPU time (user + system, /proc) the server process used during the load,',
    'which the other jobs sharing the cores do not take from it.',
    '',
    '| encoding | clients at once | request size | spans / s | spans / CPU-second of the server | median time per request | RSS before → after (peak) | heap after | written to disk |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.kind === 'proto' ? 'protobuf' : 'JSON'} | ${r.clients} | ${mb(r.requestBytes)} | ${Math.round(r.spansPerSecond).toLocaleString('en')} | ${Math.round(r.spansPerCpuSecond).toLocaleString('en')} | ${r.medianMs.toFixed(0)} ms | ${mb(r.rssBefore)} → ${mb(r.rssAfter)} (${mb(r.peakRss)}) | ${mb(r.heapUsed)} | ${mb(r.disk)} in ${r.files} files |`,
    ),
    '',
    `Many traces: ${(MANY.requests * MANY.traces).toLocaleString('en')} trace ids (${MANY.requests} JSON requests of ${MANY.traces.toLocaleString('en')} one-span traces, a file each) →`,
    `the server's RSS ${mb(many.before.rss)} → ${mb(many.after.rss)} (peak ${mb(many.after.peak)}), heap ${mb(many.heap)} after; \`GET api/received/\` then gives`,
    `${many.shown.toLocaleString('en')} of ${many.total.toLocaleString('en')} traces in ${(many.listBytes / 1024).toFixed(0)} KiB (a page; \`?offset&limit\` for the rest).`,
    '',
    `Machine: ${facts}; load average ${loadEnd} at the end.`,
    goalLine(rows),
  ].join('\n'),
);
