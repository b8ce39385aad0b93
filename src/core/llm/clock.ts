/** The default clock (real time); tests inject their own. */
import { LlmError } from './errors.ts';
import type { Clock } from './types.ts';

/**
 * What an aborted wait rejects with: the signal's reason if it is an `LlmError`, else an `aborted`
 * LlmError.
 */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof LlmError
    ? signal.reason
    : new LlmError('aborted', 'The request was cancelled.');
}

/**
 * The real clock (`Date.now`, `setTimeout`); its `sleep` rejects with `abortReason` when the signal
 * aborts.
 */
export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
