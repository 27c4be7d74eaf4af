/**
 * Finding a WebMCP host and telling which shape it has (reference/webmcp-hosts.md, section 4).
 */
import type { ModelContextLike, ModelContextShape } from './types.js';

function isObjectLike(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null;
}

/** Which registration shape `modelContext` offers; `undefined` when it is not a host at all. */
export function modelContextShape(modelContext: unknown): ModelContextShape | undefined {
  if (!isObjectLike(modelContext)) return undefined;
  const has = (member: string) => typeof modelContext[member] === 'function';
  // An `unregisterTool` next to `registerTool` means a preview that predates `{ signal }`.
  if (has('registerTool')) return has('unregisterTool') ? 'legacy' : 'current';
  if (has('provideContext')) return 'batch';
  return undefined;
}

function readGlobal(owner: 'document' | 'navigator'): unknown {
  try {
    const target = (globalThis as Record<string, unknown>)[owner];
    return isObjectLike(target) ? target.modelContext : undefined;
  } catch {
    // A throwing getter (a polyfill refusing an insecure context) is the same as no host.
    return undefined;
  }
}

/**
 * The WebMCP host for this page: `options.modelContext` when given (`null` forces none), else
 * `document.modelContext` (the current draft), else `navigator.modelContext` (older previews).
 * Only objects that have a registration or a consumer member count. Accepts the host itself too.
 */
export function detectModelContext(
  options?: { modelContext?: ModelContextLike | null } | ModelContextLike | null,
): ModelContextLike | undefined {
  if (options !== undefined && options !== null && isHost(options)) return options as ModelContextLike;
  if (isObjectLike(options) && 'modelContext' in options) {
    const given = options.modelContext;
    if (given === null) return undefined;
    if (given !== undefined) return isHost(given) ? (given as ModelContextLike) : undefined;
  }
  for (const owner of ['document', 'navigator'] as const) {
    const candidate = readGlobal(owner);
    if (isHost(candidate)) return candidate as ModelContextLike;
  }
  return undefined;
}

function isHost(value: unknown): boolean {
  if (!isObjectLike(value)) return false;
  return modelContextShape(value) !== undefined || typeof value.getTools === 'function';
}
