/**
 * MemTrace-OBS (operation-block search): the graph flattened into a log of op
 * blocks in execution order (ids and edges left out), read through four tools —
 * overview, grep, window by character offset, view one op block — then the same
 * final answer as MemTrace.
 */
import { z } from 'zod';
import { appendAll } from '../../arrays.ts';
import {
  blockAt,
  compilePattern,
  nonEmptyMatches,
  type ObsBlock,
  type ObsLog,
  opOrderByIdTies,
  pageOf,
  renderObsLog,
  type TraceGraph,
} from '../../graph/index.ts';
import type { ActionSpec } from '../../llm/index.ts';
import type { EngineDeps } from '../engine-deps.ts';
import type { AgentCheckpoint, Attribution, AttributionInput, Candidate, RunHooks } from '../types.ts';
import type { Budgets } from './budgets.ts';
import { CHECKLIST, candidatesText, ERROR_TYPE_TEXT, TASK } from './prompts.ts';
import { type AgentEnv, finalAnswerAction, type Observation } from './runtime.ts';
import { startAgent } from './start.ts';

/** Matches one `grep` lists (the total is still counted). */
export const GREP_MAX = 40;
/** Characters of context each side of a `grep` match, clipped to its block. */
export const GREP_CONTEXT = 120;
/** Blocks the overview shows from each end of the log. */
export const OVERVIEW_BLOCKS = 8;
/** Characters of each block in the overview. */
const OVERVIEW_BLOCK_CHARS = 600;

/**
 * The OBS agent's actions (overview, grep, window, view_op, final answer) with their argument schemas, as
 * the model sees them.
 */
export const OBS_ACTIONS = {
  overview: {
    description: 'Size of the operation-block log and its first and last 8 blocks (shortened).',
    args: z.object({}),
  },
  grep: {
    description: `Search the whole log (plain text, or a regex with regex=true; case-insensitive unless case_sensitive=true). At most ${GREP_MAX} matches, each with ~${GREP_CONTEXT} characters of context, its block number and op_id.`,
    args: z.object({
      pattern: z.string().min(1),
      regex: z.boolean().optional(),
      case_sensitive: z.boolean().optional(),
    }),
  },
  window: {
    description: 'Read the log from a character offset (default length 32000 characters).',
    args: z.object({
      offset: z.number().int().min(0),
      length: z.number().int().min(1).optional(),
    }),
  },
  view_op: {
    description: 'Read one operation block in full, by op_id (or by block number).',
    args: z.object({
      op_id: z.string().optional(),
      block: z.number().int().min(1).optional(),
      page: z.number().int().min(1).optional().describe('1-based page of a very long block'),
    }),
  },
  final_answer: finalAnswerAction,
} satisfies Record<string, ActionSpec>;

const SYSTEM = `${TASK}

${ERROR_TYPE_TEXT}

${CHECKLIST}

How you work: the execution graph is flattened into a log of operation blocks in execution order. Each block shows an operation's name, category, created_at, comment, metadata and its input / intermediate / output variables with their values. Use overview, grep, window and view_op to read it; grep, window and view_op tell you the op_id of each block. Judge operations against their own job in execution order and give the final answer with the op_id of the decisive faulty operation. Give one action per reply.`;

const logs = { op_id: new WeakMap<TraceGraph, ObsLog>(), file: new WeakMap<TraceGraph, ObsLog>() };

/** The graph's operation-block log, rendered once per graph and tie order (`Budgets.obsTies`). */
export function obsLogOf(g: TraceGraph, ties: Budgets['obsTies'] = 'op_id'): ObsLog {
  let log = logs[ties].get(g);
  if (!log) {
    log = renderObsLog(g, ties === 'op_id' ? opOrderByIdTies(g) : g.opOrder);
    logs[ties].set(g, log);
  }
  return log;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ');
}

function blockLabel(g: TraceGraph, log: ObsLog, b: ObsBlock): string {
  const n = log.blocks.indexOf(b) + 1;
  return `block ${n} (op_id ${g.opId[b.op]}, ${g.opName[b.op] || '(unnamed)'})`;
}

/**
 * The four OBS tools over a graph's operation-block log; each returns the observation text and the op ids
 * it showed in full (which count as read).
 */
class ObsTools {
  readonly log: ObsLog;
  private readonly blockNumber: Map<number, number>;

  constructor(
    private readonly g: TraceGraph,
    private readonly b: Budgets,
  ) {
    this.log = obsLogOf(g, b.obsTies);
    this.blockNumber = new Map<number, number>(this.log.blocks.map((bl, i) => [bl.op, i]));
  }

  private blockText(bl: ObsBlock): string {
    return this.log.text.slice(bl.start, bl.end);
  }

  overview(): Observation {
    const { g, log } = this;
    const show = (bl: ObsBlock) => {
      const t = this.blockText(bl);
      const cut =
        t.length > OVERVIEW_BLOCK_CHARS
          ? `${t.slice(0, OVERVIEW_BLOCK_CHARS)} […${t.length - OVERVIEW_BLOCK_CHARS} more chars]`
          : t;
      return `[op_id ${g.opId[bl.op]} · offset ${bl.start}]\n${cut}`;
    };
    const n = log.blocks.length;
    const first = log.blocks.slice(0, OVERVIEW_BLOCKS);
    const last = log.blocks.slice(Math.max(OVERVIEW_BLOCKS, n - OVERVIEW_BLOCKS));
    return {
      text: [
        `The log has ${n} operation blocks, ${log.text.length} characters.`,
        `# First ${first.length} blocks`,
        ...first.map(show),
        ...(last.length ? [`# Last ${last.length} blocks`, ...last.map(show)] : []),
      ].join('\n\n'),
    };
  }

  grep(pattern: string, regex = false, caseSensitive = false): Observation {
    const { g, log } = this;
    let re: RegExp;
    try {
      re = compilePattern(pattern, { regex, caseSensitive });
    } catch (e) {
      return { text: `Bad regular expression: ${(e as Error).message}` };
    }
    const lines: string[] = [];
    let total = 0;
    for (const m of nonEmptyMatches(re, log.text)) {
      total++;
      if (lines.length >= GREP_MAX) continue;
      const bl = blockAt(log, m.index);
      const start = Math.max(bl?.start ?? 0, m.index - GREP_CONTEXT);
      const end = Math.min(bl?.end ?? log.text.length, m.index + m[0].length + GREP_CONTEXT);
      lines.push(
        `${lines.length + 1}. ${bl ? blockLabel(g, log, bl) : '(between blocks)'} @${m.index}: …${oneLine(log.text.slice(start, end))}…`,
      );
    }
    return {
      text: `[grep ${regex ? `/${pattern}/` : JSON.stringify(pattern)}${caseSensitive ? '' : ' (case-insensitive)'} · ${total} match(es)${total > GREP_MAX ? `, first ${GREP_MAX} shown` : ''}]\n${lines.join('\n') || '(no match)'}`,
    };
  }

  window(offset: number, length = this.b.windowChars): Observation {
    const { g, log } = this;
    const len = Math.min(length, this.b.windowChars);
    const start = Math.min(offset, log.text.length);
    const end = Math.min(log.text.length, start + len);
    const inside = log.blocks.filter((bl) => bl.end > start && bl.start < end);
    const complete = inside.filter((bl) => bl.start >= start && bl.end <= end);
    const footer = inside.map(
      (bl) => `- ${blockLabel(g, log, bl)}${complete.includes(bl) ? '' : ' (partly shown)'}`,
    );
    return {
      text: `[window ${start}–${end} of ${log.text.length}]\n${log.text.slice(start, end)}\n[blocks in this window]\n${footer.join('\n')}`,
      shown: complete.map((bl) => g.opId[bl.op]),
    };
  }

  viewOp(opId: string | undefined, block: number | undefined, page = 1): Observation {
    const { g, log } = this;
    let bl: ObsBlock | undefined;
    if (opId !== undefined) {
      const op = g.opIndex.get(opId);
      const i = op === undefined ? undefined : this.blockNumber.get(op);
      bl = i === undefined ? undefined : log.blocks[i];
      if (!bl) return { text: `No operation block with op_id "${opId}".` };
    } else if (block !== undefined) {
      bl = log.blocks[block - 1];
      if (!bl) return { text: `No block ${block}; the log has ${log.blocks.length}.` };
    } else return { text: 'Give op_id or block.' };
    const pg = pageOf(this.blockText(bl), page - 1, this.b.pageChars);
    const more = pg.pages > 1 ? ` · page ${pg.page + 1}/${pg.pages}` : '';
    return {
      text: `[${blockLabel(g, log, bl)} · offset ${bl.start}${more}]\n${pg.text}`,
      shown: pg.page === pg.pages - 1 || pg.pages === 1 ? [g.opId[bl.op]] : [],
    };
  }
}

/**
 * The OBS agent's environment for the runtime loop: system prompt, actions dispatched to `ObsTools`,
 * status line and path (the blocks read).
 */
function obsEnv(input: AttributionInput, b: Budgets, text: string): AgentEnv {
  const g = input.graph;
  const tools = new ObsTools(g, b);
  return {
    method: 'obs',
    system: SYSTEM,
    actions: OBS_ACTIONS,
    caseText: text,
    status: (cp: AgentCheckpoint) =>
      `[step ${cp.step}/${b.maxSteps} · log: ${tools.log.blocks.length} blocks, ${tools.log.text.length} chars · blocks read: ${cp.shown_ops.length}]`,
    path: (cp) => cp.shown_ops.map((op) => ({ op_id: op, note: 'read' })),
    execute(action) {
      const a = action.args as Record<string, unknown>;
      switch (action.action) {
        case 'overview':
          return tools.overview();
        case 'grep':
          return tools.grep(
            a.pattern as string,
            a.regex as boolean | undefined,
            a.case_sensitive as boolean | undefined,
          );
        case 'window':
          return tools.window(a.offset as number, a.length as number | undefined);
        case 'view_op':
          return tools.viewOp(
            a.op_id as string | undefined,
            a.block as number | undefined,
            a.page as number | undefined,
          );
        default:
          return { text: `Unknown action "${action.action}".` };
      }
    },
  };
}

/** Prior mode: the candidates and their blocks (within one window's worth of characters). */
function seedText(g: TraceGraph, b: Budgets, prior: Candidate[]): { text: string; shown: string[] } {
  const tools = new ObsTools(g, b);
  const parts = [candidatesText(prior), '# The candidate blocks'];
  const shown: string[] = [];
  let budget = b.windowChars;
  for (const c of prior) {
    const o = tools.viewOp(c.op_id, undefined);
    if (o.text.length > budget) {
      parts.push(`[${c.op_id}: block too long to show here (${o.text.length} chars); use view_op]`);
      continue;
    }
    budget -= o.text.length;
    parts.push(o.text);
    appendAll(shown, o.shown ?? []);
  }
  return { text: parts.join('\n\n'), shown };
}

/**
 * Runs (or resumes, from `hooks.resume`) the MemTrace-OBS agent on one case: opens with the log's size
 * (and in prior mode the candidates' blocks), then reads the log until a final answer or a budget runs
 * out.
 */
export async function attributeObs(
  input: AttributionInput,
  deps: EngineDeps,
  hooks: RunHooks = {},
): Promise<Attribution> {
  const g = input.graph;
  return startAgent('obs', input, deps, hooks, {
    env: (b, text) => obsEnv(input, b, text),
    begin(cp, prior, b, text) {
      const log = obsLogOf(g, b.obsTies);
      const parts = [
        text,
        `The operation-block log has ${log.blocks.length} blocks, ${log.text.length} characters.`,
      ];
      if (prior.length) {
        const seed = seedText(g, b, prior);
        parts.push(seed.text);
        appendAll(cp.shown_ops, seed.shown);
        cp.prior_candidates = prior;
      }
      return parts.join('\n\n');
    },
  });
}
