/**
 * The adapter's defaults, and what `createWebMcpAdapter` checks before it loads anything: its
 * options (at construction) and the host handed to `start`.
 */
import type { AgentConsumer } from '../core/types.js';
import { modelContextShape } from './detect.js';
import type { WebMcpAdapterHost, WebMcpAdapterOptions } from './types.js';

export const DEFAULT_WEBMCP_CONSUMER: AgentConsumer = Object.freeze({ id: 'webmcp', kind: 'webmcp' });
export const DEFAULT_CONFIRMATION_TTL_MS = 120_000;
const PREFIX_PATTERN = /^[A-Za-z0-9_-]{0,32}$/;

/** Throws a TypeError that names the bad option: these are programmer mistakes. */
export function validateAdapterOptions(options: WebMcpAdapterOptions): void {
  const fail = (message: string): never => {
    throw new TypeError(`createWebMcpAdapter: ${message}`);
  };
  if (typeof options !== 'object' || options === null) fail('options must be an object');
  const { prefix, confirmationTtlMs: ttl, modelContext } = options;
  if (prefix !== undefined && !(typeof prefix === 'string' && PREFIX_PATTERN.test(prefix))) {
    fail('prefix must be up to 32 characters of [A-Za-z0-9_-]');
  }
  // NaN fails `> 0`; Infinity fails `< Infinity`.
  if (ttl !== undefined && !(typeof ttl === 'number' && ttl > 0 && ttl < Infinity)) {
    fail('confirmationTtlMs must be a positive number of milliseconds');
  }
  const { exposedTo } = options;
  // Which origins are acceptable is the host's call (it refuses, and the adapter says so); the
  // shape is ours to check.
  if (exposedTo !== undefined && !(Array.isArray(exposedTo) && exposedTo.length <= 32 && exposedTo.every((o) => typeof o === 'string' && o !== ''))) {
    fail('exposedTo must be an array of up to 32 origin strings');
  }
  for (const hook of ['exposeCapability', 'confirm', 'onConflict', 'onExposedToRefused'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') fail(`${hook} must be a function`);
  }
  if (modelContext != null && !modelContextShape(modelContext)) {
    fail('modelContext has neither registerTool nor provideContext: pass a WebMCP host, or null for none');
  }
}

/** What `start(host)` rejects with when `host` carries no registry. */
export function checkAdapterHost(host: WebMcpAdapterHost): void {
  if (typeof host !== 'object' || typeof host?.registry?.snapshot !== 'function') {
    throw new TypeError('WebMcpAdapter.start(host): pass { registry, consumer? } with an agent-surface registry.');
  }
}
