/**
 * Lets an `AbortSignal` cross a comlink call as an argument: the caller's signal becomes a
 * MessagePort that says "abort" once, and the callee gets a live signal of its own. Every
 * side that sends or takes a signal imports this module (it registers the handler once).
 * Cancellation in the app is this one mechanism: the newest request aborts the older ones.
 */
import * as Comlink from 'comlink';

const abortHandler: Comlink.TransferHandler<AbortSignal, MessagePort> = {
  canHandle: (v): v is AbortSignal => typeof AbortSignal !== 'undefined' && v instanceof AbortSignal,
  serialize(signal) {
    const { port1, port2 } = new MessageChannel();
    if (signal.aborted) port1.postMessage(null);
    else signal.addEventListener('abort', () => port1.postMessage(null), { once: true });
    return [port2, [port2]];
  },
  deserialize(port) {
    const controller = new AbortController();
    port.onmessage = () => {
      controller.abort(new DOMException('superseded by a newer request', 'AbortError'));
      port.close();
    };
    return controller.signal;
  },
};

Comlink.transferHandlers.set('abort-signal', abortHandler as Comlink.TransferHandler<unknown, unknown>);

/** True when `e` is the rejection of an aborted request (nothing to show). */
export function isAbort(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}
