/** One HTTP attempt with typed errors; retries and timeouts live in robust.ts. */
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
    const text = await readText(res, signal);
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

export async function readText(res: Response, signal: AbortSignal | undefined): Promise<string> {
  try {
    return await res.text();
  } catch (e) {
    if (signal?.aborted) throw abortError(signal);
    throw new LlmError(
      'network',
      `The connection broke while reading the answer (${(e as Error).message}).`,
      {
        retryable: true,
      },
    );
  }
}

export async function readJson<T>(
  ctx: HttpContext,
  res: Response,
  signal: AbortSignal | undefined,
): Promise<T> {
  const text = await readText(res, signal);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new LlmError(
      'bad-response',
      `${ctx.provider} at ${ctx.url} answered with something that is not JSON: ${text.slice(0, 200)}`,
      { secrets: ctx.secrets, retryable: true },
    );
  }
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
