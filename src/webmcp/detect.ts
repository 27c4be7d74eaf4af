/**
 * Finding a WebMCP host and telling which shape it has (reference/webmcp-hosts.md, section 4).
 */
import type { ModelContextLike, ModelContextShape } from './types.js';

function isObjectLike(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null;
}

/** Which registration shape `modelContext` offers; `undefined` when it is not a host at all. */
export function modelContextShape(modelContext: unknown): ModelContextShape | undefined {
  const has = (member: string) => isObjectLike(modelContext) && typeof modelContext[member] === 'function';
  // An `unregisterTool` next to `registerTool` means a preview that predates `{ signal }`.
  return has('registerTool') ? (has('unregisterTool') ? 'legacy' : 'current') : has('provideContext') ? 'batch' : undefined;
}

/** A producer host (a registration shape) or a consumer one (`getTools`). */
function isHost(value: unknown): value is ModelContextLike {
  return modelContextShape(value) !== undefined || (isObjectLike(value) && typeof value.getTools === 'function');
}

/**
 * The WebMCP host for this page: `options.modelContext` when given (`null` forces none), else
 * `document.modelContext` (the current draft), else `navigator.modelContext` (older previews).
 * Only objects that have a registration or a consumer member count. Accepts the host itself too.
 */
export function detectModelContext(
  options?: { modelContext?: ModelContextLike | null } | ModelContextLike | null,
): ModelContextLike | undefined {
  if (isHost(options)) return options;
  if (isObjectLike(options) && 'modelContext' in options) {
    const given = options.modelContext;
    if (given !== undefined) return isHost(given) ? given : undefined;
  }
  for (const owner of ['document', 'navigator'] as const) {
    let candidate: unknown;
    try {
      candidate = (globalThis as unknown as Record<string, { modelContext?: unknown } | undefined>)[owner]?.modelContext;
    } catch {
      // A throwing getter (a polyfill refusing an insecure context) is the same as no host.
    }
    if (isHost(candidate)) return candidate;
  }
  return undefined;
}
