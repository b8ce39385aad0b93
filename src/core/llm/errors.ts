/** Typed LLM errors with messages a person can act on. Messages never contain keys. */
import { redact } from './redact.ts';
import type { Spent } from './types.ts';

/** What went wrong with a model call, in kinds a person can act on (comments give the usual cause). */
export type LlmErrorKind =
  | 'auth' // 401/403: the key
  | 'not-found' // 404: the model or the base URL
  | 'context-overflow' // the prompt does not fit the model's context window
  | 'rate-limit' // 429
  | 'server' // 5xx
  | 'bad-request' // other 4xx
  | 'network' // fetch failed: server down, DNS, or (in a browser) CORS
  | 'timeout'
  | 'aborted'
  | 'bad-response' // the server answered something we cannot read
  | 'invalid-output' // structured output still invalid after the repair retries
  | 'unavailable'; // e.g. no WebGPU

/**
 * An error of a model call: its kind, HTTP status, whether a retry may help, and what the call spent. The
 * message is redacted of keys on construction.
 */
export class LlmError extends Error {
  override name = 'LlmError';
  readonly kind: LlmErrorKind;
  readonly status?: number;
  /** Worth retrying (429, 5xx, network). */
  readonly retryable: boolean;
  /** From Retry-After / retry-after-ms, when the server sent one. */
  readonly retryAfterMs?: number;
  /**
   * What the failed call cost before it failed (requests sent, tokens of replies it could not
   * use). Absent = one request, no tokens known; `calls: 0` = the request never left.
   */
  readonly spent?: Spent;

  constructor(
    kind: LlmErrorKind,
    message: string,
    opts: {
      status?: number;
      retryable?: boolean;
      retryAfterMs?: number;
      secrets?: readonly string[];
      spent?: Spent;
    } = {},
  ) {
    super(redact(message, opts.secrets));
    this.kind = kind;
    this.status = opts.status;
    this.retryable = opts.retryable ?? (kind === 'rate-limit' || kind === 'server' || kind === 'network');
    this.retryAfterMs = opts.retryAfterMs;
    if (opts.spent) this.spent = { ...opts.spent };
  }

  /** The same error, noting that the failed call cost `spent` in all (errors are shared: never mutated). */
  costing(spent: Spent): LlmError {
    const { status, retryable, retryAfterMs } = this;
    return new LlmError(this.kind, this.message, { status, retryable, retryAfterMs, spent });
  }
}

/** Whether a thrown value is an `LlmError`. */
export function isLlmError(e: unknown): e is LlmError {
  return e instanceof LlmError;
}

const OVERFLOW =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|exceeds the (available )?context|context size|input is too long|reduce the length/i;

/** Parse `Retry-After` (seconds or HTTP date) or `retry-after-ms`. */
function parseRetryAfter(headers: Headers, now: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headers.get('retry-after');
  if (!ra) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Pull a human message out of an error body (`{error: {message}}`, `{message}`, text). */
function errorDetail(body: string): string {
  try {
    const j = JSON.parse(body) as {
      error?: { message?: string } | string;
      message?: string;
      detail?: string;
    };
    const m =
      typeof j.error === 'string'
        ? j.error
        : (j.error?.message ?? j.message ?? (j.detail as string | undefined));
    if (m) return String(m).slice(0, 500);
  } catch {
    /* not JSON */
  }
  return body.trim().slice(0, 300);
}

/** Turn a non-2xx HTTP response into a typed error. */
export function httpError(
  res: { status: number; statusText?: string; headers: Headers },
  body: string,
  ctx: { provider: string; url: string; model: string; secrets: readonly string[]; now: number },
): LlmError {
  const detail = errorDetail(body);
  const where = `${ctx.provider} at ${ctx.url}`;
  const s = res.status;
  const o = { status: s, secrets: ctx.secrets };
  if (s === 401 || s === 403)
    return new LlmError(
      'auth',
      `${where} refused the API key (HTTP ${s}): ${detail || 'unauthorized'}. Check the key (and that it is for this provider and has access to "${ctx.model}").`,
      o,
    );
  if (s === 404)
    return new LlmError(
      'not-found',
      `${where} answered 404: ${detail || 'not found'}. Check the base URL (OpenAI-compatible servers usually end in /v1) and the model name "${ctx.model}".`,
      o,
    );
  if ((s === 400 || s === 413 || s === 422) && OVERFLOW.test(detail))
    return new LlmError(
      'context-overflow',
      `The request does not fit the context window of "${ctx.model}" (HTTP ${s}): ${detail}. Send less context or choose a model with a larger window.`,
      o,
    );
  if (s === 429)
    return new LlmError('rate-limit', `${where} is rate limiting (HTTP 429): ${detail}`, {
      ...o,
      retryAfterMs: parseRetryAfter(res.headers, ctx.now),
    });
  if (s >= 500 || s === 408 || s === 409)
    return new LlmError(
      'server',
      `${where} failed (HTTP ${s}): ${detail || res.statusText || 'server error'}`,
      {
        ...o,
        retryable: true,
        retryAfterMs: parseRetryAfter(res.headers, ctx.now),
      },
    );
  return new LlmError('bad-request', `${where} rejected the request (HTTP ${s}): ${detail}`, o);
}

/**
 * `fetch` itself threw. In a browser a CORS refusal is indistinguishable from a server
 * that is down: both are a bare `TypeError: Failed to fetch`.
 */
export function networkError(e: unknown, ctx: { provider: string; url: string; secrets: readonly string[] }) {
  const why = e instanceof Error ? `${e.message}${causeText(e)}` : String(e);
  return new LlmError(
    'network',
    `Could not reach ${ctx.provider} at ${ctx.url} (${why}). Check the URL and that the server is running. ` +
      'In a browser this is also how a CORS refusal looks: the server must allow requests from this page ' +
      '(Ollama: set OLLAMA_ORIGINS; LM Studio/vLLM: enable CORS; llama.cpp, OpenAI and Anthropic allow it).',
    { secrets: ctx.secrets },
  );
}

function causeText(e: Error): string {
  const c = (e as { cause?: { code?: string; message?: string } }).cause;
  if (!c) return '';
  return `: ${c.code ?? c.message ?? ''}`;
}
