/**
 * `createScriptedAdapter`: an adapter with no model. It plays scripted steps deterministically (text,
 * reasoning, tool calls picked from the live tools by wire name or capability id, waits), for demos
 * and tests, and keeps every note of the contract: `message-start` first, one `tool-result` or
 * `tool-error` per `tool-call` with its id, one call at a time, `finish` or `error` last. The player
 * (./scripted-play.ts) loads with the first run.
 */
import { lazy } from './lazy.js';
import type { Script } from './scripted-play.js';
import type { AdapterStatus, AgentAdapter, AgentStreamPart } from './types.js';

export { findTool } from './find-tool.js';
export type { Script, ScriptContext, ScriptStep } from './scripted-play.js';

export interface ScriptedAdapterOptions {
  /** Default `"scripted"`. */
  id?: string;
  /** Default `"Scripted agent"`. */
  label?: string;
  /** Default always ready. */
  status?: () => AdapterStatus;
  subscribe?: (listener: () => void) => () => void;
}

const player = lazy(() => import('./scripted-play.js'));

/**
 * An adapter that plays `script`. Each run gets fresh ids (a conversation may replay a script many
 * times) and ends with `finish` (`aborted` after Stop) or the script's `error` step.
 */
export function createScriptedAdapter(script: Script, options: ScriptedAdapterOptions = {}): AgentAdapter {
  if (!Array.isArray(script) && typeof script !== 'function')
    throw new TypeError('createScriptedAdapter: pass an array of steps or a function (ctx) => steps');
  const adapter: AgentAdapter = {
    id: options.id ?? 'scripted',
    label: options.label ?? 'Scripted agent',
    async *run(req): AsyncGenerator<AgentStreamPart> {
      let p: typeof import('./scripted-play.js');
      try {
        p = player.module ?? (await player.load());
      } catch (e) {
        yield { type: 'error', error: `The scripted adapter's code could not be loaded: ${e instanceof Error ? e.message : String(e)}`, code: 'network' };
        return;
      }
      yield* p.play(script, req);
    },
  };
  if (options.status) adapter.status = options.status;
  if (options.subscribe) adapter.subscribe = options.subscribe;
  return adapter;
}

