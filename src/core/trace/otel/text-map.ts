/**
 * A Map keyed by text that stays fast for long texts. V8 hashes a string of more than
 * 16,383 characters by its length alone, so a Map of many long values of similar length
 * (windows, prompts) degrades to comparing them one by one; long keys go under a hash of
 * their content instead, and a hit is confirmed by comparing the text.
 */
const LONG = 4096;

/** Two hex digits per byte value (a table: `toString(16)` is several times slower, and ids are made by the thousand). */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** A 32-bit number as 8 hex digits. */
export function hex8(n: number): string {
  return HEX[n >>> 24] + HEX[(n >>> 16) & 255] + HEX[(n >>> 8) & 255] + HEX[n & 255];
}

/** 64-bit FNV-1a-style hash as 16 hex digits (two independent 32-bit lanes). */
export function hash16(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return hex8(h1) + hex8(h2);
}

/** The key a text is filed under: itself when short, `hash:length` when long (compute once, pass along). */
export function textSlot(text: string): string {
  return text.length < LONG ? text : `${hash16(text)}:${text.length}`;
}

export class TextMap<V> {
  private readonly short = new Map<string, V>();
  private readonly long = new Map<string, { text: string; value: V }[]>();

  get(text: string, slot = textSlot(text)): V | undefined {
    if (text.length < LONG) return this.short.get(text);
    return this.long.get(slot)?.find((e) => e.text === text)?.value;
  }
  has(text: string, slot?: string): boolean {
    return this.get(text, slot) !== undefined;
  }
  set(text: string, value: V, slot = textSlot(text)): this {
    if (text.length < LONG) {
      this.short.set(text, value);
      return this;
    }
    const key = slot;
    const list = this.long.get(key) ?? [];
    const hit = list.find((e) => e.text === text);
    if (hit) hit.value = value;
    else list.push({ text, value });
    this.long.set(key, list);
    return this;
  }
}
