/**
 * RecordTexts hands every holder back a text equal to the one it filed, whatever the
 * record's contents do: slide, grow, repeat, start over, interleave with other records,
 * cross the batch size, or stay short. Expectations are copies taken before filing.
 */
import { describe, expect, it } from 'vitest';
import { RecordTexts } from '../../src/core/trace/otel/record-texts.ts';

/** A deterministic pseudo-random sequence (xorshift), so a failure can be replayed. */
function random(seed: number) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const line = (i: number) =>
  `turn ${i}: ${'the garden by the lake, the recipe and the trip '.repeat(1 + (i % 3))}#${i}`;

describe('RecordTexts', () => {
  it('gives back equal texts for sliding, growing, repeated and unrelated contents of several records', () => {
    const rnd = random(7);
    const texts = new RecordTexts();
    const filed: { holder: { content: string | null }; copy: string | null }[] = [];
    const windows = new Map<string, number[]>(); // record → the turns its window holds
    let next = 0;
    for (let step = 0; step < 6000; step++) {
      const key = `store\u0000${['window', 'transcript', 'notes'][Math.floor(rnd() * 3)]}`;
      let turns = windows.get(key) ?? [];
      const r = rnd();
      if (r < 0.05)
        turns = [next++]; // starts over
      else if (r < 0.1)
        turns = turns.slice(); // the same content again
      else {
        turns = [...turns, next++];
        if (turns.length > 60 && rnd() < 0.8) turns = turns.slice(1 + Math.floor(rnd() * 3)); // slides
      }
      windows.set(key, turns);
      // Sometimes with a different last line ending, so a kept part is not always a line start.
      const content = turns.map(line).join('\n') + (rnd() < 0.05 ? ' (edited)' : '');
      const holder = { content: rnd() < 0.02 ? null : `${content}` };
      filed.push({ holder, copy: holder.content === null ? null : `${holder.content}` });
      texts.add(key, holder);
    }
    texts.flush();
    let same = 0;
    for (const f of filed) {
      expect(f.holder.content).toBe(f.copy);
      same++;
    }
    expect(same).toBe(6000);
  });

  it('leaves short contents and contents that share nothing with the last one as they are', () => {
    const texts = new RecordTexts();
    const short = { content: 'a short memory of the trip' };
    const a = { content: `${'first document about the lake. '.repeat(60)}` };
    const b = { content: `${'second document, about a recipe. '.repeat(60)}` };
    for (const h of [short, a, b]) texts.add('s\u0000r', h);
    texts.flush();
    expect(short.content).toBe('a short memory of the trip');
    expect(a.content).toBe('first document about the lake. '.repeat(60));
    expect(b.content).toBe('second document, about a recipe. '.repeat(60));
  });
});
