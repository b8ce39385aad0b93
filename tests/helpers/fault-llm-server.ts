/**
 * Faults a misbehaving OpenAI-compatible endpoint shows, as behaviours of the local test
 * server (tests/llm/mock-llm-server.ts: a real HTTP server on 127.0.0.1 that records every
 * request it receives). Each fault writes the response itself; endless ones stop when the
 * client goes away, so a test is bounded by the client's limits, not by the fault.
 */
import type { ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { LlmError } from '../../src/core/llm/index.ts';
import type { Behaviour } from '../llm/mock-llm-server.ts';

const USAGE = { prompt_tokens: 11, completion_tokens: 7 };

/** A 200 JSON chat completion whose message is `message` (e.g. content a number, `tool_calls: [{}]`). */
export function malformedMessage(message: unknown): Behaviour {
  return {
    handle: (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ model: 'm', choices: [{ index: 0, message, finish_reason: 'stop' }], usage: USAGE }),
      );
    },
  };
}

/** A 200 answer with this body and content type (HTML, invalid JSON, empty). */
export function rawBody(body: string, contentType = 'text/html'): Behaviour {
  return {
    handle: (res) => {
      res.writeHead(200, { 'content-type': contentType });
      res.end(body);
    },
  };
}

function sse(res: ServerResponse, chunk: unknown) {
  res.write(`data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`);
}

const delta = (d: unknown, finish: string | null = null) => ({
  model: 'm',
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

/** A stream that sends `text` and then ends without a finish reason or `[DONE]` (cut mid-way). */
export function cutStream(text = 'partial answer'): Behaviour {
  return {
    handle: (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, delta({ content: text }));
      res.end();
    },
  };
}

/** A complete stream whose tool-call deltas are `toolCalls` (e.g. an `index` of "__proto__"). */
export function toolCallStream(toolCalls: unknown[]): Behaviour {
  return {
    handle: (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, delta({ tool_calls: toolCalls }));
      sse(res, delta({}, 'tool_calls'));
      sse(res, { model: 'm', choices: [], usage: USAGE });
      sse(res, '[DONE]');
      res.end();
    },
  };
}

/** Accepts the request and never answers (no headers, no bytes). */
export function hang(): Behaviour {
  return { handle: () => {} };
}

/**
 * Sends headers, then `chunk` every `everyMs` until the client closes the connection: as a
 * stream (SSE comments keep it "alive" without content) or as an endless JSON body.
 */
export function drip(opts: { everyMs: number; stream: boolean; chunk?: string }): Behaviour {
  return {
    handle: (res) =>
      new Promise<void>((resolve) => {
        res.writeHead(200, { 'content-type': opts.stream ? 'text/event-stream' : 'application/json' });
        if (!opts.stream) res.write('{"choices":[{"message":{"role":"assistant","content":"');
        const chunk = opts.chunk ?? (opts.stream ? ': keep-alive\n\n' : 'x'.repeat(1024));
        const timer = setInterval(() => {
          if (res.destroyed) return;
          res.write(chunk);
        }, opts.everyMs);
        res.on('close', () => {
          clearInterval(timer);
          resolve();
        });
      }),
  };
}

/** Writes `bytes` of body as fast as the client reads, in 64 KiB pieces, until done or closed. */
export function flood(bytes: number, stream: boolean): Behaviour {
  return {
    handle: (res) =>
      new Promise<void>((resolve) => {
        res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
        const piece = stream
          ? `data: ${JSON.stringify(delta({ content: 'y'.repeat(60_000) }))}\n\n`
          : 'z'.repeat(64 * 1024);
        if (!stream) res.write('{"choices":[{"message":{"role":"assistant","content":"');
        let sent = 0;
        const pump = () => {
          while (sent < bytes && !res.destroyed) {
            sent += piece.length;
            if (!res.write(piece)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end(stream ? '' : '"}}]}');
        };
        res.on('close', resolve);
        pump();
      }),
  };
}

/** The LlmError a call fails with (the test fails if it succeeds or throws something else). */
export async function expectLlmFailure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(LlmError);
    return e as LlmError;
  }
  throw new Error('expected the call to fail');
}
