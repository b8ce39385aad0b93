/**
 * Chat messages in the shapes tools record them, read as a role and a text: OpenAI chat
 * (`{role, content}` with text parts and `tool_calls`, a completion's `choices`), OpenAI
 * Responses (`output` items `message`, `function_call`, `function_call_output`), GenAI parts
 * (`{role, parts}`), LangChain (`{type: "human"|"ai"|…, content}`, `{messages: […]}`), Bedrock /
 * Strands content blocks (`{text}`, `{toolUse}`, `{toolResult}`), Vercel AI SDK prompts
 * (`{system, prompt, messages}`, parts `{type: "text"|"tool-call"|"tool-result"}`) and function
 * arguments (`{args: […]}`). A tool call's text is its arguments as written, so the tool span
 * that receives them reads the same variable.
 */

import { appendAll } from '../../arrays.ts';
import { type AttrValue, maybeJson } from './values.ts';

/** One message: its role when the writer said it (`user`, `assistant`, `system`, `tool`, …) and its text. */
export interface ChatMessage {
  role: string | null;
  text: string;
  /** The message's `name` (a judge names its question, golden answer and prediction so). */
  name?: string;
}

type Obj = { [key: string]: AttrValue };

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const str = (v: AttrValue | undefined): string | null => (typeof v === 'string' ? v : null);

/** LangChain message types → roles. A Map: a type read from a file is never an object key. */
const ROLE_OF_TYPE = new Map([
  ['human', 'user'],
  ['user', 'user'],
  ['ai', 'assistant'],
  ['assistant', 'assistant'],
  ['AIMessageChunk', 'assistant'],
  ['system', 'system'],
  ['tool', 'tool'],
  ['function', 'tool'],
]);

/** Arguments or a result as written: a string as it is, anything else as JSON. */
function argText(v: AttrValue | undefined): string | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The text of one content part (a string, `{text}`, a tool call or result block, a GenAI part). */
function partText(p: AttrValue): string | null {
  if (typeof p === 'string') return p;
  if (!isObject(p)) return argText(p);
  if (typeof p.text === 'string') return p.text;
  if (p.type === 'tool-call' || p.type === 'tool_call') return argText(p.input ?? p.args ?? p.arguments);
  if (p.type === 'tool-result' || p.type === 'tool_call_response')
    return argText(p.output ?? p.result ?? p.response);
  if (isObject(p.toolUse)) return argText(p.toolUse.input);
  if (isObject(p.toolResult)) return contentText(p.toolResult.content);
  if (p.content !== undefined) return contentText(p.content);
  return argText(p.result ?? p.response ?? p.arguments ?? null) ?? JSON.stringify(p);
}

/** A message's content: a string, a list of parts (joined by lines) or one part. */
function contentText(c: AttrValue | undefined): string | null {
  if (c === undefined || c === null) return null;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    const texts = c.map(partText).filter((t): t is string => t !== null);
    return texts.length ? texts.join('\n') : null;
  }
  return partText(c);
}

/** The arguments of an assistant message's tool calls (OpenAI, LangChain, Vercel), one per line. */
function toolCallsText(o: Obj): string | null {
  const kwargs = isObject(o.additional_kwargs) ? o.additional_kwargs : {};
  const calls = o.tool_calls ?? kwargs.tool_calls ?? o.toolCalls;
  if (!Array.isArray(calls) || !calls.length) return null;
  const texts = calls.map((c) => {
    if (!isObject(c)) return argText(c);
    const fn = isObject(c.function) ? c.function : c;
    return argText(fn.arguments ?? fn.args ?? fn.input ?? null);
  });
  return texts.filter((t): t is string => t !== null).join('\n');
}

/** One message object, or null when the object is not one. */
function messageOf(o: Obj): ChatMessage | null {
  if (o.type === 'function_call') return { role: 'assistant', text: argText(o.arguments) ?? '' };
  if (o.type === 'function_call_output') return { role: 'tool', text: argText(o.output) ?? '' };
  if (isObject(o.message)) return messageOf(o.message); // a choice: {index, message, finish_reason}
  const role = str(o.role) ?? (typeof o.type === 'string' ? (ROLE_OF_TYPE.get(o.type) ?? null) : null);
  let text: string | null = null;
  if (Array.isArray(o.parts)) text = contentText(o.parts);
  else if (o.content !== undefined && o.content !== null && o.content !== '') text = contentText(o.content);
  else if (typeof o.text === 'string') text = o.text;
  else if (isObject(o.toolUse) || isObject(o.toolResult)) text = partText(o);
  if (!text) text = toolCallsText(o) ?? text;
  if (text === null && role === null) return null;
  const name = str(o.name);
  return { role, text: text ?? '', ...(name ? { name } : {}) };
}

/** The messages of an object that holds some (a prompt, a conversation state, a response), or null. */
function messagesIn(o: Obj): ChatMessage[] | null {
  const system = str(o.system);
  const head: ChatMessage[] = system ? [{ role: 'system', text: system }] : [];
  if (Array.isArray(o.messages)) {
    const list = listMessages(o.messages) ?? [];
    const prompt = str(o.prompt);
    return [...head, ...list, ...(prompt ? [{ role: 'user', text: prompt }] : [])];
  }
  if (o.prompt !== undefined && o.prompt !== null)
    return [
      ...head,
      ...(typeof o.prompt === 'string' ? [{ role: 'user', text: o.prompt }] : (chatMessages(o.prompt) ?? [])),
    ];
  if (
    Array.isArray(o.output) &&
    (o.object === 'response' || o.output.every((x) => isObject(x) && 'type' in x))
  )
    return listMessages(o.output);
  if (Array.isArray(o.choices)) return listMessages(o.choices);
  if (Array.isArray(o.args) && o.args.length && o.args.every((a) => typeof a === 'string'))
    return o.args.map((a) => ({ role: null, text: a as string }));
  const m = messageOf(o);
  return m ? [m] : null;
}

/** A list of messages (strings count as messages without a role); null when an item is not one. */
function listMessages(list: AttrValue[]): ChatMessage[] | null {
  const out: ChatMessage[] = [];
  for (const item of list) {
    if (typeof item === 'string') out.push({ role: null, text: item });
    else if (isObject(item)) {
      const m = messagesIn(item);
      if (!m) return null;
      appendAll(out, m);
    } else return null;
  }
  return out;
}

/**
 * The messages of a value (JSON text is parsed first) in any of the shapes above, without the
 * empty ones; a plain text is one message without a role. Null when the value is not
 * message-shaped (then the caller keeps it whole, as JSON text).
 */
export function chatMessages(v: AttrValue | undefined): ChatMessage[] | null {
  const value = maybeJson(v);
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value ? [{ role: null, text: value }] : [];
  const list = Array.isArray(value) ? listMessages(value) : isObject(value) ? messagesIn(value) : null;
  return list ? list.filter((m) => m.text !== '') : null;
}

const ROLE_LINE = /^(system|user|assistant|tool|developer|function): /;

/**
 * OpenLIT's prompt text: one `role: content` line per message (content may run over several
 * lines). Null when the text does not start so.
 */
export function roleLines(text: string): ChatMessage[] | null {
  if (!ROLE_LINE.test(text)) return null;
  const out: ChatMessage[] = [];
  for (const line of text.split('\n')) {
    const m = ROLE_LINE.exec(line);
    if (m) out.push({ role: m[1], text: line.slice(m[0].length) });
    else out[out.length - 1].text += `\n${line}`;
  }
  return out;
}
