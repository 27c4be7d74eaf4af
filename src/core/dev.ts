/**
 * Development-only diagnostics. `DEV_MODE` folds to `false` in the production build
 * (rollup defines `AGENT_SURFACE_PROD`), so every guarded warning disappears from it.
 */
declare const AGENT_SURFACE_PROD: boolean | undefined;

export const DEV_MODE: boolean = typeof AGENT_SURFACE_PROD === 'undefined';

const issued = new Set<string>();

/** Logs `console.warn` once per key. The code lets readers search the docs and silence it. */
export function issueWarning(code: string, key: string, message: string): void {
  const k = `${code}:${key}`;
  if (issued.has(k)) return;
  issued.add(k);
  console.warn(`[agent-surface-kit ${code}] ${message}`);
}

/** Logs `console.error` once per key: for refusals the page author must see even in production. */
export function issueError(code: string, key: string, message: string): void {
  const k = `error:${code}:${key}`;
  if (issued.has(k)) return;
  issued.add(k);
  console.error(`[agent-surface-kit ${code}] ${message}`);
}

/** Forget every issued warning (tests). */
export function resetIssuedWarnings(): void {
  issued.clear();
}
