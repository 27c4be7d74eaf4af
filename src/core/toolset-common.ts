/**
 * What both sides of the tool projections share: the catalog side (toolset.ts, meta-tools.ts,
 * gateway.ts, always in the entry) and the execution side (toolset-calls.ts, meta-calls.ts,
 * gateway-calls.ts, a lazy chunk of the CDN file). A leaf module, so neither side imports the other.
 */
import { issueError } from './dev.js';
import { errorPayload } from './errors.js';
import { randomId as randomWords } from './util.js';
import type { AgentErrorPayload, AgentInvocationResult, AgentToolCall } from './types.js';

/** A fresh, unguessable id (`crypto.getRandomValues`, which insecure contexts have too). */
export const randomId = (): string => randomWords(4);

/** The invocation id of a provider call: its `toolCallId` when it has one, else a fresh id. */
export function callInvocationId(call: AgentToolCall | undefined): string {
  return typeof call?.toolCallId === 'string' && call.toolCallId !== '' ? call.toolCallId : randomId();
}

/** A failed result the projection answers itself, without running anything. */
export function failedCall(
  error: AgentErrorPayload,
  invocationId: string,
  surfaceVersion: string,
): AgentInvocationResult {
  return { ok: false, error, invocationId, surfaceVersion };
}

/**
 * The answer of a call whose code (`part`, a lazy chunk) could not be loaded: nothing ran, and the
 * agent may try again later (the next call loads again). The agent is told so without the loader's
 * words; the page author sees them on the console, once.
 */
export function notLoaded(
  part: string,
  code: string,
  reason: string,
  loadError: unknown,
  invocationId: string,
  surfaceVersion: string,
): AgentInvocationResult {
  issueError(code, 'load', `the ${part} did not load: ${String(loadError)}`);
  return failedCall(
    errorPayload('EXECUTION_FAILED', `The call did not run: the page could not load the kit's ${part}. Try again later.`, { reason }, 'after-delay'),
    invocationId,
    surfaceVersion,
  );
}
