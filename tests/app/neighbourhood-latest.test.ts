import { describe, expect, it } from 'vitest';
import { LatestOnly, Superseded } from '../../src/app/neighbourhood/latest.ts';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('LatestOnly (newest-wins neighbourhood requests)', () => {
  it('runs one request at a time and drops the waiting ones a newer request replaces, unsent', async () => {
    const q = new LatestOnly<string>();
    const started: string[] = [];
    const first = deferred<string>();
    const call = (name: string, answer?: Promise<string>) => () => {
      started.push(name);
      return answer ?? Promise.resolve(name);
    };
    const a = q.request(call('a', first.promise));
    const b = q.request(call('b'));
    const c = q.request(call('c'));
    const d = q.request(call('d'));
    await expect(b).rejects.toBeInstanceOf(Superseded);
    await expect(c).rejects.toBeInstanceOf(Superseded);
    expect(started).toEqual(['a']);
    first.resolve('a');
    expect(await a).toBe('a');
    expect(await d).toBe('d');
    expect(started).toEqual(['a', 'd']);
  });

  it('passes failures through and keeps going', async () => {
    const q = new LatestOnly<number>();
    const bad = q.request(() => Promise.reject(new Error('no graph')));
    const good = q.request(() => Promise.resolve(2));
    await expect(bad).rejects.toThrow('no graph');
    expect(await good).toBe(2);
    const thrown = q.request(() => {
      throw new Error('sync');
    });
    await expect(thrown).rejects.toThrow('sync');
    expect(await q.request(() => Promise.resolve(3))).toBe(3);
  });
});
