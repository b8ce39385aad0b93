/**
 * Structured output on every provider: a JSON protocol validated with zod, with bounded
 * repair retries that show the model its error; native tool calls where the provider
 * has them. `completeJson` returns one validated object; `completeAction` lets the model
 * pick one of several named actions (an agent step).
 */
import { z } from 'zod';
import { LlmError } from './errors.ts';
import type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  JsonSchema,
  ToolCall,
  Usage,
} from './types.ts';
import { addSpent, noSpend, spentOfError, spentOfResponse, withSpent } from './usage.ts';

/**
 * Options of `completeJson` and `completeAction`: repair rounds, and JSON in the text or a forced tool
 * call.
 */
export interface StructuredOptions {
  /** Repair rounds after the first answer (default 2). */
  maxRepairs?: number;
  /** `json`: JSON in the reply text; `tool`: a forced native tool call; `auto` (default): tool if the provider has native tools. */
  mode?: 'auto' | 'json' | 'tool';
}

/**
 * A validated structured answer, with the response it came in and what all the calls (repairs and retries
 * included) cost.
 */
export interface StructuredResult<T> {
  value: T;
  /** The last response (the one that validated). */
  response: ChatResponse;
  /** Requests that reached the endpoint, repairs and retries included. */
  calls: number;
  /** Usage summed over all calls. */
  usage: Usage;
}

/** A chat request without the output-shape fields, which the structured calls set themselves. */
export type BaseRequest = Omit<ChatRequest, 'responseFormat' | 'tools' | 'toolChoice'>;

/** JSON Schema of a zod schema (undefined for the few types JSON Schema cannot say). */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema | undefined {
  try {
    const s = z.toJSONSchema(schema, { unrepresentable: 'any' }) as JsonSchema;
    delete s.$schema;
    return s;
  } catch {
    return undefined;
  }
}

/**
 * The JSON inside a reply: drops `<think>…</think>` (Qwen3), code fences and prose around
 * the outermost object or array. Throws a SyntaxError the model can act on.
 */
export function extractJson(text: string): unknown {
  let t = text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fence = t.match(/```(?:json)?\s*([\s\S]*?)```/i);
  if (fence) t = fence[1].trim();
  const start = t.search(/[{[]/);
  if (start < 0) throw new SyntaxError('no JSON object found in the reply');
  const open = t[start];
  const end = t.lastIndexOf(open === '{' ? '}' : ']');
  if (end <= start) throw new SyntaxError('the JSON object is not closed');
  return JSON.parse(t.slice(start, end + 1));
}

function describe(e: unknown): string {
  if (e instanceof z.ZodError) return z.prettifyError(e);
  return e instanceof Error ? e.message : String(e);
}

function withInstruction(messages: ChatMessage[], instruction: string): ChatMessage[] {
  const out = [...messages];
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i];
    if (m.role === 'user') {
      out[i] = { role: 'user', content: `${m.content}\n\n${instruction}` };
      return out;
    }
  }
  return [...out, { role: 'user', content: instruction }];
}

interface Attempted {
  raw: unknown;
  call?: ToolCall;
}

/**
 * Shared loop: ask, read (tool call or text), validate, and on failure show the model
 * its error and ask again, at most `maxRepairs` times.
 */
async function loop<T>(
  model: ChatModel,
  req: ChatRequest,
  useTool: boolean,
  read: (res: ChatResponse) => Attempted,
  validate: (a: Attempted) => T,
  maxRepairs: number,
): Promise<StructuredResult<T>> {
  let messages = req.messages;
  // Every reply costs, also the ones that cannot be used: a failure carries the sum as `spent`.
  const spent = noSpend();
  let lastError = '';
  for (let call = 1; call <= maxRepairs + 1; call++) {
    let res: ChatResponse;
    try {
      res = await model.complete({ ...req, messages });
    } catch (e) {
      throw withSpent(e, addSpent(spentOfError(e), spent));
    }
    addSpent(spent, spentOfResponse(res));
    let a: Attempted | undefined;
    try {
      a = read(res);
      const { calls, ...usage } = spent;
      return { value: validate(a), response: res, calls, usage };
    } catch (e) {
      if (e instanceof LlmError) throw withSpent(e, spent);
      lastError = describe(e);
      const fix = 'Reply again with only the corrected JSON, nothing else.';
      const badCall = a?.call ?? (e as { call?: ToolCall }).call;
      if (useTool && badCall) {
        messages = [
          ...messages,
          { role: 'assistant', content: res.text, toolCalls: [badCall] },
          {
            role: 'tool',
            toolCallId: badCall.id,
            name: badCall.name,
            content: `Error: the arguments are invalid:\n${lastError}\nCall the tool again with corrected arguments.`,
          },
        ];
      } else {
        messages = [
          ...messages,
          { role: 'assistant', content: res.text },
          { role: 'user', content: `Your reply could not be used:\n${lastError}\n${fix}` },
        ];
      }
    }
  }
  throw new LlmError(
    'invalid-output',
    `${model.provider} model "${model.model}" gave no valid structured answer after ${maxRepairs + 1} tries. Last problem: ${lastError}`,
    { spent },
  );
}

/** Ask for one JSON value matching `schema`. */
export async function completeJson<T>(
  model: ChatModel,
  req: BaseRequest,
  schema: z.ZodType<T>,
  opts: StructuredOptions & { name?: string; description?: string } = {},
): Promise<StructuredResult<T>> {
  const js = jsonSchemaOf(schema);
  const name = opts.name ?? 'respond';
  const useTool =
    (opts.mode ?? 'auto') === 'tool' || ((opts.mode ?? 'auto') === 'auto' && model.capabilities.nativeTools);
  const validate = (a: Attempted) => schema.parse(a.raw);
  if (useTool) {
    const r: ChatRequest = {
      ...req,
      tools: [
        { name, description: opts.description ?? 'Give the answer.', parameters: js ?? { type: 'object' } },
      ],
      toolChoice: { name },
    };
    const read = (res: ChatResponse): Attempted => {
      const call = res.toolCalls?.find((c) => c.name === name) ?? res.toolCalls?.[0];
      if (!call) return { raw: extractJson(res.text) };
      try {
        return { raw: JSON.parse(call.arguments || '{}'), call };
      } catch (e) {
        throw Object.assign(new SyntaxError(`the tool arguments are not valid JSON: ${describe(e)}`), {
          call,
        });
      }
    };
    return loop(model, r, true, read, validate, opts.maxRepairs ?? 2);
  }
  const instruction =
    'Reply with a single JSON value and nothing else (no prose, no code fences).' +
    (js ? `\nIt must match this JSON Schema:\n${JSON.stringify(js)}` : '');
  const r: ChatRequest = {
    ...req,
    messages: withInstruction(req.messages, instruction),
    responseFormat: { type: 'json', schema: js, name },
  };
  return loop(model, r, false, (res) => ({ raw: extractJson(res.text) }), validate, opts.maxRepairs ?? 2);
}

/** A named action an agent may take, with its argument schema. */
export interface ActionSpec<A extends z.ZodType = z.ZodType> {
  description: string;
  args: A;
}

/** The union of `{action, args}` values an action set allows, with each action's parsed argument type. */
export type ActionOf<M extends Record<string, ActionSpec>> = {
  [K in keyof M & string]: { action: K; args: z.infer<M[K]['args']> };
}[keyof M & string];

/** The JSON action protocol as one zod schema: `{"action": name, "args": {...}}`. */
export function actionSchema<M extends Record<string, ActionSpec>>(actions: M): z.ZodType<ActionOf<M>> {
  const options = Object.entries(actions).map(([name, spec]) =>
    z.object({ action: z.literal(name), args: spec.args }),
  );
  if (!options.length) throw new RangeError('actionSchema needs at least one action');
  return (options.length === 1
    ? options[0]
    : z.discriminatedUnion('action', options as never)) as unknown as z.ZodType<ActionOf<M>>;
}

/**
 * One agent step: the model picks one action. Native tools (one per action) where the
 * provider has them; otherwise the JSON action protocol in text. Either way the result
 * is validated and repaired the same way.
 */
export async function completeAction<M extends Record<string, ActionSpec>>(
  model: ChatModel,
  req: BaseRequest,
  actions: M,
  opts: StructuredOptions = {},
): Promise<StructuredResult<ActionOf<M>>> {
  const schema = actionSchema(actions);
  const mode = opts.mode ?? 'auto';
  const useTool = mode === 'tool' || (mode === 'auto' && model.capabilities.nativeTools);
  if (!useTool) {
    const list = Object.entries(actions)
      .map(([n, s]) => `- "${n}": ${s.description}\n  args: ${JSON.stringify(jsonSchemaOf(s.args) ?? {})}`)
      .join('\n');
    const instruction = `Choose exactly one action and reply with only a JSON object {"action": <name>, "args": {...}}.\nActions:\n${list}`;
    const r: ChatRequest = {
      ...req,
      messages: withInstruction(req.messages, instruction),
      responseFormat: { type: 'json', schema: jsonSchemaOf(schema), name: 'action' },
    };
    return loop(
      model,
      r,
      false,
      (res) => ({ raw: extractJson(res.text) }),
      (a) => schema.parse(a.raw),
      opts.maxRepairs ?? 2,
    );
  }
  const r: ChatRequest = {
    ...req,
    tools: Object.entries(actions).map(([name, s]) => ({
      name,
      description: s.description,
      parameters: jsonSchemaOf(s.args) ?? { type: 'object' },
    })),
    toolChoice: 'required',
  };
  const read = (res: ChatResponse): Attempted => {
    const call = res.toolCalls?.[0];
    if (!call) return { raw: extractJson(res.text) }; // some servers answer in text anyway
    let args: unknown;
    try {
      args = JSON.parse(call.arguments || '{}');
    } catch (e) {
      throw Object.assign(
        new SyntaxError(`the arguments of "${call.name}" are not valid JSON: ${describe(e)}`),
        {
          call,
        },
      );
    }
    return { raw: { action: call.name, args }, call };
  };
  return loop(model, r, true, read, (a) => schema.parse(a.raw), opts.maxRepairs ?? 2);
}
