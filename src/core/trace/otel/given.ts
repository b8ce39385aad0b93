/**
 * What a span was given besides its messages, in every convention's words, read whichever
 * reader found the messages: system instructions (GenAI `gen_ai.system_instructions`, Strands'
 * `system_prompt`) and tool definitions (GenAI `gen_ai.tool.definitions`, Strands'
 * `gen_ai.agent.tools`, a tool span's `gen_ai.tool.description`; OpenInference `llm.tools.N.
 * tool.json_schema` and a TOOL span's `tool.description` / `tool.parameters`; Vercel AI SDK
 * `ai.prompt.tools`; OpenLLMetry `llm.request.functions.N.*`). They become the span's first
 * inputs, each text once.
 */
import {
  LLM_TOOLS,
  TOOL_DESCRIPTION,
  TOOL_JSON_SCHEMA,
  TOOL_PARAMETERS,
} from '@arizeai/openinference-semantic-conventions';
import {
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_DEFINITIONS,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
} from '@opentelemetry/semantic-conventions/incubating';
import { type Attrs, asText, indexed, isObject } from './attrs.ts';
import type { ContentItem, SpanContent } from './items.ts';
import { chatMessages } from './messages.ts';
import { maybeJson } from './values.ts';

/** Instructions under other names: Strands' agent span, and a dotted spelling some bridges write. */
const INSTRUCTION_KEYS = [ATTR_GEN_AI_SYSTEM_INSTRUCTIONS, 'gen_ai.system.instructions', 'system_prompt'];

/** Attributes each holding a list of tool definitions (JSON text or a list). */
const DEFINITION_LISTS = [ATTR_GEN_AI_TOOL_DEFINITIONS, 'ai.prompt.tools'];

/** Attributes each holding one tool's definition text. */
const DEFINITION_TEXTS = [
  'gen_ai.agent.tools',
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  TOOL_DESCRIPTION,
  TOOL_PARAMETERS,
];

function instructions(a: Attrs): ContentItem[] {
  const out: ContentItem[] = [];
  for (const key of INSTRUCTION_KEYS)
    for (const m of chatMessages(a[key]) ?? []) out.push({ text: m.text, role: 'prompt' });
  return out;
}

/** One item per definition of a list: a string as written, an object as JSON. */
function definitionList(a: Attrs, key: string): ContentItem[] {
  const list = maybeJson(a[key]);
  if (!Array.isArray(list)) return [];
  const out: ContentItem[] = [];
  for (const d of list) {
    const text = asText(d);
    if (text) out.push({ text, role: 'tool_definition' });
  }
  return out;
}

/** Flattened rows (`llm.tools.0.tool.json_schema`, `llm.request.functions.0.name`) as definitions. */
function definitionRows(a: Attrs): ContentItem[] {
  const out: ContentItem[] = [];
  for (const row of indexed(a, LLM_TOOLS)) {
    const text = asText(row[TOOL_JSON_SCHEMA] ?? null) ?? JSON.stringify(row);
    out.push({ text, role: 'tool_definition' });
  }
  for (const row of indexed(a, 'llm.request.functions'))
    out.push({ text: JSON.stringify(isObject(row) ? row : {}), role: 'tool_definition' });
  return out;
}

function definitions(a: Attrs): ContentItem[] {
  const out = DEFINITION_LISTS.flatMap((key) => definitionList(a, key));
  for (const key of DEFINITION_TEXTS) {
    const text = asText(a[key] ?? null);
    if (text) out.push({ text, role: 'tool_definition' });
  }
  return [...out, ...definitionRows(a)];
}

/** Puts the instructions and tool definitions of a span's attributes before its inputs, each text once. */
export function readGiven(a: Attrs, c: SpanContent): void {
  const seen = new Set(c.inputs.map((x) => x.text));
  const given: ContentItem[] = [];
  for (const it of [...instructions(a), ...definitions(a)]) {
    if (it.text === '' || seen.has(it.text)) continue;
    seen.add(it.text);
    given.push(it);
  }
  if (given.length) c.inputs = [...given, ...c.inputs];
}
