/** Node's AsyncLocalStorage as the tracer's context: concurrent async flows keep their own scopes. */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ContextProvider, TraceFrame } from './context.ts';

export class AsyncLocalContext implements ContextProvider {
  private readonly storage = new AsyncLocalStorage<TraceFrame>();
  current(): TraceFrame | undefined {
    return this.storage.getStore();
  }
  run<T>(frame: TraceFrame, fn: () => T): T {
    return this.storage.run(frame, fn);
  }
}
