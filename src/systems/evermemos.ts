/**
 * EverMemOS, minimal: per-message boundary detection (forced at a new session, 50 messages
 * or 8,192 tokens) cuts the conversation into MemCells; each gets an episode and atomic
 * facts; the index is BM25 plus one vector per fact (a cell scores the max over its facts).
 * Retrieval: BM25 top-50 + vector top-50 fused by RRF (k = 40) → top-10 → sufficiency
 * check; if insufficient, extra queries are retrieved and fused with round one → top-10.
 * Recorded mode: a MemCell's facts are the data set's LLM-written memories of its messages.
 * Offline mode: lexical boundaries, an extractive episode ("speaker said …" lines) and
 * extractive facts, hashed bag-of-words vectors, a lexical sufficiency check, rule-based
 * query rewrites; the rerank step keeps the fused order.
 */
import type { TracedVar } from '../sdk/tracer.ts';
import { type ContextItem, Provenance, type RunEnv } from './env.ts';
import { LexicalIndex, rrf, type Scored, VectorIndex } from './lexical.ts';
import { parseJsonReply } from './llm.ts';
import { extractFacts, lexicalBoundary, lexicallySufficient, rewriteQueries } from './offline.ts';
import { fillPrompt } from './prompts.ts';
import { memoriesOf } from './recorded.ts';
import { MemorySystem, type Retrieved } from './system.ts';
import type { ConversationSession, Question, Turn } from './types.ts';

interface Fact {
  text: string;
  turn: string | null;
}

interface Cell {
  id: string;
  date: string;
  episode: string;
  facts: Fact[];
  turns: string[];
  /** The MemCell variable: {'episode': …, 'facts': […]}. */
  variable: TracedVar;
}

/** One question's retrieval: what its ops share. */
interface Lookup {
  env: RunEnv;
  q: Question;
  queryVar: TracedVar;
  /** Is this the question a fault or an ideal step targets? */
  target: boolean;
  /** The question's evidence the store carries. */
  inStore: string[];
}

/** What round two builds on: round one's ranking and variable, the sufficiency verdict, the extra queries. */
interface RoundTwoInput {
  round1: Scored<string>[];
  round1Var: TracedVar;
  checkVar: TracedVar;
  queries: string[];
}

interface Pending {
  turn: Turn;
  date: string;
}

export class EverMemOS extends MemorySystem {
  readonly name = 'evermemos' as const;
  private segment: Pending[] = [];
  private segmentVar: TracedVar | null = null;
  private segmentSession = 0;
  private readonly cells = new Map<string, Cell>();
  private indexVar: TracedVar | null = null;
  private readonly bm25 = new LexicalIndex<string>();
  private readonly vectors = new VectorIndex<string>();
  private readonly prov = new Provenance();
  private nextCell = 1;
  private nextBoundary = 1;

  carriedTurns(): Set<string> {
    return this.prov.carriedTurns();
  }

  async ingestSession(env: RunEnv, session: ConversationSession): Promise<void> {
    const t = env.t;
    this.segmentVar ??= t.variable([], {
      name: 'memcell-buffer',
      category: 'buffer',
      comment: 'Messages of the open MemCell.',
    });
    for (const turn of session.turns) {
      const msg = env.message(turn, session);
      const boundary = await this.detectBoundary(env, turn, session, msg);
      if (boundary) await this.closeCell(env);
      this.segment.push({ turn, date: session.dateTime });
      this.segmentSession = session.index;
      this.segmentVar = t.mutate(
        this.segmentVar,
        this.segment.map((p) => `${p.turn.speaker}: ${p.turn.text}`),
        {
          name: 'memcell-buffer.append',
          category: 'update',
          comment: 'Append the message to the open MemCell.',
          inputs: [msg],
        },
      );
    }
  }

  override async beforeQuestions(env: RunEnv): Promise<void> {
    if (this.segment.length) await this.closeCell(env);
  }

  private async detectBoundary(
    env: RunEnv,
    turn: Turn,
    session: ConversationSession,
    msg: TracedVar,
  ): Promise<boolean> {
    if (this.segment.length === 0) return false;
    let boundary: boolean;
    let reason: string;
    if (this.segmentSession !== session.index) {
      boundary = true;
      reason = 'new session (time gap)';
    } else if (env.offline) {
      boundary = lexicalBoundary(
        this.segment.map((p) => p.turn),
        turn,
      );
      reason = 'lexical';
    } else {
      const forced =
        lexicalBoundary(
          this.segment.map((p) => p.turn),
          turn,
        ) && this.segment.length >= 50;
      if (forced) {
        boundary = true;
        reason = 'forced limit';
      } else {
        const reply = await env.complete(
          'You segment conversations.',
          fillPrompt(env.prompts['boundary-detection-prompt'], {
            segment: this.segment.map((p) => `${p.turn.speaker}: ${p.turn.text}`).join('\n'),
            message: `${turn.speaker}: ${turn.text}`,
          }),
          true,
        );
        boundary = (parseJsonReply(reply) as { boundary?: unknown } | undefined)?.boundary === true;
        reason = 'llm';
      }
    }
    env.t.op(
      'boundary-detection',
      {
        category: 'llm_call',
        comment: 'Does the open MemCell end before this message?',
        metadata: { llm_model: env.modelName, rule: reason },
      },
      (op) => {
        op.input(msg);
        if (this.segmentVar) op.input(this.segmentVar);
        op.input(env.prompt('boundary-detection-prompt'));
        op.output({ boundary }, { name: `boundary-${this.nextBoundary++}`, category: 'boundary_decision' });
      },
    );
    return boundary;
  }

  /** `memcell-construction` (extraction): segment → episode + atomic facts; `memcell-index` (update). */
  private async closeCell(env: RunEnv) {
    const t = env.t;
    const all = this.segment;
    const date = all[0]?.date ?? '';
    const inject = env.injecting('extraction') && all.some((p) => env.isEvidence(p.turn.id));
    const kept = inject && !env.ideal() ? all.filter((p) => !env.isEvidence(p.turn.id)) : all;
    let episode: string;
    let facts: Fact[];
    if (env.replay) {
      // The data set's LLM-written memories of the cell's messages: its facts and, joined, its episode.
      facts = kept.flatMap((p) => memoriesOf(env, p.turn).map((m) => ({ text: m.text, turn: p.turn.id })));
      episode = `On ${date}: ${facts.map((f) => f.text).join(' ')}`;
    } else if (env.offline || inject) {
      episode = `On ${date}: ${kept.map((p) => `${p.turn.speaker} said "${p.turn.text}"`).join(' ')}`;
      facts = kept.flatMap((p) => extractFacts(p.turn).map((text) => ({ text, turn: p.turn.id })));
    } else {
      const reply = await env.complete(
        'You write episodic memories.',
        fillPrompt(env.prompts['episode-generation-prompt'], {
          date,
          segment: kept.map((p) => `${p.turn.speaker}: ${p.turn.text}`).join('\n'),
        }),
        true,
      );
      const parsed = parseJsonReply(reply) as { episode?: unknown; facts?: unknown } | undefined;
      episode = typeof parsed?.episode === 'string' ? parsed.episode : kept.map((p) => p.turn.text).join(' ');
      facts = Array.isArray(parsed?.facts)
        ? parsed.facts.filter((f): f is string => typeof f === 'string').map((text) => ({ text, turn: null }))
        : [];
    }
    const id = `memcell-${this.nextCell++}`;
    const variable = t.op(
      'memcell-construction',
      {
        category: 'extraction',
        comment: 'Write the MemCell episode and its atomic facts.',
        metadata: { llm_model: env.modelName, memcell_id: id },
      },
      (op) => {
        if (this.segmentVar) op.input(this.segmentVar);
        op.input(env.prompt('episode-generation-prompt'));
        const v = op.output(
          { episode, facts: facts.map((f) => f.text) },
          { name: id, category: 'memcell', comment: 'A MemCell: its episode and atomic facts.' },
        );
        if (inject) env.faultOpId = op.opId;
        env.log({
          opId: op.opId,
          kind: 'extraction',
          turns: all.map((p) => p.turn.id),
          carried: kept.map((p) => p.turn.id),
        });
        return v;
      },
    );
    const cell: Cell = { id, date, episode, facts, turns: kept.map((p) => p.turn.id), variable };
    this.cells.set(id, cell);
    this.indexCell(cell);
    this.indexVar ??= t.variable([], {
      name: 'memcell-index',
      category: 'memory_store',
      comment: 'Ids of the indexed MemCells.',
    });
    this.indexVar = t.mutate(this.indexVar, [...this.cells.keys()], {
      name: 'memcell-index',
      category: 'update',
      comment: `Index ${id} (BM25 over facts + one vector per fact).`,
      inputs: [variable],
    });
    this.segment = [];
    if (this.segmentVar)
      this.segmentVar = t.mutate(this.segmentVar, [], {
        name: 'memcell-buffer.clear',
        category: 'update',
        comment: 'Start a new MemCell.',
      });
  }

  private docs(cell: Cell): string[] {
    // The episode is indexed like a fact too, so a cell without facts stays findable.
    return [cell.episode, ...cell.facts.map((f) => f.text)];
  }

  private indexCell(cell: Cell) {
    this.unindexCell(cell.id);
    this.docs(cell).forEach((d, k) => {
      this.bm25.set(`${cell.id}#${k}`, d);
      this.vectors.set(`${cell.id}#${k}`, d);
    });
    this.docCounts.set(cell.id, this.docs(cell).length);
    this.prov.set(cell.id, cell.turns);
  }
  private readonly docCounts = new Map<string, number>();

  private unindexCell(id: string) {
    const n = this.docCounts.get(id) ?? 0;
    for (let k = 0; k < n; k++) {
      this.bm25.remove(`${id}#${k}`);
      this.vectors.remove(`${id}#${k}`);
    }
    this.docCounts.delete(id);
  }

  injectStoreFault(env: RunEnv, kind: 'update' | 'deletion'): void {
    const t = env.t;
    const ids = env.faultUnits(this.prov.unitsCarrying(env.evidence));
    if (ids.length === 0) return;
    for (const id of ids) {
      const cell = this.cells.get(id)!;
      let lost: string[];
      if (kind === 'update') {
        const keep = cell.turns.filter((x) => !env.isEvidence(x));
        const turns = keep.map((x) => env.turn(x)).filter((x): x is Turn => x !== undefined);
        cell.episode = `On ${cell.date}: ${turns.map((x) => `${x.speaker} said "${x.text}"`).join(' ')}`;
        cell.facts = cell.facts.filter((f) => f.turn === null || !env.isEvidence(f.turn));
        cell.variable = t.mutate(
          cell.variable,
          { episode: cell.episode, facts: cell.facts.map((f) => f.text) },
          {
            name: 'memcell-update',
            category: 'update',
            comment: `Rewrite ${id}.`,
            metadata: { memcell_id: id },
          },
        );
        const opId = t.lastOpId ?? '';
        cell.turns = keep;
        this.indexCell(cell);
        lost = [];
        for (const e of env.evidence) if (!this.prov.carried(e)) lost.push(e);
        // The earliest faulty op is decisive (every later op ideal keeps the other cells).
        env.faultOpId ??= opId;
        env.log({ opId, kind, lost });
      } else {
        this.cells.delete(id);
        this.unindexCell(id);
        lost = this.prov.remove(id);
        if (this.indexVar)
          this.indexVar = t.mutate(this.indexVar, [...this.cells.keys()], {
            name: 'memcell-delete',
            category: 'deletion',
            comment: `Delete ${id}.`,
          });
        const opId = t.lastOpId ?? '';
        if (lost.some((x) => env.isEvidence(x))) env.faultOpId ??= opId;
        env.log({ opId, kind, lost });
      }
    }
  }

  /** Cells ranked by BM25 top-50 and vector top-50 over their docs (max per cell), fused by RRF (k = 40). */
  private hybrid(query: string): Scored<string>[] {
    const perCell = (hits: Scored<string>[]) => {
      const seen = new Set<string>();
      const out: Scored<string>[] = [];
      for (const h of hits) {
        const cell = h.key.slice(0, h.key.lastIndexOf('#'));
        if (seen.has(cell)) continue;
        seen.add(cell);
        out.push({ key: cell, score: h.score });
      }
      return out;
    };
    return rrf([perCell(this.bm25.search(query, 50)), perCell(this.vectors.search(query, 50))], 40);
  }

  private readCell(op: { input(v: unknown): unknown }, id: string) {
    const c = this.cells.get(id);
    if (!c) return;
    op.input(c.variable);
  }

  private items(ids: string[]): ContextItem[] {
    return ids.map((id) => {
      const c = this.cells.get(id)!;
      return { text: `${c.date}: ${c.episode}`, sources: c.turns };
    });
  }

  async retrieve(env: RunEnv, q: Question, queryVar: TracedVar): Promise<Retrieved> {
    const target = env.isTarget(q.id);
    const round1 = this.hybrid(q.question).slice(0, 10);
    const r: Lookup = { env, q, queryVar, target, inStore: q.evidence.filter((e) => this.prov.carried(e)) };
    const round1Ids = round1.map((h) => h.key);
    const sufficient = await this.isSufficient(
      env,
      q,
      this.items(round1Ids).map((i) => i.text),
    );
    const queries = sufficient ? [] : await this.extraQueries(env, q);
    const first = this.roundOne(r, round1Ids, sufficient);
    const checkVar = env.t.op(
      'sufficiency-check',
      {
        category: 'llm_call',
        comment: 'Are the round-one memories enough to answer?',
        metadata: { llm_model: env.modelName },
      },
      (op) => {
        op.input(queryVar);
        op.input(first.variable);
        op.input(env.prompt('sufficiency-check-prompt'));
        return op.output({ sufficient }, { category: 'sufficiency' });
      },
    );
    if (sufficient) return { items: first.items, variable: first.variable };
    return this.roundTwo(r, { round1, round1Var: first.variable, checkVar, queries });
  }

  /** Are the round-one memories enough to answer (the lexical check offline, else the model)? */
  private async isSufficient(env: RunEnv, q: Question, texts: string[]): Promise<boolean> {
    if (env.offline) return lexicallySufficient(q.question, texts);
    const reply = await env.complete(
      'You check retrieved memories.',
      fillPrompt(env.prompts['sufficiency-check-prompt'], {
        question: q.question,
        memories: texts.join('\n'),
      }),
      true,
    );
    return (parseJsonReply(reply) as { sufficient?: unknown } | undefined)?.sufficient === true;
  }

  /** Up to three extra queries (rule-based offline, else the model's). */
  private async extraQueries(env: RunEnv, q: Question): Promise<string[]> {
    if (env.offline) return rewriteQueries(q.question);
    const reply = await env.complete(
      'You write search queries.',
      fillPrompt(env.prompts['query-rewrite-prompt'], { question: q.question }),
      true,
    );
    const parsed = parseJsonReply(reply) as { queries?: unknown } | undefined;
    return Array.isArray(parsed?.queries)
      ? parsed.queries.filter((x): x is string => typeof x === 'string').slice(0, 3)
      : [];
  }

  /** The cells a retrieval returns in the end: a retrieval fault drops the evidence's, the ideal one adds them. */
  private finalCells(r: Lookup, ids: string[]): string[] {
    const { env, q, target } = r;
    let out = ids;
    if (env.injecting('retrieval') && target)
      out = out.filter((id) => !this.cells.get(id)!.turns.some((x) => env.isEvidence(x)));
    if (target && env.ideal(q.id, 'retrieval'))
      for (const id of this.prov.unitsCarrying(env.evidence)) if (!out.includes(id)) out.push(id);
    return out;
  }

  /** The retrieval that answers: it may carry the fault and is logged with the evidence it brought. */
  private finalRetrieval(r: Lookup, opId: string, items: ContextItem[]) {
    const { env, q } = r;
    if (env.injecting('retrieval') && r.target) env.faultOpId = opId;
    env.log({
      opId,
      kind: 'retrieval',
      questionId: q.id,
      inStore: r.inStore,
      inContext: q.evidence.filter((e) => items.some((i) => i.sources.includes(e))),
    });
  }

  /** Round one's op; when it suffices it is the final retrieval. */
  private roundOne(r: Lookup, round1Ids: string[], sufficient: boolean) {
    return r.env.t.op(
      'hybrid-retrieval',
      {
        category: 'retrieval',
        comment: 'BM25 top-50 + vector top-50, RRF (k=40), top-10.',
        metadata: { round: 1, top_k: 10 },
      },
      (op) => {
        op.input(r.queryVar);
        const ids = sufficient ? this.finalCells(r, round1Ids) : round1Ids;
        // The store read: the MemCells returned (as RAG and Mem0 read their chunks and units).
        for (const id of ids) this.readCell(op, id);
        const items = this.items(ids);
        const variable = op.output(
          items.map((i) => i.text),
          { category: 'retrieved_memories', comment: 'MemCells retrieved in round one.' },
        );
        if (sufficient) this.finalRetrieval(r, op.opId, items);
        return { ids, items, variable };
      },
    );
  }

  /** Round two: the extra queries' op, then their retrieval fused with round one. */
  private roundTwo(r: Lookup, one: RoundTwoInput): Retrieved {
    const { env, queryVar } = r;
    const queriesVar = env.t.op(
      'query-rewrite',
      {
        category: 'llm_call',
        comment: 'Write extra queries (rephrased, hypothetical answer, temporal).',
        metadata: { llm_model: env.modelName },
      },
      (op) => {
        op.input(queryVar);
        op.input(one.checkVar);
        op.input(env.prompt('query-rewrite-prompt'));
        return op.output(one.queries, { category: 'queries' });
      },
    );
    const lists = [one.round1, ...one.queries.map((x) => this.hybrid(x).slice(0, 10))];
    const fusedIds = rrf(lists, 40)
      .slice(0, 20)
      .map((h) => h.key)
      .slice(0, 10);
    return env.t.op(
      'multi-query-retrieval',
      {
        category: 'retrieval',
        comment: 'Retrieve each extra query, fuse with round one (RRF), top-10.',
        metadata: { round: 2, top_k: 10 },
      },
      (op) => {
        op.input(queriesVar);
        op.input(one.round1Var);
        const ids = this.finalCells(r, fusedIds);
        for (const id of ids) this.readCell(op, id);
        const items = this.items(ids);
        const variable = op.output(
          items.map((i) => i.text),
          { category: 'retrieved_memories', comment: 'MemCells retrieved after the second round.' },
        );
        this.finalRetrieval(r, op.opId, items);
        return { items, variable };
      },
    );
  }
}
