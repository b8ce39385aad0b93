/** One HTTP attempt with typed errors; retries and timeouts live in robust.ts. */
import { realClock } from './clock.ts';
import { httpError, LlmError, networkError } from './errors.ts';
import type { FetchLike } from './types.ts';
import { noSpend } from './usage.ts';

export interface HttpContext {
  provider: string;
  url: string;
  model: string;
  /** Values to scrub from any message (the API key). */
  secrets: readonly string[];
  fetch: FetchLike;
  now: () => number;
  limits: ReadLimits;
}

/** Bounds on reading one answer, so a misbehaving server cannot hang or flood the caller. */
interface ReadLimits {
  /** An answer's body may hold at most this many bytes (default 32 MiB). */
  maxBytes: number;
  /** A stream that sends no byte for this long fails (default 60 s; 0 = no limit). */
  idleMs: number;
  timers: { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout };
}

const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** Limits with defaults filled in (timers wrapped: browsers refuse setTimeout called as a method of another object). */
function readLimits(o: { maxResponseBytes?: number; idleTimeoutMs?: number } = {}): ReadLimits {
  return {
    maxBytes: o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    idleMs: o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    timers: {
      setTimeout: ((fn: () => void, ms: number) => globalThis.setTimeout(fn, ms)) as typeof setTimeout,
      clearTimeout: ((t: ReturnType<typeof setTimeout>) => globalThis.clearTimeout(t)) as typeof clearTimeout,
    },
  };
}

/** The error to throw when `signal` has fired: its reason if typed (timeout), else "aborted". */
export function abortError(signal: AbortSignal | undefined): LlmError {
  const r: unknown = signal?.reason;
  if (r instanceof LlmError) return r;
  return new LlmError('aborted', 'The request was cancelled.');
}

export async function postJson(
  ctx: HttpContext,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal | undefined,
): Promise<Response> {
  if (signal?.aborted) throw abortError(signal).costing(noSpend()); // never sent
  let res: Response;
  try {
    res = await ctx.fetch(ctx.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (e) {
    if (signal?.aborted) throw abortError(signal);
    const err = networkError(e, ctx);
    throw neverConnected(e) ? err.costing(noSpend()) : err;
  }
  if (!res.ok) {
    const text = await readText(ctx, res, signal);
    throw httpError(res, text, { ...ctx, now: ctx.now() });
  }
  return res;
}

/** Errors of a connection that was never made (the request cannot have reached the server). */
const NO_CONNECTION = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function neverConnected(e: unknown): boolean {
  const code = (e as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' && NO_CONNECTION.has(code);
}

/**
 * The body's bytes as they arrive, within the limits: more than `maxBytes` in all fails (the
 * rest is never read), and with `idle` a pause of more than `idleMs` between bytes fails.
 */
export async function* readBody(
  ctx: HttpContext,
  res: Response,
  signal: AbortSignal | undefined,
  idle: boolean,
): AsyncGenerator<Uint8Array> {
  if (!res.body) return;
  const { maxBytes, idleMs, timers } = ctx.limits;
  const reader = res.body.getReader();
  let total = 0;
  let finished = false;
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let stalled = false;
      if (idle && idleMs > 0)
        timer = timers.setTimeout(() => {
          stalled = true;
          void reader.cancel().catch(() => {});
        }, idleMs);
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (signal?.aborted) throw abortError(signal);
        if (stalled) throw idleError(ctx);
        throw new LlmError(
          'network',
          `The connection broke while reading the answer (${(e as Error).message}).`,
          {
            retryable: true,
          },
        );
      } finally {
        if (timer !== undefined) timers.clearTimeout(timer);
      }
      if (stalled) throw idleError(ctx);
      if (chunk.done) {
        finished = true;
        return;
      }
      total += chunk.value.byteLength;
      if (total > maxBytes)
        throw new LlmError(
          'bad-response',
          `${ctx.provider} at ${ctx.url} sent more than ${formatBytes(maxBytes)} for one answer; the rest was not read (the limit is the profile's maxResponseBytes).`,
          { secrets: ctx.secrets },
        );
      yield chunk.value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function idleError(ctx: HttpContext): LlmError {
  return new LlmError(
    'timeout',
    `${ctx.provider} at ${ctx.url} sent nothing for ${ctx.limits.idleMs / 1000} s in the middle of the answer (idle timeout).`,
    { retryable: true },
  );
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(0)} MiB` : `${n} bytes`;
}

/** The whole body as text (UTF-8), within the size limit. */
export async function readText(
  ctx: HttpContext,
  res: Response,
  signal: AbortSignal | undefined,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of readBody(ctx, res, signal, false))
    text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

export async function readJson<T>(
  ctx: HttpContext,
  res: Response,
  signal: AbortSignal | undefined,
): Promise<T> {
  const text = await readText(ctx, res, signal);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new LlmError(
      'bad-response',
      `${ctx.provider} at ${ctx.url} answered with something that is not JSON: ${snippet(text)}`,
      { secrets: ctx.secrets, retryable: true },
    );
  }
}

/** The start of a body for a message ("(an empty body)" when there is none). */
export function snippet(text: string): string {
  const t = text.trim();
  return t ? JSON.stringify(t.slice(0, 200)) : '(an empty body)';
}

/** Wrap errors thrown while iterating a stream body. */
export function streamError(e: unknown, signal: AbortSignal | undefined): LlmError {
  if (signal?.aborted) return abortError(signal);
  if (e instanceof LlmError) return e;
  return new LlmError('network', `The stream broke off (${(e as Error)?.message ?? e}).`, {
    retryable: true,
  });
}

/** `https://host/v1/` + `chat/completions` → `https://host/v1/chat/completions`. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The HTTP context of one provider's model: host `fetch` and clock unless given, read limits from the options. */
export function httpContext(
  provider: string,
  url: string,
  opts: {
    model: string;
    apiKey?: string;
    fetch?: FetchLike;
    now?: () => number;
    maxResponseBytes?: number;
    idleTimeoutMs?: number;
  },
): HttpContext {
  return {
    provider,
    url,
    model: opts.model,
    secrets: opts.apiKey ? [opts.apiKey] : [],
    fetch: opts.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init)),
    now: opts.now ?? realClock.now,
    limits: readLimits(opts),
  };
}

/** The error for a streaming request answered with `type` (the body's start quoted) instead of server-sent events. */
export function notEventStream(ctx: HttpContext, where: string, type: string, body: string): LlmError {
  return new LlmError(
    'bad-response',
    `${where} answered a streaming request with ${type || 'no content type'}, not server-sent events: ${snippet(body)}`,
    { secrets: ctx.secrets, retryable: true },
  );
}
