/**
 * Context compression: when the conversation passes the budget, all but the most recent
 * turns are summarised by the model (the summary call is charged to the run) and the case
 * statement is repeated above the summary.
 */
import {
  type ChatMessage,
  type ChatModel,
  type ChatResponse,
  estimateMessageTokens,
  estimateOneMessageTokens,
  spentOfError,
  spentOfResponse,
} from '../../llm/index.ts';
import type { AgentCheckpoint, RunHooks } from '../types.ts';
import type { Budgets } from './budgets.ts';
import { charge } from './checkpoint.ts';

/** Turns kept verbatim after a compression. */
const KEEP_RECENT = 3;

const tokenCache = new WeakMap<ChatMessage, number>();

/**
 * Estimated tokens of one message (`estimateOneMessageTokens`), cached per message object: histories are
 * re-sent every step.
 */
export function messageTokens(m: ChatMessage): number {
  let n = tokenCache.get(m);
  if (n === undefined) {
    n = estimateOneMessageTokens(m);
    tokenCache.set(m, n);
  }
  return n;
}

/** Estimated tokens of a conversation (`estimateMessageTokens` over the cached per-message counts). */
export function conversationTokens(messages: readonly ChatMessage[]): number {
  return estimateMessageTokens(messages, messageTokens);
}

function render(m: ChatMessage): string {
  if (m.role === 'assistant') {
    const calls = (m.toolCalls ?? []).map((c) => `${c.name}(${c.arguments})`).join(' ');
    return `ASSISTANT: ${m.content}${calls ? ` ${calls}` : ''}`;
  }
  return `${m.role.toUpperCase()}: ${m.content}`;
}

/** The history to summarise as text, at most `capTokens` (~4 chars each): the oldest part is cut first. */
function transcriptOf(messages: ChatMessage[], capTokens: number): string {
  const text = messages.map(render).join('\n\n');
  const maxChars = capTokens * 4;
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.1);
  return `${text.slice(0, head)}\n[… ${text.length - maxChars} characters omitted …]\n${text.slice(text.length - (maxChars - head))}`;
}

const SUMMARY_SYSTEM =
  'You compress the working memory of an agent that attributes an error in an LLM memory system. Summarise the exploration so far so the agent can continue without the full history: which variables and operations were inspected (keep their exact ids), what each showed, which operations were judged correct and why, open suspicions, and what to check next. Be factual and keep every id exactly.';

/** What compression needs of a run. */
interface CompressionRun {
  cp: AgentCheckpoint;
  budgets: Budgets;
  model: ChatModel;
  hooks: RunHooks;
  /** The case statement, repeated above the summary. */
  caseText: string;
}

/**
 * Summarise all but the most recent messages when the conversation is over the threshold;
 * true when it did. `tick` books the time spent before the step event.
 */
export async function maybeCompress(a: CompressionRun, tick: () => void): Promise<boolean> {
  const { cp, budgets, model, hooks } = a;
  if (conversationTokens(cp.messages) <= budgets.compressAt) return false;
  const [system, ...conv] = cp.messages;
  let keepFrom = Math.max(0, conv.length - KEEP_RECENT);
  while (keepFrom > 0 && conv[keepFrom].role === 'tool') keepFrom--;
  if (keepFrom <= 1) return false; // nothing worth summarising
  const old = conv.slice(0, keepFrom);
  const keep = conv.slice(keepFrom);
  let res: ChatResponse;
  try {
    res = await model.complete({
      messages: [
        { role: 'system', content: SUMMARY_SYSTEM },
        { role: 'user', content: `History to summarise:\n\n${transcriptOf(old, budgets.compressCap)}` },
      ],
      temperature: budgets.temperature,
      signal: hooks.signal,
    });
  } catch (e) {
    charge(cp.usage, spentOfError(e));
    throw e;
  }
  charge(cp.usage, spentOfResponse(res));
  cp.compressions++;
  const summary = `${a.caseText}\n\n# Summary of the exploration so far (history compressed ${cp.compressions}×)\n${res.text}`;
  const first = keep[0];
  cp.messages =
    first.role === 'user'
      ? [system, { role: 'user', content: `${summary}\n\n---\n${first.content}` }, ...keep.slice(1)]
      : [system, { role: 'user', content: summary }, ...keep];
  tick();
  hooks.onEvent?.({ type: 'step', step: cp.step, note: `context compressed (${cp.compressions})` });
  return true;
}
