/**
 * RecordTexts gives every record what parsing its span's text gives, whatever the record's
 * contents do: slide, grow, repeat, start over, interleave with other records, cross the
 * batch size, stay short, or are written with other escapes, other fields, broken JSON.
 * Expectations come from JSON.parse of each text (the reference mapping below).
 */
import { describe, expect, it } from 'vitest';
import { type RecordRef, RecordTexts } from '../../src/core/trace/index.ts';

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

/** The span reader's mapping of a records text (content.ts `records`), written again here. */
function reference(raw: string): RecordRef[] {
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  const text = (v: unknown) =>
    v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);
  return list.map((r) =>
    typeof r === 'object' && r !== null && !Array.isArray(r)
      ? { id: text((r as Record<string, unknown>).id), content: text((r as Record<string, unknown>).content) }
      : { id: null, content: text(r) },
  );
}

// Lines with the characters escaping is about: quotes, backslashes, a backslash before an n,
// tabs, control characters, accents and a character outside the BMP.
const ODD = ['"', '\\', '\\n', '\t', '\u0001', 'é', '😀', '\\\\', '/'];
function line(rnd: () => number, i: number): string {
  let s = `turn ${i}: the garden by the lake, the recipe and the trip, the concert and the new job`;
  while (rnd() < 0.5) s += ` ${ODD[Math.floor(rnd() * ODD.length)]} ${'word '.repeat(Math.floor(rnd() * 4))}`;
  return s;
}

/** JSON text of a records list, sometimes written unlike JSON.stringify. */
function write(rnd: () => number, id: string, content: string): string {
  const r = rnd();
  if (r < 0.015) return JSON.stringify([{ id, content }]).slice(0, -3); // broken
  if (r < 0.03) return JSON.stringify({ id, content }); // not a list
  if (r < 0.045)
    return JSON.stringify([
      { id, content },
      { id: `${id}-b`, content: content.slice(0, 2000) },
    ]);
  if (r < 0.06) return JSON.stringify([{ content, id, metadata: { copy: content, score: 0.5 } }]);
  if (r < 0.075) return ` [ { "id" : ${JSON.stringify(id)} , "content" : ${JSON.stringify(content)} } ] `;
  if (r < 0.09) return JSON.stringify([{ id, content }]).replace(/e/g, '\\u0065'); // escapes JSON.stringify would not write
  if (r < 0.1) return JSON.stringify([{ id, content: 'short' }]);
  return JSON.stringify([{ id, content }]);
}

describe('RecordTexts', () => {
  it('reads every records text as JSON.parse does, mostly without parsing it', () => {
    const rnd = random(11);
    const texts = new RecordTexts();
    let parsed = 0;
    const parse = (raw: string) => {
      parsed++;
      return reference(raw);
    };
    const steps: { got: RecordRef[]; want: RecordRef[] }[] = [];
    const windows = new Map<string, string[]>(); // record → the lines its window holds
    let next = 0;
    for (let step = 0; step < 5000; step++) {
      const key = ['window', 'transcript', 'notes'][Math.floor(rnd() * 3)];
      let lines = windows.get(key) ?? [];
      const r = rnd();
      if (r < 0.005)
        lines = [line(rnd, next++)]; // starts over
      else if (r < 0.03)
        lines = lines.slice(); // the same content again
      else {
        lines = [...lines, line(rnd, next++)];
        if (lines.length > 40 && rnd() < 0.8) lines = lines.slice(1 + Math.floor(rnd() * 3)); // slides
      }
      windows.set(key, lines);
      const content = lines.join('\n') + (rnd() < 0.01 ? ' (edited)' : '');
      const id = rnd() < 0.01 ? `${key}-renamed` : key;
      const raw = write(rnd, id, content);
      steps.push({ got: texts.read(`store\u0000${key}`, raw, parse), want: reference(raw) });
    }
    texts.flush();
    for (const [i, s] of steps.entries()) expect(s.got, `step ${i}`).toEqual(s.want);
    // Most texts were read from what changed, not parsed whole.
    expect(parsed).toBeLessThan(steps.length / 2);
  });

  it('gives back equal contents filed directly, sliding, growing or unrelated', () => {
    const rnd = random(7);
    const texts = new RecordTexts();
    const filed: { holder: RecordRef; copy: string | null }[] = [];
    let turns: number[] = [];
    for (let step = 0; step < 3000; step++) {
      const r = rnd();
      if (r < 0.05) turns = [step];
      else if (r > 0.1) turns = [...turns, step].slice(turns.length > 60 ? 2 : 0);
      const content = turns
        .map((t) => `turn ${t}: the garden by the lake, the recipe and the trip`)
        .join('\n');
      const holder = { id: null, content: rnd() < 0.02 ? null : content };
      filed.push({ holder, copy: holder.content === null ? null : `${holder.content}` });
      texts.add('store\u0000window', holder);
    }
    texts.flush();
    for (const f of filed) expect(f.holder.content).toBe(f.copy);
  });
});
