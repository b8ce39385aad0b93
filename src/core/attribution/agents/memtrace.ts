/**
 * The MemTrace graph-exploration agent (the paper's method): start from the question
 * node and the start-point messages, explore one variable at a time in execution
 * order (every op touching it, with its subgraph), judge each op against its own
 * job, follow correct ops' outputs through the to-explore list, and finish with
 * {error_type, op_id, reason}.
 */
import { z } from 'zod';
import {
  compilePattern,
  nonEmptyMatches,
  opsTouching,
  opVariables,
  pageOf,
  renderVariableView,
  snippetAround,
  type TraceGraph,
} from '../../graph/index.ts';
import type { ActionSpec } from '../../llm/index.ts';
import { START_POINTS, startPoints } from '../../retrieval/index.ts';
import type { EngineDeps } from '../engine-deps.ts';
import type {
  AgentCheckpoint,
  Attribution,
  AttributionInput,
  Candidate,
  FrontierState,
  PathStep,
  RunHooks,
} from '../types.ts';
import type { Budgets } from './budgets.ts';
import {
  addToFrontier,
  finishCurrent,
  initialFrontier,
  MAX_FRONTIER,
  REFUSALS,
  removeFromFrontier,
} from './frontier.ts';
import { cheapestEntry, messagesIndex } from './prior.ts';
import { CHECKLIST, candidatesText, ERROR_TYPE_TEXT, TASK } from './prompts.ts';
import { type AgentEnv, finalAnswerAction, type Observation } from './runtime.ts';
import { startAgent } from './start.ts';

const page = z.number().int().min(1).optional().describe('1-based page number (default 1)');

/**
 * The MemTrace agent's actions (explore, view/search a value, edit the to-explore list, finish a node,
 * final answer) with their argument schemas, as the model sees them.
 */
export const MEMTRACE_ACTIONS = {
  explore: {
    description:
      'Show the variable being explored: every operation touching it in time order, with its role, successors, leaves and subgraph. mode "preview" omits values; "full" includes them, paged by characters.',
    args: z.object({ mode: z.enum(['preview', 'full']), page }),
  },
  view_value: {
    description: 'Page through the value of one variable shown in the current view.',
    args: z.object({ var_id: z.string(), page }),
  },
  search_value: {
    description:
      'Regex search (case-insensitive) in the value of one variable shown in the current view; returns each match with context around it.',
    args: z.object({
      var_id: z.string(),
      pattern: z.string(),
      context: z.number().int().min(0).max(2000).optional().describe('characters each side (default 200)'),
    }),
  },
  add_to_frontier: {
    description: `Add variables to the to-explore list (max ${MAX_FRONTIER}). Refused for the variable being explored, one already listed or explored, or when the list is full.`,
    args: z.object({ var_ids: z.array(z.string()).min(1) }),
  },
  remove_from_frontier: {
    description: 'Delete a variable from the to-explore list.',
    args: z.object({ var_id: z.string() }),
  },
  finish_node: {
    description:
      'Done with the variable being explored (its ops judged); move to the earliest listed variable.',
    args: z.object({}),
  },
  final_answer: finalAnswerAction,
} satisfies Record<string, ActionSpec>;

const SYSTEM = `${TASK}

${ERROR_TYPE_TEXT}

${CHECKLIST}

How you work: you explore the graph one variable at a time. The to-explore list is ordered by creation time (earliest first); its first entry is the variable being explored. Exploring a variable shows every operation that touches it, in time order: name, category, comment, created_at, the variable's role in it (input / output / intermediate), direct successor variables, leaf variables, and the operation's subgraph (its variables and edges). Use mode "preview" for the structure and "full" to read values (paged); view_value and search_value read one long value.
For each operation judge it against its own job: if it is faulty and decisive, give the final answer; if it is locally correct, add the relevant downstream variables to the to-explore list, then finish this node. Give one action per reply.`;

const VIEW_VAR_LIMIT = 2000;

/** Variables the model may read a value of: the current one and those of the ops touching it. */
function viewable(g: TraceGraph, current: string | null): Set<number> {
  const out = new Set<number>();
  const v = current === null ? undefined : g.varIndex.get(current);
  if (v === undefined) return out;
  out.add(v);
  for (const op of opsTouching(g, v))
    for (const w of opVariables(g, op)) if (out.size < VIEW_VAR_LIMIT) out.add(w);
  return out;
}

function shownOps(text: string): string[] {
  return [...text.matchAll(/^op_id: (\S+)$/gm)].map((m) => m[1]);
}

function exploreText(
  g: TraceGraph,
  id: string,
  mode: 'preview' | 'full',
  p: number,
  b: Budgets,
): Observation {
  const v = g.varIndex.get(id)!;
  const view = renderVariableView(g, v, { mode, page: p - 1, pageChars: b.pageChars });
  const head = `[explore ${id} · ${mode} · page ${view.page + 1}/${view.pages} · ${view.totalChars} chars]`;
  return { text: `${head}\n${view.text}`, shown: mode === 'full' ? shownOps(view.text) : [] };
}

/** What one MemTrace action reads and moves: the graph, the budgets, the run's hooks and its checkpoint. */
interface ActionContext {
  g: TraceGraph;
  b: Budgets;
  hooks: RunHooks;
  cp: AgentCheckpoint;
  /** The checkpoint's to-explore list. */
  f: FrontierState;
}

type Args = Record<string, unknown>;

/**
 * The MemTrace agent's environment for the runtime loop: system prompt, actions and how each one reads the
 * graph and moves the to-explore list.
 */
function memtraceEnv(input: AttributionInput, b: Budgets, text: string, hooks: RunHooks): AgentEnv {
  const g = input.graph;
  return {
    method: 'memtrace',
    system: SYSTEM,
    actions: MEMTRACE_ACTIONS,
    caseText: text,
    status: (cp) => {
      const f = cp.frontier!;
      return `[step ${cp.step}/${b.maxSteps} · exploring: ${f.current ?? '(nothing)'} · to-explore (${f.list.length}/${MAX_FRONTIER}): ${f.list.join(', ') || '(empty)'} · explored: ${f.explored.length}]`;
    },
    path: (cp) => {
      const f = cp.frontier!;
      const steps: PathStep[] = f.explored.map((id) => ({ var_id: id, note: 'explored' }));
      if (f.current) steps.push({ var_id: f.current, note: 'being explored at the answer' });
      return steps;
    },
    execute(action, cp) {
      const c: ActionContext = { g, b, hooks, cp, f: cp.frontier! };
      const a = action.args as Args;
      switch (action.action) {
        case 'explore':
          return explore(c, a);
        case 'view_value':
        case 'search_value': {
          const id = a.var_id as string;
          const v = g.varIndex.get(id);
          if (v === undefined) return { text: `No variable "${id}".` };
          if (!viewable(g, c.f.current).has(v))
            return { text: `"${id}" is not in the current view; add it to the to-explore list to read it.` };
          return action.action === 'view_value'
            ? viewValue(g.varValue[v], id, a, b)
            : searchValue(g.varValue[v], id, a);
        }
        case 'add_to_frontier':
          return addVariables(c, a);
        case 'remove_from_frontier':
          return removeVariable(c, a);
        case 'finish_node':
          return finishNode(c);
        default:
          return { text: `Unknown action "${action.action}".` };
      }
    },
  };
}

function emitFrontier(c: ActionContext) {
  c.hooks.onEvent?.({ type: 'frontier', var_ids: [...c.f.list] });
}

function explore(c: ActionContext, a: Args): Observation {
  if (c.f.current === null)
    return {
      text: 'Nothing is being explored: the to-explore list is empty. Add variables or give the final answer.',
    };
  c.hooks.onEvent?.({ type: 'explore', var_id: c.f.current });
  return exploreText(
    c.g,
    c.f.current,
    a.mode as 'preview' | 'full',
    (a.page as number | undefined) ?? 1,
    c.b,
  );
}

function viewValue(value: string, id: string, a: Args, b: Budgets): Observation {
  const pg = pageOf(value, ((a.page as number | undefined) ?? 1) - 1, b.pageChars);
  return { text: `[value of ${id} · page ${pg.page + 1}/${pg.pages} · ${pg.totalChars} chars]\n${pg.text}` };
}

function searchValue(value: string, id: string, a: Args): Observation {
  let re: RegExp;
  try {
    re = compilePattern(a.pattern as string, { regex: true });
  } catch (e) {
    return { text: `Bad regular expression: ${(e as Error).message}` };
  }
  const ctx = (a.context as number | undefined) ?? 200;
  const lines: string[] = [];
  let total = 0;
  for (const m of nonEmptyMatches(re, value)) {
    total++;
    if (lines.length < 20) {
      const s = snippetAround(value, m.index, m[0].length, ctx);
      lines.push(`@${m.index}: …${s.snippet}…`);
    }
  }
  return {
    text: `[search /${a.pattern}/i in ${id} · ${total} match(es)${total > 20 ? ', first 20 shown' : ''}]\n${lines.join('\n') || '(no match)'}`,
  };
}

function addVariables(c: ActionContext, a: Args): Observation {
  const lines = (a.var_ids as string[]).map((id) => {
    const r = addToFrontier(c.g, c.f, id);
    return `- ${id}: ${r === 'added' ? 'added' : REFUSALS[r]}`;
  });
  emitFrontier(c);
  return { text: `Add to the to-explore list:\n${lines.join('\n')}` };
}

function removeVariable(c: ActionContext, a: Args): Observation {
  const id = a.var_id as string;
  const ok = removeFromFrontier(c.f, id);
  emitFrontier(c);
  return { text: ok ? `Removed ${id} from the to-explore list.` : `${id} is not in the to-explore list.` };
}

function finishNode(c: ActionContext): Observation {
  const was = c.f.current;
  const next = finishCurrent(c.f);
  emitFrontier(c);
  if (next === null)
    return {
      text: `Finished ${was ?? '(nothing)'}. The to-explore list is empty: add variables or give the final answer.`,
    };
  c.hooks.onEvent?.({ type: 'explore', var_id: next });
  const view = exploreText(c.g, next, 'preview', 1, c.b);
  return { text: `Finished ${was}. Now exploring ${next}.\n${view.text}` };
}

/** The first message: the case, the prior candidates (prior mode), and the first variable's preview. */
function firstMessage(
  g: TraceGraph,
  text: string,
  cp: AgentCheckpoint,
  b: Budgets,
  prior: Candidate[],
): string {
  const f = cp.frontier!;
  const parts = [text];
  if (prior.length) parts.push(candidatesText(prior));
  parts.push(
    `# Start\nThe to-explore list was seeded with ${prior.length ? 'one variable of each prior candidate operation (the cheapest to view) and the question' : 'the question and the messages most similar to question + golden answer'}.`,
  );
  if (f.current)
    parts.push(`Now exploring ${f.current}.\n${exploreText(g, f.current, 'preview', 1, b).text}`);
  return parts.join('\n\n');
}

/**
 * Runs (or resumes, from `hooks.resume`) the MemTrace agent on one case: seeds the to-explore list from
 * the prior candidates (prior mode) or the start-point messages plus the question, then explores until a
 * final answer or a budget runs out.
 */
export async function attributeMemTrace(
  input: AttributionInput,
  deps: EngineDeps,
  hooks: RunHooks = {},
): Promise<Attribution> {
  const g = input.graph;
  return startAgent('memtrace', input, deps, hooks, {
    env: (b, text) => memtraceEnv(input, b, text, hooks),
    async begin(cp, prior, b, text) {
      let seeds: string[];
      if (prior.length) {
        seeds = prior
          .map((c) => cheapestEntry(g, g.opIndex.get(c.op_id)!))
          .filter((v): v is number => v !== undefined)
          .map((v) => g.varId[v]);
      } else {
        const index = await messagesIndex(g, deps);
        const hits = await startPoints(index, input.case, {
          k: START_POINTS,
          embedder: deps.embedder,
          signal: hooks.signal,
        });
        seeds = hits.map((h) => h.full_node_id);
      }
      seeds.push(input.case.queryId);
      cp.frontier = initialFrontier(g, seeds);
      if (prior.length) cp.prior_candidates = prior;
      if (cp.frontier.current) hooks.onEvent?.({ type: 'explore', var_id: cp.frontier.current });
      hooks.onEvent?.({ type: 'frontier', var_ids: [...cp.frontier.list] });
      return firstMessage(g, text, cp, b, prior);
    },
  });
}
