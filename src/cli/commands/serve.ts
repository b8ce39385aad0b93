/**
 * `memtrace serve`: an OTLP/HTTP trace receiver on this machine. Point an OpenTelemetry SDK
 * at it (`OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318`); each trace is written to
 * `DIR/<trace id>.jsonl` as it grows, and the workbench it serves lists the received traces
 * live and imports them like a dropped file.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { command } from '../command.ts';
import { outputDir } from '../files.ts';
import { CliError } from '../io.ts';
import { formatBytes } from '../serve/body.ts';
import { isLoopback } from '../serve/hosts.ts';

/** `20MiB`, `512KiB`, `1048576`: bytes, or a usage error. */
function sizeFlag(text: string, flag: string): number {
  const m = /^(\d+)\s*(B|KiB|MiB|GiB)?$/i.exec(text.trim());
  const unit = { b: 1, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30 }[(m?.[2] ?? 'b').toLowerCase()];
  const n = m && unit ? Number(m[1]) * unit : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new CliError(`${flag} must be a size such as 20MiB, 512KiB or 1048576 (got "${text}")`, 2);
  return n;
}

export const serve = command({
  name: 'serve',
  usage:
    'memtrace serve [--port 4318] [--host 127.0.0.1] [--dir DIR] [--max-body 20MiB] [--max-concurrent 8] [--max-uploads 32] [--body-timeout 5] [--allow-remote] [--app DIR] [--build]',
  args: { min: 0, max: 0, name: 'none' },
  options: {
    port: {
      type: 'string',
      default: '4318',
      value: 'N',
      int: { min: 0, max: 65535 },
      help: 'TCP port (4318 is OTLP/HTTP’s; 0 picks a free one)',
    },
    host: {
      type: 'string',
      default: '127.0.0.1',
      value: 'HOST',
      help: 'address to listen on; other than loopback needs --allow-remote',
    },
    dir: {
      type: 'string',
      default: './traces',
      value: 'DIR',
      help: 'folder the traces are written to, one <trace id>.jsonl each (OTLP/JSON Lines)',
    },
    'max-body': {
      type: 'string',
      default: '20MiB',
      value: 'SIZE',
      help: 'largest request body, before and after gzip inflation (larger: 413; the OTLP spec’s default)',
    },
    'max-concurrent': {
      type: 'string',
      default: '8',
      value: 'N',
      int: { min: 1 },
      help: 'export requests decoded and written at once; more are answered 503 with Retry-After',
    },
    'max-uploads': {
      type: 'string',
      default: '32',
      value: 'N',
      int: { min: 1 },
      help: 'request bodies received at once (each up to --max-body); more are answered 503 with Retry-After',
    },
    'body-timeout': {
      type: 'string',
      default: '5',
      value: 'SECONDS',
      number: true,
      help: 'a request body that sends nothing for this long is answered 408 and its connection closed',
    },
    'allow-remote': {
      type: 'boolean',
      default: false,
      help: 'allow a non-loopback --host: other machines can then send traces and read the received ones',
    },
    app: {
      type: 'string',
      value: 'DIR',
      help: 'the built workbench to serve (default: the project’s dist/, built with vite when missing)',
    },
    build: { type: 'boolean', default: false, help: 'rebuild the project’s dist/ before serving it' },
  },
  async run({ values }, io) {
    const log = (line: string) => io.stderr.write(`memtrace serve: ${line}\n`);
    const port = values.port;
    const host = values.host;
    const allowRemote = values['allow-remote'] === true;
    if (!isLoopback(host) && !allowRemote)
      throw new CliError(
        `--host ${host} is not a loopback address: traces hold private conversations; add --allow-remote to listen there anyway`,
        2,
      );
    const maxBody = sizeFlag(values['max-body'], '--max-body');
    const maxConcurrent = values['max-concurrent'];
    const maxUploads = values['max-uploads'];
    const bodyTimeout = values['body-timeout'];
    if (!(bodyTimeout > 0 && bodyTimeout <= 3600))
      throw new CliError(`--body-timeout must be seconds above 0, up to 3600 (got ${bodyTimeout})`, 2);
    const bodyTimeoutMs = Math.round(bodyTimeout * 1000);
    const dir = resolve(await outputDir(values.dir, '--dir'));
    // Loaded when the command runs (protobufjs with them), not for every command's start.
    const [{ appFolder }, { createReceiver }, { TraceStore }] = await Promise.all([
      import('../serve/app.ts'),
      import('../serve/server.ts'),
      import('../serve/store.ts'),
    ]);
    const appDir = await appFolder(values.app, values.build, log);
    const store = await TraceStore.open(dir, log);
    const receiver = createReceiver({
      store,
      maxBody,
      maxConcurrent,
      maxUploads,
      bodyTimeoutMs,
      appDir,
      allowRemote,
      log,
    });
    await listen(receiver.server, port, host).catch(async (e) => {
      await store.close();
      throw e;
    });
    const { port: bound } = receiver.server.address() as AddressInfo;
    const base = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    if (!isLoopback(host))
      log(
        `WARNING: listening on ${host}, reachable from other machines: anyone who can connect can send traces and read the received ones`,
      );
    log(
      `receiving OTLP/HTTP traces at ${base}/v1/traces (protobuf or JSON, gzip; up to ${formatBytes(maxBody)} a request)`,
    );
    log(`writing each trace to ${dir}/<trace id>.jsonl (${store.size} there already)`);
    log(appDir ? `the workbench: ${base}/` : 'the workbench is not served (see above)');
    log(`point an SDK at it: OTEL_EXPORTER_OTLP_ENDPOINT=${base}; Ctrl-C stops`);
    await once(stopSignal(), 'abort');
    log('stopping');
    await receiver.close();
    await store.close();
    return 0;
  },
});

function listen(server: import('node:http').Server, port: number, host: string): Promise<void> {
  return new Promise((ok, fail) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE')
        fail(new CliError(`${host}:${port} is already in use (another receiver or Collector?); pick --port`));
      else if (e.code === 'EACCES')
        fail(new CliError(`${host}:${port}: permission denied; pick a port above 1023`));
      else fail(new CliError(`cannot listen on ${host}:${port} (${e.code ?? e.message})`));
    });
    server.listen(port, host, () => ok());
  });
}

/** A signal that aborts on Ctrl-C or a termination request. */
function stopSignal(): AbortSignal {
  const stop = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    stop.abort(new DOMException(`stopped by ${name}`, 'AbortError'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return stop.signal;
}
