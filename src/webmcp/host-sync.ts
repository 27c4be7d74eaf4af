/**
 * Keeps a host's tool set equal to a desired set, through whichever shape the host has, one host
 * call at a time. Callers describe the set they want; the sync works out the calls. Because it
 * always compares against the latest desired set, a quick add-remove-add ends with exactly the
 * latest tool registered, never a stale one, and a name is always freed before it is taken again.
 */
import type { ModelContextLike, ModelContextShape, ModelContextTool } from './types.js';

/** One wanted tool. The sync compares specs by identity: reuse the object for an unchanged tool. */
export interface ToolSpec {
  readonly tool: ModelContextTool;
}

export interface HostRefusal {
  name: string;
  spec: ToolSpec;
  error: unknown;
}

export interface ToolSyncOptions {
  onRefused(refusal: HostRefusal): void;
  /** Origins passed as `registerTool`'s `exposedTo` (the current shape has it; others cannot take it). */
  exposedTo?: readonly string[];
  /** The host would not take `exposedTo`: called once, after which tools register without it. */
  onExposedToRefused?(error: unknown): void;
}

interface HostEntry {
  spec: ToolSpec;
  /** `current` shape: aborting it unregisters the tool. */
  controller?: AbortController;
}

export interface ToolSync {
  readonly shape: ModelContextShape;
  /** Replace the desired set; `changed` lists the names whose spec may differ from before. */
  update(desired: ReadonlyMap<string, ToolSpec>, changed: Iterable<string>): void;
  /** Names the host accepted and still holds, sorted. */
  registered(): string[];
  /** Resolves when the host matches the desired set (or has refused what it would not take). */
  settled(): Promise<void>;
}

export function createToolSync(modelContext: ModelContextLike, shape: ModelContextShape, options: ToolSyncOptions): ToolSync {
  let desired: ReadonlyMap<string, ToolSpec> = new Map();
  const dirty = new Set<string>();
  const onHost = new Map<string, HostEntry>();
  // Specs the host refused: not retried until the capability changes (a new spec object), or until
  // the host no longer lists a tool of that name (see `onToolChange`).
  const refused = new Map<string, ToolSpec>();
  /** Refused names the host no longer lists: tried again, and a second refusal of the same spec is not reported again. */
  const freed = new Set<string>();
  let pumping: Promise<void> | undefined;
  /** `exposedTo` while the host takes it; dropped (once, said so) when it refuses it. */
  let exposedTo = options.exposedTo?.length ? [...options.exposedTo] : undefined;

  function dropExposedTo(error: unknown): void {
    if (!exposedTo) return;
    exposedTo = undefined;
    options.onExposedToRefused?.(error);
  }

  /** Older shapes have no options to carry `exposedTo`: they cannot honour it. */
  function noOptions(): void {
    dropExposedTo({ name: 'NotSupportedError', message: 'This WebMCP host registers tools without options (an older preview): it cannot take exposedTo' });
  }

  async function removeFromHost(name: string, entry: HostEntry): Promise<void> {
    onHost.delete(name);
    if (shape === 'current') {
      entry.controller?.abort();
      return;
    }
    try {
      await modelContext.unregisterTool!(name);
    } catch {
      // Already gone (the host dropped it, or another script removed it): nothing left to withdraw.
    }
  }

  async function addToHost(name: string, spec: ToolSpec): Promise<void> {
    const said = refused.get(name) === spec;
    refused.delete(name);
    let controller = shape === 'current' ? new AbortController() : undefined;
    try {
      if (!controller) {
        noOptions();
        await modelContext.registerTool!(spec.tool);
      } else if (exposedTo) {
        try {
          await modelContext.registerTool!(spec.tool, { signal: controller.signal, exposedTo: [...exposedTo] });
        } catch (error) {
          // The host refused either `exposedTo` or the tool itself: registering without it tells which.
          // (A tool refused both ways is reported with the second error, as any refused name is.)
          controller = new AbortController();
          await modelContext.registerTool!(spec.tool, { signal: controller.signal });
          dropExposedTo(error);
        }
      } else await modelContext.registerTool!(spec.tool, { signal: controller.signal });
      onHost.set(name, controller ? { spec, controller } : { spec });
    } catch (error) {
      refused.set(name, spec);
      if (!said) options.onRefused({ name, spec, error });
      watch(true);
    }
  }

  /**
   * A name refused because another registration held it (a remount that overlapped this one, another
   * app on the page) is free once the host stops listing it: on each `toolchange` while names are
   * refused, the host's list is read and those names are tried again.
   */
  let watching = false;
  let checking: Promise<void> | undefined;
  let recheck = false;
  const canWatch = shape !== 'batch' && typeof modelContext.addEventListener === 'function' && typeof modelContext.getTools === 'function';
  function watch(on: boolean): void {
    if (!canWatch || on === watching) return;
    watching = on;
    modelContext[on ? 'addEventListener' : 'removeEventListener']!('toolchange', onToolChange);
  }
  function onToolChange(): void {
    if (checking) {
      recheck = true;
      return;
    }
    checking = (async () => {
      do {
        recheck = false;
        let listed: unknown;
        try {
          listed = await modelContext.getTools!();
        } catch {
          return;
        }
        const held = new Set((Array.isArray(listed) ? listed : []).map((t: { name?: unknown } | null) => t?.name));
        for (const name of refused.keys()) {
          if (held.has(name) || !desired.has(name)) continue;
          freed.add(name);
          dirty.add(name);
        }
        kick();
      } while (recheck);
    })().finally(() => {
      checking = undefined;
    });
  }

  async function stepIncremental(name: string): Promise<void> {
    const want = desired.get(name);
    const have = onHost.get(name);
    if (have && have.spec !== want) await removeFromHost(name, have);
    const retry = freed.delete(name);
    if (want && !onHost.has(name) && (retry || refused.get(name) !== want)) await addToHost(name, want);
    if (!want) refused.delete(name);
  }

  async function stepBatch(): Promise<void> {
    dirty.clear();
    noOptions();
    const specs = [...desired.entries()];
    try {
      if (specs.length === 0 && typeof modelContext.clearContext === 'function') await modelContext.clearContext();
      else await modelContext.provideContext!({ tools: specs.map(([, spec]) => spec.tool) });
      onHost.clear();
      refused.clear();
      for (const [name, spec] of specs) onHost.set(name, { spec });
    } catch (error) {
      // The batch is all or nothing: every tool in it was refused.
      onHost.clear();
      for (const [name, spec] of specs) {
        refused.set(name, spec);
        options.onRefused({ name, spec, error });
      }
    }
  }

  async function pump(): Promise<void> {
    while (dirty.size > 0) {
      if (shape === 'batch') {
        await stepBatch();
        continue;
      }
      const name = dirty.values().next().value as string;
      dirty.delete(name);
      await stepIncremental(name);
    }
  }

  function kick(): void {
    if (pumping || dirty.size === 0) return;
    pumping = pump().finally(() => {
      pumping = undefined;
      // Nothing refused any more (taken, or no longer wanted): stop following the host.
      if (refused.size === 0) watch(false);
      // Work queued while the last step awaited its host call.
      kick();
    });
  }

  return {
    shape,
    update(next, changed) {
      desired = next;
      for (const name of changed) dirty.add(name);
      kick();
    },
    registered() {
      return [...onHost.keys()].sort();
    },
    async settled() {
      while (pumping) await pumping;
    },
  };
}
