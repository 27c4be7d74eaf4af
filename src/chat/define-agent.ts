/**
 * `defineWebAgent`: the page's agent (DESIGN section 7). A frozen, checked `WebAgent`; each of its
 * `agents` becomes a `delegate_to_<id>` tool in a run (see tools.ts).
 */
import type { WebAgent } from './types.js';

export interface WebAgentOptions {
  id: string;
  instructions: string;
  maxSteps?: number;
  tools?: readonly string[];
  agents?: readonly WebAgent[];
}

/** An agent id: what follows `delegate_to_` in a tool name, so within the wire-name alphabet. */
export const AGENT_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,47}$/;

function fail(message: string): never {
  throw new TypeError(`defineWebAgent: ${message}`);
}

/**
 * Checks and freezes an agent definition. Throws a `TypeError` for a programmer's mistake (a bad
 * id, empty instructions, a non-positive `maxSteps`, a sub-agent listed twice or containing itself).
 */
export function defineWebAgent(options: WebAgentOptions): WebAgent {
  if (!options || typeof options !== 'object') fail('pass { id, instructions, maxSteps?, tools?, agents? }');
  const { id, instructions, maxSteps, tools, agents } = options;
  if (typeof id !== 'string' || !AGENT_ID_PATTERN.test(id))
    fail(`id ${typeof id === 'string' ? JSON.stringify(id) : `is ${id === undefined ? 'missing' : `a ${typeof id}`}: it`} must start with a letter and use only letters, digits, "_" and "-" (at most 48)`);
  if (typeof instructions !== 'string' || instructions.trim() === '') fail(`agent "${id}": instructions must be a non-empty string`);
  if (maxSteps !== undefined && !(Number.isInteger(maxSteps) && maxSteps >= 1))
    fail(`agent "${id}": maxSteps must be a positive integer`);
  if (tools !== undefined && (!Array.isArray(tools) || tools.some((t) => typeof t !== 'string' || t === '')))
    fail(`agent "${id}": tools must be an array of wire names or capability id prefixes`);
  if (agents !== undefined) {
    if (!Array.isArray(agents)) fail(`agent "${id}": agents must be an array of defineWebAgent() results`);
    const seen = new Set<string>();
    for (const sub of agents) {
      if (!sub || typeof sub !== 'object' || typeof sub.id !== 'string' || typeof sub.instructions !== 'string')
        fail(`agent "${id}": each of agents must come from defineWebAgent()`);
      if (seen.has(sub.id)) fail(`agent "${id}": sub-agent "${sub.id}" is listed twice`);
      if (contains(sub, id)) fail(`agent "${id}" cannot delegate to itself (through "${sub.id}")`);
      seen.add(sub.id);
    }
  }
  const agent: WebAgent = { id, instructions };
  if (maxSteps !== undefined) (agent as { maxSteps?: number }).maxSteps = maxSteps;
  if (tools !== undefined) (agent as { tools?: readonly string[] }).tools = Object.freeze([...tools]);
  if (agents !== undefined) (agent as { agents?: readonly WebAgent[] }).agents = Object.freeze([...agents]);
  return Object.freeze(agent);
}

function contains(agent: WebAgent, id: string, depth = 0): boolean {
  if (agent.id === id) return true;
  if (depth > 16) return true;
  return (agent.agents ?? []).some((a) => contains(a, id, depth + 1));
}
