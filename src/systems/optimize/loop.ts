/**
 * The closed loop, with an acceptance test the paper does not have. Per round: run the
 * target on a training conversation → judge → attribute every failure → group the
 * failures by the prompt behind the faulty op (core/report `promptBehind`; failures with
 * none are "not optimisable") → feedback per failure → aggregated → rewrite. The rewrites
 * are kept only if, rerun with them, the held-out score does not drop and the training
 * score rises; the paired per-question outcomes and the reason are recorded either way.
 * Every round is saved through the store before the next starts, so a run resumes
 * after an interruption; token budgets stop it before the call that would exceed them.
 */

import { type Attribution, engineFor, isAgentStopped } from '../../core/attribution/index.ts';
import { listCases, type TraceCase } from '../../core/cases/index.ts';
import { buildGraph, renderOpHeader, renderOpSubgraph, type TraceGraph } from '../../core/graph/index.ts';
import { type ChatModel, LlmError, metered, UsageMeter, type UsageTotals } from '../../core/llm/index.ts';
import { seededRandom, shuffledWith } from '../../core/random.ts';
import { type ReportCase, reportCase } from '../../core/report/index.ts';
import { corpusFromGraph, RetrievalIndex } from '../../core/retrieval/index.ts';
import { diffLines } from '../../core/text/index.ts';
import type { PromptRegistry } from '../prompts.ts';
import type { Conversation, Question } from '../types.ts';
import {
  aggregateFeedback,
  type FailureView,
  feedbackFor,
  rewriteProblem,
  rewritePrompt,
} from './rewrite.ts';
import type { OptimizeTarget } from './target.ts';
import type {
  OptimizeOptions,
  OptimizeState,
  OptimizeStore,
  PairedOutcome,
  PromptChange,
  Role,
  RoundAttribution,
  RoundRecord,
  Score,
} from './types.ts';

/** The run stopped at a token cap. */
export class BudgetExceeded extends Error {}

/** Counts tokens per run and per round; refuses a call once a cap is reached. */
class TokenBudget {
  used: number;
  roundUsed = 0;
  constructor(
    start: number,
    private readonly max?: number,
    private readonly maxRound?: number,
  ) {
    this.used = start;
  }
  check() {
    if (this.max !== undefined && this.used >= this.max)
      throw new BudgetExceeded(`token budget reached: ${this.used} of ${this.max} tokens used`);
    if (this.maxRound !== undefined && this.roundUsed >= this.maxRound)
      throw new BudgetExceeded(
        `round token budget reached: ${this.roundUsed} of ${this.maxRound} tokens used this round`,
      );
  }
  gate(model: ChatModel): ChatModel {
    return {
      provider: model.provider,
      model: model.model,
      capabilities: model.capabilities,
      complete: async (req) => {
        this.check();
        const res = await model.complete(req);
        if (!res.cached) {
          const t = res.usage.inputTokens + res.usage.outputTokens;
          this.used += t;
          this.roundUsed += t;
        }
        return res;
      },
    };
  }
}

/** Models per role, metered into this round's meters and gated by the budget. */
function roleModels(o: OptimizeOptions, budget: TokenBudget, meters: Map<Role, UsageMeter>) {
  const wrap = (role: Role, m: ChatModel | undefined) => {
    if (!m) return undefined;
    const meter = new UsageMeter();
    meters.set(role, meter);
    return budget.gate(metered(m, meter, { label: role }));
  };
  return {
    qa: wrap('qa', o.models.qa)!,
    judge: wrap('judge', o.models.judge)!,
    optimizer: wrap('optimizer', o.models.optimizer)!,
    attribution: wrap('attribution', o.models.attribution),
  };
}

function costOf(meters: Map<Role, UsageMeter>): Record<string, UsageTotals> {
  return Object.fromEntries([...meters].map(([role, m]) => [role, m.totals()]));
}

/** Deterministic shuffle (mulberry32). */
function shuffled<T>(xs: T[], seed: number): T[] {
  return shuffledWith(xs, seededRandom(seed));
}

/** Questions answerable from the sessions fed (evidence in them), sampled with the seed, in conversation order. */
export function sampleQuestions(
  conv: Conversation,
  n: number | undefined,
  maxSessions: number | undefined,
  seed: number,
): Question[] {
  const S = Math.min(conv.sessions.length, maxSessions ?? Number.POSITIVE_INFINITY);
  const sessionOf = new Map(conv.sessions.flatMap((s) => s.turns.map((t) => [t.id, s.index] as const)));
  const eligible = conv.questions.filter(
    (q) =>
      q.evidence.length > 0 && q.evidence.every((e) => (sessionOf.get(e) ?? Number.POSITIVE_INFINITY) <= S),
  );
  if (n === undefined || n >= eligible.length) return eligible;
  const keep = new Set(
    shuffled(eligible, seed)
      .slice(0, n)
      .map((q) => q.id),
  );
  return eligible.filter((q) => keep.has(q.id));
}

function score(outcomes: { correct: boolean }[]): Score {
  const correct = outcomes.filter((o) => o.correct).length;
  return { correct, total: outcomes.length, score: outcomes.length ? correct / outcomes.length : 0 };
}

interface Evaluated {
  outcomes: { conversation: string; question_id: string; question: string; correct: boolean }[];
  graphs: TraceGraph[];
}

function diffText(a: string, b: string): string[] {
  return diffLines(a, b).lines.map(
    (l) => `${l.kind === 'add' ? '+ ' : l.kind === 'del' ? '- ' : '  '}${l.text}`,
  );
}

function paired(before: Evaluated['outcomes'], after: Evaluated['outcomes']): PairedOutcome[] {
  const now = new Map(after.map((o) => [`${o.conversation}\u0000${o.question_id}`, o.correct]));
  return before.map((o) => ({
    conversation: o.conversation,
    question_id: o.question_id,
    question: o.question,
    before: o.correct,
    after: now.get(`${o.conversation}\u0000${o.question_id}`) ?? false,
  }));
}

const pct = (s: Score) => `${(100 * s.score).toFixed(1)} % (${s.correct}/${s.total})`;
const OP_GRAPH_CHARS = 200_000;
/** The record of a failure no verdict was reached on. */
const NOT_ATTRIBUTED = { error_type: null, op_id: null, op_name: null, prompt: null } as const;

export interface OptimizeHooks {
  onProgress?: (message: string) => void;
  /** After each saved round. */
  onRound?: (round: RoundRecord, state: OptimizeState) => void | Promise<void>;
}

/** Runs (or resumes from the store) the loop; returns the final state, also saved. */
export async function optimizePrompts(
  target: OptimizeTarget,
  o: OptimizeOptions,
  store: OptimizeStore,
  hooks: OptimizeHooks = {},
): Promise<OptimizeState> {
  const allowed = (o.prompts ?? Object.keys(target.prompts)).filter((p) => p in target.prompts);
  const loaded = await store.load();
  if (loaded && loaded.target !== target.name)
    throw new Error(`the saved run optimises ${loaded.target}, not ${target.name}`);
  const state = loaded ?? initialState(target, o, allowed);
  state.status = 'running';
  state.options.rounds = o.rounds;
  return new LoopRun({ target, o, store, hooks, state, allowed }).run();
}

/** The state of a run that starts now. */
function initialState(target: OptimizeTarget, o: OptimizeOptions, allowed: string[]): OptimizeState {
  return {
    version: 1,
    target: target.name,
    status: 'running',
    message: '',
    prompts: { ...target.prompts },
    allowed,
    held_out: null,
    rounds: [],
    baseline_cost: {},
    tokens_used: 0,
    options: {
      rounds: o.rounds,
      train: o.train.map((c) => c.id),
      held_out: o.heldOut.map((c) => c.id),
      train_questions: o.trainQuestions ?? null,
      held_out_questions: o.heldOutQuestions ?? null,
      max_sessions: o.maxSessions ?? null,
      method: o.method ?? 'evidence',
      seed: o.seed ?? 1,
      budget: o.budget ?? {},
    },
  };
}

type Models = ReturnType<typeof roleModels>;

/** The failures of one training run, attributed and grouped by the prompt behind the faulty op. */
interface Triage {
  failed: TraceCase[];
  attributions: RoundAttribution[];
  groups: Map<string, { id: string; failures: FailureView[] }>;
  notOptimisable: number;
  notAllowed: number;
}

/** The rewrites of one round: usable changes and the rejected ones with their reason. */
interface Rewrites {
  changes: PromptChange[];
  invalid: { prompt: string; reason: string }[];
}

/** What the acceptance test of a round compares against. */
interface Trial {
  conv: Conversation;
  train: Evaluated;
  before: PromptRegistry;
  models: Models;
}

/** One run of the loop: its options, store and state, saved after the baseline and each round. */
class LoopRun {
  private readonly target: OptimizeTarget;
  private readonly o: OptimizeOptions;
  private readonly store: OptimizeStore;
  private readonly hooks: OptimizeHooks;
  private readonly state: OptimizeState;
  private readonly allowed: string[];
  private readonly budget: TokenBudget;
  private readonly say: (message: string) => void;
  private readonly seed: number;

  constructor(c: {
    target: OptimizeTarget;
    o: OptimizeOptions;
    store: OptimizeStore;
    hooks: OptimizeHooks;
    state: OptimizeState;
    allowed: string[];
  }) {
    this.target = c.target;
    this.o = c.o;
    this.store = c.store;
    this.hooks = c.hooks;
    this.state = c.state;
    this.allowed = c.allowed;
    this.say = c.hooks.onProgress ?? (() => {});
    this.seed = c.o.seed ?? 1;
    this.budget = new TokenBudget(c.state.tokens_used, c.o.budget?.maxTokens, c.o.budget?.maxRoundTokens);
  }

  async run(): Promise<OptimizeState> {
    const { state } = this;
    try {
      if (!state.held_out) await this.heldOutBaseline();
      for (let r = state.rounds.length + 1; r <= this.o.rounds; r++) await this.round(r);
      return await this.finish(
        'done',
        `${state.rounds.length} round(s); ${state.rounds.filter((x) => x.decision === 'accepted').length} accepted`,
      );
    } catch (e) {
      if (e instanceof BudgetExceeded) return this.finish('budget', `stopped: ${e.message}`);
      if (this.o.signal?.aborted || (e instanceof LlmError && e.kind === 'aborted'))
        return this.finish('cancelled', 'cancelled; the rounds done are kept and the run can resume');
      await this.finish('failed', e instanceof Error ? e.message : String(e));
      throw e;
    }
  }

  private async finish(status: OptimizeState['status'], message: string) {
    this.state.status = status;
    this.state.message = message;
    this.state.tokens_used = this.budget.used;
    await this.store.save(this.state);
    return this.state;
  }

  /** Runs the target on conversations with the prompts; the outcomes of the sampled questions. */
  private async evaluate(
    convs: Conversation[],
    n: number | undefined,
    prompts: PromptRegistry,
    models: Models,
    salt: number,
  ): Promise<Evaluated> {
    const out: Evaluated = { outcomes: [], graphs: [] };
    for (const conv of convs) {
      const questions = sampleQuestions(conv, n, this.o.maxSessions, this.seed + salt);
      const run = await this.target.run(conv, {
        prompts,
        qa: models.qa,
        judge: models.judge,
        questionIds: questions.map((q) => q.id),
        maxSessions: this.o.maxSessions,
        signal: this.o.signal,
      });
      const byId = new Map(run.answers.map((a) => [a.questionId, a.correct]));
      for (const q of questions)
        out.outcomes.push({
          conversation: conv.id,
          question_id: q.id,
          question: q.question,
          correct: byId.get(q.id) ?? false,
        });
      out.graphs.push(buildGraph(run.doc));
    }
    return out;
  }

  /** The held-out score of the starting prompts, once. */
  private async heldOutBaseline() {
    const { state } = this;
    this.say('held-out baseline');
    const meters = new Map<Role, UsageMeter>();
    const models = roleModels(this.o, this.budget, meters);
    try {
      const h = await this.evaluate(this.o.heldOut, this.o.heldOutQuestions, state.prompts, models, 0);
      state.held_out = { score: score(h.outcomes), outcomes: paired(h.outcomes, h.outcomes) };
    } finally {
      state.baseline_cost = costOf(meters);
      state.tokens_used = this.budget.used;
    }
    await this.store.save(state);
  }

  /** One round: train, attribute, rewrite, test; saved before the next starts. */
  private async round(r: number) {
    const { o, state } = this;
    o.signal?.throwIfAborted();
    this.budget.roundUsed = 0;
    const started = Date.now();
    const meters = new Map<Role, UsageMeter>();
    const models = roleModels(o, this.budget, meters);
    const conv = o.train[(r - 1) % o.train.length];
    const before = { ...state.prompts };
    this.say(`round ${r}: training run on ${conv.id}`);
    const train = await this.evaluate([conv], o.trainQuestions, before, models, r);
    const triage = await this.attributeFailures(train.graphs[0], models.attribution, r);
    const rewrites = await this.rewriteGroups(triage.groups, before, models.optimizer, r);
    const record = draftRecord(r, { conv, train, before, models }, triage, rewrites, state.held_out!.score);
    if (rewrites.changes.length === 0) record.reason = skipReason(triage, rewrites);
    else await this.acceptanceTest(record, { conv, train, before, models });
    record.cost = costOf(meters);
    record.seconds = (Date.now() - started) / 1000;
    state.rounds.push(record);
    state.tokens_used = this.budget.used;
    await this.store.save(state);
    this.say(`round ${r}: ${record.reason}`);
    await this.hooks.onRound?.(record, state);
  }

  /** Attributes every failure of the training run; groups them by the prompt behind the faulty op. */
  private async attributeFailures(g: TraceGraph, model: ChatModel | undefined, r: number): Promise<Triage> {
    const index = await RetrievalIndex.build(corpusFromGraph(g, 'messages'));
    const engine = engineFor(this.o.method ?? 'evidence');
    const t: Triage = {
      failed: listCases(g).filter((c) => c.failed),
      attributions: [],
      groups: new Map(),
      notOptimisable: 0,
      notAllowed: 0,
    };
    for (const c of t.failed) {
      let a: Attribution;
      try {
        a = await engine(
          { graph: g, case: c, system: this.target.name },
          { index, model, now: Date.now },
          { signal: this.o.signal },
        );
      } catch (e) {
        // An agent that gave no verdict leaves this failure unexplained: nothing to optimise from it.
        if (!isAgentStopped(e)) throw e;
        this.say(`round ${r}: ${c.queryId} not attributed (${e.kind}: ${e.message})`);
        t.attributions.push({ ...NOT_ATTRIBUTED, query_id: c.queryId, reason: `failed: ${e.message}` });
        t.notOptimisable++;
        continue;
      }
      this.sortFailure(t, g, c, reportCase(g, c, a));
    }
    return t;
  }

  /** Records one attributed failure and files it under its prompt, if this run may change it. */
  private sortFailure(t: Triage, g: TraceGraph, c: TraceCase, rc: ReportCase) {
    t.attributions.push({
      query_id: c.queryId,
      error_type: rc.error_type,
      op_id: rc.op_id,
      op_name: rc.op_name,
      prompt: rc.prompt,
      reason: rc.reason,
    });
    if (!rc.prompt || !rc.error_type || !rc.op_id) t.notOptimisable++;
    else if (!this.allowed.includes(rc.prompt)) t.notAllowed++;
    else {
      const group = t.groups.get(rc.prompt) ?? { id: rc.prompt_id ?? `${rc.prompt}@1`, failures: [] };
      group.failures.push(failureView(g, c, { ...rc, error_type: rc.error_type, op_id: rc.op_id }));
      t.groups.set(rc.prompt, group);
    }
  }

  /** Feedback → aggregate → rewrite, per prompt. */
  private async rewriteGroups(
    groups: Triage['groups'],
    before: PromptRegistry,
    optimizer: ChatModel,
    r: number,
  ): Promise<Rewrites> {
    const { o } = this;
    const out: Rewrites = { changes: [], invalid: [] };
    for (const [name, group] of groups) {
      this.say(`round ${r}: ${group.failures.length} failure(s) behind ${name}`);
      const value = before[name];
      const feedback: string[] = [];
      for (const f of group.failures)
        feedback.push(await feedbackFor(optimizer, { name, value }, f, o.signal));
      const aggregated = await aggregateFeedback(optimizer, feedback, o.aggregationBatch ?? 8, o.signal);
      const after = await rewritePrompt(optimizer, { name, value }, aggregated, o.signal);
      const problem = rewriteProblem(value, after);
      if (problem) out.invalid.push({ prompt: name, reason: problem });
      else
        out.changes.push({
          prompt: name,
          prompt_id: group.id,
          before: value,
          after,
          diff: diffText(value, after),
          failures: group.failures.length,
          feedback,
          aggregated_feedback: aggregated,
        });
    }
    return out;
  }

  /** The candidate prompts on the same training questions and on the held-out set: kept or not. */
  private async acceptanceTest(record: RoundRecord, t: Trial) {
    const { o, state } = this;
    const candidate = { ...t.before, ...Object.fromEntries(record.changes.map((c) => [c.prompt, c.after])) };
    this.say(`round ${record.round}: acceptance test of ${record.changes.length} rewrite(s)`);
    const trainAfter = await this.evaluate([t.conv], o.trainQuestions, candidate, t.models, record.round);
    const heldAfter = await this.evaluate(o.heldOut, o.heldOutQuestions, candidate, t.models, 0);
    const trainScore = score(trainAfter.outcomes);
    const heldScore = score(heldAfter.outcomes);
    record.train_after = trainScore;
    record.held_out_after = heldScore;
    record.paired = {
      train: paired(t.train.outcomes, trainAfter.outcomes),
      held_out: paired(
        state.held_out!.outcomes.map((x) => ({ ...x, correct: x.after })),
        heldAfter.outcomes,
      ),
    };
    record.flipped = {
      train: record.paired.train.filter((p) => p.before !== p.after),
      held_out: record.paired.held_out.filter((p) => p.before !== p.after),
    };
    const heldOk = heldScore.score >= record.held_out_before.score;
    const trainUp = trainScore.score > record.train_before.score;
    const numbers = `training ${pct(record.train_before)} → ${pct(trainScore)}, held-out ${pct(record.held_out_before)} → ${pct(heldScore)}`;
    if (heldOk && trainUp) {
      record.decision = 'accepted';
      record.reason = `accepted: ${numbers}`;
      record.prompts_after = candidate;
      state.prompts = candidate;
      state.held_out = { score: heldScore, outcomes: paired(heldAfter.outcomes, heldAfter.outcomes) };
    } else {
      record.decision = 'rejected';
      record.reason = `rejected: ${!heldOk ? 'the held-out score dropped' : 'the training score did not rise'} (${numbers})`;
    }
  }
}

/** A failure as the optimiser's feedback prompt sees it: the faulty op rendered with its subgraph. */
function failureView(
  g: TraceGraph,
  c: TraceCase,
  rc: ReportCase & { error_type: string; op_id: string },
): FailureView {
  const op = g.opIndex.get(rc.op_id);
  const rendered = op === undefined ? '' : `${renderOpHeader(g, op)}\n${renderOpSubgraph(g, op, 'full')}`;
  return {
    error_type: rc.error_type,
    op_id: rc.op_id,
    reason: rc.reason,
    question: c.question,
    golden_answers: c.goldenAnswers,
    prediction: c.prediction,
    op_graph: rendered.length > OP_GRAPH_CHARS ? rendered.slice(rendered.length - OP_GRAPH_CHARS) : rendered,
  };
}

/** The round's record before its acceptance test (a skipped round keeps it as it is). */
function draftRecord(
  r: number,
  t: Trial,
  triage: Triage,
  rewrites: Rewrites,
  heldOutBefore: Score,
): RoundRecord {
  return {
    round: r,
    conversation: t.conv.id,
    decision: 'skipped',
    reason: '',
    prompts_before: t.before,
    prompts_after: t.before,
    changes: rewrites.changes,
    invalid_rewrites: rewrites.invalid,
    failures: triage.failed.length,
    attributions: triage.attributions,
    not_optimisable: triage.notOptimisable,
    not_allowed: triage.notAllowed,
    train_before: score(t.train.outcomes),
    train_after: null,
    held_out_before: heldOutBefore,
    held_out_after: null,
    flipped: { train: [], held_out: [] },
    paired: { train: [], held_out: [] },
    cost: {},
    seconds: 0,
  };
}

/** Why a round changed no prompt. */
function skipReason(t: Triage, rewrites: Rewrites): string {
  if (t.failed.length === 0) return 'no failed question on the training set';
  if (t.groups.size === 0)
    return `none of the ${t.failed.length} failure(s) is behind a prompt this run may change (${t.notOptimisable} not optimisable, ${t.notAllowed} behind other prompts)`;
  return `no usable rewrite (${rewrites.invalid.map((x) => `${x.prompt}: ${x.reason}`).join('; ')})`;
}

/** The paper's `update_results.json`: prompt variable ids (`name@1`) → value. */
export function updateResults(prompts: PromptRegistry, names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [`${n}@1`, prompts[n]]));
}
