/**
 * Where a QA row's evidence is in a trace: the earliest text no op wrote (a conversation, a
 * message: what the system was given) that holds the row's evidence turn, or else a golden
 * answer, as whole words — the prompts of the calls asked a question of the file left out.
 * Texts are indexed once by word (posting lists in document order), and a phrase is checked
 * only in the texts that hold its rarest word, so rows × texts is never scanned.
 */
import { normalizeUnit, type TraceDocument } from '../trace/index.ts';

/** Words of a text, folded as units are (`normalizeUnit`), punctuation between them dropped. */
const wordsOf = (t: string) =>
  normalizeUnit(t)
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .split(' ')
    .filter(Boolean);

/** The root texts of a trace, searchable by phrase. */
export class EvidenceIndex {
  private readonly ids: string[] = [];
  private readonly texts: string[] = [];
  private readonly postings = new Map<string, number[]>();

  /** `skip`: variables that are no evidence (written by an op, or a prompt asked a question). */
  constructor(doc: TraceDocument, skip: (id: string) => boolean, text: (id: string) => string) {
    for (const v of doc.data.nodes) {
      const id = v.full_node_id;
      if (!id || v.class_name === 'COMMENT' || skip(id)) continue;
      const words = wordsOf(text(id));
      if (!words.length) continue;
      const k = this.ids.length;
      this.ids.push(id);
      this.texts.push(` ${words.join(' ')} `);
      for (const w of new Set(words)) {
        const list = this.postings.get(w);
        if (list) list.push(k);
        else this.postings.set(w, [k]);
      }
    }
  }

  /** The earliest text holding the phrase as whole words, or null. */
  find(phrase: string): string | null {
    const words = wordsOf(phrase);
    if (!words.length) return null;
    let rarest: number[] | undefined;
    for (const w of words) {
      const list = this.postings.get(w);
      if (!list) return null;
      if (!rarest || list.length < rarest.length) rarest = list;
    }
    const needle = ` ${words.join(' ')} `;
    for (const k of rarest ?? []) if (this.texts[k].includes(needle)) return this.ids[k];
    return null;
  }
}
