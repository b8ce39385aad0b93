/**
 * The planted scenario of the memory-app test: conversations, the facts the scripted
 * extraction returns for them, and the questions with their golden answers and the stage each
 * plant breaks. The scripted double reads this table; the test checks each plant happened.
 */

import type { ScriptedRequest } from '../helpers/scripted-llm-server.ts';
import { ANSWER_PROMPT, EXTRACT_PROMPT } from './memory-app.ts';

/** What a planted question breaks (`ok`: nothing; the question is answered right). */
export type Plant = 'ok' | 'Extraction' | 'Retrieval' | 'Response';

/** One fact the user says in a conversation, and the question asked about it later. */
export interface Item {
  said: string;
  fact: string;
  question: string | null;
  answer: string;
  /** The answer call's reply when the fact is in its memories. */
  reply: string;
  plant: Plant;
}

const item = (said: string, fact: string, plant: Plant, q: string | null, answer = '', reply = '') => ({
  said,
  fact,
  question: q,
  answer,
  reply,
  plant,
});

/** The conversations, one list of items each (distractors are items without a question). */
export const CONVERSATIONS: Item[][] = [
  [
    item(
      'My friend Tom did move to another city.',
      "User's friend Tom did move to another city.",
      'ok',
      null,
    ),
    item('I want to move to a city by the sea.', 'User wants to move to a city by the sea.', 'ok', null),
    item(
      'I cook food that guests are not allergic to.',
      'User cooks food that guests are not allergic to.',
      'ok',
      null,
    ),
    item(
      'I asked which food a guest is allergic to.',
      'User asked which food a guest is allergic to.',
      'ok',
      null,
    ),
    item(
      'I adopted a grey cat called Miso last week.',
      'User adopted a grey cat called Miso.',
      'ok',
      'What is the name of my cat?',
      'Miso',
      'Your cat is called Miso.',
    ),
    item(
      "I work as a nurse at St Mary's hospital.",
      "User works as a nurse at St Mary's hospital.",
      'Extraction',
      'Where do I work as a nurse?',
      "St Mary's hospital",
      "You work at St Mary's hospital.",
    ),
    item(
      'My sister Ana moved to Lisbon in May.',
      "User's sister Ana moved to Lisbon.",
      'Retrieval',
      'Which city did my sister move to?',
      'Lisbon',
      'Your sister moved to Lisbon.',
    ),
    item(
      'My favourite food is ramen.',
      "User's favourite food is ramen.",
      'Response',
      'What is my favourite food?',
      'ramen',
      'Your favourite food is sushi.',
    ),
  ],
  [
    item(
      'I drive a blue Toyota Corolla car.',
      'User drives a blue Toyota Corolla car.',
      'ok',
      'What car do I drive?',
      'Toyota Corolla',
      'You drive a blue Toyota Corolla.',
    ),
    item(
      'I ran the Berlin marathon last September.',
      'User ran the Berlin marathon in September.',
      'Extraction',
      'Which marathon did I run last September?',
      'Berlin',
      'You ran the Berlin marathon.',
    ),
    item(
      "I'm allergic to peanuts.",
      'User is allergic to peanuts.',
      'Retrieval',
      'Which food am I allergic to?',
      'peanuts',
      'You are allergic to peanuts.',
    ),
    item(
      'I play the guitar every Tuesday evening.',
      'User plays the guitar every Tuesday evening.',
      'Response',
      'Which instrument do I play on Tuesday evening?',
      'guitar',
      'You play the piano on Tuesday evenings.',
    ),
  ],
  [
    item(
      'The dentist appointment when is it, I asked twice.',
      'User asked twice when the dentist appointment is.',
      'ok',
      null,
    ),
    item(
      'I keep asking when my dentist appointment is scheduled.',
      'User keeps asking when the dentist appointment is scheduled.',
      'ok',
      null,
    ),
    item(
      'My dentist appointment is on Friday the 12th.',
      "User's dentist appointment is on Friday the 12th.",
      'Retrieval',
      'When is my dentist appointment?',
      'Friday the 12th',
      'Your dentist appointment is on Friday the 12th.',
    ),
    item(
      'My daughter Lily turns seven in June.',
      "User's daughter Lily turns seven in June.",
      'Extraction',
      'How old will my daughter Lily turn in June?',
      'seven',
      'Lily turns seven in June.',
    ),
    item(
      'I bought a red bicycle for commuting.',
      'User bought a red bicycle for commuting.',
      'Response',
      'What colour is my bicycle?',
      'red',
      'Your bicycle is green.',
    ),
    item(
      'I speak Japanese fluently.',
      'User speaks Japanese fluently.',
      'ok',
      'Which language do I speak fluently?',
      'Japanese',
      'You speak fluent Japanese.',
    ),
  ],
];

/** The conversation text the app is given. */
export function conversationText(items: Item[]): string {
  return items.map((it) => `User: ${it.said}\nAssistant: Noted!`).join('\n');
}

/** Every item with a question. */
export const QUESTIONS = CONVERSATIONS.flat().filter((it) => it.question !== null);

/**
 * The scripted double's replies (tests/helpers/scripted-llm-server.ts: a test double of an
 * OpenAI-compatible server on 127.0.0.1, since no model runs here): extraction returns each item's fact but the Extraction
 * plants'; the answer call gives an item's reply when its fact is in the memories (the
 * Response plants' reply is wrong), else "I don't know.".
 */
export function scriptedReply({ messages }: Pick<ScriptedRequest, 'messages'>): string {
  const system = messages.find((m) => m.role === 'system')?.content;
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  if (system === EXTRACT_PROMPT) {
    const items = CONVERSATIONS.find((c) => conversationText(c) === user) ?? [];
    return JSON.stringify({
      facts: items.filter((it) => it.plant !== 'Extraction' || !it.question).map((it) => it.fact),
    });
  }
  if (system === ANSWER_PROMPT) {
    const it = QUESTIONS.find((q) => user.endsWith(`Question: ${q.question}`));
    if (it && user.includes(it.fact)) return it.reply;
    return "I don't know.";
  }
  return 'Unexpected request.';
}
