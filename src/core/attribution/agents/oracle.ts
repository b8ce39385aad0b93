/**
 * Scripted oracle judges for measuring what an exploration strategy costs at best.
 * Each is a scripted policy (it plays the model's part; no LLM involved) that knows
 * the label: it reads whatever the strategy puts in front of it, says "correct,
 * continue" on every operation, follows only the variables that lead to the labelled
 * op, and answers the label as soon as that op has been shown in full.
 */

import { minOf } from '../../arrays.ts';
import { opsTouching, opVariables, type TraceGraph } from '../../graph/index.ts';
import { type ChatRequest, estimateTokens, type ScriptReply } from '../../llm/index.ts';
import { conversationTokens, messageTokens } from './compress.ts';
import { MAX_FRONTIER } from './frontier.ts';

/** The label an oracle judge steers to: the decisive op and its error type. */
export interface OracleLabel {
  op_id: string;
  error_type: string;
}

/**
 * A scripted judge that knows the label, plus whether the labelled op was shown in full before it
 * answered.
 */
export interface OracleJudge {
  /** The policy: pass to `new ScriptedChatModel([oracle.step], { loop: true })`. */
  step: (req: ChatRequest) => ScriptReply;
  /** The labelled op was shown in full before the answer. */
  readonly reached: boolean;
}

function escapeRe(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function lastContent(req: ChatRequest): string {
  const m = req.messages[req.messages.length - 1];
  return m ? m.content : '';
}

/** Usage as the scripted model would estimate it, computed incrementally (histories are long). */
function reply(req: ChatRequest, action: string, args: unknown): ScriptReply {
  const text = JSON.stringify({ action, args });
  let input =
    conversationTokens(req.messages.slice(0, -1)) + messageTokens(req.messages[req.messages.length - 1]);
  for (const t of req.tools ?? []) input += estimateTokens(JSON.stringify(t));
  return { text, usage: { inputTokens: input, outputTokens: estimateTokens(text), estimated: true } };
}

function summaryReply(req: ChatRequest): ScriptReply | null {
  const sys = req.messages[0];
  if (sys?.role !== 'system' || !sys.content.startsWith('You compress the working memory')) return null;
  const ids = [...new Set(req.messages[1].content.match(/op-[0-9a-f]{6,}/g) ?? [])].slice(-20);
  const text = `All operations inspected so far were judged correct: ${ids.join(', ') || '(none)'}. Continue with the to-explore list.`;
  return {
    text,
    usage: {
      inputTokens: conversationTokens(req.messages),
      outputTokens: estimateTokens(text),
      estimated: true,
    },
  };
}

/**
 * Explore hops from each variable to a view that shows the labelled op: 0 for the
 * op's own variables, 1 for variables sharing an op with those, and so on (BFS over
 * the variable–operation incidence, in both directions).
 */
function hopsToOp(g: TraceGraph, opId: string): Map<number, number> {
  const dist = new Map<number, number>();
  const op = g.opIndex.get(opId);
  if (op === undefined) return dist;
  let layer = opVariables(g, op);
  for (const v of layer) dist.set(v, 0);
  const seenOps = new Set([op]);
  for (let d = 1; layer.length; d++) {
    const next: number[] = [];
    for (const v of layer)
      for (const o of opsTouching(g, v)) {
        if (seenOps.has(o)) continue;
        seenOps.add(o);
        for (const w of opVariables(g, o))
          if (!dist.has(w)) {
            dist.set(w, d);
            next.push(w);
          }
      }
    layer = next;
  }
  return dist;
}

/**
 * The oracle for MemTrace: reads every variable the strategy puts first in full (all
 * pages) and says "correct"; adds a variable from the view only when it is fewer
 * explore hops from the labelled op than anything already listed (the best a judge
 * who knows the answer could do), then finishes the node.
 */
export function memtraceOracle(g: TraceGraph, label: OracleLabel): OracleJudge {
  const hops = hopsToOp(g, label.op_id);
  const hopsOf = (id: string) => {
    const v = g.varIndex.get(id);
    return v === undefined ? Number.POSITIVE_INFINITY : (hops.get(v) ?? Number.POSITIVE_INFINITY);
  };
  const shownRe = new RegExp(`^op_id: ${escapeRe(label.op_id)}$`, 'm');
  let reached = false;
  let node: string | null = null;
  let seen = new Set<string>();
  let added = false;
  const answer = (req: ChatRequest) =>
    reply(req, 'final_answer', {
      error_type: label.error_type,
      op_id: label.op_id,
      reason: 'Oracle: the labelled operation.',
    });
  return {
    get reached() {
      return reached;
    },
    step(req) {
      const summary = summaryReply(req);
      if (summary) return summary;
      const text = lastContent(req);
      const full = /^\[explore \S+ · full · page (\d+)\/(\d+)/m.exec(text);
      if (full && shownRe.test(text)) {
        reached = true;
        return answer(req);
      }
      if (/iteration budget is used up/.test(text)) return answer(req);
      const status = /exploring: (\S+) · to-explore \((\d+)\/\d+\): ([^·]*)·/.exec(text);
      const current = status?.[1] === '(nothing)' ? null : (status?.[1] ?? null);
      if (current === null) return answer(req); // the strategy ran out of variables: give up
      if (current !== node) {
        node = current;
        seen = new Set();
        added = false;
        return reply(req, 'explore', { mode: 'full', page: 1 });
      }
      if (full) {
        for (const m of text.matchAll(/^- (\S+) \[/gm)) seen.add(m[1]);
        for (const m of text.matchAll(/^(?:direct successors|leaf variables): (.*)$/gm))
          for (const id of m[1].split(', ')) seen.add(id);
        const [p, n] = [Number(full[1]), Number(full[2])];
        if (p < n) return reply(req, 'explore', { mode: 'full', page: p + 1 });
      }
      const listed = (status?.[3] ?? '')
        .trim()
        .split(', ')
        .filter((x) => x && x !== '(empty)');
      const best = minOf(listed.map(hopsOf));
      const room = MAX_FRONTIER - listed.length;
      const toAdd = [...seen]
        .filter((s) => s !== node && !listed.includes(s) && hopsOf(s) < best)
        .sort((a, b) => hopsOf(a) - hopsOf(b));
      const top = toAdd.length ? hopsOf(toAdd[0]) : 0;
      const pick = toAdd.filter((s) => hopsOf(s) === top).slice(0, room);
      if (!added && pick.length) {
        added = true;
        return reply(req, 'add_to_frontier', { var_ids: pick });
      }
      return reply(req, 'finish_node', {});
    },
  };
}

/**
 * The oracle for OBS, replaying the usual search: overview; grep each golden answer
 * and the question; read the matched blocks earliest first; then scan the log
 * window by window. Answers once the labelled block was shown in full.
 */
export function obsOracle(
  g: TraceGraph,
  label: OracleLabel,
  question: string,
  golden: string[],
): OracleJudge {
  const id = escapeRe(label.op_id);
  const shownRe = new RegExp(
    `^\\[block \\d+ \\(op_id ${id},.*\\] *$|^- block \\d+ \\(op_id ${id},.*\\)$(?<!\\(partly shown\\))`,
    'm',
  );
  const queries = [...golden.filter((s) => s.trim()), question.slice(0, 60)].filter(Boolean);
  const plan: { action: string; args: unknown }[] = [{ action: 'overview', args: {} }];
  for (const q of queries) plan.push({ action: 'grep', args: { pattern: q } });
  const grepped = new Set<string>();
  let matched: string[] | null = null;
  let windowAt = 0;
  let reached = false;
  let logChars = Number.POSITIVE_INFINITY;
  return {
    get reached() {
      return reached;
    },
    step(req) {
      const summary = summaryReply(req);
      if (summary) return summary;
      const text = lastContent(req);
      const size = /log: \d+ blocks, (\d+) chars/.exec(text) ?? /(\d+) characters\./.exec(text);
      if (size) logChars = Number(size[1]);
      const answer = () =>
        reply(req, 'final_answer', {
          error_type: label.error_type,
          op_id: label.op_id,
          reason: 'Oracle: the labelled operation.',
        });
      if (shownRe.test(text)) {
        reached = true;
        return answer();
      }
      if (/iteration budget is used up/.test(text)) return answer();
      for (const m of text.matchAll(/^\d+\. block (\d+) \(op_id (\S+?),/gm)) {
        if (!grepped.has(m[2])) {
          grepped.add(m[2]);
          matched = null;
        }
      }
      const next = plan.shift();
      if (next) return reply(req, next.action, next.args);
      if (matched === null) {
        // Matched blocks in execution order (op ids map to blocks; earlier blocks first).
        matched = [...grepped].sort(
          (a, b) => g.opRank[g.opIndex.get(a) ?? 0] - g.opRank[g.opIndex.get(b) ?? 0],
        );
        if (matched.includes(label.op_id)) matched = [label.op_id];
      }
      const op = matched.shift();
      if (op) return reply(req, 'view_op', { op_id: op });
      if (windowAt >= logChars) return answer(); // read everything without seeing it: give up
      const at = windowAt;
      windowAt += 32_000;
      return reply(req, 'window', { offset: at });
    },
  };
}
