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
import { listCases } from '../../core/cases/index.ts';
import { buildGraph, renderOpHeader, renderOpSubgraph, type TraceGraph } from '../../core/graph/index.ts';
import { type ChatModel, LlmError, metered, UsageMeter, type UsageTotals } from '../../core/llm/index.ts';
import { seededRandom } from '../../core/random.ts';
import { reportCase } from '../../core/report/index.ts';
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
  const rand = seededRandom(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
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
  const say = hooks.onProgress ?? (() => {});
  const method = o.method ?? 'evidence';
  const seed = o.seed ?? 1;
  const allowed = (o.prompts ?? Object.keys(target.prompts)).filter((p) => p in target.prompts);
  const loaded = await store.load();
  const state: OptimizeState = loaded ?? {
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
      method,
      seed,
      budget: o.budget ?? {},
    },
  };
  if (loaded && loaded.target !== target.name)
    throw new Error(`the saved run optimises ${loaded.target}, not ${target.name}`);
  state.status = 'running';
  state.options.rounds = o.rounds;
  const budget = new TokenBudget(state.tokens_used, o.budget?.maxTokens, o.budget?.maxRoundTokens);

  const evaluate = async (
    convs: Conversation[],
    n: number | undefined,
    prompts: PromptRegistry,
    models: ReturnType<typeof roleModels>,
    salt: number,
  ): Promise<Evaluated> => {
    const out: Evaluated = { outcomes: [], graphs: [] };
    for (const conv of convs) {
      const questions = sampleQuestions(conv, n, o.maxSessions, seed + salt);
      const run = await target.run(conv, {
        prompts,
        qa: models.qa,
        judge: models.judge,
        questionIds: questions.map((q) => q.id),
        maxSessions: o.maxSessions,
        signal: o.signal,
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
  };

  const finish = async (status: OptimizeState['status'], message: string) => {
    state.status = status;
    state.message = message;
    state.tokens_used = budget.used;
    await store.save(state);
    return state;
  };

  try {
    // The held-out score of the starting prompts, once.
    if (!state.held_out) {
      say('held-out baseline');
      const meters = new Map<Role, UsageMeter>();
      const models = roleModels(o, budget, meters);
      try {
        const h = await evaluate(o.heldOut, o.heldOutQuestions, state.prompts, models, 0);
        state.held_out = { score: score(h.outcomes), outcomes: paired(h.outcomes, h.outcomes) };
      } finally {
        state.baseline_cost = costOf(meters);
        state.tokens_used = budget.used;
      }
      await store.save(state);
    }

    for (let r = state.rounds.length + 1; r <= o.rounds; r++) {
      o.signal?.throwIfAborted();
      budget.roundUsed = 0;
      const started = Date.now();
      const meters = new Map<Role, UsageMeter>();
      const models = roleModels(o, budget, meters);
      const conv = o.train[(r - 1) % o.train.length];
      const before = { ...state.prompts };
      say(`round ${r}: training run on ${conv.id}`);
      const train = await evaluate([conv], o.trainQuestions, before, models, r);
      const g = train.graphs[0];

      // Attribute every failure; group by the prompt behind the faulty op.
      const index = await RetrievalIndex.build(corpusFromGraph(g, 'messages'));
      const engine = engineFor(method);
      const failed = listCases(g).filter((c) => c.failed);
      const attributions: RoundAttribution[] = [];
      const groups = new Map<string, { id: string; failures: FailureView[] }>();
      let notOptimisable = 0;
      let notAllowed = 0;
      for (const c of failed) {
        let a: Attribution;
        try {
          a = await engine(
            { graph: g, case: c, system: target.name },
            { index, model: models.attribution, now: Date.now },
            { signal: o.signal },
          );
        } catch (e) {
          // An agent that gave no verdict leaves this failure unexplained: nothing to optimise from it.
          if (!isAgentStopped(e)) throw e;
          say(`round ${r}: ${c.queryId} not attributed (${e.kind}: ${e.message})`);
          attributions.push({ ...NOT_ATTRIBUTED, query_id: c.queryId, reason: `failed: ${e.message}` });
          notOptimisable++;
          continue;
        }
        const rc = reportCase(g, c, a);
        attributions.push({
          query_id: c.queryId,
          error_type: rc.error_type,
          op_id: rc.op_id,
          op_name: rc.op_name,
          prompt: rc.prompt,
          reason: rc.reason,
        });
        if (!rc.prompt || !rc.error_type || !rc.op_id) notOptimisable++;
        else if (!allowed.includes(rc.prompt)) notAllowed++;
        else {
          const op = g.opIndex.get(rc.op_id);
          const group = groups.get(rc.prompt) ?? { id: rc.prompt_id ?? `${rc.prompt}@1`, failures: [] };
          const rendered =
            op === undefined ? '' : `${renderOpHeader(g, op)}\n${renderOpSubgraph(g, op, 'full')}`;
          group.failures.push({
            error_type: rc.error_type,
            op_id: rc.op_id,
            reason: rc.reason,
            question: c.question,
            golden_answers: c.goldenAnswers,
            prediction: c.prediction,
            op_graph:
              rendered.length > OP_GRAPH_CHARS ? rendered.slice(rendered.length - OP_GRAPH_CHARS) : rendered,
          });
          groups.set(rc.prompt, group);
        }
      }

      // Feedback → aggregate → rewrite, per prompt.
      const changes: PromptChange[] = [];
      const invalid: { prompt: string; reason: string }[] = [];
      for (const [name, group] of groups) {
        say(`round ${r}: ${group.failures.length} failure(s) behind ${name}`);
        const value = before[name];
        const feedback: string[] = [];
        for (const f of group.failures)
          feedback.push(await feedbackFor(models.optimizer, { name, value }, f, o.signal));
        const aggregated = await aggregateFeedback(
          models.optimizer,
          feedback,
          o.aggregationBatch ?? 8,
          o.signal,
        );
        const after = await rewritePrompt(models.optimizer, { name, value }, aggregated, o.signal);
        const problem = rewriteProblem(value, after);
        if (problem) invalid.push({ prompt: name, reason: problem });
        else
          changes.push({
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

      const record: RoundRecord = {
        round: r,
        conversation: conv.id,
        decision: 'skipped',
        reason: '',
        prompts_before: before,
        prompts_after: before,
        changes,
        invalid_rewrites: invalid,
        failures: failed.length,
        attributions,
        not_optimisable: notOptimisable,
        not_allowed: notAllowed,
        train_before: score(train.outcomes),
        train_after: null,
        held_out_before: state.held_out!.score,
        held_out_after: null,
        flipped: { train: [], held_out: [] },
        paired: { train: [], held_out: [] },
        cost: {},
        seconds: 0,
      };
      if (changes.length === 0) {
        record.reason =
          failed.length === 0
            ? 'no failed question on the training set'
            : groups.size === 0
              ? `none of the ${failed.length} failure(s) is behind a prompt this run may change (${notOptimisable} not optimisable, ${notAllowed} behind other prompts)`
              : `no usable rewrite (${invalid.map((x) => `${x.prompt}: ${x.reason}`).join('; ')})`;
      } else {
        // The acceptance test: the candidate prompts on the same training questions and on the held-out set.
        const candidate = { ...before, ...Object.fromEntries(changes.map((c) => [c.prompt, c.after])) };
        say(`round ${r}: acceptance test of ${changes.length} rewrite(s)`);
        const trainAfter = await evaluate([conv], o.trainQuestions, candidate, models, r);
        const heldAfter = await evaluate(o.heldOut, o.heldOutQuestions, candidate, models, 0);
        record.train_after = score(trainAfter.outcomes);
        record.held_out_after = score(heldAfter.outcomes);
        record.paired = {
          train: paired(train.outcomes, trainAfter.outcomes),
          held_out: paired(
            state.held_out!.outcomes.map((x) => ({ ...x, correct: x.after })),
            heldAfter.outcomes,
          ),
        };
        record.flipped = {
          train: record.paired.train.filter((p) => p.before !== p.after),
          held_out: record.paired.held_out.filter((p) => p.before !== p.after),
        };
        const heldOk = record.held_out_after.score >= record.held_out_before.score;
        const trainUp = record.train_after.score > record.train_before.score;
        const numbers = `training ${pct(record.train_before)} → ${pct(record.train_after)}, held-out ${pct(record.held_out_before)} → ${pct(record.held_out_after)}`;
        if (heldOk && trainUp) {
          record.decision = 'accepted';
          record.reason = `accepted: ${numbers}`;
          record.prompts_after = candidate;
          state.prompts = candidate;
          state.held_out = {
            score: record.held_out_after,
            outcomes: paired(heldAfter.outcomes, heldAfter.outcomes),
          };
        } else {
          record.decision = 'rejected';
          record.reason = `rejected: ${!heldOk ? 'the held-out score dropped' : 'the training score did not rise'} (${numbers})`;
        }
      }
      record.cost = costOf(meters);
      record.seconds = (Date.now() - started) / 1000;
      state.rounds.push(record);
      state.tokens_used = budget.used;
      await store.save(state);
      say(`round ${r}: ${record.reason}`);
      await hooks.onRound?.(record, state);
    }
    return await finish(
      'done',
      `${state.rounds.length} round(s); ${state.rounds.filter((x) => x.decision === 'accepted').length} accepted`,
    );
  } catch (e) {
    if (e instanceof BudgetExceeded) return finish('budget', `stopped: ${e.message}`);
    if (o.signal?.aborted || (e instanceof LlmError && e.kind === 'aborted'))
      return finish('cancelled', 'cancelled; the rounds done are kept and the run can resume');
    await finish('failed', e instanceof Error ? e.message : String(e));
    throw e;
  }
}

/** The paper's `update_results.json`: prompt variable ids (`name@1`) → value. */
export function updateResults(prompts: PromptRegistry, names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [`${n}@1`, prompts[n]]));
}
