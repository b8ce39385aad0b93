/**
 * Where the engine's matcher gets its word vectors: the body the page is downloading when it
 * hands one over (read, not fetched again), else its own fetch — with progress every MiB, and
 * a failed download said in the matcher's note (attribution then runs one layer down).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { ensureVectorFile } from '../../src/core/semantic/word-vectors.node.ts';
import { type MatcherProgress, Matching } from '../../workers/matcher.ts';

const bytes = readFileSync(ensureVectorFile(undefined, () => {}));
const URL_ = 'http://app.test/vectors/sg100d.bin';
/** The vocabulary size the file's header states. */
const words = JSON.parse(bytes.subarray(0, bytes.indexOf(10)).toString('utf8')).count as number;

/** The file as a stream of 64 KiB chunks, as a download delivers it. */
function body(): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(new Uint8Array(bytes.subarray(at, at + 65_536)));
      at += 65_536;
    },
  });
}

const served = () =>
  Promise.resolve(new Response(body(), { headers: { 'content-length': String(bytes.length) } }));

describe('the matcher’s word vectors', () => {
  it('reads the body the page hands over instead of fetching the file', async () => {
    const fetchFn = vi.fn(served);
    const m = new Matching(fetchFn);
    m.setSource(URL_, body());
    const progress: MatcherProgress[] = [];
    const info = await m.load((p) => progress.push(p));
    expect(info).toEqual({ layer: 'vectors', words, note: null });
    expect(fetchFn).not.toHaveBeenCalled();
    expect(progress.at(-1)?.loaded).toBe(bytes.length);
    // One report per MiB read (not one per chunk), the last one at the end.
    expect(progress.length).toBe(Math.floor(bytes.length / 2 ** 20) + 1);
  });

  it('fetches the file itself when no body was handed over, and drops one handed over after it started', async () => {
    const fetchFn = vi.fn(served);
    const m = new Matching(fetchFn);
    m.setSource(URL_);
    const loading = m.load();
    const late = body();
    m.setSource(URL_, late);
    expect((await loading).words).toBe(words);
    expect(fetchFn).toHaveBeenCalledTimes(1);
    expect(fetchFn).toHaveBeenCalledWith(URL_);
    // The late body was cancelled: reading it ends at once.
    expect((await late.getReader().read()).done).toBe(true);
  });

  it("says why when the page's download failed, and matches one layer down", async () => {
    const m = new Matching(vi.fn(served));
    const failed = new ReadableStream<Uint8Array>({
      start(c) {
        c.error(new Error('HTTP 404'));
      },
    });
    m.setSource(URL_, failed);
    const info = await m.load();
    expect(info.layer).toBe('normalised');
    expect(info.words).toBe(0);
    expect(info.note).toContain('HTTP 404');
    expect(info.note).toContain(URL_);
  });
});
