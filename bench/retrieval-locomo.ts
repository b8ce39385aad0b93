/**
 * Evidence recall of the paper's start-point retrieval on real LoCoMo
 * (../shared/data/locomo/locomo-dev.json): per conversation, documents = its turns
 * ("Speaker: text", plus the image caption when the turn shares one); per question,
 * query = question + "\n" + golden answer; a question counts as found when ALL of its
 * gold evidence turns are in the top 8 (also reported: ANY evidence turn in the top 8).
 * Adversarial questions (category 5) have no golden answer: their query is the
 * question alone and they are reported apart. Evidence ids that name no turn are
 * dropped; a question left with none is skipped (counted).
 */
import { readFileSync } from 'node:fs';
import {
  Bm25Index,
  DenseIndex,
  type Embedder,
  type Hit,
  reciprocalRankFusion,
  startPointQuery,
} from '../src/core/retrieval/index.ts';

export const LOCOMO_FILE = '../shared/data/locomo/locomo-dev.json';
const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};
const TOP = 8;

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Qa {
  question: string;
  answer?: string | number;
  evidence?: string[];
  category: number;
}
interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Qa[];
}

interface Tally {
  questions: number;
  all: number;
  any: number;
}

type Retriever = { name: string; rank(query: string, k: number): Promise<Hit[]> };

function turnsOf(conv: Record<string, unknown>): Turn[] {
  const keys = Object.keys(conv)
    .filter((k) => /^session_\d+$/.test(k) && Array.isArray(conv[k]))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  return keys.flatMap((k) => conv[k] as Turn[]);
}

function turnText(t: Turn): string {
  return `${t.speaker}: ${t.text}${t.blip_caption ? ` [shares ${t.blip_caption}]` : ''}`;
}

/** Runs every retriever over every question; tallies by category name and retriever. */
export async function benchLocomo(
  embedders: Embedder[],
  log: (s: string) => void,
  file = LOCOMO_FILE,
): Promise<{
  tallies: Record<string, Record<string, Tally>>;
  skipped: number;
  conversations: number;
  turns: number;
}> {
  const samples = JSON.parse(readFileSync(file, 'utf8')) as Sample[];
  const tallies: Record<string, Record<string, Tally>> = {};
  let skipped = 0;
  let turnsTotal = 0;
  for (const s of samples) {
    const turns = turnsOf(s.conversation);
    turnsTotal += turns.length;
    const docIndex = new Map(turns.map((t, i) => [t.dia_id, i]));
    const texts = turns.map(turnText);
    const bm25 = await Bm25Index.build(texts);
    const retrievers: Retriever[] = [{ name: 'BM25', rank: async (q, k) => bm25.search(q, k) }];
    for (const e of embedders) {
      const dense = await DenseIndex.build(e, texts);
      const denseRank = async (q: string, k: number) => dense.search(await e.embed([q]), k);
      const tag = e.kind === 'fallback' ? 'fallback' : e.label.split(' ')[0];
      retrievers.push({ name: `dense: ${tag}`, rank: denseRank });
      retrievers.push({
        name: `hybrid: BM25 + ${tag}`,
        rank: async (q, k) => reciprocalRankFusion([bm25.search(q, 2 * k), await denseRank(q, 2 * k)], k),
      });
    }
    for (const qa of s.qa) {
      const evidence = (qa.evidence ?? [])
        .flatMap((e) => e.split(/[;,\s]+/))
        .map((e) => e.trim())
        .filter((e) => docIndex.has(e))
        .map((e) => docIndex.get(e)!);
      if (evidence.length === 0) {
        skipped++;
        continue;
      }
      const gold = qa.category === 5 || qa.answer === undefined ? [] : [String(qa.answer)];
      const query = startPointQuery(qa.question, gold);
      const cat = CATEGORY_NAMES[qa.category] ?? `category ${qa.category}`;
      for (const r of retrievers) {
        const top = new Set((await r.rank(query, TOP)).map((h) => h.doc));
        tallies[r.name] ??= {};
        tallies[r.name][cat] ??= { questions: 0, all: 0, any: 0 };
        const t = tallies[r.name][cat];
        t.questions++;
        if (evidence.every((d) => top.has(d))) t.all++;
        if (evidence.some((d) => top.has(d))) t.any++;
      }
    }
    log(`${s.sample_id}: ${turns.length} turns, ${s.qa.length} questions`);
  }
  return { tallies, skipped, conversations: samples.length, turns: turnsTotal };
}

export function locomoTable(r: Awaited<ReturnType<typeof benchLocomo>>): string {
  const cats = ['single-hop', 'multi-hop', 'temporal', 'open-domain'];
  const pct = (t: Tally | undefined, k: 'all' | 'any') =>
    t?.questions ? `${((100 * t[k]) / t.questions).toFixed(1)} %` : '—';
  const sum = (ts: Record<string, Tally>, names: string[]) =>
    names.reduce(
      (a, n) => {
        const t = ts[n];
        if (t) {
          a.questions += t.questions;
          a.all += t.all;
          a.any += t.any;
        }
        return a;
      },
      { questions: 0, all: 0, any: 0 },
    );
  const first = Object.values(r.tallies)[0] ?? {};
  const header = `| retriever | ${cats.map((c) => `${c} (n=${first[c]?.questions ?? 0})`).join(' | ')} | categories 1–4 (n=${sum(first, cats).questions}) | adversarial (n=${first.adversarial?.questions ?? 0}) |`;
  const lines = [header, `| --- |${' ---: |'.repeat(cats.length + 2)}`];
  for (const [name, ts] of Object.entries(r.tallies)) {
    const cell = (t: Tally | undefined) => `${pct(t, 'all')} (any ${pct(t, 'any')})`;
    lines.push(
      `| ${name} | ${cats.map((c) => cell(ts[c])).join(' | ')} | **${cell(sum(ts, cats))}** | ${cell(ts.adversarial)} |`,
    );
  }
  return lines.join('\n');
}
