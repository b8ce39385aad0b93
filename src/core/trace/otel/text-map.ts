/**
 * A Map keyed by text that stays fast for long texts. V8 hashes a string of more than
 * 16,383 characters by its length alone, so a Map of many long values of similar length
 * (windows, prompts) degrades to comparing them one by one; long keys go under a hash of
 * their content instead, and a hit is confirmed by comparing the text.
 */
import { hash16 } from '../../hash/index.ts';

const LONG = 4096;

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
