/** Time for trace records: an injected clock (epoch milliseconds) and the toolkit's timestamp format. */

export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/**
 * A deterministic clock: starts at `start` (epoch ms) and advances `stepMs` per reading.
 * Gives reproducible traces (demo, tests) while keeping timestamps strictly ordered.
 */
export function steppingClock(start: number, stepMs = 1): Clock {
  let t = start - stepMs;
  return () => {
    t += stepMs;
    return t;
  };
}

const p2 = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM:SS.mmm` in local time, no zone — the toolkit's `created_at`. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  return (
    `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ` +
    `${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`
  );
}
