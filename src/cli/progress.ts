/** Progress lines on stderr for runs over several files; stdout stays clean for --json. */
import type { CliIO } from './io.ts';

export function progressReporter(io: CliIO, total: number) {
  const show = total > 1;
  return (done: number, label: string) => {
    if (show) io.stderr.write(`[${done}/${total}] ${label}\n`);
  };
}
