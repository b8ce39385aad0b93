/** A conversation cut to its first sessions, with only the questions those sessions can answer. */
import type { Conversation } from './types.ts';

/**
 * The first `n` sessions and the questions about them: asked within them (before session
 * n + 1 at the latest), or — asked after the whole conversation, as in LoCoMo — whose every
 * evidence turn lies in them. A question without evidence turns is kept only when asked within.
 */
export function withinSessions(conv: Conversation, n: number): Conversation {
  if (n >= conv.sessions.length) return conv;
  const sessions = conv.sessions.slice(0, n);
  const turns = new Set(sessions.flatMap((s) => s.turns.map((t) => t.id)));
  const questions = conv.questions.filter(
    (q) => q.askedBefore <= n + 1 || (q.evidence.length > 0 && q.evidence.every((e) => turns.has(e))),
  );
  return {
    ...conv,
    sessions,
    questions: questions.map((q) => ({ ...q, askedBefore: Math.min(q.askedBefore, n + 1) })),
  };
}
