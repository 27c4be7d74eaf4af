/**
 * How an `<agent-capability>` without `.handler` / `.read` answers a call: it fires `agent-invoke` and
 * takes the listener's `respondWith` value. Part of the element's lazy chunk (declared.ts), which every
 * capability has before it registers, so a call reaches it synchronously.
 */
import { AgentSurfaceError } from '../core/errors.js';
import type { CapabilityKind, InvocationContext, JsonObject } from '../core/types.js';
import { elementLabel } from './element-label.js';
import { AgentInvokeEvent } from './events.js';

export function dispatchInvoke(element: Element, capabilityId: string, kind: CapabilityKind, input: JsonObject, ctx: InvocationContext): unknown {
  let response: { value: unknown } | undefined;
  let open = true;
  // A listener's exception does not reach dispatchEvent's caller: the browser reports it to the
  // window, synchronously, during dispatch. Catch that report to tell "a listener threw" from "nobody answered".
  let thrown: { error: unknown } | undefined;
  const onError = (e: ErrorEvent) => {
    thrown ??= { error: e.error ?? e.message };
    e.preventDefault(); // reported below, with the element it is about
  };
  const win = element.ownerDocument.defaultView;
  win?.addEventListener('error', onError);
  try {
    element.dispatchEvent(
      new AgentInvokeEvent({
        capabilityId,
        ...(ctx.instanceId !== undefined ? { instanceId: ctx.instanceId } : {}),
        kind,
        input,
        invocationId: ctx.invocationId,
        consumer: ctx.consumer,
        signal: ctx.signal,
        respondWith(value: unknown) {
          // Too late (the listener returned) or a second answer: one rule, one message.
          if (!open || response) throw new Error('agent-invoke: call respondWith() once, synchronously, inside the listener');
          response = { value };
        },
      }),
    );
  } finally {
    win?.removeEventListener('error', onError);
  }
  open = false;
  // An AgentSurfaceError is the listener's chosen answer (its code reaches the agent); anything else is a bug.
  if (thrown?.error instanceof AgentSurfaceError && !response) throw thrown.error;
  if (thrown) {
    console.error(`[agent-surface-kit LISTENER_THREW] agent-invoke listener of ${elementLabel(element)}:`, thrown.error);
    // The agent gets EXECUTION_FAILED without the listener's message (any non-kit error does).
    if (!response) throw thrown.error;
  }
  if (!response) {
    throw new AgentSurfaceError('EXECUTION_FAILED', `Nothing on the page answered ${capabilityId || 'this capability'}.`, {
      details: { reason: 'no-handler' },
    });
  }
  return response.value;
}
