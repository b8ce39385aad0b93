/** Checking a parsed data set file against its zod schema: the first mismatch, by path, in words. */
import type { z } from 'zod';

/** A data set file that is not in the expected format (the message names the place). */
export class DatasetFormatError extends Error {
  override name = 'DatasetFormatError';
}

/** `['qa', 3, 'question']` → `qa[3].question` (`(top level)` for the whole value). */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(top level)';
}

/** `data` as `schema` says, or a DatasetFormatError naming the first mismatching path. */
export function parseAs<S extends z.ZodType>(schema: S, data: unknown, label: string): z.infer<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  throw new DatasetFormatError(`not a ${label} file: at ${formatPath(first.path)}: ${words(first.message)}`);
}

/** zod's "Invalid input: expected string, received undefined" → "missing (expected string)". */
function words(message: string): string {
  const m = /^Invalid input: expected (.+), received undefined$/.exec(message);
  return m ? `missing (expected ${m[1]})` : message.replace(/^Invalid input: /, '');
}
