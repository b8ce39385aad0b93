/**
 * A prompt-sensitive scripted model — a test double in every role of the loop, served
 * over HTTP by tests/helpers/scripted-llm-server.ts. It reacts to the prompts it is given:
 * - Mem0 fact extraction: with the marker RULE-A in the prompt it keeps every message as a
 *   fact; with RULE-B only the messages of `favoured` speakers (it overfits); otherwise it
 *   drops messages holding a time word or a digit (so temporal evidence is lost). The message
 *   is the user message's second line: "Date: …\nSpeaker: text" (the reference Mem0) or
 *   "Input:\nSpeaker: text" (mem0ai with a `customPrompt`);
 * - update decisions (the reference Mem0's prompt and mem0ai's own): ADD every fact;
 * - answers: the offline extractive answerer over the memories; judge: the offline judge —
 *   so scores follow from what was extracted;
 * - optimiser: fixed feedback, and the rewrite the test passes in.
 */
import { offlineJudge } from '../../src/systems/judge.ts';
import { extractiveAnswer } from '../../src/systems/offline.ts';
import type { ScriptedRequest } from '../helpers/scripted-llm-server.ts';

const TIME_WORDS = /\d|\b(yesterday|today|tomorrow|last|next|ago|week|weekend|month|year|since|recently)\b/i;

interface PromptSensitiveOptions {
  /** The optimiser's rewrite of a prompt value. */
  rewrite: (current: string) => string;
  /** Speakers RULE-B keeps. */
  favoured?: string[];
}

const between = (text: string, a: string, b: string) => {
  const i = text.indexOf(a);
  if (i < 0) return '';
  const j = text.indexOf(b, i + a.length);
  return text.slice(i + a.length, j < 0 ? undefined : j);
};

export function promptSensitiveModel(o: PromptSensitiveOptions) {
  return (r: ScriptedRequest): string => {
    const system = r.messages.find((m) => m.role === 'system')?.content ?? '';
    const user = [...r.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    if (system.includes('Personal Information Organizer')) {
      const line = user.split('\n')[1] ?? '';
      const speaker = line.slice(0, line.indexOf(':'));
      const keep = system.includes('RULE-A')
        ? true
        : system.includes('RULE-B')
          ? (o.favoured ?? []).includes(speaker)
          : !TIME_WORDS.test(line.slice(speaker.length + 1));
      return JSON.stringify({ facts: keep ? [line] : [] });
    }
    if (system === 'You manage a memory store.') {
      const facts = JSON.parse(between(user, 'New facts:\n', '\n\n') || '[]') as string[];
      return JSON.stringify({ memory: facts.map((text) => ({ id: 'new', text, event: 'ADD' })) });
    }
    // mem0ai 2.4's own update prompt (one user message, written in its code).
    if (!system && user.startsWith('You are a smart memory manager')) {
      const facts = JSON.parse(
        between(user, 'deleted in the memory.\n', '\n  Follow the instruction') || '[]',
      ) as string[];
      return JSON.stringify({ memory: facts.map((text) => ({ id: 'new', text, event: 'ADD' })) });
    }
    if (system === 'You answer questions from memories.') {
      const memories = between(user, 'Memories:\n', '\n\nQuestion: ').split('\n').filter(Boolean);
      const question = between(user, '\n\nQuestion: ', '\nAnswer:');
      return extractiveAnswer(question, memories);
    }
    if (user.startsWith('Your task is to label an answer')) {
      const gold = between(user, '\nGold answer: ', '\nGenerated answer: ');
      const prediction = between(user, '\nGenerated answer: ', '\n\n');
      return JSON.stringify({
        label: offlineJudge(prediction, gold.split(' | ')).correct ? 'CORRECT' : 'WRONG',
      });
    }
    if (user.includes("Generate feedback for improving one target variable's value"))
      return JSON.stringify({
        rationale: 'the evidence never became a fact',
        feedback: 'Keep facts that hold dates and times.',
      });
    if (user.includes('Aggregate these feedback suggestions'))
      return JSON.stringify({
        rationale: 'all say the same',
        aggregated_feedback: 'Keep facts that hold dates and times.',
      });
    if (user.includes('Improve the current value of the target variable')) {
      const current = between(user, 'Value:\n', '\n\n## Aggregated feedback');
      return JSON.stringify({ rationale: 'as the feedback says', improved_value: o.rewrite(current) });
    }
    return `unexpected request: ${user.slice(0, 80)}`;
  };
}
