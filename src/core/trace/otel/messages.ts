/**
 * Chat messages in the shapes tools record them, read as a role and a text: OpenAI chat
 * (`{role, content}` with text parts and `tool_calls`, a completion's `choices`), OpenAI
 * Responses (`output` items `message`, `function_call`, `function_call_output`), GenAI parts
 * (`{role, parts}`), LangChain (`{type: "human"|"ai"|…, content}`, `{messages: […]}`), Bedrock /
 * Strands content blocks (`{text}`, `{toolUse}`, `{toolResult}`), Vercel AI SDK prompts
 * (`{system, prompt, messages}`, parts `{type: "text"|"tool-call"|"tool-result"}`) and function
 * arguments (`{args: […]}`). A tool call's text is its arguments as written, so the tool span
 * that receives them reads the same variable; the tool's name follows it as a message of role
 * `tool_call`. A request's or response's instructions (`system`, `instructions`) are a `system`
 * message, and its tool definitions (`tools`) messages of role `tool_definition`.
 */

import { appendAll } from '../../arrays.ts';
import { type AttrValue, maybeJson } from './values.ts';

/** One message: its role when the writer said it (`user`, `assistant`, `system`, `tool`, …) and its text. */
export interface ChatMessage {
  role: string | null;
  text: string;
  /** The message's `name` (a judge names its question, golden answer and prediction so). */
  name?: string;
  /** The tool calls of the message: made messages of their own by `chatMessages`. */
  calls?: ToolCall[];
}

/** One tool call: its tool's name and its arguments as written. */
export interface ToolCall {
  name: string | null;
  args: string | null;
}

/** The role of a message that is a tool call's name. */
export const TOOL_CALL_ROLE = 'tool_call';
/** The role of a message that is one tool definition of a request. */
export const TOOL_DEFINITION_ROLE = 'tool_definition';

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

const CALL_PARTS = new Set(['tool-call', 'tool_call', 'tool_use', 'function_call']);

/** The call of a tool call object (an OpenAI `{function: {name, arguments}}`, a LangChain `{name, args}`, a part). */
function callOf(c: Obj): ToolCall {
  const fn = isObject(c.function) ? c.function : c;
  return {
    name: str(fn.name) ?? str(fn.toolName),
    args: argText(fn.arguments ?? fn.args ?? fn.input ?? null),
  };
}

/**
 * A tool call part (GenAI `tool_call`, Vercel `tool-call`, Anthropic `tool_use`, Bedrock /
 * Strands `toolUse`), filed in `calls`: true when the part is one.
 */
function callPart(p: Obj, calls: ToolCall[]): boolean {
  const call = isObject(p.toolUse)
    ? p.toolUse
    : typeof p.type === 'string' && CALL_PARTS.has(p.type)
      ? p
      : null;
  if (call) calls.push(callOf(call));
  return call !== null;
}

/** The text of one content part (a string, `{text}`, a tool call or result block, a GenAI part). */
function partText(p: AttrValue, names: ToolCall[]): string | null {
  if (typeof p === 'string') return p;
  if (!isObject(p)) return argText(p);
  if (typeof p.text === 'string') return p.text;
  if (callPart(p, names)) return null;
  if (p.type === 'tool-result' || p.type === 'tool_call_response')
    return argText(p.output ?? p.result ?? p.response);
  if (isObject(p.toolResult)) return contentText(p.toolResult.content, names);
  if (p.content !== undefined) return contentText(p.content, names);
  return argText(p.result ?? p.response ?? p.arguments ?? null) ?? JSON.stringify(p);
}

/** A message's content: a string, a list of parts (joined by lines) or one part; tool calls go to `names`. */
function contentText(c: AttrValue | undefined, names: ToolCall[]): string | null {
  if (c === undefined || c === null) return null;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    const texts = c.map((p) => partText(p, names)).filter((t): t is string => t !== null);
    return texts.length ? texts.join('\n') : null;
  }
  return partText(c, names);
}

/** The tool calls of an assistant message (OpenAI, LangChain, Vercel), filed in `calls`. */
function toolCalls(o: Obj, calls: ToolCall[]): void {
  const kwargs = isObject(o.additional_kwargs) ? o.additional_kwargs : {};
  const list = o.tool_calls ?? kwargs.tool_calls ?? o.toolCalls;
  if (Array.isArray(list))
    for (const c of list) calls.push(isObject(c) ? callOf(c) : { name: null, args: argText(c) });
}

/** A tool definition: `{type: "function", function: {name, …}}` or `{name, description|parameters}`. */
function isDefinition(v: AttrValue | undefined): boolean {
  if (!isObject(v)) return false;
  const fn = v.type === 'function' && isObject(v.function) ? v.function : v;
  return typeof fn.name === 'string' && (fn.description !== undefined || fn.parameters !== undefined);
}

/** One message object, or null when the object is not one. */
function messageOf(o: Obj): ChatMessage | null {
  if (o.type === 'function_call') return { role: 'assistant', text: '', calls: [callOf(o)] };
  if (o.type === 'function_call_output') return { role: 'tool', text: argText(o.output) ?? '' };
  if (isObject(o.message)) return messageOf(o.message); // a choice: {index, message, finish_reason}
  const role = str(o.role) ?? (typeof o.type === 'string' ? (ROLE_OF_TYPE.get(o.type) ?? null) : null);
  // Langfuse's ChatML of a LangChain call gives each tool definition as a `tool` message.
  if (role === 'tool' && isDefinition(o.content))
    return { role: TOOL_DEFINITION_ROLE, text: JSON.stringify(o.content) };
  const calls: ToolCall[] = [];
  let text: string | null = null;
  if (Array.isArray(o.parts)) text = contentText(o.parts, calls);
  else if (o.content !== undefined && o.content !== null && o.content !== '')
    text = contentText(o.content, calls);
  else if (typeof o.text === 'string') text = o.text;
  else if (isObject(o.toolUse) || isObject(o.toolResult)) text = partText(o, calls);
  toolCalls(o, calls);
  if (text === null && role === null && !calls.length) return null;
  const name = str(o.name);
  return { role, text: text ?? '', ...(name ? { name } : {}), ...(calls.length ? { calls } : {}) };
}

/** One tool definition as written: a string as it is, an object as JSON. */
const definitionText = (d: AttrValue): string | null => (typeof d === 'string' ? d : argText(d));

/** A request's or response's instructions and tool definitions, as messages. */
function headOf(o: Obj): ChatMessage[] {
  const head: ChatMessage[] = [];
  const system = str(o.system) ?? str(o.instructions);
  if (system) head.push({ role: 'system', text: system });
  if (Array.isArray(o.tools))
    for (const d of o.tools) {
      const text = definitionText(d);
      if (text) head.push({ role: TOOL_DEFINITION_ROLE, text });
    }
  return head;
}

/** The messages of an object that holds some (a prompt, a conversation state, a response), or null. */
function messagesIn(o: Obj): ChatMessage[] | null {
  const head = headOf(o);
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
  ) {
    const list = listMessages(o.output);
    return list && [...head, ...list];
  }
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
  return list ? expandToolCalls(list).filter((m) => m.text !== '') : null;
}

/**
 * Each message followed by its tool calls: the arguments (in the message's role: the tool span
 * that receives them reads the same text) and the tool's name (a `tool_call` message).
 */
export function expandToolCalls(list: ChatMessage[]): ChatMessage[] {
  if (!list.some((m) => m.calls)) return list;
  return list.flatMap((m) => {
    if (!m.calls) return [m];
    const calls = m.calls.flatMap((c) => [
      ...(c.args !== null ? [{ role: m.role, text: c.args }] : []),
      ...(c.name ? [{ role: TOOL_CALL_ROLE, text: c.name }] : []),
    ]);
    return [{ role: m.role, text: m.text, ...(m.name ? { name: m.name } : {}) }, ...calls];
  });
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
