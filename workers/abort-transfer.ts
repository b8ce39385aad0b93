/**
 * Lets an `AbortSignal` cross a comlink call as an argument: the caller's signal becomes a
 * MessagePort that says "abort" once, and the callee gets a live signal of its own. Every
 * side that sends or takes a signal imports this module (it registers the handler once).
 * Cancellation in the app is this one mechanism: a view's newest request aborts its older
 * ones, and a long run (import, evaluation, agent, report, system run, optimisation) is
 * cancelled by aborting the signal the page passed when it started it.
 */
import * as Comlink from 'comlink';

const abortHandler: Comlink.TransferHandler<AbortSignal, MessagePort> = {
  canHandle: (v): v is AbortSignal => typeof AbortSignal !== 'undefined' && v instanceof AbortSignal,
  serialize(signal) {
    const { port1, port2 } = new MessageChannel();
    // Only the reason's words cross (a reason need not be cloneable); the other side's is an AbortError.
    const send = () => port1.postMessage(reasonText(signal.reason));
    if (signal.aborted) send();
    else signal.addEventListener('abort', send, { once: true });
    return [port2, [port2]];
  },
  deserialize(port) {
    const controller = new AbortController();
    port.onmessage = (e: MessageEvent<string>) => {
      controller.abort(new DOMException(e.data, 'AbortError'));
      port.close();
    };
    return controller.signal;
  },
};

Comlink.transferHandlers.set('abort-signal', abortHandler as Comlink.TransferHandler<unknown, unknown>);

function reasonText(reason: unknown): string {
  return reason instanceof Error || reason instanceof DOMException
    ? reason.message
    : 'the request was cancelled';
}

/**
 * Lets a busy worker take the messages waiting for it — an abort that crossed among them —
 * before it goes on; long loops await it between steps and then check their signal. A
 * posted message, not a microtask (those run before any message) nor a timer (clamped to
 * 4 ms when nested); messages are handled in the order they arrived, so one waiting runs first.
 */
export function yieldToMessages(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/** True when `e` is the rejection of an aborted request (nothing to show). */
export function isAbort(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}
