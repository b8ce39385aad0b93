/** Where records were made: a fixed file name, or the caller's file and line read from a stack trace. */
import type { Location } from './options.ts';

const SDK_FRAME = /[\\/]src[\\/]sdk[\\/]|node:internal|node_modules/;

/** The first stack frame outside the SDK (and Node's internals), else `fallback`. */
function stackLocation(fallback: Location): Location {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const line of stack) {
    if (SDK_FRAME.test(line)) continue;
    const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):\d+\)?\s*$/.exec(line);
    if (m) return { filename: m[1].split(/[\\/]/).pop() ?? m[1], lineno: Number(m[2]) };
  }
  return fallback;
}

/** Places records: an explicit `at` wins, then the caller's frame (`stack` mode), then `filename:0`. */
export function placer(filename: string, mode: 'fixed' | 'stack'): (at: Location | undefined) => Location {
  return (at) => {
    if (at) return at;
    const fallback = { filename, lineno: 0 };
    return mode === 'stack' ? stackLocation(fallback) : fallback;
  };
}
