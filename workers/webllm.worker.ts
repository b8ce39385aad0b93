/**
 * WebLLM's engine in its own worker. WebLLM brings its own typed message protocol
 * (WebWorkerMLCEngineHandler here ↔ WebWorkerMLCEngine in the page, created by
 * src/app/llm/webllm-client.ts), so this worker does not use comlink.
 */
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm';

const handler = new WebWorkerMLCEngineHandler();
self.onmessage = (msg: MessageEvent) => handler.onmessage(msg);
