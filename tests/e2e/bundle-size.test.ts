import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleProblems, MAIN_CHUNK_BUDGET_GZIP, measureBundle } from '../../bench/bundle-size.ts';
import { buildOnce } from './harness.ts';

describe('what the built app ships (bench/bundle-size.ts rules on the e2e build)', () => {
  let dist = '';
  beforeAll(async () => {
    dist = await buildOnce();
  }, 600_000);

  it('the main chunk index.html loads stays within its gzipped budget', () => {
    const report = measureBundle(dist);
    const src = /src="\.\/assets\/([^"]+\.js)"/.exec(readFileSync(join(dist, 'index.html'), 'utf8'))?.[1];
    expect(report.main.file).toBe(src);
    const gz = gzipSync(readFileSync(join(dist, 'assets', report.main.file)), { level: 9 }).length;
    expect(report.main.gzip).toBe(gz);
    expect(gz).toBeLessThanOrEqual(MAIN_CHUNK_BUDGET_GZIP);
  });

  it('web-llm ships once (in the WebLLM worker) and full zod is not in the main chunk', () => {
    const report = measureBundle(dist);
    expect(bundleProblems(report)).toEqual([]);
    const sources = (f: string): string[] =>
      JSON.parse(readFileSync(join(dist, 'assets', f), 'utf8')).sources ?? [];
    const withWebllm = readdirSync(join(dist, 'assets')).filter(
      (f) => f.endsWith('.js.map') && sources(f).some((s) => s.includes('node_modules/@mlc-ai/web-llm/')),
    );
    expect(withWebllm).toHaveLength(1);
    expect(withWebllm[0]).toMatch(/^webllm\.worker-/);
  });
});
