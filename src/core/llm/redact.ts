/**
 * Keep API keys out of messages, logs and exports. `redact(text, secrets)` replaces every
 * known secret and anything that looks like a key or a bearer token.
 */

const KEY_PATTERNS: RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, // OpenAI / Anthropic (sk-ant-…) / OpenRouter (sk-or-…)
  /\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(x-api-key|api[_-]?key|authorization)(["']?\s*[:=]\s*["']?)[^\s"',}]{6,}/gi,
];

/** What a removed secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * The text with every given secret (of 4+ characters) and anything shaped like an API key or bearer token
 * replaced by `REDACTED`.
 */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join(REDACTED);
  }
  out = out.replace(KEY_PATTERNS[0], REDACTED);
  out = out.replace(KEY_PATTERNS[1], (_m, b: string) => `${b} ${REDACTED}`);
  out = out.replace(KEY_PATTERNS[2], (_m, k: string, sep: string) => `${k}${sep}${REDACTED}`);
  return out;
}

/** A deep copy of `value` with every string redacted and key-like fields removed. */
export function redactDeep<T>(value: T, secrets: readonly (string | undefined)[] = []): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (/^(api[_-]?key|apikey|key|secret|token|authorization|password)$/i.test(k)) continue;
        out[k] = walk(x);
      }
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
