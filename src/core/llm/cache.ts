/**
 * An opt-in response cache keyed by a stable hash of the request — provider, model,
 * messages and parameters, never the key — which makes reruns free and reproducible.
 * Storage is an interface: memory here, IndexedDB in the app (src/db/llm-cache.ts),
 * a folder in the CLI (cache-folder.node.ts).
 */
import { realClock } from './clock.ts';
import { canonicalJson, sha256Hex } from './hash.ts';
import type { ChatModel, ChatRequest, ChatResponse } from './types.ts';

/** A cached answer with the request it answered and when it was stored. */
export interface CacheEntry {
  /** The canonical request text the key was made from (checked on read, so a hash collision is harmless). */
  request: string;
  response: ChatResponse;
  createdAt: number;
}

/** Where cached answers live (memory, IndexedDB, a folder); `clear` and `size` are optional. */
export interface CacheStore {
  get(key: string): Promise<CacheEntry | undefined>;
  set(key: string, entry: CacheEntry): Promise<void>;
  clear?(): Promise<void>;
  size?(): Promise<number>;
}

/** What identifies a request: everything that changes the answer, nothing secret, nothing transient. */
function requestIdentity(model: Pick<ChatModel, 'provider' | 'model'>, req: ChatRequest, endpoint?: string) {
  return canonicalJson({
    v: 1,
    provider: model.provider,
    endpoint,
    model: model.model,
    messages: req.messages,
    responseFormat: req.responseFormat,
    tools: req.tools,
    toolChoice: req.toolChoice,
    temperature: req.temperature,
    maxTokens: req.maxTokens,
  });
}

/** The cache key of a request (SHA-256 of its canonical identity) and the identity text itself. */
export function requestKey(
  model: Pick<ChatModel, 'provider' | 'model'>,
  req: ChatRequest,
  endpoint?: string,
) {
  const request = requestIdentity(model, req, endpoint);
  return { key: sha256Hex(request), request };
}

/** A `CacheStore` in a Map, for one process or page session. */
export class MemoryCacheStore implements CacheStore {
  private readonly map = new Map<string, CacheEntry>();
  async get(key: string) {
    return this.map.get(key);
  }
  async set(key: string, entry: CacheEntry) {
    this.map.set(key, entry);
  }
  async clear() {
    this.map.clear();
  }
  async size() {
    return this.map.size;
  }
}

/** Options of `cached`. */
export interface CachedOptions {
  /** Distinguishes servers that serve a model of the same name (e.g. the base URL). */
  endpoint?: string;
  now?: () => number;
}

/** Serve repeated requests from `store`; store fresh successful answers. Streams replay the whole text at once. */
export function cached(model: ChatModel, store: CacheStore, opts: CachedOptions = {}): ChatModel {
  const now = opts.now ?? realClock.now;
  return {
    provider: model.provider,
    model: model.model,
    capabilities: model.capabilities,
    async complete(req) {
      const { key, request } = requestKey(model, req, opts.endpoint);
      let hit: CacheEntry | undefined;
      try {
        hit = await store.get(key);
      } catch {
        hit = undefined; // a broken cache never breaks a call
      }
      if (hit && hit.request === request) {
        if (req.stream && hit.response.text) req.onToken?.(hit.response.text);
        return { ...hit.response, cached: true, calls: 0 };
      }
      const response = await model.complete(req);
      try {
        await store.set(key, {
          request,
          response: { ...response, cached: undefined, calls: undefined },
          createdAt: now(),
        });
      } catch {
        /* best effort */
      }
      return response;
    },
  };
}
