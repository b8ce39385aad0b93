/**
 * What a span read and wrote, as the graph builder takes it: content items (texts with the part
 * they play), memory-store reads and writes, and evaluations.
 */
import { asText } from './attrs.ts';
import { type ChatMessage, chatMessages, TOOL_CALL_ROLE, TOOL_DEFINITION_ROLE } from './messages.ts';
import { type AttrValue, maybeJson } from './values.ts';

/** What part an item plays; it picks the variable's category on first sight. */
export type ItemRole =
  | 'prompt'
  | 'message'
  | 'query'
  | 'output'
  | 'tool'
  | 'document'
  | 'record'
  | 'value'
  /** A tool's name in a model's call of it. */
  | 'tool_call'
  /** A tool definition (name, description, parameters) a model or agent was given. */
  | 'tool_definition'
  /** An evaluator's comment or explanation of its verdict. */
  | 'comment';

export interface ContentItem {
  text: string;
  /** Filled by the graph builder: the text's `textSlot`, computed once. */
  slot?: string;
  role: ItemRole;
  /** A namespace for the variable (smartcomment `class_name`), when the span says which. */
  className?: string;
}

export type MemoryOp = 'create' | 'update' | 'upsert' | 'delete' | 'search' | 'create_store' | 'delete_store';

export interface MemoryRecordRef {
  id: string | null;
  content: string | null;
}

export interface SpanMemory {
  op: MemoryOp;
  store: string | null;
  records: MemoryRecordRef[];
}

export interface SpanEvaluation {
  name: string;
  score: number | null;
  label: string | null;
  explanation: string | null;
  query: string | null;
  golden: string | null;
  prediction: string | null;
}

/** The class names the paper's tools pick the judge's variables by. */
export const JUDGE_CLASSES = [
  'query',
  'golden_answers',
  'prediction',
  'judge_response',
  'judge_score',
] as const;

/** An input message's part: instructions are prompts, tool results are tool results, the rest messages. */
export function roleOf(role: unknown): ItemRole {
  if (role === 'system' || role === 'developer') return 'prompt';
  if (role === 'tool') return 'tool';
  if (role === TOOL_CALL_ROLE) return 'tool_call';
  if (role === TOOL_DEFINITION_ROLE) return 'tool_definition';
  return 'message';
}

/** Roles an output message keeps: a call's tool name, and the instructions and tools a response echoes. */
const KEPT_IN_OUTPUT: ReadonlySet<ItemRole> = new Set(['tool_call', 'prompt', 'tool_definition']);

/** What a span was given rather than what it made: instructions and tool definitions. */
export const GIVEN: ReadonlySet<ItemRole> = new Set(['prompt', 'tool_definition']);

/** A class name carried by a message (`name`) when it is one the judge rule uses. */
export function classOf(name: unknown): string | undefined {
  return typeof name === 'string' && (JUDGE_CLASSES as readonly string[]).includes(name) ? name : undefined;
}

/**
 * Messages as content items: inputs by their role, outputs as outputs (a tool call's name, and
 * instructions a response echoes, keep theirs); judge names kept as classes.
 */
export function messageItems(messages: readonly ChatMessage[], output: boolean): ContentItem[] {
  return messages.map((m) => {
    const className = classOf(m.name);
    const role = roleOf(m.role);
    return {
      text: m.text,
      role: output && !KEPT_IN_OUTPUT.has(role) ? 'output' : role,
      ...(className ? { className } : {}),
    };
  });
}

/**
 * Messages when the value (JSON text unless `plain`) holds chat messages (Langfuse generations,
 * LangChain state, an OpenAI response), else one item: the value as written, so tool arguments
 * keep the spelling the model wrote them in.
 */
export function valueItems(v: AttrValue | undefined, output: boolean, plain = false): ContentItem[] {
  if (v === undefined || v === null) return [];
  const parsed = plain ? v : maybeJson(v);
  const messages = typeof parsed === 'string' ? null : chatMessages(parsed);
  if (messages?.length) return messageItems(messages, output);
  const text = asText(v);
  return text === null || text === '' ? [] : [{ text, role: output ? 'output' : 'value' }];
}

/** The convention a span's kind was read from (`none`: no kind, content read by value alone). */
export type Convention =
  | 'genai'
  | 'openinference'
  | 'vercel-ai'
  | 'traceloop'
  | 'langfuse'
  | 'langsmith'
  | 'none';

export interface SpanContent {
  convention: Convention;
  /** The operation or kind as written (`chat`, `LLM`, `ai.generateText`, `workflow`). */
  kind: string | null;
  category: string;
  inputs: ContentItem[];
  outputs: ContentItem[];
  /** Memory-store reads and writes (records by store id + record id). */
  memory: SpanMemory | null;
  evaluations: SpanEvaluation[];
  session: string | null;
  /** Whether the span carried any content attribute (capture may have been off). */
  hasContent: boolean;
}
