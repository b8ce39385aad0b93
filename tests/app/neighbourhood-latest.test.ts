import { describe, expect, it } from 'vitest';
import { LatestOnly, Superseded } from '../../src/app/neighbourhood/latest.ts';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('LatestOnly (newest-wins requests)', () => {
  it('runs one request at a time, aborts the running one and drops the waiting ones a newer request replaces, unsent', async () => {
    const q = new LatestOnly<string>();
    const started: string[] = [];
    const signals: AbortSignal[] = [];
    const first = deferred<string>();
    const call = (name: string, answer?: Promise<string>) => (signal: AbortSignal) => {
      started.push(name);
      signals.push(signal);
      return answer ?? Promise.resolve(name);
    };
    const a = q.request(call('a', first.promise));
    expect(signals[0].aborted).toBe(false);
    const b = q.request(call('b'));
    expect(signals[0].aborted).toBe(true);
    const c = q.request(call('c'));
    const d = q.request(call('d'));
    await expect(b).rejects.toBeInstanceOf(Superseded);
    await expect(c).rejects.toBeInstanceOf(Superseded);
    expect(started).toEqual(['a']);
    // The worker answered although it was asked to stop: the answer is dropped all the same.
    first.resolve('a');
    await expect(a).rejects.toBeInstanceOf(Superseded);
    expect(await d).toBe('d');
    expect(started).toEqual(['a', 'd']);
    expect(signals[1].aborted).toBe(false);
  });

  it('passes failures through and keeps going', async () => {
    const q = new LatestOnly<number>();
    const bad = q.request(() => Promise.reject(new Error('no graph')));
    await expect(bad).rejects.toThrow('no graph');
    const good = q.request(() => Promise.resolve(2));
    expect(await good).toBe(2);
    const thrown = q.request(() => {
      throw new Error('sync');
    });
    await expect(thrown).rejects.toThrow('sync');
    expect(await q.request(() => Promise.resolve(3))).toBe(3);
  });
});
