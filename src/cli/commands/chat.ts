import { type ChatResponse, isLlmError, spentOfResponse, UsageMeter } from '../../core/llm/index.ts';
import { command, JSON_FLAG } from '../command.ts';
import { CliError, printJson, printLine } from '../io.ts';
import { chatModelFromFlags, PROVIDER_FLAGS, PROVIDER_USAGE } from '../provider-flags.ts';

export const chat = command({
  name: 'chat',
  usage: `memtrace chat ${PROVIDER_USAGE} [--system TEXT] [--stream] [--max-tokens N] [--temperature T] [--json] "prompt"`,
  args: { min: 1, max: Number.POSITIVE_INFINITY, name: '"prompt"' },
  options: {
    ...PROVIDER_FLAGS,
    ...JSON_FLAG,
    system: { type: 'string', value: 'TEXT', help: 'a system message before the prompt' },
    stream: { type: 'boolean', default: false, help: 'print the reply as it streams (not with --json)' },
    'max-tokens': {
      type: 'string',
      value: 'N',
      int: { min: 1 },
      help: "cap the reply (default: the provider's)",
    },
    temperature: {
      type: 'string',
      value: 'T',
      number: true,
      help: "sampling temperature (default: the provider's)",
    },
  },
  async run({ positionals, values }, io) {
    const prompt = positionals.join(' ').trim();
    if (!prompt)
      throw new CliError(
        'chat needs a prompt, e.g. memtrace chat --provider openai --model gpt-4o-mini "Say hi"',
        2,
      );
    const meter = new UsageMeter();
    const model = chatModelFromFlags(values, io, { meter, label: 'chat' });
    const maxTokens = values['max-tokens'];
    const temperature = values.temperature;
    const stream = !!values.stream && !values.json;
    try {
      const r = await model.complete({
        messages: [
          ...(values.system ? [{ role: 'system' as const, content: values.system }] : []),
          { role: 'user', content: prompt },
        ],
        maxTokens,
        temperature,
        stream,
        onToken: stream ? (t) => io.stdout.write(t) : undefined,
      });
      const calls = r.toolCalls ?? [];
      if (values.json) printJson(io, chatJson(model.provider, r));
      else {
        if (!stream && r.text) io.stdout.write(r.text);
        if (r.text || !calls.length) io.stdout.write('\n');
        // A reply of tool calls only (content null) is shown as those calls, not as an empty line.
        for (const c of calls)
          printLine(io, `tool call ${c.name}(${c.arguments})${c.id ? ` id ${c.id}` : ''}`);
        const u = r.usage;
        const requests = spentOfResponse(r).calls;
        io.stderr.write(
          `${model.provider} ${r.model}: ${u.inputTokens} input + ${u.outputTokens} output tokens${u.estimated ? ' (estimated)' : ''}${r.cached ? ' (from cache)' : ''}, ` +
            `${requests} request${requests === 1 ? '' : 's'}, finish: ${r.finishReason}\n`,
        );
      }
      if (!r.text && calls.length) io.stderr.write(`no text: the reply is ${calls.length} tool call(s)\n`);
      if (!r.text && !calls.length) {
        io.stderr.write(
          `memtrace chat: the model sent no reply (no text, no tool call; finish: ${r.finishReason})\n`,
        );
        return 1;
      }
      return 0;
    } catch (e) {
      if (isLlmError(e)) throw new CliError(`${e.kind}: ${e.message}`);
      throw e;
    }
  },
});

/** `chat --json`: the reply in the CLI's snake_case JSON style. */
function chatJson(provider: string, r: ChatResponse) {
  return {
    provider,
    model: r.model,
    text: r.text,
    tool_calls: (r.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    finish_reason: r.finishReason,
    usage: {
      input_tokens: r.usage.inputTokens,
      output_tokens: r.usage.outputTokens,
      estimated: r.usage.estimated,
    },
    cached: !!r.cached,
    calls: spentOfResponse(r).calls,
  };
}
