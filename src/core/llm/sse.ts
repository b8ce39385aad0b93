/**
 * Server-sent events from a fetch body (OpenAI-compatible and Anthropic streaming), parsed
 * by `eventsource-parser`, read within the answer's limits (size, idle time: `readBody`).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { type HttpContext, readBody } from './http.ts';

interface SseEvent {
  event: string;
  data: string;
}

/** The events of a streamed answer, in order; ends when the body ends. */
export async function* readSse(
  ctx: HttpContext,
  res: Response,
  signal: AbortSignal | undefined,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let queue: SseEvent[] = [];
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => {
      queue.push({ event: m.event || 'message', data: m.data });
    },
  });
  for await (const chunk of readBody(ctx, res, signal, true)) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    const ready = queue;
    queue = [];
    yield* ready;
  }
  parser.feed(decoder.decode());
  // A last event without its closing blank line still counts (as the old reader did).
  parser.reset({ consume: true });
  yield* queue;
}
