/**
 * What a reference system runs in: the tracer, the conversation, the model (or the
 * offline mode), the prompt registry, and the evidence log that fault injection and
 * counterfactual labelling read. Systems report every op that can gain, lose, pick or
 * use a conversation turn's information as an `EvidenceEvent`, in execution order.
 */

import { pyJsonDumps } from '../sdk/encode.ts';
import type { TracedVar, Tracer } from '../sdk/tracer.ts';
import { CarryRule, type MemoryPart } from './carrying.ts';
import type { JudgeRule } from './judge-rules.ts';
import type { SystemLLM } from './llm.ts';
import { DEFAULT_PROMPTS, type PromptRegistry } from './prompts.ts';
import type { Conversation, ConversationSession, Turn } from './types.ts';

export type FaultKind = 'extraction' | 'update' | 'deletion' | 'retrieval' | 'response';
export const FAULT_KINDS: readonly FaultKind[] = [
  'extraction',
  'update',
  'deletion',
  'retrieval',
  'response',
];
export const ERROR_TYPE_OF: Record<FaultKind, string> = {
  extraction: 'ExtractionError',
  update: 'UpdateError',
  deletion: 'DeletionError',
  retrieval: 'RetrievalError',
  response: 'ResponseError',
};

/** A change to one run: inject one fault, or make ops from `repairFrom` on ideal for this question's evidence. */
export interface Intervention {
  questionId: string;
  evidence: string[];
  fault?: FaultKind;
  /**
   * Key of the evidence event from which ops behave ideally (`c<n>`: the n-th construction
   * event; `q:<question id>:retrieval|response`: that question's retrieval or answer;
   * `q:<question id>:retrieval:<stage>`: a later stage of a retrieval in several steps).
   */
  repairFrom?: string;
  /** Golden answers (the ideal answer op answers with them when its context holds the evidence). */
  answers?: string[];
  /**
   * update / deletion faults: corrupt only the n-th memory unit carrying the evidence, so the
   * injected fault is one op (the paper's single decisive op); all of them when unset.
   */
  faultUnit?: number;
  /**
   * What "a memory unit carries an evidence turn" means in the evidence log and for the ideal
   * ops: `provenance` (default) — the unit was made from the turn; `judge` — it was made from
   * the turn and the judge accepts its text as the answer (`CarryRule`; for LLM-written memories).
   */
  carrying?: 'provenance' | 'judge';
}

/** Where extraction and summarisation ops get their texts: the offline components, or the data set's recorded LLM output. */
export type MemoriesMode = 'offline' | 'recorded';

export interface EvidenceEvent {
  seq: number;
  /** Stable across reruns that answer fewer questions: `c<n>` for construction, `q:<id>:<kind>` for questions. */
  key: string;
  opId: string;
  kind: FaultKind;
  /** extraction: turns the op processed, and those its output carries. */
  turns?: string[];
  carried?: string[];
  /** update / deletion: turns no memory unit carries any more after this op. */
  lost?: string[];
  /** retrieval / response: the question, the evidence-bearing turns in the store and in the context. */
  questionId?: string;
  /**
   * retrieval in several steps (a search, then a reranker): the later step's name; its key is
   * `q:<id>:retrieval:<stage>`, its `inStore` what the step was given.
   */
  stage?: string;
  inStore?: string[];
  inContext?: string[];
}

/** Which memory units carry which turns' information (units are added, rewritten, removed). */
export class Provenance {
  private readonly units = new Map<string, Set<string>>();
  private readonly count = new Map<string, number>();

  sources(unit: string): Set<string> {
    return this.units.get(unit) ?? new Set();
  }
  has(unit: string): boolean {
    return this.units.has(unit);
  }
  carried(turn: string): boolean {
    return (this.count.get(turn) ?? 0) > 0;
  }
  /** Sets a unit's sources; returns the turns no unit carries any more. */
  set(unit: string, sources: Iterable<string>): string[] {
    const before = this.units.get(unit) ?? new Set<string>();
    const after = new Set(sources);
    const lost: string[] = [];
    for (const t of after) if (!before.has(t)) this.count.set(t, (this.count.get(t) ?? 0) + 1);
    for (const t of before)
      if (!after.has(t)) {
        const n = (this.count.get(t) ?? 1) - 1;
        this.count.set(t, n);
        if (n === 0) lost.push(t);
      }
    this.units.set(unit, after);
    return lost;
  }
  remove(unit: string): string[] {
    const lost = this.set(unit, []);
    this.units.delete(unit);
    return lost;
  }
  unitsCarrying(turns: Iterable<string>): string[] {
    const want = new Set(turns);
    const out: string[] = [];
    for (const [u, s] of this.units) if ([...s].some((t) => want.has(t))) out.push(u);
    return out;
  }
  carriedTurns(): Set<string> {
    const out = new Set<string>();
    for (const [t, n] of this.count) if (n > 0) out.add(t);
    return out;
  }
}

/** A retrieved context item and the turns whose information it carries. */
export interface ContextItem {
  text: string;
  sources: string[];
}

export interface RunEnvOptions {
  tracer: Tracer;
  conversation: Conversation;
  llm?: SystemLLM;
  /** The judge's model when it differs from `llm`. */
  judgeLlm?: SystemLLM;
  prompts?: PromptRegistry;
  intervention?: Intervention;
  memories?: MemoriesMode;
  /** The offline judge's rule; also the carrying rule of judged carrying (default `offline`). */
  judgeRule?: JudgeRule;
}

/** The key of a question's retrieval or answer event (`q:<id>:<kind>[:<stage>]`). */
const questionKey = (questionId: string, kind: FaultKind, stage?: string) =>
  `q:${questionId}:${kind}${stage ? `:${stage}` : ''}`;

export class RunEnv {
  readonly t: Tracer;
  readonly conv: Conversation;
  readonly llm: SystemLLM | undefined;
  /** The LLM judge's model (`judgeLlm`, else `llm`). */
  readonly judgeLlm: SystemLLM | undefined;
  readonly prompts: PromptRegistry;
  readonly intervention: Intervention | undefined;
  /** Extraction / summarisation ops replay the data set's recorded LLM texts. */
  readonly replay: boolean;
  /** The offline judge's rule (the judge op's and, with judged carrying, the carrying rule's). */
  readonly judgeRule: JudgeRule;
  private readonly rule: CarryRule | null;
  readonly events: EvidenceEvent[] = [];
  readonly turnVars = new Map<string, TracedVar>();
  readonly turnSession = new Map<string, ConversationSession>();
  readonly evidence: Set<string>;
  /** The op a fault was injected into (set once). */
  faultOpId: string | null = null;
  private readonly promptVars = new Map<string, TracedVar>();
  private readonly turnsById = new Map<string, Turn>();
  /** Requests that reached the model's endpoint (retries, failed calls and judge calls included). */
  llmCalls = 0;
  inputTokens = 0;
  outputTokens = 0;

  constructor(o: RunEnvOptions) {
    this.t = o.tracer;
    this.conv = o.conversation;
    this.llm = o.llm && this.counting(o.llm);
    // The judge's calls are counted like the system's (one meter per run).
    this.judgeLlm = o.judgeLlm ? this.counting(o.judgeLlm) : this.llm;
    this.prompts = { ...DEFAULT_PROMPTS, ...(o.prompts ?? {}) };
    this.intervention = o.intervention;
    this.evidence = new Set(o.intervention?.evidence ?? []);
    this.replay = o.memories === 'recorded';
    this.judgeRule = o.judgeRule ?? 'offline';
    const i = o.intervention;
    this.rule =
      i?.carrying === 'judge'
        ? new CarryRule(o.conversation, { answers: i.answers ?? [], evidence: i.evidence }, this.judgeRule)
        : null;
    for (const s of this.conv.sessions)
      for (const t of s.turns) {
        this.turnsById.set(t.id, t);
        this.turnSession.set(t.id, s);
      }
  }

  get offline(): boolean {
    return this.llm === undefined;
  }

  /** `llm_model` metadata of model-backed ops. */
  get modelName(): string {
    return this.llm ? this.llm.model : 'offline-deterministic';
  }

  turn(id: string): Turn | undefined {
    return this.turnsById.get(id);
  }

  messageName(turnId: string): string {
    return `${this.conv.id}:${turnId}`;
  }

  /** The raw message variable of a turn (category `message`), made on first use. */
  message(turn: Turn, session: ConversationSession): TracedVar {
    let v = this.turnVars.get(turn.id);
    if (!v) {
      v = this.t.variable(
        pyJsonDumps({ content: turn.text, name: turn.speaker, role: turn.role, timestamp: session.dateTime }),
        {
          name: this.messageName(turn.id),
          category: 'message',
          comment: 'A raw conversation message.',
          metadata: { timestamp: session.dateTime, dia_id: turn.id },
        },
      );
      this.turnVars.set(turn.id, v);
    }
    return v;
  }

  /** A prompt variable by registry name (category `prompt`). */
  prompt(name: string): TracedVar {
    const text = this.prompts[name];
    if (text === undefined) throw new Error(`unknown prompt "${name}"`);
    const known = this.promptVars.get(name);
    if (known && known.value === this.t.latest(name)?.value) return known;
    const v = this.t.variable(text, { name, category: 'prompt' });
    this.promptVars.set(name, v);
    return v;
  }

  /** The model as the run uses it: every call — a system's or the judge's — is counted here. */
  private counting(llm: SystemLLM): SystemLLM {
    return {
      model: llm.model,
      complete: async (request) => {
        try {
          const r = await llm.complete(request);
          this.llmCalls += r.calls ?? 1;
          if (!r.cached) {
            this.inputTokens += r.usage?.inputTokens ?? 0;
            this.outputTokens += r.usage?.outputTokens ?? 0;
          }
          return r;
        } catch (e) {
          // A failed call notes the requests it made (src/core/llm `LlmError.spent`); else one.
          this.llmCalls += (e as { spent?: { calls?: number } } | null)?.spent?.calls ?? 1;
          throw e;
        }
      },
    };
  }

  /** Calls the model with a system and a user message. */
  async complete(system: string, user: string, json = false): Promise<string> {
    if (!this.llm) throw new Error('offline mode has no model');
    const r = await this.llm.complete({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      temperature: 0,
      ...(json ? { responseFormat: { type: 'json' as const } } : {}),
    });
    return r.text;
  }

  // ---- evidence log and interventions -----------------------------------------------

  /** The sequence number the next event will get. */
  get nextSeq(): number {
    return this.events.length;
  }

  private constructionEvents = 0;
  private repairing = false;

  /**
   * Whether the op about to be logged must behave ideally: a construction op (no
   * arguments) or the retrieval/answer of `questionId`. Ideal from the repair point on.
   */
  ideal(questionId?: string, kind?: 'retrieval' | 'response', stage?: string): boolean {
    const from = this.intervention?.repairFrom;
    if (from === undefined) return false;
    if (this.repairing) return true;
    if (questionId && kind) {
      if (from === questionKey(questionId, kind, stage)) this.repairing = true;
    } else if (/^c\d+$/.test(from) && this.constructionEvents >= Number(from.slice(1))) this.repairing = true;
    return this.repairing;
  }

  log(event: Omit<EvidenceEvent, 'seq' | 'key'>): EvidenceEvent {
    const question =
      event.questionId !== undefined && (event.kind === 'retrieval' || event.kind === 'response');
    const key = question
      ? questionKey(event.questionId ?? '', event.kind, event.stage)
      : `c${this.constructionEvents++}`;
    const e = { seq: this.events.length, key, ...event };
    this.events.push(e);
    return e;
  }

  /** True when a fault of this kind must be injected now (once per run). */
  injecting(kind: FaultKind): boolean {
    return this.intervention?.fault === kind && this.faultOpId === null;
  }

  /** The units a store fault corrupts: the one `faultUnit` names, else all of them. */
  faultUnits<T>(units: T[]): T[] {
    const n = this.intervention?.faultUnit;
    return n === undefined ? units : units.slice(n, n + 1);
  }

  /**
   * The turns a memory unit made of `parts` from `sources` carries: its sources, less (when
   * carrying is judged) the evidence turns whose information its text does not keep.
   */
  kept(parts: readonly MemoryPart[], sources: Iterable<string>): string[] {
    const all = [...new Set(sources)];
    const rule = this.rule;
    if (!rule) return all;
    return all.filter((s) => !this.evidence.has(s) || rule.keeps(parts, s));
  }

  /** Is `turnId` evidence of the intervention's question? */
  isEvidence(turnId: string): boolean {
    return this.evidence.has(turnId);
  }

  isTarget(questionId: string): boolean {
    return this.intervention?.questionId === questionId;
  }
}
